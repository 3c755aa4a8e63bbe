"""The gradient resolver: the backward pass of one head, the softmax Jacobian, saturation.

Numbers come from the chapter's reference run (``backward-reference``), torch autograd as
an oracle, central finite differences and exact closed forms.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.attention import softmax, softmax_jacobian
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.panel_data import data_names, panel_data
from attnviz.model.resolve.gradient import (
    MAX_BACKWARD_TOKENS,
    backward_chain,
    jacobian_size,
    log10_sizes,
    run_check,
    upstream_gradient,
)
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace

#: GUIDE.md, section 5: the reference run's A and the first row of dQ (three decimals).
REFERENCE_A = [[0.226, 0.475, 0.298], [0.144, 0.598, 0.259], [0.668, 0.235, 0.097]]
REFERENCE_DQ0 = [0.456, 0.354, 0.099, 0.209]


def _workspace(preset: str = "banco", **fields) -> Workspace:
    ws = Workspace()
    ws.document.restore(document_preset_values(preset))
    if fields:
        ws.state.update(**fields)
    return ws


def _results(ws: Workspace):
    return ws.resolver_for("gradient").results


def test_the_panel_exports_exactly_the_named_arrays():
    assert data_names("gradient") == ("jacobian", "dscores", "dq", "dk", "dv", "d_output")


def test_backward_reference_reproduces_the_chapter():
    ws = _workspace("backward-reference")
    assert ws.state.grad_source == "preset"
    a = panel_data(ws, "heatmap", "weights").values
    np.testing.assert_array_equal(np.round(a, 3), REFERENCE_A)
    dq = panel_data(ws, "gradient", "dq")
    np.testing.assert_array_equal(np.round(dq.values[0], 3), REFERENCE_DQ0)
    assert dq.rows == ("t1", "t2", "t3")
    # dO is the fourth normal(size=(3, 4)) draw of default_rng(0), after q, k and v.
    rng = np.random.default_rng(0)
    draws = [rng.normal(size=(3, 4)) for _ in range(4)]
    np.testing.assert_array_equal(panel_data(ws, "gradient", "d_output").values, draws[3])
    np.testing.assert_allclose(_results(ws).chain.weights, a, rtol=0, atol=1e-15)


def _torch_backward(inputs, torch):
    t = {n: torch.tensor(getattr(inputs, n), dtype=torch.float64) for n in ("q", "k", "v")}
    for x in t.values():
        x.requires_grad_(True)
    c = (1 / math.sqrt(inputs.q.shape[1]) if inputs.scale else 1.0) / inputs.temperature
    s = (t["q"] @ t["k"].T) * c
    s.retain_grad()
    logits = s
    if inputs.mask is not None:
        logits = s.masked_fill(~torch.tensor(inputs.mask), float("-inf"))
    a = torch.softmax(logits, dim=-1)
    a.retain_grad()
    out = a @ t["v"]
    (out * torch.tensor(inputs.d_output)).sum().backward()
    return {
        "dq": t["q"].grad, "dk": t["k"].grad, "dv": t["v"].grad,
        "dscores": s.grad, "da": a.grad, "weights": a.detach(),
    }  # fmt: skip


@pytest.mark.parametrize(
    ("preset", "fields"),
    [
        ("backward-reference", {}),
        ("backward-reference", {"grad_source": "random", "grad_seed": 7, "temperature": 0.7}),
        ("banco", {"causal": True}),
        ("gato", {"scale": False, "grad_source": "random"}),
        ("banco", {"rope": True, "head": "content", "d_k": 6}),
    ],
)
def test_every_matrix_agrees_with_torch_autograd(preset, fields):
    from tests.torch_oracle import torch

    ws = _workspace(preset, **fields)
    res = _results(ws)
    ref = _torch_backward(res.inputs, torch)
    for name, expected in ref.items():
        np.testing.assert_allclose(
            getattr(res.chain, name), expected.numpy(), rtol=0, atol=1e-10, err_msg=name
        )
    row = torch.tensor(
        np.where(res.allowed, res.inputs.q[res.inputs.query] @ res.inputs.k.T, -np.inf)
        * (1 / math.sqrt(ws.state.d_k) if ws.state.scale else 1.0)
        / ws.state.temperature
    )
    jac = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, -1), row)
    np.testing.assert_allclose(res.jacobian, jac.numpy(), rtol=0, atol=1e-10)


def test_with_rope_the_gradients_are_those_of_the_rotated_q_and_k():
    ws = _workspace("banco", rope=True, head="content", d_k=8)
    res = _results(ws)
    np.testing.assert_array_equal(res.inputs.q, ws.resolver.results.q)
    np.testing.assert_array_equal(res.inputs.k, ws.resolver.results.k)
    assert not np.allclose(res.inputs.q, ws.state.q)  # rotated, not the typed vectors


@pytest.mark.parametrize("preset", ["backward-reference", "banco", "gato", "long-sentence"])
@pytest.mark.parametrize("source", ["onehot", "random"])
def test_every_row_of_ds_sums_to_zero(preset, source):
    res = _results(_workspace(preset, grad_source=source, grad_seed=3))
    assert np.abs(res.chain.row_sums).max() <= 1e-12
    np.testing.assert_array_equal(res.chain.row_sums, res.chain.dscores.sum(axis=1))


def test_the_jacobian_of_bancos_selected_row_is_diag_a_minus_a_at():
    ws = _workspace("banco")
    i = ws.state.selected_query
    a = ws.resolver.results.attention.weights[i]
    jac = panel_data(ws, "gradient", "jacobian").values
    np.testing.assert_allclose(jac, np.diag(a) - np.outer(a, a), rtol=0, atol=1e-15)
    np.testing.assert_allclose(jac.sum(axis=0), 0, atol=1e-15)  # a constant shift does nothing
    size = _results(ws).size
    assert size.max_entry == pytest.approx(np.abs(jac).max(), rel=1e-12)
    assert size.frobenius == pytest.approx(np.linalg.norm(jac), rel=1e-12)


def test_without_the_divisor_a_content_head_at_d_k_128_has_a_dead_jacobian():
    ws = _workspace("banco", head="content", d_k=128, scale=False)
    dead = _results(ws).size
    assert dead.max_entry < 1e-6 and dead.frobenius < 1e-6
    ws.state.update(scale=True)
    alive = _results(ws).size
    assert alive.max_entry > 1e-2
    # the saturation curve says the same at every width: the divisor keeps the size
    curve = _results(ws).saturation.d_k
    assert curve.scaled[0][curve.x >= 2].min() > -2 and curve.unscaled[0][-1] < -20
    assert np.all(np.diff(curve.unscaled[0][curve.x >= 8]) < 0)  # falls as d_k grows


def test_the_current_setting_lies_on_the_curves_of_a_synthetic_head():
    ws = _workspace("gato", head="content", d_k=32, temperature=0.5, scale=False)
    sat = _results(ws).saturation
    at = list(sat.d_k.x).index(32)
    assert sat.d_k.unscaled[0][at] == pytest.approx(sat.current.log10_max, abs=1e-12)
    at = list(sat.temperature.x).index(0.5)
    assert sat.temperature.unscaled[1][at] == pytest.approx(sat.current.log10_fro, abs=1e-12)
    assert sat.model == "head"
    assert _results(_workspace("banco")).saturation.model == "random"


def test_the_size_is_exact_in_log_space_far_below_a_double():
    # Two keys with logits 0 and x: the largest entry is a(1 − a) = e^−x / (1 + e^−x)².
    for x in (1.0, 30.0, 1000.0):
        expected = (-x - 2 * math.log1p(math.exp(-x))) / math.log(10)
        size = jacobian_size(np.array([0.0, x]))
        assert size.log10_max == pytest.approx(expected, abs=1e-12)
        assert size.log10_fro == pytest.approx(expected + math.log10(2), abs=1e-12)
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(6, 9)) * 3
    logits[2, [1, 4]] = -np.inf
    log_max, log_fro = log10_sizes(logits)
    for row, m, f in zip(logits, log_max, log_fro, strict=True):
        jac = softmax_jacobian(softmax(row))
        assert 10**m == pytest.approx(np.abs(jac).max(), rel=1e-9)
        assert 10**f == pytest.approx(np.linalg.norm(jac), rel=1e-9)
    assert jacobian_size(np.array([2.0, -np.inf])).max_entry == 0.0  # one key: constant


def test_the_finite_difference_check_agrees_to_1e_8():
    res = _results(_workspace("backward-reference"))
    check = run_check(res.inputs)
    assert check.max_error <= 1e-8
    masked = _results(_workspace("gato", causal=True, grad_source="random"))
    assert run_check(masked.inputs).max_error <= 1e-8


def test_masks_leave_masked_gradients_at_exactly_zero():
    padding = (False, True, True, True, True)
    ws = _workspace("gato", causal=True, padding=padding, grad_source="random", grad_seed=1)
    chain = _results(ws).chain
    n = ws.state.n
    hidden = ~np.tril(np.ones((n, n), bool)) | ~np.array(padding)[None, :]
    assert np.all(chain.dscores[hidden] == 0.0)
    assert np.all(chain.weights[hidden] == 0.0)
    # token 0 is hidden from every query: its key and value receive no gradient at all
    assert np.all(chain.dk[0] == 0.0) and np.all(chain.dv[0] == 0.0)
    # query 0 may only see key 0, which is hidden: a fully masked row passes nothing back
    assert np.all(chain.dq[0] == 0.0)
    assert np.all(chain.dscores[1:].sum(axis=1) < 1e-12)


def test_the_upstream_gradient_sources():
    d_o = upstream_gradient("onehot", 3, 2, query=1, dim=1)
    np.testing.assert_array_equal(d_o, [[0, 0], [0, 1], [0, 0]])
    np.testing.assert_array_equal(
        upstream_gradient("random", 3, 2, seed=4), np.random.default_rng(4).normal(size=(3, 2))
    )
    with pytest.raises(ValueError, match="no upstream gradient"):
        upstream_gradient("preset", 3, 2)
    # a one-hot loss on the selected query: only that query's dQ row is non-zero
    ws = _workspace("banco", grad_source="onehot", grad_dim=1)
    chain = _results(ws).chain
    i = ws.state.selected_query
    assert np.all(np.delete(chain.dq, i, axis=0) == 0) and np.any(chain.dq[i] != 0)
    np.testing.assert_array_equal(chain.dv, np.outer(chain.weights[i], [0.0, 1.0]))


def test_the_resolver_is_lazy_and_ignores_the_heatmaps_view():
    ws = _workspace("banco")
    resolver = ws.resolver_for("gradient")
    _ = resolver.results
    before = resolver.computations
    ws.state.update(temperature=2.0)
    assert resolver.computations == before  # nobody looks: nothing computed
    _ = resolver.results
    assert resolver.computations == before + 1
    resolver.watch("test")
    ws.state.update(selected_cell=(0, 1), colormap="magma", matrix="scores")
    ws.document.positions.update(base=500.0)  # RoPE is off: the rotation does not matter
    assert resolver.computations == before + 1
    ws.state.update(grad_seed=9)
    assert resolver.computations == before + 2


def test_long_sentences_skip_the_drawn_matrices_but_export_them():
    tokens = tuple(f"w{i}" for i in range(MAX_BACKWARD_TOKENS + 8))
    ws = _workspace("banco", head="previous", d_k=4, tokens=tokens, selected_query=3)
    res = _results(ws)
    assert res.limited and res.jacobian is None and res.saturation.d_k is None
    dq = panel_data(ws, "gradient", "dq").values
    np.testing.assert_array_equal(dq, backward_chain(res.inputs).dq)
    assert panel_data(ws, "gradient", "jacobian").values.shape == (len(tokens),) * 2


def test_the_cli_writes_the_reference_dq(tmp_path):
    out = tmp_path / "x.csv"
    cmd = [sys.executable, "-m", "attnviz", "export", "--preset", "backward-reference",
           "--panel", "gradient", "--matrix", "dq", "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    lines = out.read_text().splitlines()
    assert lines[0].split(",")[1:] == ["0", "1", "2", "3"]
    first = [float(x) for x in lines[1].split(",")[1:]]
    assert lines[1].startswith("t1,")
    np.testing.assert_array_equal(np.round(first, 3), REFERENCE_DQ0)
    ws = _workspace("backward-reference")
    got = np.array([[float(x) for x in line.split(",")[1:]] for line in lines[1:]])
    np.testing.assert_array_equal(got, panel_data(ws, "gradient", "dq").values)


# --- the gradient fields refuse what they cannot hold, and change nothing ----------------
def _not_integral(x: float) -> bool:
    return not (math.isfinite(x) and x == int(x))


_BAD = {
    "grad_source": st.one_of(st.text().filter(lambda s: s not in ("preset", "random", "onehot")),
                             st.integers(), st.none(), st.booleans()),
    # Floats with an integer value are seeds (JSON may write 8 as 8.0): only the others.
    "grad_seed": st.one_of(st.integers(min_value=2**31), st.integers(max_value=-1),
                           st.just(1e400), st.floats().filter(_not_integral), st.text(),
                           st.booleans()),
    "grad_dim": st.one_of(st.integers(min_value=2), st.integers(max_value=-1), st.just(1e400),
                          st.just("1"), st.just("no"), st.booleans(), st.none()),
    "d_output": st.one_of(st.just("[[1, 2]]"), st.integers(), st.just([[1e400, 0.0]] * 3),
                          st.just([[1.0, 2.0]]), st.just([[float("nan"), 0.0]] * 3)),
}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_BAD)).flatmap(lambda n: st.tuples(st.just(n), _BAD[n])))
def test_bad_gradient_values_raise_and_change_nothing(item):
    name, value = item
    doc = Document()
    before = doc.snapshot()
    events = []
    doc.changed.connect(lambda topic, names: events.append(names))
    with pytest.raises(StateError):
        doc.attention.update(**{name: value})
    with pytest.raises(StateError):
        doc.set_field(f"attention.{name}", value)
    assert events == []
    after = doc.snapshot()
    for topic, fields in before.items():
        for key, val in fields.items():
            other = after[topic][key]
            if isinstance(val, np.ndarray):
                np.testing.assert_array_equal(val, other)
            else:
                assert val == other, key


def test_the_preset_source_needs_the_examples_own_gradient():
    ws = _workspace("banco")
    with pytest.raises(StateError, match="no upstream gradient"):
        ws.state.update(grad_source="preset")
    ws = _workspace("backward-reference")
    ws.state.update(tokens=("a", "b"))  # dO no longer fits: back to one output entry
    assert ws.state.grad_source == "onehot" and ws.state.d_output is None
    assert _results(ws).chain.d_output.shape == (2, 4)


def test_gradient_of_a_projected_head_uses_the_random_curve():
    from attnviz.model.topic_presets import document_preset_values
    from attnviz.model.workspace import Workspace

    ws = Workspace()
    ws.document.restore(document_preset_values("heads"))
    res = ws.resolver_for("gradient").results
    s = ws.state
    assert s.head == "projections"
    np.testing.assert_allclose(res.chain.dscores.sum(axis=1), 0, atol=1e-12)
    assert res.chain.dq.shape == (s.n, s.d_k)


def test_the_resolver_runs_the_check_on_the_runner_and_a_cancel_drops_its_answer():
    from tests.model.test_latest_work import HeldRunner

    runner = HeldRunner()
    ws = Workspace(runner=runner)
    resolver = ws.resolver_for("gradient")
    done, failed = [], []
    resolver.check_done.connect(done.append)
    resolver.check_failed.connect(failed.append)
    want = run_check(resolver.results.inputs)
    resolver.request_check()
    assert len(runner.jobs) == 1 and done == []
    assert resolver.cancel_check() and not resolver.cancel_check()
    runner.finish()
    assert done == [] and failed == []  # a cancelled check says nothing
    resolver.request_check()
    resolver.request_check()  # the newest replaces the first
    runner.finish(1)
    runner.finish(0)
    assert len(done) == 1 and failed == []
    assert (done[0].dq, done[0].dk, done[0].dv) == (want.dq, want.dk, want.dv)
    assert done[0].max_error <= 1e-8
