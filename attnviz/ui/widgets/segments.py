"""Which line segments enter which rectangles: the one clipping test that both the vector
plot's label placement and the text check run (a label a curve runs through)."""

from __future__ import annotations

import numpy as np


def segments_enter(rects: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """``(R, S)`` booleans: segment ``s`` (rows x0, y0, x1, y1) enters rectangle ``r``
    (rows left, top, right, bottom, further columns ignored). Liang–Barsky clipping, every
    pair at once; a segment with a non-finite end enters none."""
    rects = np.atleast_2d(np.asarray(rects, dtype=float))
    segments = np.asarray(segments, dtype=float).reshape(-1, 4)
    out = np.zeros((rects.shape[0], segments.shape[0]), dtype=bool)
    finite = np.isfinite(segments).all(axis=1)
    if not finite.any() or not rects.size:
        return out
    r, s = rects[:, None, :4], segments[None, finite, :]
    px, py = s[..., 0], s[..., 1]
    dx, dy = s[..., 2] - px, s[..., 3] - py
    shape = (rects.shape[0], int(finite.sum()))
    t0, t1 = np.zeros(shape), np.ones(shape)
    ok = np.ones(shape, dtype=bool)
    for p, q in (
        (-dx, px - r[..., 0]),
        (dx, r[..., 2] - px),
        (-dy, py - r[..., 1]),
        (dy, r[..., 3] - py),
    ):
        p = np.broadcast_to(p, shape)
        flat = p == 0
        ok &= ~(flat & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(flat, 0.0, q / np.where(flat, 1.0, p))
        t0 = np.where(p < 0, np.maximum(t0, ratio), t0)
        t1 = np.where(p > 0, np.minimum(t1, ratio), t1)
    out[:, finite] = ok & (t0 <= t1)
    return out
