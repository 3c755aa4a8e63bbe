"""Attention rollout (Abnar & Zuidema 2020): how much each token reaches each other
through every layer, with the residual stream counted (numpy only).

Each layer's attention averaged over its heads is mixed half and half with the identity
(the residual connection carries a token's own state on) and its rows normalised again:
``Â_l = rownorm(0.5 · mean_h A_l + 0.5 · I)``. Rollout multiplies them from the first
layer up, ``R = Â_L ··· Â_1``: ``R[i, j]`` is how much of token ``j`` the last layer's
token ``i`` holds under that model of the residual stream. Rows of ``R`` sum to 1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mixed_layer", "mixed_mean", "rollout", "rollout_flow", "rollout_of_means"]


def mixed_layer(weights) -> np.ndarray:
    """``Â = rownorm(0.5 · mean over heads of A + 0.5 · I)`` of one layer's ``(h, n, n)``
    weights, in float64."""
    a = np.asarray(weights, dtype=np.float64)
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise ValueError(f"a layer's weights must be (heads, n, n), got shape {a.shape}")
    return mixed_mean(a.mean(axis=0))


def mixed_mean(mean) -> np.ndarray:
    """``Â = rownorm(0.5 · mean + 0.5 · I)`` of a layer's ``(n, n)`` mean over its heads
    (a layer that mixes no tokens: a mean of zeros, Â = I)."""
    a = np.asarray(mean, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a layer's mean must be (n, n), got shape {a.shape}")
    mixed = 0.5 * a + 0.5 * np.eye(a.shape[0])
    return mixed / mixed.sum(axis=1, keepdims=True)


def rollout_of_means(means) -> np.ndarray:
    """:func:`rollout_flow` of each layer's ``(n, n)`` mean over its heads."""
    out = []
    product = None
    for mean in means:
        mixed = mixed_mean(mean)
        product = mixed if product is None else mixed @ product
        out.append(product)
    if not out:
        raise ValueError("rollout needs at least one layer of attention weights")
    return np.stack(out)


def rollout_flow(layers) -> np.ndarray:
    """The rollout after each layer, ``(L, n, n)``: entry ``l`` is ``Â_l ··· Â_1``, so the
    last is :func:`rollout`. ``layers`` is a sequence of ``(h, n, n)`` weights, first
    layer first (layers may differ in heads, not in ``n``)."""
    means = []
    for weights in layers:
        a = np.asarray(weights, dtype=np.float64)
        if a.ndim != 3 or a.shape[1] != a.shape[2]:
            raise ValueError(f"a layer's weights must be (heads, n, n), got shape {a.shape}")
        means.append(a.mean(axis=0))
    return rollout_of_means(means)


def rollout(layers) -> np.ndarray:
    """``R = Â_L ··· Â_1`` (n × n) of ``layers``' weights (see :func:`rollout_flow`)."""
    return rollout_flow(layers)[-1]
