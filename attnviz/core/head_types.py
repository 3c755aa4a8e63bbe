"""Head-type scores: how much of a head's attention follows a known pattern (numpy only).

One definition, shared by the induction training's curves (:mod:`attnviz.core.induction`)
and by whatever explains why a head attends where it does:

- **previous-token score**: the mean weight each query ``t ≥ 1`` gives to key ``t − 1``
  (1 for a head that always looks one token back, ``1/(t+1)`` on average for a causal
  head spread evenly);
- **induction score** (Olsson et al. 2022): for each query ``t`` whose token occurred
  earlier, at ``s`` (the latest such ``s`` with ``s + 1 < t``), the weight ``t`` gives to
  ``s + 1`` — the token that followed the earlier occurrence, which an induction head
  copies. Averaged over those queries; NaN when the sentence repeats no token.

Both take weights shaped ``(..., n, n)`` (query rows, key columns: a layer's
``(heads, n, n)`` or a model's ``(layers, heads, n, n)``) and return one score per leading
index.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["induction_pairs", "induction_score", "previous_token_score"]


def _square(weights) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"attention weights must be (..., n, n), got shape {w.shape}")
    return w


def previous_token_score(weights) -> np.ndarray:
    """The mean weight from each query ``t ≥ 1`` to key ``t − 1``, per leading index.

    A sentence of one token has no previous token: its score is NaN.
    """
    w = _square(weights)
    n = w.shape[-1]
    if n < 2:
        return np.full(w.shape[:-2], np.nan)
    t = np.arange(1, n)
    return w[..., t, t - 1].mean(axis=-1)


def induction_pairs(tokens: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """The (query, key) pairs the induction score reads: query ``t`` whose token was seen
    at ``s`` (the latest occurrence with ``s + 1 < t``) and key ``s + 1``.

    ``s + 1 < t`` leaves out a token repeated at once (``s + 1 = t``: the query itself,
    not a token it could copy from).
    """
    # The last two positions of each token: the latest may be t − 1 (a token repeated at
    # once), and then the one before it is the latest with s + 1 < t.
    seen: dict = {}
    queries, keys = [], []
    for t, token in enumerate(tokens):
        earlier = [s for s in seen.get(token, ()) if s + 1 < t]
        if earlier:
            queries.append(t)
            keys.append(earlier[-1] + 1)
        seen[token] = (*seen.get(token, ())[-1:], t)
    return np.asarray(queries, dtype=np.intp), np.asarray(keys, dtype=np.intp)


def induction_score(weights, tokens: Sequence) -> np.ndarray:
    """The mean weight from each repeated token to the position after its earlier
    occurrence (:func:`induction_pairs`), per leading index; NaN when no token repeats."""
    w = _square(weights)
    n = w.shape[-1]
    if len(tokens) != n:
        raise ValueError(f"{len(tokens)} tokens for attention weights over {n} positions")
    queries, keys = induction_pairs(tokens)
    if queries.size == 0:
        return np.full(w.shape[:-2], np.nan)
    return w[..., queries, keys].mean(axis=-1)
