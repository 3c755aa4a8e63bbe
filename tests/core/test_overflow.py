"""Issue 39 item 7: the core's float32 overflow handled as float64 does.

Before: q = 1e20 against two keys of −1e20 gave weights [0, 0] in float32 (the scores
overflowed to −inf and the row looked fully masked; float64 gives [0.5, 0.5]),
``tiled_attention`` gave NaN, and ``temperature=5e-324`` passed validation and gave NaN.
Now float32 scores that could overflow are computed in float64 (each row a distribution,
equal to float64's), float64 scores that could overflow are refused in one line, and a
temperature that makes the scale infinite or zero is refused.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attnviz.core import tiled
from attnviz.core.attention import attention, attention_backward, scaled_scores, score_scale
from attnviz.core.backends import get_backend

try:
    import torch  # noqa: F401

    BACKENDS = ("numpy", "torch")
except ImportError:  # torch is optional
    BACKENDS = ("numpy",)


def _issue_case(dtype):
    q = np.array([[1e20]], dtype)
    k = np.array([[-1e20], [-1e20]], dtype)
    v = np.array([[1.0], [3.0]], dtype)
    return q, k, v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_issue_case_gives_half_and_half_in_both_dtypes(dtype):
    q, k, v = _issue_case(dtype)
    res = attention(q, k, v)
    assert res.weights.dtype == dtype and res.output.dtype == dtype
    np.testing.assert_array_equal(res.weights, [[0.5, 0.5]])
    np.testing.assert_array_equal(res.output, [[2.0]])
    # −1e40 does not fit float32: the scores come back in float64 rather than as −inf.
    assert res.scores.dtype == np.float64 and np.all(np.isfinite(res.scores))
    np.testing.assert_allclose(res.scores, [[-1e40, -1e40]], rtol=1e-7)
    assert scaled_scores(q, k).dtype == np.float64
    out, lse = tiled.tiled_attention(q, k, v, block_q=1, block_k=1)
    assert out.dtype == dtype and lse.dtype == np.float64
    np.testing.assert_array_equal(out, [[2.0]])
    np.testing.assert_allclose(lse, [-1e40], rtol=1e-7)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_backend_gives_half_and_half(name, dtype):
    backend = get_backend(name)
    q, k, v = _issue_case(dtype)
    q = np.array([[1e20], [-3e19]], dtype)  # two rows: two different lse
    np.testing.assert_allclose(backend.attention(q, k, v).weights, 0.5, rtol=1e-6)
    out, _lse = backend.tiled_attention(q, k, v, block_q=1, block_k=1)
    np.testing.assert_allclose(out, 2.0, rtol=1e-6)
    overview, lse = backend.attention_overview(q, k, bins=2, return_lse=True)
    np.testing.assert_allclose(overview, 0.5, rtol=1e-6)
    block = backend.attention_block(q, k, slice(0, 2), slice(0, 2), lse=lse)
    np.testing.assert_allclose(block, 0.5, rtol=1e-6)  # the lse (±1e40) cannot say "+ ln 2"


def test_a_backend_dtype_that_cannot_hold_the_input_refuses_in_one_line():
    with pytest.raises(ValueError, match=r"^q: 1e\+300 does not fit in float32"):
        get_backend("numpy", dtype="float32").attention([[1e300]], [[1.0]], [[1.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_backward_pass_of_the_issue_case_is_finite(dtype):
    q, k, v = _issue_case(dtype)
    grads = attention_backward(np.ones((1, 1), dtype), q, k, v)
    for g in (grads.dq, grads.dk, grads.dv, grads.dscores):
        assert g.dtype == dtype and np.all(np.isfinite(g))
    np.testing.assert_array_equal(grads.dv, [[0.5], [0.5]])


def test_float64_scores_that_could_overflow_are_refused_in_one_line():
    q, k, v = np.array([[1e200]]), np.array([[-1e200], [1e200]]), np.ones((2, 1))
    for call in (
        lambda: attention(q, k, v),
        lambda: tiled.tiled_attention(q, k, v, block_q=1, block_k=1),
        lambda: tiled.attention_overview(q, k, bins=1),
    ):
        with pytest.raises(ValueError, match="^the scores overflow: ") as info:
            call()
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("temperature", [5e-324, 1e-320, 5e-309])
def test_a_temperature_that_makes_the_scale_infinite_is_refused(temperature):
    q = np.ones((2, 4))
    with pytest.raises(ValueError, match=r"^temperature .* makes the scale 1/\(√d_k·T\) infinite"):
        attention(q, q, q, temperature=temperature, scale=False)
    with pytest.raises(ValueError, match="^temperature"):
        score_scale(4, False, temperature)


def test_a_temperature_whose_scores_overflow_says_so():
    q = np.ones((2, 4))
    with pytest.raises(ValueError) as info:
        attention(q, q, q, temperature=2.2e-308, scale=False)
    assert str(info.value) == (
        "the scores overflow: |q·k| times the scale may reach beyond float64's range (1.8e308); "
        "use smaller q or k, or a larger temperature (the scale is 4.55e+307)"
    )


# --- properties over extreme magnitudes ------------------------------------------------
# Each value as float32 holds it (hypothesis under numpy 1.24, the floors lane, refuses
# a float64 like 0.1 that float32 rounds).
_magnitude = st.builds(
    lambda sign, exponent, mantissa: float(np.float32(sign * mantissa * 10.0**exponent)),
    st.sampled_from([-1.0, 1.0]),
    st.integers(-30, 37),
    st.sampled_from([1.0, 1.5, 3.0]),
)
_entry = st.one_of(st.just(0.0), _magnitude)


@st.composite
def _extreme_qkv(draw):
    n_q, n_k, d = draw(st.integers(1, 4)), draw(st.integers(1, 5)), draw(st.integers(1, 3))
    q = draw(hnp.arrays(np.float32, (n_q, d), elements=_entry))
    k = draw(hnp.arrays(np.float32, (n_k, d), elements=_entry))
    if draw(st.booleans()) and n_k > 1:
        k[1] = k[0]  # a tie, which −inf scores used to erase
    v = draw(hnp.arrays(np.float32, (n_k, 2), elements=st.floats(-100, 100, width=32)))
    return q, k, v


def _distributions(weights):
    assert np.all(np.isfinite(weights)) and np.all(weights >= 0) and np.all(weights <= 1)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-5)


_TWO_EQUAL_KEYS = (  # scores of 5773.5 that float32 rounds apart by an ulp (CI, once)
    np.array([[0.0, 0.0, 1e25]], np.float32),
    np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1e-21], [0, 0, 1e-21]], np.float32),
    np.array([[1.0, -1.0]] * 4, np.float32),
)

_BESIDE_AN_OVERFLOW = (  # row 0 overflows float32; row 1's scores round to ±4.5e-6 (CI, once)
    np.array([[0.0, -1e31], [1.5e3, 1.5e3]], np.float32),
    np.array([[0.0, 0.0], [-0.15, 0.15]], np.float32),
    np.zeros((2, 2), np.float32),
)

_SUBNORMAL_VALUES = (  # outputs of 1e-45: the tiled path gave 0 (a derandomized CI draw)
    np.zeros((1, 1), np.float32),
    np.zeros((2, 1), np.float32),
    np.full((2, 2), 1e-45, np.float32),
)


@settings(max_examples=300, deadline=None)
@given(_extreme_qkv(), st.booleans())
@example(_TWO_EQUAL_KEYS, False)
@example(_BESIDE_AN_OVERFLOW, False)
@example(_SUBNORMAL_VALUES, False)
def test_rows_are_distributions_at_any_magnitude_and_equal_float64_when_float32_overflows(
    data, causal
):
    q, k, v = data
    mask = np.tril(np.ones((q.shape[0], k.shape[0]), bool), max(k.shape[0] - q.shape[0], 0))
    mask = mask if causal else None
    res32 = attention(q, k, v, mask=mask)
    res64 = attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), mask=mask)
    for res in (res32, res64):
        _distributions(res.weights)
        assert np.all(np.isfinite(res.output)) and np.all(np.isfinite(res.entropy))
    if np.abs(res64.scores).max() > 1e30:  # float32 scores would have overflowed
        # A row that overflowed is exact; another row keeps float32's rounding of its own
        # scores, about eps·Σ|q||k|/√d (1500·0.15 − 1500·0.15 came out 4.5e-6, not 0).
        products = (np.abs(q).astype(np.float64) @ np.abs(k).astype(np.float64).T) / np.sqrt(
            q.shape[1]
        )
        overflowed = np.abs(res64.scores).max(axis=1) > 1e30
        bar = np.where(overflowed, 1e-6, 1e-6 + np.finfo(np.float32).eps * products.max(axis=1))
        assert np.all(np.abs(res32.weights - res64.weights) <= bar[:, None])
    out, lse = tiled.tiled_attention(q, k, v, block_q=2, block_k=2, causal=causal)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(lse))
    # float32 scores carry a rounding of about eps·|s| (two equal keys scored 5773.5 by q of
    # 1e25 and keys of 1e-21 differ by an ulp, 0.0005, in one product and not in another); a
    # weight moves by at most a quarter of a score's change, so that is the bar past 1e-4.
    rounding = np.finfo(np.float32).eps * float(np.abs(res64.scores).max(initial=0.0))
    tol = min(1e-4 + rounding, 1.0) if np.isfinite(rounding) else 1.0  # (1: weights at most)
    # …in float64 (1e-4 · 1e-45 is 0 in float32), and never finer than float32's own
    # smallest step (outputs of 1e-45 from values of 1e-45: one path rounds it to 0).
    floor = 2 * float(np.finfo(np.float32).smallest_subnormal)
    atol = tol * float(np.abs(v).max(initial=0.0)) + floor
    np.testing.assert_allclose(out, res32.output, rtol=1e-4, atol=atol)
    bins = min(q.shape[0], k.shape[0])
    overview = tiled.attention_overview(q, k, bins=bins, causal=causal)
    assert np.all(np.isfinite(overview))
    block = tiled.attention_block(
        q, k, slice(0, q.shape[0]), slice(0, k.shape[0]), lse=lse, causal=causal
    )
    np.testing.assert_allclose(block, res32.weights, atol=tol)


@pytest.mark.skipif("torch" not in BACKENDS, reason="torch is not installed")
@settings(max_examples=100, deadline=None)
@given(_extreme_qkv())
def test_torch_cpu_agrees_with_numpy_at_any_magnitude(data):
    q, k, v = data
    numpy_weights = attention(q, k, v).weights
    torch_backend = get_backend("torch")
    weights = torch_backend.attention(q, k, v).weights
    _distributions(weights)
    np.testing.assert_allclose(weights, numpy_weights, atol=1e-4)
    out, _lse = torch_backend.tiled_attention(q, k, v, block_q=2, block_k=2)
    assert np.all(np.isfinite(out))


@settings(max_examples=200, deadline=None)
@given(
    st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, allow_subnormal=True),
    st.booleans(),
)
def test_any_positive_temperature_gives_distributions_or_one_line(temperature, scale):
    q = np.array([[1.0, -2.0], [0.5, 3.0], [0.0, 1.0]])
    try:
        res = attention(q, q, q, temperature=temperature, scale=scale)
    except ValueError as exc:
        assert str(exc).startswith(("temperature", "the scores overflow")), str(exc)
        assert "\n" not in str(exc)
        return
    _distributions(res.weights)
