"""Copying a repeat: which next tokens an induction mechanism could get right, and how
many a model's own predictions do (numpy only).

A token ``t`` that occurred before, at ``s`` (the latest occurrence with ``s + 1 < t``,
:func:`attnviz.core.head_types.induction_pairs`), can be continued by copying what
followed it then, ``ids[s + 1]``. Where the sentence really goes on that way
(``ids[t + 1] == ids[s + 1]``) the next token is *copyable*; copy accuracy is the share of
copyable tokens the model's most likely next token gets right. On ``[BOS] w1 … wL w1 … wL``
with distinct words these are the repeat's 2nd … L-th words, as the induction training
counts them (:func:`attnviz.core.induction.copy_accuracy`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attnviz.core.head_types import induction_pairs

__all__ = ["copy_accuracy", "copyable"]


def copyable(ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(positions ``t``, the next token each should predict, ``ids[t + 1]``) of the
    sentence's copyable tokens, in order; both empty when nothing repeats."""
    ids = np.asarray(ids)
    queries, keys = induction_pairs(ids.tolist())
    keep = queries + 1 < ids.size
    queries, keys = queries[keep], keys[keep]
    keep = ids[queries + 1] == ids[keys]
    queries = queries[keep]
    return queries.astype(np.intp), ids[queries + 1]


def copy_accuracy(tops, expected) -> np.ndarray:
    """The share of ``expected`` next tokens that ``tops`` (the model's most likely next
    token at the same positions, shaped ``(..., k)``) gets right, per leading index; NaN
    when there is nothing to copy."""
    tops, expected = np.asarray(tops), np.asarray(expected)
    if expected.size == 0:
        return np.full(tops.shape[:-1], np.nan)
    return (tops == expected).mean(axis=-1)
