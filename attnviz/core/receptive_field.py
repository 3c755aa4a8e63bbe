"""How far back a token reaches through a stack of sliding-window layers.

A window of w keys, the token itself included, lets token t read positions t − w + 1 … t.
The next layer reads those positions' outputs, each of which already read w − 1 tokens
further back, so every layer extends the reach by w − 1: after L layers token t depends on
positions max(1, t − (w − 1)·L) … t. :func:`receptive_field` finds this by composing the
layers' boolean masks (the formula is what the tests hold it to, not how it is computed).

Numbers only: no Qt.
"""

from __future__ import annotations

import numpy as np


def _check(value, name: str, lo: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{name} must be an integer ≥ {lo}, got {value!r}")
    return int(value)


def window_mask(n: int, window: int) -> np.ndarray:
    """The causal sliding-window mask of ``n`` tokens: row t may read key s when
    0 ≤ t − s < ``window``."""
    n, window = _check(n, "n"), _check(window, "the window")
    gap = np.subtract.outer(np.arange(n), np.arange(n))
    return (gap >= 0) & (gap < window)


def receptive_field(t: int, window: int, depth: int) -> np.ndarray:
    """Which positions 1 … ``t`` token ``t`` depends on after 0 … ``depth`` layers of a
    window of ``window`` keys: a ``(depth + 1) × t`` boolean array, row l the positions
    reached through l layers (row 0: the token itself). Each row is the previous one
    pushed through the mask once: position s is reached when some reached position j may
    read s."""
    t, window = _check(t, "the token"), _check(window, "the window")
    depth = _check(depth, "the depth", 0)
    mask = window_mask(t, window)
    reached = np.zeros((depth + 1, t), dtype=bool)
    reached[0, t - 1] = True
    for layer in range(1, depth + 1):
        reached[layer] = (reached[layer - 1].astype(np.int64) @ mask.astype(np.int64)) > 0
    return reached


def reach_back(window: int, depth: int) -> int:
    """How many tokens back ``depth`` layers of a ``window``-key window reach: (w − 1)·L."""
    return (_check(window, "the window") - 1) * _check(depth, "the depth", 0)
