"""Capping, ALiBi, sinks and partial rotary through the attention topic: every resolver
(heatmap, preview, steps, heads, gradient) computes what the core computes with the same
terms, torch autograd agrees with the gradients, and the defaults change nothing."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import attention, finite_difference_check
from attnviz.core.score_terms import ScoreTerms
from attnviz.model.fields import StateError
from attnviz.model.panel_data import panel_data
from attnviz.model.resolve import Resolver
from attnviz.model.resolve.attention import rope_frequencies_for, rotate
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.topics.attention import AttentionState
from attnviz.model.workspace import Workspace

TOKENS = tuple(["the", "cat", "sat", "on", "the", "river", "bank", "today"])
TERMS = {"softcap": 1.5, "alibi": 0.25, "sink": True, "sink_logit": 0.5}


def _state(**fields) -> AttentionState:
    return AttentionState(tokens=TOKENS, head="content", d_k=8, causal=True, **fields)


def test_defaults_are_off_and_change_nothing():
    s = AttentionState()
    assert s.score_terms().plain and s.rope_dims == 0
    st = Resolver(s).results.steps
    assert st.logits is None and st.capped is None and st.terms.plain
    np.testing.assert_allclose(st.weights.round(2), [0.07, 0.31, 0.62])  # the chapter's


@pytest.mark.parametrize(
    "fields",
    [
        TERMS,
        {"softcap": 0.7},
        {"alibi": 1.0},
        {"sink": True, "sink_logit": -2.0},
        {"tuning": 0.5, "tuning_floor": 2},
        {"tuning": 0.5, "tuning_floor": 3, **TERMS},
    ],
)
def test_the_heatmap_is_the_cores_attention_with_the_same_terms(fields):
    s = _state(**fields)
    res = Resolver(s).results
    terms = ScoreTerms(
        fields.get("softcap", 0.0),
        fields.get("alibi", 0.0),
        fields.get("sink_logit") if fields.get("sink") else None,
        fields.get("tuning", 0.0),
        fields.get("tuning_floor", 8192),
    )
    ref = attention(s.q, s.k, s.v, mask=masks.causal_mask(8), terms=terms)
    np.testing.assert_allclose(res.attention.weights, ref.weights, rtol=0, atol=1e-15)
    np.testing.assert_allclose(res.attention.output, ref.output, rtol=0, atol=1e-14)
    np.testing.assert_allclose(res.attention.entropy, ref.entropy, rtol=0, atol=1e-14)


def test_steps_show_each_term_and_the_sink_takes_the_rest():
    s = _state(selected_query=5, **TERMS)
    st = Resolver(s).results.steps
    c = 1 / np.sqrt(8)
    allowed = masks.causal_mask(8)[5]
    np.testing.assert_allclose(st.scaled[allowed], st.raw[allowed] * c)
    np.testing.assert_allclose(st.capped[allowed], 1.5 * np.tanh(st.raw[allowed] * c / 1.5))
    bias = -0.25 * np.abs(5 - np.arange(8))
    np.testing.assert_allclose(st.logits[allowed], st.capped[allowed] + bias[allowed])
    assert np.isneginf(st.logits[~allowed]).all()
    assert st.weights.sum() + st.sink_weight == pytest.approx(1.0, abs=1e-15)
    e = np.exp(st.logits[allowed])
    assert st.denominator == pytest.approx(e.sum() + np.exp(0.5), rel=1e-13)
    assert st.sink_weight == pytest.approx(np.exp(0.5) / st.denominator, rel=1e-13)


def test_steps_show_the_tuned_row_before_the_cap():
    s = _state(selected_query=5, softcap=1.5, tuning=0.5, tuning_floor=2)
    st = Resolver(s).results.steps
    tau = 1 + 0.5 * np.log(4)  # query 5: ⌊6 / 2⌋ = 3
    assert st.tau == pytest.approx(tau, rel=1e-15)
    allowed = masks.causal_mask(8)[5]
    np.testing.assert_allclose(st.tuned[allowed], st.scaled[allowed] * tau, rtol=1e-15)
    np.testing.assert_allclose(st.capped[allowed], 1.5 * np.tanh(st.tuned[allowed] / 1.5))
    np.testing.assert_allclose(st.logits[allowed], st.capped[allowed], rtol=1e-15)
    assert np.isneginf(st.tuned[~allowed]).all()
    untuned = Resolver(_state(selected_query=5, softcap=1.5)).results.steps
    assert untuned.tuned is None and untuned.tau == 1.0


def test_the_preview_of_a_long_sentence_keeps_the_terms():
    """The quick picture while a worker computes: its exact rows are the exact matrix's."""
    from attnviz.model.resolve._display import preview

    n = 600
    s = AttentionState(
        tokens=tuple(f"t{i}" for i in range(n)), head="previous", d_k=4, causal=True, **TERMS
    )
    r = Resolver(s)
    qk = s.q @ s.k.T
    pic = preview(qk, 0.5, r.results.mask, "weights", s.score_terms())
    exact = r.results.attention.weights
    # Row 0 of the grid is query 0; its keys averaged in groups as the grid pools them.
    stride = pic.row_stride
    row = stride * 3
    cols = pic.values.shape[1]
    want = np.array([chunk.mean() for chunk in np.array_split(exact[row], cols)])
    np.testing.assert_allclose(pic.values[3], want, atol=1e-5)


def test_partial_rotary_turns_only_the_first_dimensions():
    s = AttentionState(tokens=TOKENS, head="content", d_k=8, rope=True, rope_dims=4)
    res = Resolver(s).results
    inv = rope_frequencies_for(4, {"base": 10000.0, "rope_type": "default"})
    q, k = rotate(s.q, s.k, inv)
    np.testing.assert_array_equal(res.q[:, 4:], s.q[:, 4:])  # the rest as they were
    np.testing.assert_allclose(res.q, q, atol=1e-15)
    np.testing.assert_allclose(res.k, k, atol=1e-15)
    assert res.rope_pairs == 2
    full = Resolver(AttentionState(tokens=TOKENS, head="content", d_k=8, rope=True)).results
    assert full.rope_pairs == 4 and not np.allclose(full.q[:, 4:], s.q[:, 4:])


def test_the_heads_panel_applies_the_terms_to_every_head():
    ws = Workspace()
    ws.state.update(
        head="projections", tokens=TOKENS, n_heads=4, n_kv_heads=2, d_model=16, causal=True, **TERMS
    )
    res = ws.resolver_for("heads").results
    terms = ws.state.score_terms()
    for i in range(4):
        q, k, v = res.q[i], res.k[i // 2], res.v[i // 2]
        ref = attention(q, k, v, mask=masks.causal_mask(8), terms=terms)
        np.testing.assert_allclose(res.weights[i], ref.weights, atol=1e-14)
    np.testing.assert_allclose(
        res.weights[ws.state.head_index], ws.resolver.results.attention.weights, atol=1e-14
    )


def _gradient_ws(**fields) -> Workspace:
    ws = Workspace()
    ws.document.restore(document_preset_values("banco"))
    ws.state.update(**fields)
    return ws


@pytest.mark.parametrize(
    "fields",
    [
        TERMS,
        {"softcap": 0.5},
        {"alibi": 0.5},
        {"sink": True, "sink_logit": 1.0},
        {"tuning": 0.7, "tuning_floor": 2, **TERMS},
    ],
)
def test_the_gradient_panel_differentiates_through_the_terms(fields):
    ws = _gradient_ws(
        head="content", tokens=TOKENS[:5], d_k=4, causal=True, grad_source="random", **fields
    )
    res = ws.resolver_for("gradient").results
    inp = res.inputs
    assert inp.terms == ws.state.score_terms()
    check = finite_difference_check(inp.q, inp.k, inp.v, inp.d_output, **inp.options())
    assert check.max_error < 1e-8
    np.testing.assert_allclose(res.chain.weights, ws.resolver.results.attention.weights, atol=1e-15)


def test_the_gradients_agree_with_torch_autograd_through_cap_alibi_and_sink():
    from tests.torch_oracle import torch

    ws = _gradient_ws(
        head="content", tokens=TOKENS[:5], d_k=4, causal=True, grad_source="random", **TERMS
    )
    res = ws.resolver_for("gradient").results
    inp = res.inputs
    q, k, v = (torch.tensor(a, requires_grad=True) for a in (inp.q, inp.k, inp.v))
    s = q @ k.T / 2.0
    s = 1.5 * torch.tanh(s / 1.5)
    idx = torch.arange(5, dtype=torch.float64)
    s = s - 0.25 * (idx[:, None] - idx[None, :]).abs()
    s = s.masked_fill(~torch.tensor(masks.causal_mask(5)), float("-inf"))
    full = torch.cat([s, torch.full((5, 1), 0.5, dtype=s.dtype)], dim=1)
    a = torch.softmax(full, -1)[:, :5]
    (a @ v * torch.tensor(inp.d_output)).sum().backward()
    np.testing.assert_allclose(res.chain.dq, q.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(res.chain.dk, k.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(res.chain.dv, v.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        {"softcap": -1.0},
        {"softcap": 1e400},
        {"alibi": 17.0},
        {"alibi": float("nan")},
        {"sink_logit": 1e3},
        {"rope_dims": -2},
        {"rope_dims": 2000},
        {"sink": "yes"},
        {"tuning": -0.5},
        {"tuning": 1e400},
        {"tuning_floor": 0},
        {"tuning_floor": 2**40},
        {"tuning_floor": 1.5},
    ],
)
def test_bad_values_are_refused_and_change_nothing(bad):
    s = _state()
    before = s.snapshot()
    with pytest.raises(StateError):
        s.update(**bad)
    assert s.snapshot().keys() == before.keys()
    assert all(
        np.array_equal(s.snapshot()[k], v) if isinstance(v, np.ndarray) else s.snapshot()[k] == v
        for k, v in before.items()
    )


def test_positions_draw_alibi_beside_rope_and_export_both():
    ws = Workspace()
    ws.document.restore(document_preset_values("alibi-vs-rope"))
    res = ws.resolver_for("positions").results
    d = res.distances
    np.testing.assert_allclose(res.alibi, 8.0 - 0.125 * np.abs(d))  # all-ones q, k: q·k = 8
    data = panel_data(ws, "positions", "alibi")
    assert data.rows == ("rope", "alibi") and data.values.shape == (2, d.size)
    np.testing.assert_array_equal(data.values[1], res.alibi)
    ws.document["positions"].update(alibi_slope=0.0)
    assert ws.resolver_for("positions").results.alibi is None
    with pytest.raises(ValueError, match="alibi_slope"):
        panel_data(ws, "positions", "alibi")
