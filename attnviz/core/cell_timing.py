"""What one score cell costs on this machine, timed once: the base of every time estimate.

A long overview, a long sentence's capture: each is some number of score cells (a q·k,
an exponential, a sum), so each estimate is that count times a share times the cost of
one cell here, timed on a small block the first time it is asked (a few milliseconds).
"""

from __future__ import annotations

import time

import numpy as np

_SECONDS: dict = {}


def cell_seconds(d: int, dtype=np.float32) -> float:
    """Seconds one score cell costs on this machine at width ``d``, timed once on a
    512 × 1024 block, the best of three."""
    key = (d, np.dtype(dtype).name)
    if key not in _SECONDS:
        rng = np.random.default_rng(0)
        q = rng.standard_normal((512, d)).astype(dtype)
        k = rng.standard_normal((1024, d)).astype(dtype)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            s = q @ k.T
            np.exp(s - s.max(axis=1, keepdims=True)).sum(axis=1)
            best = min(best, time.perf_counter() - t0)
        _SECONDS[key] = best / (512 * 1024)
    return _SECONDS[key]


def flop_seconds() -> float:
    """Seconds one float32 multiply-add of a matrix product costs here (a projection's),
    timed once on 512 × 512 matrices, the best of three."""
    key = "flop"
    if key not in _SECONDS:
        a = np.random.default_rng(1).standard_normal((512, 512)).astype(np.float32)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            a @ a
            best = min(best, time.perf_counter() - t0)
        _SECONDS[key] = best / (2 * 512**3)
    return _SECONDS[key]
