"""Hypothesis properties of the attention core."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attnviz.core.attention import attention, softmax

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)


@st.composite
def qkv(draw):
    n = draw(st.integers(1, 7))
    d = draw(st.integers(1, 5))
    dv = draw(st.integers(1, 4))
    q = draw(hnp.arrays(np.float64, (n, d), elements=finite))
    k = draw(hnp.arrays(np.float64, (n, d), elements=finite))
    v = draw(hnp.arrays(np.float64, (n, dv), elements=finite))
    return q, k, v


@st.composite
def qkv_mask(draw):
    q, k, v = draw(qkv())
    n = q.shape[0]
    m = draw(hnp.arrays(np.bool_, (n, n)))
    return q, k, v, m


@settings(max_examples=150, deadline=None)
@given(qkv_mask())
def test_rows_sum_to_one_where_any_key_allowed_and_never_nan(data):
    q, k, v, m = data
    res = attention(q, k, v, mask=m)
    for arr in (res.weights, res.output, res.entropy):
        assert np.all(np.isfinite(arr))
    sums = res.weights.sum(axis=-1)
    allowed = m.any(axis=-1)
    np.testing.assert_allclose(sums[allowed], 1.0, atol=1e-12)
    assert np.all(sums[~allowed] == 0)
    assert np.all(res.weights[~m] == 0)
    assert np.all(res.entropy >= -1e-12)
    assert np.all(res.entropy <= np.log(np.maximum(m.sum(axis=-1), 1)) + 1e-9)


@settings(max_examples=150, deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 8)), elements=finite), finite
)
def test_softmax_invariant_to_row_constant(s, c):
    np.testing.assert_allclose(softmax(s + c), softmax(s), atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(qkv(), st.randoms(use_true_random=False))
def test_permuting_tokens_permutes_outputs(data, rnd):
    q, k, v = data
    n = q.shape[0]
    perm = np.array(rnd.sample(range(n), n))
    base = attention(q, k, v).output
    permuted = attention(q[perm], k[perm], v[perm]).output
    np.testing.assert_allclose(permuted, base[perm], atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(qkv())
def test_temperature_limits(data):
    q, k, v = data
    s = attention(q, k, v).scores
    cold = attention(q, k, v, temperature=1e-9).weights
    hot = attention(q, k, v, temperature=1e12).weights
    n = q.shape[0]
    np.testing.assert_allclose(hot, 1.0 / n, atol=1e-6)
    for i in range(n):
        row = s[i]
        top = np.isclose(row, row.max(), rtol=0, atol=1e-7)
        if top.sum() == 1:  # a unique maximum: the cold softmax picks it
            assert cold[i, np.argmax(row)] > 1 - 1e-6


@settings(max_examples=100, deadline=None)
@given(qkv())
def test_entropy_matches_definition(data):
    q, k, v = data
    res = attention(q, k, v)
    w = res.weights
    with np.errstate(divide="ignore", invalid="ignore"):
        ref = -np.nansum(np.where(w > 0, w * np.log(w), 0.0), axis=-1)
    np.testing.assert_allclose(res.entropy, ref, atol=1e-12)


def test_entropy_of_uniform_and_one_hot():
    q = np.zeros((1, 3))
    k = np.ones((4, 3))
    res = attention(q, k, np.ones((4, 1)))
    np.testing.assert_allclose(res.entropy, np.log(4))
    res = attention(np.array([[1000.0]]), np.array([[1.0], [0.0]]), np.ones((2, 1)))
    assert res.entropy[0] == 0.0
