"""A score split by rotary pair and the query–key plane, against independent computations:
the dot product, RoPE's complex form (each pair's term is |q_i||k_i| cos(φ_i + (m − n)θ_i),
computed from the vectors before rotation), transformers' own rotations (Llama's
rotate_half, GPT-J's rotate_every_two) and numpy's SVD."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.pair_terms import pair_terms, qk_projection, rotary_pairs
from attnviz.core.rope import apply_rope, rope_frequencies


def _complex(x: np.ndarray, layout: str) -> np.ndarray:
    """Each rotary pair of the rows of ``x`` as one complex number, a + ib."""
    d = x.shape[-1]
    if layout == "interleaved":
        return x[..., 0::2] + 1j * x[..., 1::2]
    return x[..., : d // 2] + 1j * x[..., d // 2 :]


def _relative_terms(q0, k0, m, n, theta, scale, layout) -> np.ndarray:
    """The pair terms of the query at ``m`` and the keys at ``n`` from q and k BEFORE
    rotation: scale · Re(z_q conj(z_k) e^{i(m−n)θ})."""
    zq, zk = _complex(q0, layout), _complex(k0, layout)
    phase = np.exp(1j * (m - n)[:, None] * theta[None, :])
    return scale * np.real(zq[None, :] * np.conj(zk) * phase)


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(1, 24),
    layout=st.sampled_from(["interleaved", "half"]),
    data=st.data(),
)
def test_every_dimension_is_in_one_pair_or_alone(d, layout, data):
    rotated = data.draw(st.sampled_from([None, *range(0, d - d % 2 + 1, 2)]))
    a, b, alone = rotary_pairs(d, layout, rotated)
    used = sorted([*a.tolist(), *b.tolist(), *([] if alone is None else [alone])])
    assert used == list(range(d))
    assert (alone is not None) == (d % 2 == 1 if rotated is None else (d - rotated) % 2 == 1)
    w = d - d % 2 if rotated is None else rotated
    if layout == "half" and w:
        np.testing.assert_array_equal(b[: w // 2] - a[: w // 2], np.full(w // 2, w // 2))
    if layout == "interleaved" and w:
        np.testing.assert_array_equal(a[: w // 2], np.arange(0, w, 2))


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(1, 20),
    n=st.integers(1, 9),
    layout=st.sampled_from(["interleaved", "half"]),
    seed=st.integers(0, 2**16),
    scale=st.floats(0.01, 10.0),
)
def test_the_terms_of_a_key_sum_to_its_scaled_score(d, n, layout, seed, scale):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=d) * 3, rng.normal(size=(n, d)) * 3
    terms = pair_terms(q, k, scale, layout=layout)
    assert terms.shape == (n, d // 2 + d % 2)
    np.testing.assert_allclose(terms.sum(axis=1), scale * (k @ q), rtol=0, atol=1e-10)
    a, b, _alone = rotary_pairs(d, layout)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        np.testing.assert_allclose(terms[:, i], scale * (q[x] * k[:, x] + q[y] * k[:, y]))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_each_pair_term_is_the_rotation_formula_of_the_vectors_before_rotation(layout):
    rng = np.random.default_rng(43)
    d, n, scale = 12, 7, 1 / np.sqrt(12)
    theta = rope_frequencies(d, 10000.0)
    q0, k0 = rng.normal(size=d), rng.normal(size=(n, d))
    pos = np.arange(n, dtype=np.float64)
    m = 5
    q = apply_rope(q0[None], [m], theta, layout=layout)[0]
    k = apply_rope(k0, pos, theta, layout=layout)
    want = _relative_terms(q0, k0, np.full(n, m), pos, theta, scale, layout)
    np.testing.assert_allclose(pair_terms(q, k, scale, layout=layout), want, atol=1e-12)
    # The other layout's pairs mix dimensions of different clocks: not the formula.
    other = "half" if layout == "interleaved" else "interleaved"
    assert np.abs(pair_terms(q, k, scale, layout=other) - want).max() > 0.1


def _hf_check(q_rot, k_rot, q0, k0, theta, scale, layout, rotated):
    """The rotated part's terms against the formula, the unrotated part's against the
    plain products, the whole against the dot product."""
    n = k_rot.shape[0]
    m = n - 1
    terms = pair_terms(q_rot[m], k_rot, scale, layout=layout, rotated=rotated)
    pos = np.arange(n, dtype=np.float64)
    head = slice(0, rotated)
    want = _relative_terms(q0[m, head], k0[:, head], np.full(n, m), pos, theta, scale, layout)
    np.testing.assert_allclose(terms[:, : rotated // 2], want, atol=1e-5)
    np.testing.assert_allclose(terms.sum(axis=1), scale * (k_rot @ q_rot[m]), atol=1e-5)
    return terms


def test_llamas_rotate_half_is_the_half_layout():
    torch = pytest.importorskip("torch")
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    rng = np.random.default_rng(1)
    n, d = 9, 16
    theta = rope_frequencies(d, 500000.0)
    ang = np.arange(n)[:, None] * theta[None, :]
    emb = np.concatenate([ang, ang], axis=1)  # transformers' cos/sin: the angles twice
    cos, sin = (torch.tensor(f(emb))[None] for f in (np.cos, np.sin))
    q0, k0 = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    q, k = llama.apply_rotary_pos_emb(
        torch.tensor(q0)[None, None], torch.tensor(k0)[None, None], cos, sin
    )
    q, k = q[0, 0].numpy(), k[0, 0].numpy()
    _hf_check(q, k, q0, k0, theta, d**-0.5, "half", d)
    with pytest.raises(AssertionError):
        _hf_check(q, k, q0, k0, theta, d**-0.5, "interleaved", d)


def test_gptjs_rotate_every_two_is_the_interleaved_layout_on_its_rotary_part():
    torch = pytest.importorskip("torch")
    gptj = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    rng = np.random.default_rng(2)
    n, d, rot = 8, 16, 8  # GPT-J turns its first rotary_dim dimensions only
    sincos = gptj.create_sinusoidal_positions(n, rot)
    sin, cos = torch.split(sincos, rot // 2, dim=-1)
    q0, k0 = rng.normal(size=(n, d)), rng.normal(size=(n, d))

    def turn(x):
        t = torch.tensor(x, dtype=torch.float32)[None, :, None, :]  # (batch, n, heads, d)
        t_rot = gptj.apply_rotary_pos_emb(t[..., :rot], sin[None], cos[None])
        return torch.cat([t_rot, t[..., rot:]], dim=-1)[0, :, 0].double().numpy()

    q, k = turn(q0), turn(k0)
    theta = rope_frequencies(rot, 10000.0)
    terms = _hf_check(q, k, q0, k0, theta, d**-0.5, "interleaved", rot)
    # Past the rotary part the pairs do not turn: their terms are the plain products.
    a, b, _ = rotary_pairs(d, "interleaved", rot)
    tail = [(x, y) for x, y in zip(a, b, strict=True) if x >= rot]
    for col, (x, y) in enumerate(tail, start=rot // 2):
        np.testing.assert_allclose(
            terms[:, col], d**-0.5 * (q0[-1, x] * k0[:, x] + q0[-1, y] * k0[:, y]), atol=1e-5
        )
    with pytest.raises(AssertionError):
        _hf_check(q, k, q0, k0, theta, d**-0.5, "half", rot)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 10), seed=st.integers(0, 2**16))
def test_the_plane_is_numpys_projection_on_the_two_first_singular_vectors(n, d, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    proj = qk_projection(q, k)
    rows = np.vstack([q, k])
    _u, s, vt = np.linalg.svd(rows, full_matrices=False)
    take = min(2, vt.shape[0])
    for r in range(take):
        # Each direction up to its sign (fixed by the largest coordinate being positive).
        sign = np.sign(vt[r] @ proj.basis[r])
        np.testing.assert_allclose(
            np.concatenate([proj.queries[:, r], proj.keys[:, r]]), sign * rows @ vt[r], atol=1e-9
        )
        assert proj.basis[r, np.argmax(np.abs(proj.basis[r]))] > 0
    np.testing.assert_allclose(proj.kept, (s[:take] ** 2).sum() / (s**2).sum(), rtol=1e-12)
    if d <= 2:  # the plane holds the rows: dot products are the head's own
        np.testing.assert_allclose(proj.queries @ proj.keys.T, q @ k.T, atol=1e-9)


def test_the_hand_worked_example_maps_exactly():
    q = np.array([[2.0, 0], [1, 2], [0, 1]])
    k = np.array([[1.0, 0], [1, 1], [0, 2]])
    proj = qk_projection(q, k)
    scores = proj.keys @ proj.queries[1]
    np.testing.assert_allclose(scores, [1.0, 3.0, 4.0], atol=1e-12)  # banco reads praça
    assert proj.kept == pytest.approx(1.0)


def test_bad_input_is_one_line():
    for call in (
        lambda: pair_terms(np.ones(4), np.ones((3, 5))),
        lambda: pair_terms(np.ones(4), np.ones((3, 4)), layout="diagonal"),
        lambda: rotary_pairs(6, "half", 3),
        lambda: qk_projection(np.ones((2, 3)), np.ones((2, 4))),
        lambda: qk_projection(np.array([[np.nan, 1.0]]), np.ones((1, 2))),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert "\n" not in str(info.value)


def test_a_real_models_rotation_is_read_from_its_config_and_buffers():
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from attnviz.core.hf_rotary import rotary_layout

    class Rotary(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("sliding_attention_inv_freq", torch.tensor([1.0, 0.5]))
            self.register_buffer("full_attention_inv_freq", torch.tensor([1.0, 0.01]))
            self.register_buffer("full_attention_original_inv_freq", torch.tensor([9.0, 9.0]))

    module = torch.nn.Module()
    module.rotary_emb = Rotary()
    cfg = SimpleNamespace(layer_types=["sliding_attention", "full_attention"])
    assert rotary_layout("gemma3_text", cfg, module, 0)[0] == "half"
    np.testing.assert_array_equal(rotary_layout("gemma3_text", cfg, module, 0)[1], [1.0, 0.5])
    np.testing.assert_allclose(
        rotary_layout("gemma3_text", cfg, module, 1)[1], [1.0, 0.01], rtol=1e-7
    )
    nope = SimpleNamespace(no_rope_layers=[1, 0])  # Llama 4: layer 1 has no RoPE
    assert rotary_layout("llama4_text", nope, module, 1)[1].size == 0
    mla = SimpleNamespace(qk_nope_head_dim=8, qk_rope_head_dim=4)
    assert rotary_layout("deepseek_v3", mla, module, 0)[1].size == 0
    layout, theta = rotary_layout("gptj", SimpleNamespace(rotary_dim=4), module, 0)
    assert layout == "interleaved"
    np.testing.assert_allclose(theta, [1.0, 0.01])
