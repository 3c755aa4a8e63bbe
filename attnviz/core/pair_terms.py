"""Why a head attends where it does: one query's scores split by rotary pair, and the
queries and keys of a head in one plane.

RoPE turns each pair of dimensions ``(a, b)`` of a query and a key as one clock hand, so
the dot product ``q·k`` is a sum over the pairs: ``Σ_i (q_a k_a + q_b k_b)``. Each term is
the pair's own dot product after its rotation, ``|q_i| |k_i| cos(φ_i + (m − n)·θ_i)``: a
fast pair (large θ_i) sees the distance between the tokens, a slow one barely turns over a
sentence and sees what the vectors hold. :func:`pair_terms` gives the terms of one query
row times the score's scale; summed over the pairs they are the row's scaled scores.

Which dimensions make a pair is the model's layout: ``"interleaved"`` pairs ``(2i, 2i+1)``
(the RoFormer paper, Meta's Llama code, GPT-J), ``"half"`` pairs ``(i, i + w/2)`` over the
``w`` rotated dimensions (transformers' ``rotate_half``: Llama, Qwen, Gemma, …). The
dimensions past the rotated width (partial rotary) pair up in the same layout among
themselves; an odd width leaves one dimension alone, its own last term.

:func:`qk_projection` puts the queries and the keys of a head in one plane: the two
directions of largest spread of their stacked rows, through the origin (the SVD of the
rows without centring), so the plane keeps dot products as far as two directions can and
a key far along a query's arrow is a key it scores highly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import as_float_array, check_choice, check_number
from attnviz.core.rope import LAYOUTS


def rotary_pairs(d: int, layout: str = "interleaved", rotated: int | None = None) -> tuple:
    """The dimension pairs ``(a, b)`` of a ``d``-wide head, rotated pairs first.

    Parameters
    ----------
    d : int ≥ 1, the head's width
    layout : ``"interleaved"`` (``(2i, 2i+1)``) or ``"half"`` (``(i, i + w/2)``)
    rotated : the width RoPE turns (even, ≤ d; None: all of an even ``d``); the
        dimensions after it pair up in the same layout among themselves

    Returns
    -------
    ``(a, b, alone)``: int arrays of the pairs' first and second dimensions, and the
    index of a dimension without a partner (an odd width), or None
    """
    check_choice(layout, LAYOUTS, "layout")
    d = int(d)
    if d < 1:
        raise ValueError(f"the head's width must be at least 1, got {d}")
    w = d - d % 2 if rotated is None else int(rotated)
    if w < 0 or w % 2 or w > d:
        raise ValueError(f"the rotated width must be even and within 0…{d}, got {w}")
    a, b = [], []
    for start, width in ((0, w), (w, (d - w) - (d - w) % 2)):
        half = width // 2
        idx = np.arange(half)
        if layout == "interleaved":
            a.append(start + 2 * idx)
            b.append(start + 2 * idx + 1)
        else:
            a.append(start + idx)
            b.append(start + half + idx)
    alone = d - 1 if (d - w) % 2 else None
    return np.concatenate(a).astype(int), np.concatenate(b).astype(int), alone


def pair_terms(q_row, k, scale: float = 1.0, *, layout: str = "interleaved", rotated=None):
    """``term[j, i] = scale · (q_a k_ja + q_b k_jb)`` over pair ``i = (a, b)``.

    Parameters
    ----------
    q_row : ``(d,)`` one query, as the head's product receives it (after RoPE)
    k : ``(n, d)`` the keys, likewise
    scale : the factor on ``q·k`` (1/√d for most heads)
    layout, rotated : the pairing, as :func:`rotary_pairs`

    Returns
    -------
    ndarray ``(n, d // 2)``, float64, or ``(n, d // 2 + 1)`` for an odd width (the last
    column the lone dimension's ``scale · q_d k_jd``); each row sums to the key's scaled
    score ``scale · q·k_j`` up to rounding.
    """
    q = as_float_array(q_row, "q", min_ndim=1).astype(np.float64, copy=False)
    keys = as_float_array(k, "k", min_ndim=2).astype(np.float64, copy=False)
    if q.ndim != 1 or keys.ndim != 2 or keys.shape[1] != q.shape[0]:
        raise ValueError(
            f"q must be one vector and k a matrix of as many columns, got {q.shape} and "
            f"{keys.shape}"
        )
    c = check_number(scale, "scale")
    a, b, alone = rotary_pairs(q.shape[0], layout, rotated)
    terms = q[a] * keys[:, a] + q[b] * keys[:, b]
    if alone is not None:
        terms = np.column_stack([terms, q[alone] * keys[:, alone]])
    return c * terms


@dataclass(frozen=True)
class Projection:
    """Queries and keys in one plane (:func:`qk_projection`).

    ``queries`` and ``keys``: ``(n, 2)`` coordinates; ``basis``: ``(2, d)`` the plane's
    directions (unit rows); ``kept``: the share of the rows' squared length the plane holds.
    """

    queries: np.ndarray
    keys: np.ndarray
    basis: np.ndarray
    kept: float


def qk_projection(q, k) -> Projection:
    """The queries and keys of a head projected together onto the two right singular
    vectors of largest singular value of the stacked rows ``[Q; K]``, uncentred (a
    plane through the origin: ``x·y`` in the plane is ``x·y`` in the head when two
    directions hold the rows, and the nearest to it otherwise).

    A direction's sign is fixed so that its largest coordinate is positive: the same
    head gives the same picture. A head of width 1 lies on a line (its second coordinate 0).
    """
    q = as_float_array(q, "q", min_ndim=2).astype(np.float64, copy=False)
    k = as_float_array(k, "k", min_ndim=2).astype(np.float64, copy=False)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be matrices of one width, got {q.shape} and {k.shape}")
    rows = np.vstack([q, k])
    if not np.isfinite(rows).all():
        raise ValueError("q and k must be finite to be projected")
    _u, s, vt = np.linalg.svd(rows, full_matrices=False)
    basis = np.zeros((2, rows.shape[1]))
    take = min(2, vt.shape[0])
    basis[:take] = vt[:take]
    for r in range(take):
        if basis[r, np.argmax(np.abs(basis[r]))] < 0:
            basis[r] = -basis[r]
    total = float((s**2).sum())
    kept = float((s[:take] ** 2).sum() / total) if total > 0 else 1.0
    coords = rows @ basis.T
    return Projection(coords[: q.shape[0]], coords[q.shape[0] :], basis, kept)
