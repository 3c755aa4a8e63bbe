"""Attention rollout against its definition: hand-built layers and random ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.rollout import mixed_layer, rollout, rollout_flow


def random_layer(rng, heads: int, n: int) -> np.ndarray:
    w = rng.random((heads, n, n))
    return w / w.sum(axis=-1, keepdims=True)


def test_an_identity_attention_rolls_out_to_the_identity():
    eye = np.stack([np.eye(4)] * 3)
    assert np.array_equal(rollout([eye, eye]), np.eye(4))


def test_one_layer_mixes_half_and_half_with_the_identity():
    # Two heads: one on the first token, one on itself; their mean, then half of I.
    n = 3
    first = np.zeros((n, n))
    first[:, 0] = 1.0
    w = np.stack([first, np.eye(n)])
    want = 0.5 * (0.5 * first + 0.5 * np.eye(n)) + 0.5 * np.eye(n)
    np.testing.assert_allclose(mixed_layer(w), want, atol=1e-15)
    np.testing.assert_allclose(rollout([w]), want, atol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_rollout_is_the_product_of_the_mixed_layers_from_the_first_up(layers, n, seed):
    rng = np.random.default_rng(seed)
    ws = [random_layer(rng, int(rng.integers(1, 4)), n) for _ in range(layers)]
    want = np.eye(n)
    flow = rollout_flow(ws)
    for i, w in enumerate(ws):
        mixed = 0.5 * w.mean(axis=0) + 0.5 * np.eye(n)
        want = (mixed / mixed.sum(axis=1, keepdims=True)) @ want
        np.testing.assert_allclose(flow[i], want, atol=1e-12)
    np.testing.assert_allclose(rollout(ws), want, atol=1e-12)
    np.testing.assert_allclose(flow.sum(axis=-1), 1.0, atol=1e-12)  # rows stay shares


def test_bad_shapes_are_refused_in_one_line():
    with pytest.raises(ValueError, match="heads, n, n"):
        mixed_layer(np.ones((3, 3)))
    with pytest.raises(ValueError, match="at least one layer"):
        rollout([])
