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

The other types read one sentence's weights (Clark et al. 2019 for the encoder's):

- **sink score**: the mean weight each query ``t ≥ 1`` gives to key 0, the first token
  (query 0 of a causal head has nowhere else to look, so it is left out);
- **local score**: the mean weight each query gives to the keys within
  :data:`LOCAL_WINDOW` positions of itself, ``|t − s| ≤ 2`` (itself included);
- **self score**: the mean weight each query gives to itself, ``A[t, t]``;
- **next-token score**: the mean weight each query ``t ≤ n − 2`` gives to key ``t + 1``
  (0 for a causal head, which cannot see it);
- **[CLS] and [SEP] scores**: the mean over queries of the weight on the positions that
  hold the tokenizer's classifier or separator token (:func:`mass_on`); NaN where the
  sentence has none.

Every score is a mean of weights, so it lies in 0 … 1 for weights whose rows sum to 1.
They take weights shaped ``(..., n, n)`` (query rows, key columns: a layer's
``(heads, n, n)`` or a model's ``(layers, heads, n, n)``) and return one score per leading
index.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "LOCAL_WINDOW",
    "induction_pairs",
    "induction_score",
    "local_score",
    "mass_on",
    "next_token_score",
    "previous_token_score",
    "self_score",
    "sink_score",
]

#: The local score's window: keys at most this many positions from the query.
LOCAL_WINDOW = 2


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


def next_token_score(weights) -> np.ndarray:
    """The mean weight from each query ``t ≤ n − 2`` to key ``t + 1``, per leading index
    (NaN for one token)."""
    w = _square(weights)
    n = w.shape[-1]
    if n < 2:
        return np.full(w.shape[:-2], np.nan)
    t = np.arange(n - 1)
    return w[..., t, t + 1].mean(axis=-1)


def self_score(weights) -> np.ndarray:
    """The mean weight each query gives to itself (the diagonal), per leading index."""
    w = _square(weights)
    return np.diagonal(w, axis1=-2, axis2=-1).mean(axis=-1)


def sink_score(weights) -> np.ndarray:
    """The mean weight from each query ``t ≥ 1`` to the first key, per leading index.

    Query 0 is left out: a causal head's first row has only key 0 to look at.
    """
    w = _square(weights)
    if w.shape[-1] < 2:
        return np.full(w.shape[:-2], np.nan)
    return w[..., 1:, 0].mean(axis=-1)


def local_score(weights, window: int = LOCAL_WINDOW) -> np.ndarray:
    """The mean over queries of the weight on keys ``s`` with ``|t − s| ≤ window``."""
    w = _square(weights)
    n = w.shape[-1]
    i, j = np.indices((n, n))
    near = np.abs(i - j) <= window
    return (w * near).sum(axis=-1).mean(axis=-1)


def mass_on(weights, positions) -> np.ndarray:
    """The mean over queries of the total weight on the key ``positions`` (the [CLS]'s,
    the [SEP]s'), per leading index; NaN when ``positions`` is empty."""
    w = _square(weights)
    keys = np.unique(np.asarray(positions, dtype=np.intp))
    if keys.size == 0:
        return np.full(w.shape[:-2], np.nan)
    if keys[0] < 0 or keys[-1] >= w.shape[-1]:
        raise ValueError(f"key positions {keys.tolist()} outside 0 … {w.shape[-1] - 1}")
    return w[..., keys].sum(axis=-1).mean(axis=-1)
