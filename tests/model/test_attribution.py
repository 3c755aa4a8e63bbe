"""The attribution panel's arrays (``terms``, ``qk_map``): the split sums to the scores the
heatmap uses, in the head's own layout, on synthetic heads (any settings), on the presets
built for it, and on real tiny models (Llama: half, GPT-J: interleaved) against scores
computed from transformers' own projections and rotation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.core.attention import score_scale
from attnviz.core.pair_terms import rotary_pairs
from attnviz.core.rope import rope_frequencies
from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset, preset_state_values, shows_preset
from attnviz.model.resolve.attribution import attribution
from attnviz.model.workspace import Workspace


def _preset(pid: str) -> Workspace:
    ws = Workspace()
    ws.state.update(**preset_state_values(load_preset(pid)))
    return ws


def _check_sums(ws: Workspace, atol: float) -> None:
    att = attribution(ws)
    steps = ws.resolver.results.steps
    c = score_scale(ws.state.d_k, ws.state.scale, ws.state.temperature)
    np.testing.assert_allclose(att.terms.sum(axis=1), steps.raw * c, rtol=0, atol=atol)
    seen = att.allowed
    np.testing.assert_allclose(att.terms.sum(axis=1)[seen], steps.scaled[seen], atol=atol)


def test_the_hand_worked_example_has_one_pair_and_its_scores():
    ws = Workspace()
    att = attribution(ws)
    np.testing.assert_allclose(att.terms[:, 0], np.array([1, 3, 4]) / np.sqrt(2), atol=1e-15)
    assert att.inv_freq.size == 0 and np.isinf(att.periods).all()
    data = panel_data(ws, "attribution", "terms")
    assert data.rows == ("sentei", "banco", "praça") and data.columns == ("(0,1)",)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    d_k=st.integers(1, 12),
    n=st.integers(1, 9),
    rope=st.booleans(),
    rope_dims=st.integers(0, 12),
    scale=st.booleans(),
    temperature=st.floats(0.25, 4.0),
    causal=st.booleans(),
    seed=st.integers(0, 1000),
    data=st.data(),
)
def test_synthetic_terms_sum_to_the_scores_and_follow_the_interleaved_pairs(
    d_k, n, rope, rope_dims, scale, temperature, causal, seed, data
):
    ws = Workspace()
    ws.state.update(
        tokens=tuple(f"t{i}" for i in range(n)), head="content", seed=seed, d_k=d_k,
        rope=rope, rope_dims=rope_dims, scale=scale, temperature=temperature, causal=causal,
    )  # fmt: skip
    ws.state.update(selected_query=data.draw(st.integers(0, n - 1)))
    _check_sums(ws, 1e-10)
    att = attribution(ws)
    res = ws.resolver.results
    c = score_scale(d_k, scale, temperature)
    a, b, alone = rotary_pairs(d_k, "interleaved", 2 * att.inv_freq.size)
    qi = res.q[att.query]
    for col, (x, y) in enumerate(zip(a, b, strict=True)):
        want = c * (qi[x] * res.k[:, x] + qi[y] * res.k[:, y])
        np.testing.assert_allclose(att.terms[:, col], want, rtol=1e-12, atol=1e-14)
    if alone is not None:
        np.testing.assert_allclose(att.terms[:, -1], c * qi[alone] * res.k[:, alone])
    width = 0 if not rope else (d_k if rope_dims == 0 else min(rope_dims, d_k))
    width -= width % 2
    want_theta = rope_frequencies(width, 10000.0) if width else np.zeros(0)
    np.testing.assert_allclose(att.inv_freq, want_theta, rtol=1e-15)
    values = panel_data(ws, "attribution", "terms").values
    np.testing.assert_array_equal(values, att.terms)


def test_the_previous_token_head_lives_in_its_fast_pairs():
    ws = _preset("previous-token-head")
    assert ws.state.rope and shows_preset(load_preset("previous-token-head"), ws.state.snapshot())
    _check_sums(ws, 1e-10)
    att = attribution(ws)
    weights = ws.resolver.results.steps.weights
    top = int(np.argmax(weights))
    assert top == att.query - 1 and weights[top] > 0.7
    fast = att.terms.shape[1] // 2  # pairs of periods 6.3 to 199 tokens
    assert att.fast_share(top, fast) > 0.95
    row = np.abs(att.terms[att.allowed])
    assert row[:, :fast].sum() / row.sum() > 0.95
    # Every query of the head reads its previous token (the first reads itself).
    w = ws.resolver.results.attention.weights
    np.testing.assert_array_equal(np.argmax(w[1:], axis=1), np.arange(w.shape[0] - 1))


def test_the_content_head_lives_in_its_slow_pairs():
    ws = _preset("content-head")
    _check_sums(ws, 1e-10)
    att = attribution(ws)
    weights = ws.resolver.results.steps.weights
    top = int(np.argmax(weights))
    assert (att.token, att.keys[top]) == ("ele", "gato") and weights[top] > 0.5
    fast = att.terms.shape[1] // 2
    assert att.fast_share(top, fast) < 0.05
    row = np.abs(att.terms[att.allowed])
    assert row[:, :fast].sum() / row.sum() < 0.1
    # Without RoPE the same vectors read the same key: content, not position, decides.
    ws.state.update(rope=False)
    assert int(np.argmax(ws.resolver.results.steps.weights)) == top


@settings(max_examples=20, deadline=None)
@given(rope=st.sampled_from([None, True, False, 0, 1]), rope_dims=st.integers(0, 4))
def test_a_presets_rope_sets_the_rope_fields_only_when_given(rope, rope_dims):
    from attnviz.model.presets import preset_from_dict

    data = {"format": 1, "id": "x", "tokens": ["a", "b"], "q": [[1, 0], [0, 1]],
            "k": [[1, 0], [0, 1]], "v": [[1], [2]]}  # fmt: skip
    if rope is not None:
        data["rope"] = rope
    preset = preset_from_dict(data)
    values = preset_state_values(preset)
    ws = Workspace()
    ws.state.update(rope=not bool(rope), rope_dims=rope_dims)
    ws.state.update(**values)
    if rope is None:
        assert "rope" not in values and ws.state.rope_dims == rope_dims
        assert ws.state.rope == (not bool(rope))
    else:
        assert ws.state.rope is bool(rope) and ws.state.rope_dims == 0
        assert shows_preset(preset, ws.state.snapshot())
        ws.state.update(rope=not bool(rope))
        assert not shows_preset(preset, ws.state.snapshot())


def test_the_qk_map_export_is_the_projection_of_the_rotated_rows():
    ws = _preset("previous-token-head")
    res = ws.resolver.results
    data = panel_data(ws, "attribution", "qk_map")
    n = ws.state.n
    assert data.values.shape == (2 * n, 4) and data.rows[0] == "q o" and data.rows[n] == "k o"
    rows = np.vstack([res.q, res.k])
    _u, _s, vt = np.linalg.svd(rows, full_matrices=False)
    for r in range(2):
        sign = np.sign(vt[r] @ rows.T @ data.values[:, 2 + r])
        np.testing.assert_allclose(data.values[:, 2 + r], sign * rows @ vt[r], atol=1e-9)
    np.testing.assert_array_equal(data.values[:, 0], np.repeat([0.0, 1.0], n))


def test_an_unknown_array_is_one_line():
    with pytest.raises(ValueError, match="has no data") as info:
        panel_data(Workspace(), "attribution", "nope")
    assert "\n" not in str(info.value)


# --- real models -------------------------------------------------------------------------
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import SENTENCE, WORDS, make_model, save_tokenizer  # noqa: E402


def _oracle_scores(path: str, layer: int, head: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The layer's pre-softmax scores of query head ``head`` (scaling · q kᵀ), and its q
    and k before rotation, from transformers' own projections and apply_rotary_pos_emb."""
    from transformers.models.llama import modeling_llama as llama

    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    attn = model.model.layers[layer].self_attn
    seen = {}

    def hook(_module, args, kwargs):
        seen["h"] = kwargs.get("hidden_states", args[0] if args else None)
        seen["pe"] = kwargs["position_embeddings"]

    handle = attn.register_forward_pre_hook(hook, with_kwargs=True)
    ids = model_inputs(path)
    with torch.no_grad():
        model(ids)
        handle.remove()
        h = seen["h"]
        hd = attn.head_dim
        q = attn.q_proj(h).view(1, -1, model.config.num_attention_heads, hd).transpose(1, 2)
        k = attn.k_proj(h).view(1, -1, model.config.num_key_value_heads, hd).transpose(1, 2)
        cos, sin = seen["pe"]
        qr, kr = llama.apply_rotary_pos_emb(q, k, cos, sin)
        g = head // (model.config.num_attention_heads // model.config.num_key_value_heads)
        scores = (qr[0, head] @ kr[0, g].T) * attn.scaling
    return scores.double().numpy(), q[0, head].double().numpy(), k[0, g].double().numpy()


def model_inputs(path: str):
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    return torch.tensor([tok(SENTENCE)["input_ids"]])


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("llama"), "llama", layers=2)


def test_a_real_llamas_terms_sum_to_its_pre_softmax_scores_in_the_half_layout(llama):
    ws = Workspace()
    ws.state.update(head="model", model_path=llama, model_text=SENTENCE, layer=1, model_head=3)
    n = ws.state.n
    ws.state.update(selected_query=n - 1)
    scores, q0, k0 = _oracle_scores(llama, 1, 3)
    att = attribution(ws)
    assert att.layout == "half"
    np.testing.assert_allclose(att.terms.sum(axis=1), scores[n - 1], rtol=0, atol=1e-5)
    # Each pair is the rotation of the vectors before it: |q_i||k_i| cos(φ_i + (m − n)θ_i).
    model = transformers.AutoModelForCausalLM.from_pretrained(llama, local_files_only=True)
    theta = model.model.rotary_emb.inv_freq.double().numpy()
    np.testing.assert_allclose(att.inv_freq, theta, rtol=1e-12)
    d = q0.shape[1]
    zq = q0[n - 1, : d // 2] + 1j * q0[n - 1, d // 2 :]
    zk = k0[:, : d // 2] + 1j * k0[:, d // 2 :]
    dist = (n - 1 - np.arange(n))[:, None]
    want = att.scale * np.real(zq * np.conj(zk) * np.exp(1j * dist * theta))
    np.testing.assert_allclose(att.terms, want, atol=1e-5)


def test_a_real_gptj_is_split_in_its_interleaved_layout(tmp_path):
    torch.manual_seed(3)
    config = transformers.GPTJConfig(
        vocab_size=len(WORDS) + 3, n_embd=32, n_layer=1, n_head=2, rotary_dim=8,
        n_positions=64, bos_token_id=1, eos_token_id=1,
    )  # fmt: skip
    model = transformers.GPTJForCausalLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_tokenizer(tmp_path)
    ws = Workspace()
    ws.state.update(head="model", model_path=str(tmp_path), model_text=SENTENCE, model_head=1)
    n = ws.state.n
    ws.state.update(selected_query=n - 1)
    att = attribution(ws)
    assert att.layout == "interleaved" and att.pairs[:2] == ((0, 1), (2, 3))
    np.testing.assert_allclose(att.inv_freq, 1 / 10000 ** (np.arange(0, 8, 2) / 8), rtol=1e-15)
    # q and k before rotation: the projections' outputs (GPT-J: no bias, no norm).
    attn = model.transformer.h[0].attn
    seen = {}
    hooks = [
        attn.q_proj.register_forward_hook(lambda _m, _i, out: seen.__setitem__("q", out)),
        attn.k_proj.register_forward_hook(lambda _m, _i, out: seen.__setitem__("k", out)),
    ]
    with torch.no_grad():
        model(model_inputs(str(tmp_path)))
    for h in hooks:
        h.remove()
    hd = 16
    q0 = seen["q"][0].view(n, 2, hd)[:, 1].double().numpy()
    k0 = seen["k"][0].view(n, 2, hd)[:, 1].double().numpy()
    zq = q0[n - 1, 0:8:2] + 1j * q0[n - 1, 1:8:2]
    zk = k0[:, 0:8:2] + 1j * k0[:, 1:8:2]
    dist = (n - 1 - np.arange(n))[:, None]
    want = att.scale * np.real(zq * np.conj(zk) * np.exp(1j * dist * att.inv_freq))
    np.testing.assert_allclose(att.terms[:, :4], want, atol=1e-5)
    # Past rotary_dim nothing turns: the terms are the products of the projections.
    tail = att.scale * (q0[n - 1, 8::2] * k0[:, 8::2] + q0[n - 1, 9::2] * k0[:, 9::2])
    np.testing.assert_allclose(att.terms[:, 4:], tail, atol=1e-5)
    # And the whole is GPT-J's own score: its eager attention's weights, recomputed.
    model.set_attn_implementation("eager")  # the one that returns its weights
    with torch.no_grad():
        out = model(model_inputs(str(tmp_path)), output_attentions=True)
    w = out.attentions[0][0, 1, n - 1].double().numpy()
    mine = np.exp(att.terms.sum(axis=1) - att.terms.sum(axis=1).max())
    np.testing.assert_allclose(mine / mine.sum(), w, atol=1e-5)
