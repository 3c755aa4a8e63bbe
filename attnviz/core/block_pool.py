"""Square matrices shrunk to a few cells a side, keeping what stands out (numpy only).

A small map of an n × n matrix (the layers grid's tiles) cannot average: a sharp link
would fade into its block. So each block keeps its largest value (weights, 0…1), or for
a signed matrix (a difference, a mixing matrix) its value farthest from 0.
"""

from __future__ import annotations

import numpy as np

__all__ = ["SIDE", "block_extreme", "block_max"]

#: Cells a side of a shrunk matrix: 448 tiles of 64² stay a few megabytes.
SIDE = 64


def block_max(w: np.ndarray, side: int = SIDE) -> np.ndarray:
    """``w`` (n × n) shrunk to at most ``side`` × ``side`` by the largest value of each block."""
    n = w.shape[0]
    if n <= side:
        return w
    edges = np.linspace(0, n, side + 1).astype(int)[:-1]
    return np.maximum.reduceat(np.maximum.reduceat(w, edges, axis=0), edges, axis=1)


def block_extreme(w: np.ndarray, side: int = SIDE) -> np.ndarray:
    """``w`` shrunk as :func:`block_max`, each block its value farthest from 0 (signed):
    a difference's sharp change, either way, stays visible."""
    if w.shape[0] <= side:
        return w
    high, low = block_max(w, side), -block_max(-w, side)
    return np.where(high >= -low, high, low)
