"""RoPE: rotation properties, the context-extension scalings, and transformers' formulas."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attnviz.core.rope import (
    REGIONS,
    ScalingRegions,
    apply_rope,
    get_mscale,
    relative_matrix,
    relative_scores,
    rope_attention_factor,
    rope_frequencies,
    rotation_angles,
    scaling_regions,
    wavelengths,
    yarn_attention_factor,
)

LLAMA31 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
LAYOUTS = ("interleaved", "half")


def _rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.abs(b)))


# --- rotation -------------------------------------------------------------------------------

vec = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@st.composite
def qk_positions(draw):
    half = draw(st.integers(1, 8))
    q = draw(hnp.arrays(np.float64, (2 * half,), elements=vec))
    k = draw(hnp.arrays(np.float64, (2 * half,), elements=vec))
    m, n, shift = (draw(st.integers(0, 5000)) for _ in range(3))
    base = draw(st.sampled_from([100.0, 10000.0, 500000.0]))
    return q, k, m, n, shift, base


@settings(max_examples=200, deadline=None)
@given(qk_positions(), st.sampled_from(LAYOUTS))
def test_score_depends_only_on_relative_position(data, layout):
    q, k, m, n, shift, base = data
    f = rope_frequencies(q.shape[0], base)

    def score(pq, pk):
        rq = apply_rope(q[None], [pq], f, layout=layout)[0]
        rk = apply_rope(k[None], [pk], f, layout=layout)[0]
        return float(rq @ rk)

    scale = 1.0 + float(np.abs(q).sum() * np.abs(k).sum())
    assert abs(score(m, n) - score(m + shift, n + shift)) <= 1e-9 * scale
    # and it is the unrotated score turned by (m − n) alone
    assert abs(score(m, n) - score(m - n, 0)) <= 1e-9 * scale


@settings(max_examples=100, deadline=None)
@given(qk_positions(), st.sampled_from(LAYOUTS))
def test_rotation_keeps_norms(data, layout):
    q, _k, m, _n, _s, base = data
    f = rope_frequencies(q.shape[0], base)
    r = apply_rope(q[None], [m], f, layout=layout)[0]
    assert np.linalg.norm(r) == pytest.approx(np.linalg.norm(q), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_position_zero_is_identity(layout):
    x = np.random.default_rng(0).normal(size=(2, 5, 16))
    f = rope_frequencies(16, scaling=LLAMA31)
    np.testing.assert_array_equal(apply_rope(x, np.zeros(5), f, layout=layout), x)


def test_interleaved_and_half_agree_after_permutation():
    rng = np.random.default_rng(1)
    d, n = 12, 7
    x_half = rng.normal(size=(3, n, d))
    # pair i is (i, i + d/2) in the half layout and (2i, 2i + 1) interleaved
    perm = np.empty(d, dtype=int)
    perm[0::2] = np.arange(d // 2)
    perm[1::2] = np.arange(d // 2) + d // 2
    x_int = x_half[..., perm]
    f = rope_frequencies(d, 500.0)
    pos = np.arange(n) * 37
    np.testing.assert_allclose(
        apply_rope(x_int, pos, f, layout="interleaved"),
        apply_rope(x_half, pos, f, layout="half")[..., perm],
        rtol=0,
        atol=1e-12,
    )


def test_interleaved_rotates_each_pair_by_m_theta():
    f = rope_frequencies(4, 100.0)  # θ = [1, 0.1]
    np.testing.assert_allclose(f, [1.0, 0.1])
    out = apply_rope(np.array([[1.0, 0.0, 1.0, 0.0]]), [3], f)
    np.testing.assert_allclose(out[0], [math.cos(3), math.sin(3), math.cos(0.3), math.sin(0.3)])


def test_float32_stays_float32_and_attention_factor_scales():
    x = np.ones((4, 8), dtype=np.float32)
    f = rope_frequencies(8)
    out = apply_rope(x, np.arange(4), f, layout="half", attention_factor=2.0)
    assert out.dtype == np.float32
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), 2 * np.linalg.norm(x, axis=-1), rtol=1e-6
    )


def test_rotation_angles_and_wavelengths():
    f = rope_frequencies(8, 10000.0)
    ang = rotation_angles([0, 1, 1000], f)
    assert ang.shape == (3, 4)
    assert np.all((ang >= 0) & (ang < 2 * np.pi))
    np.testing.assert_allclose(rotation_angles([1000], f, wrap=False)[0], 1000 * f)
    np.testing.assert_allclose(ang[2], np.mod(1000 * f, 2 * np.pi))
    wl = wavelengths(f)
    np.testing.assert_allclose(wl, [2 * np.pi * 10000 ** (i / 4) for i in range(4)])
    # a hand comes back to the start after one wavelength
    back = rotation_angles([wl[1]], f)[0, 1]
    assert math.cos(back) == pytest.approx(1.0, abs=1e-12)


# --- frequencies and scalings ---------------------------------------------------------------


def test_default_frequencies():
    f = rope_frequencies(128, 10000.0)
    assert f.shape == (64,)
    assert f[0] == 1.0
    assert f[32] == pytest.approx(0.01, rel=1e-14)
    np.testing.assert_allclose(f, [10000.0 ** (-2 * i / 128) for i in range(64)], rtol=1e-14)
    np.testing.assert_array_equal(rope_frequencies(128, 10000.0, {"rope_type": "default"}), f)


def test_linear_is_theta_over_factor():
    f = rope_frequencies(64, 10000.0)
    g = rope_frequencies(64, 10000.0, {"rope_type": "linear", "factor": 4.0})
    np.testing.assert_allclose(g, f / 4.0, rtol=1e-15)


def test_ntk_changes_the_base():
    d, base, factor = 128, 10000.0, 8.0
    g = rope_frequencies(d, base, {"rope_type": "ntk", "factor": factor})
    new_base = base * factor ** (d / (d - 2))
    np.testing.assert_allclose(g, rope_frequencies(d, new_base), rtol=1e-14)
    assert g[0] == 1.0 and g[-1] < rope_frequencies(d, base)[-1]


def test_dynamic_is_plain_until_the_original_length_then_ntk_for_the_length():
    d, base = 64, 10000.0
    s = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    plain = rope_frequencies(d, base)
    for n in (None, 1, 4096):
        np.testing.assert_allclose(rope_frequencies(d, base, s, seq_len=n), plain, rtol=1e-15)
    got = rope_frequencies(d, base, s, seq_len=16384)
    expected_base = base * ((2.0 * 16384 / 4096) - 1.0) ** (d / (d - 2))
    np.testing.assert_allclose(
        got, [expected_base ** (-2 * i / d) for i in range(d // 2)], rtol=1e-13
    )


def _llama31_reference(dim, base, factor, low, high, old):
    out = []
    for i in range(0, dim, 2):
        theta = 1.0 / base ** (i / dim)
        wavelen = 2 * math.pi / theta
        if wavelen < old / high:
            out.append(theta)
        elif wavelen > old / low:
            out.append(theta / factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            out.append((1 - smooth) * theta / factor + smooth * theta)
    return out


def test_llama31_scaling_against_an_independent_loop():
    got = rope_frequencies(128, 500000.0, LLAMA31)
    ref = _llama31_reference(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    assert _rel(got, ref) < 1e-12
    plain = rope_frequencies(128, 500000.0)
    wl = wavelengths(plain)
    # short wavelengths (< 2048 tokens) untouched, long ones (> 8192) slowed down 8x
    np.testing.assert_array_equal(got[wl < 2048], plain[wl < 2048])
    np.testing.assert_allclose(got[wl > 8192], plain[wl > 8192] / 8, rtol=1e-15)
    # by hand: 500000^(i/64)·2π < 2048 for i ≤ 28, > 8192 for i ≥ 35
    assert (wl < 2048).sum() == 29 and (wl > 8192).sum() == 29
    assert got[0] == 1.0 and got[-1] == pytest.approx(plain[-1] / 8, rel=1e-15)


def _yarn_reference(dim, base, factor, orig, beta_fast=32, beta_slow=1):
    def cdim(rot):
        return dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(cdim(beta_fast)), 0)
    high = min(math.ceil(cdim(beta_slow)), dim - 1)
    out = []
    for j in range(dim // 2):
        theta = base ** (-2 * j / dim)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        # ramp 0: high frequency, extrapolated (kept); ramp 1: interpolated (θ / factor)
        out.append(theta * (1 - ramp) + theta / factor * ramp)
    return out, low, high


def test_yarn_frequencies_against_an_independent_loop():
    got = rope_frequencies(128, 1000000.0, YARN)
    ref, low, high = _yarn_reference(128, 1000000.0, 4.0, 32768)
    assert (low, high) == (23, 40)  # by hand: floor(23.6), ceil(39.65)
    assert _rel(got, ref) < 1e-12
    assert got[0] == 1.0
    assert got[-1] == pytest.approx(1000000.0 ** (-126 / 128) / 4, rel=1e-14)


def test_yarn_without_truncation_uses_the_fractional_range():
    s = dict(YARN, truncate=False)
    got = rope_frequencies(128, 1000000.0, s)
    low = 128 * math.log(32768 / (32 * 2 * math.pi)) / (2 * math.log(1e6))
    high = 128 * math.log(32768 / (1 * 2 * math.pi)) / (2 * math.log(1e6))
    j = np.arange(64)
    ramp = np.clip((j - low) / (high - low), 0, 1)
    theta = rope_frequencies(128, 1000000.0)
    np.testing.assert_allclose(got, theta * (1 - ramp) + theta / 4 * ramp, rtol=1e-13)
    assert not np.allclose(got, rope_frequencies(128, 1000000.0, YARN))


def test_yarn_attention_factor():
    assert round(yarn_attention_factor(4.0), 4) == 1.1386
    assert yarn_attention_factor(1.0) == 1.0
    assert get_mscale(0.5) == 1.0
    assert yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0) == pytest.approx(1.0)
    assert yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=0.707) == pytest.approx(
        (0.1 * math.log(40) + 1) / (0.0707 * math.log(40) + 1)
    )
    assert rope_attention_factor(YARN) == yarn_attention_factor(4.0)
    assert rope_attention_factor(dict(YARN, attention_factor=0.5)) == 0.5
    assert rope_attention_factor(LLAMA31) == 1.0 and rope_attention_factor(None) == 1.0


def test_yarn_factor_from_context_growth():
    s = {
        "rope_type": "yarn",
        "factor": None,
        "original_max_position_embeddings": 4096,
        "max_position_embeddings": 16384,
    }
    np.testing.assert_allclose(
        rope_frequencies(64, 10000.0, s),
        rope_frequencies(64, 10000.0, dict(s, factor=4.0)),
    )
    assert rope_attention_factor(s) == yarn_attention_factor(4.0)


def test_legacy_type_key_is_accepted():
    np.testing.assert_array_equal(
        rope_frequencies(32, scaling={"type": "linear", "factor": 2.0}),
        rope_frequencies(32, scaling={"rope_type": "linear", "factor": 2.0}),
    )


# --- relative position: q_m·k_n depends only on m − n -------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("base, scaling", [(10000.0, None), (500000.0, LLAMA31)])
def test_relative_scores_are_the_same_at_every_offset(layout, base, scaling):
    rng = np.random.default_rng(7)
    q, k = rng.normal(size=64), rng.normal(size=64)
    f = rope_frequencies(64, base, scaling)
    distances = np.arange(-40, 200)
    offsets = [0, 1, 17, 1000, 4096]
    s = relative_scores(q, k, f, distances, offsets, layout=layout)
    assert s.shape == (5, 240) and s.dtype == np.float64
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    np.testing.assert_allclose(s, np.broadcast_to(s[0], s.shape), rtol=0, atol=1e-12 * scale)
    # and each entry is the plain definition (R_m q)·(R_n k)
    m, n = offsets[3] + distances[50], offsets[3]
    rq = apply_rope(q[None], [m], f, layout=layout)[0]
    rk = apply_rope(k[None], [n], f, layout=layout)[0]
    direct = rq @ rk
    assert s[3, 50] == pytest.approx(direct, rel=1e-12, abs=1e-12 * scale)
    # at distance 0 the rotations cancel: the unrotated score
    assert s[2, 40] == pytest.approx(q @ k, abs=1e-12 * scale)


def test_relative_scores_by_hand_for_one_pair():
    # one pair, θ = 1: q = [1, 0], k = [1, 0] → cos((m − n)·θ)
    s = relative_scores([1.0, 0.0], [1.0, 0.0], [1.0], [0, 1, 2, -3], offsets=[5, 9])
    np.testing.assert_allclose(s, [np.cos([0, 1, 2, -3])] * 2, rtol=0, atol=1e-14)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_relative_matrix_is_toeplitz(layout):
    rng = np.random.default_rng(8)
    q, k = rng.normal(size=32), rng.normal(size=32)
    f = rope_frequencies(32, 10000.0, YARN)
    mat = relative_matrix(q, k, f, 64, layout=layout)
    assert mat.shape == (64, 64)
    scale = np.linalg.norm(q) * np.linalg.norm(k)
    for offset in range(-63, 64):
        diag = np.diagonal(mat, offset)
        assert np.max(np.abs(diag - diag[0])) <= 1e-12 * scale
    # row m, column n is q_m·k_n: the diagonal below the main one is distance m − n = 1
    np.testing.assert_allclose(
        np.diagonal(mat, -1)[0], relative_scores(q, k, f, [1], layout=layout)[0, 0], rtol=1e-12
    )
    np.testing.assert_allclose(np.diag(mat), q @ k, rtol=1e-12)


def test_relative_functions_reject_bad_input():
    f = rope_frequencies(8)
    q = np.ones(8)
    with pytest.raises(ValueError, match="q must be one vector"):
        relative_scores(np.ones(6), q, f, [0])
    with pytest.raises(ValueError, match="k must be one vector"):
        relative_matrix(q, np.ones((2, 8)), f, 4)
    with pytest.raises(ValueError, match="distances"):
        relative_scores(q, q, f, [[0, 1]])
    with pytest.raises(ValueError, match="non-finite"):
        relative_scores(q, q, f, [0, np.nan])
    with pytest.raises(ValueError, match="offsets"):
        relative_scores(q, q, f, [0], offsets=[])
    with pytest.raises(ValueError, match="layout"):
        relative_scores(q, q, f, [0], layout="gptj")
    with pytest.raises(ValueError, match="n must be"):
        relative_matrix(q, q, f, 0)


# --- which pairs a scaling keeps, slows down or blends ----------------------------------------


def test_llama31_regions_follow_the_wavelength_thresholds():
    r = scaling_regions(128, 500000.0, LLAMA31)
    assert isinstance(r, ScalingRegions) and r.rope_type == "llama3" and r.factor == 8.0
    # _compute_llama3_parameters, independently: wavelen = 2π / (1 / 500000^(2i/128)),
    # kept when < 8192 / 4, divided by 8 when > 8192 / 1, smoothed in between
    wavelen = [2 * math.pi * 500000.0 ** (i / 128) for i in range(0, 128, 2)]
    kept = sum(w < 8192 / 4.0 for w in wavelen)
    divided = sum(w > 8192 / 1.0 for w in wavelen)
    assert r.counts() == {
        "extrapolated": kept,
        "interpolated": divided,
        "blended": 64 - kept - divided,
    }
    assert (kept, divided) == (29, 29)
    assert list(r.region[:kept]) == ["extrapolated"] * kept  # the fast pairs come first
    np.testing.assert_allclose(r.wavelength_before, wavelen, rtol=1e-13)
    np.testing.assert_array_equal(r.ratio[r.region == "extrapolated"], 1.0)
    np.testing.assert_array_equal(r.ratio[r.region == "interpolated"], 8.0)
    blended = r.ratio[r.region == "blended"]
    assert np.all((blended > 1.0) & (blended < 8.0)) and np.all(np.diff(blended) > 0)
    np.testing.assert_allclose(r.wavelength_after / r.wavelength_before, r.ratio, rtol=1e-14)
    assert r.attention_factor == 1.0


def test_yarn_regions_follow_the_beta_ramp():
    r = scaling_regions(128, 1000000.0, YARN)
    assert round(r.attention_factor, 4) == 1.1386
    _ref, low, high = _yarn_reference(128, 1000000.0, 4.0, 32768)
    j = np.arange(64)
    np.testing.assert_array_equal(r.region == "extrapolated", j <= low)
    np.testing.assert_array_equal(r.region == "interpolated", j >= high)
    assert r.counts() == {"extrapolated": 24, "interpolated": 24, "blended": 16}
    # kept pairs turn more than beta_fast = 32 times in the original 32768 tokens,
    # interpolated ones less than beta_slow = 1 time
    turns = 32768 / r.wavelength_before
    assert np.all(turns[r.region == "extrapolated"] > 32)
    assert np.all(turns[r.region == "interpolated"] < 1)
    np.testing.assert_allclose(r.ratio[r.region == "interpolated"], 4.0, rtol=1e-15)
    np.testing.assert_allclose(r.ratio[r.region == "extrapolated"], 1.0, rtol=1e-15)


def test_linear_regions_are_all_interpolated_by_exactly_the_factor():
    for factor in (2.0, 3.0, 4.0, 7.5):
        r = scaling_regions(64, 10000.0, {"rope_type": "linear", "factor": factor})
        assert set(r.region) == {"interpolated"}
        assert np.all(r.ratio == factor)
        np.testing.assert_allclose(r.wavelength_after, r.wavelength_before * factor, rtol=1e-15)


def test_ntk_regions_by_ratio():
    d, factor = 128, 8.0
    r = scaling_regions(d, 10000.0, {"rope_type": "ntk", "factor": factor})
    # base · factor^(d/(d−2)): pair i's wavelength grows by factor^(2i/(d−2))
    np.testing.assert_allclose(r.ratio, factor ** (2 * np.arange(64) / (d - 2)), rtol=1e-12)
    assert r.region[0] == "extrapolated" and r.region[-1] == "interpolated"
    assert set(r.region[1:-1]) == {"blended"}
    # a looser tolerance calls the nearly unchanged fast pairs extrapolated
    loose = scaling_regions(d, 10000.0, {"rope_type": "ntk", "factor": factor}, rtol=0.1)
    assert loose.counts()["extrapolated"] == int(np.sum(r.ratio <= 1.1 + 1e-12))


def test_no_scaling_and_dynamic_below_the_original_length_change_nothing():
    dyn = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    for scaling, seq_len in ((None, None), (dyn, None), (dyn, 4096)):
        r = scaling_regions(64, 10000.0, scaling, seq_len=seq_len)
        assert set(r.region) == {"extrapolated"} and np.all(r.ratio == 1.0)
    r = scaling_regions(64, 10000.0, dyn, seq_len=16384)
    assert r.region[0] == "extrapolated" and r.counts()["blended"] == 31  # 32 pairs
    assert set(r.region) <= set(REGIONS)


def test_scaling_regions_are_read_only_and_validated():
    r = scaling_regions(16, 10000.0, LLAMA31)
    with pytest.raises(ValueError):
        r.ratio[0] = 2.0
    with pytest.raises(ValueError, match="even"):
        scaling_regions(7)
    with pytest.raises(ValueError, match="rope_type"):
        scaling_regions(8, scaling={"rope_type": "su"})
    with pytest.raises(ValueError, match="rtol"):
        scaling_regions(8, rtol=-1)


# --- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"head_dim": 7}, "even"),
        ({"head_dim": 0}, "head_dim"),
        ({"head_dim": 2.5}, "integer"),
        ({"head_dim": 8, "base": 1.0}, "base"),
        ({"head_dim": 8, "base": float("nan")}, "finite"),
        ({"head_dim": 8, "scaling": {"rope_type": "linear", "factor": 0.5}}, "factor"),
        ({"head_dim": 8, "scaling": {"rope_type": "linear"}}, "factor"),
        ({"head_dim": 8, "scaling": {"rope_type": "su"}}, "llama3"),
        ({"head_dim": 8, "scaling": {"rope_type": "yarn", "factor": 2.0}}, "original_max"),
        ({"head_dim": 8, "scaling": dict(LLAMA31, high_freq_factor=0.5)}, "high_freq"),
        ({"head_dim": 8, "scaling": "linear"}, "dict"),
        ({"head_dim": 8, "seq_len": 0}, "seq_len"),
    ],
)
def test_bad_frequency_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rope_frequencies(**kwargs)


def test_bad_apply_arguments_raise():
    f = rope_frequencies(8)
    x = np.ones((3, 8))
    with pytest.raises(ValueError, match="layout"):
        apply_rope(x, np.arange(3), f, layout="gptj")
    with pytest.raises(ValueError, match="twice"):
        apply_rope(np.ones((3, 6)), np.arange(3), f)
    with pytest.raises(ValueError, match="positions"):
        apply_rope(x, np.arange(4), f)
    with pytest.raises(ValueError, match="non-finite"):
        apply_rope(np.full((3, 8), np.nan), np.arange(3), f)
    with pytest.raises(ValueError, match="non-finite"):
        apply_rope(x, [0, np.inf, 1], f)
    with pytest.raises(ValueError, match="attention_factor"):
        apply_rope(x, np.arange(3), f, attention_factor=0)


# --- torch: transformers' float32 formulas and rotate_half ----------------------------------


def _hf_llama3_torch(torch, dim, base, s):
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv_freq
    out = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < old / high) * ~(wavelen > old / low)
    return torch.where(medium, smoothed, out)


def test_llama3_matches_a_torch_float32_port_of_transformers():
    from tests.torch_oracle import torch

    got = rope_frequencies(128, 500000.0, LLAMA31)
    ref = _hf_llama3_torch(torch, 128, 500000.0, LLAMA31).double().numpy()
    assert _rel(got, ref) < 1e-6


def test_half_layout_matches_rotate_half_in_torch():
    from tests.torch_oracle import torch

    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 9, 16))
    pos = np.arange(9) * 11
    f = rope_frequencies(16, 10000.0, YARN)
    xt = torch.tensor(x)
    freqs = torch.outer(torch.tensor(pos, dtype=torch.float64), torch.tensor(f))
    emb = torch.cat((freqs, freqs), dim=-1)
    half = xt.shape[-1] // 2
    rotated = torch.cat((-xt[..., half:], xt[..., :half]), dim=-1)
    ref = (xt * emb.cos() + rotated * emb.sin()).numpy()
    np.testing.assert_allclose(apply_rope(x, pos, f, layout="half"), ref, rtol=0, atol=1e-12)


def _hf_yarn_torch(torch, dim, base, factor, orig, beta_fast=32, beta_slow=1):
    def cdim(rot):
        return (dim * math.log(orig / (rot * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(cdim(beta_fast)), 0)
    high = min(math.ceil(cdim(beta_slow)), dim - 1)
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).float() / dim)
    extrapolation = 1 - ramp
    return (1.0 / (factor * pos_freqs)) * (1 - extrapolation) + (1.0 / pos_freqs) * extrapolation


def test_yarn_matches_a_torch_float32_port_of_transformers():
    from tests.torch_oracle import torch

    for dim, base in ((128, 1000000.0), (64, 10000.0)):
        got = rope_frequencies(dim, base, YARN)
        ref = _hf_yarn_torch(torch, dim, base, 4.0, 32768).double().numpy()
        assert _rel(got, ref) < 1e-6


def test_ntk_and_dynamic_leave_a_single_pair_as_it_is():
    # head_dim 2: one pair at θ₀ = base⁰ = 1, which no new base can change
    for kind in ("ntk", "dynamic"):
        scaling = {"rope_type": kind, "factor": 4.0, "original_max_position_embeddings": 64}
        np.testing.assert_array_equal(rope_frequencies(2, 10000.0, scaling, seq_len=500), [1.0])
