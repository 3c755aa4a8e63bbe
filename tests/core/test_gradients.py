"""The backward pass against central finite differences, and the softmax Jacobian."""

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import (
    attention,
    attention_backward,
    finite_difference_check,
    softmax,
    softmax_jacobian,
)


@pytest.mark.parametrize("mask_kind", [None, "causal", "window"])
@pytest.mark.parametrize("scale,temperature", [(True, 1.0), (False, 0.5)])
def test_finite_differences(mask_kind, scale, temperature):
    rng = np.random.default_rng(42)
    n, d = 5, 3
    q, k, v, d_o = (rng.normal(size=(n, d)) for _ in range(4))
    m = {None: None, "causal": masks.causal_mask(n), "window": masks.sliding_window_mask(n, 2)}[
        mask_kind
    ]
    check = finite_difference_check(q, k, v, d_o, mask=m, scale=scale, temperature=temperature)
    assert check.max_error <= 1e-6
    # The chapter quotes errors around 1e-10 for this kind of check.
    assert check.max_error <= 1e-8


def test_dscores_rows_sum_to_zero_and_masked_entries_are_zero():
    rng = np.random.default_rng(5)
    n = 7
    q, k, v, d_o = (rng.normal(size=(n, 4)) for _ in range(4))
    m = masks.causal_mask(n)
    g = attention_backward(d_o, q, k, v, mask=m)
    np.testing.assert_allclose(g.dscores.sum(axis=-1), 0, atol=1e-12)
    assert np.all(g.dscores[~m] == 0)


def test_saturated_row_returns_null_gradient():
    q = np.array([[100.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    v = np.array([[1.0], [2.0], [3.0]])
    g = attention_backward(np.ones((1, 1)), q * 10, k, v, scale=False)
    assert np.max(np.abs(g.dq)) < 1e-200 or np.all(g.dq == 0)


def test_softmax_jacobian_matches_finite_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])
    a = softmax(s)
    jac = softmax_jacobian(a)
    eps = 1e-6
    num = np.empty((4, 4))
    for j in range(4):
        e = np.zeros(4)
        e[j] = eps
        num[:, j] = (softmax(s + e) - softmax(s - e)) / (2 * eps)
    np.testing.assert_allclose(jac, num, atol=1e-9)
    np.testing.assert_allclose(jac.sum(axis=0), 0, atol=1e-15)  # columns: weights stay summed to 1
    np.testing.assert_allclose(jac, jac.T)


def test_jacobian_of_one_hot_is_zero():
    assert np.all(softmax_jacobian(np.array([1.0, 0.0, 0.0])) == 0)


def test_fully_masked_row_has_zero_gradient():
    rng = np.random.default_rng(0)
    q, k, v, d_o = (rng.normal(size=(3, 2)) for _ in range(4))
    m = np.ones((3, 3), bool)
    m[1] = False
    g = attention_backward(d_o, q, k, v, mask=m)
    assert np.all(g.dq[1] == 0)
    assert np.all(np.isfinite(g.dk)) and np.all(np.isfinite(g.dv))
    assert attention(q, k, v, mask=m).fully_masked.tolist() == [False, True, False]
