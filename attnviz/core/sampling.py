"""The sampling distribution of one position's logits: temperature, top-k and top-p,
numpy only (no torch), by the rules of transformers' logits warpers.

Bad settings or logits are refused with a one-line ValueError naming the bad one.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from attnviz.core.value_text import brief

__all__ = ["log_softmax", "probabilities"]


def _check_sampling(temperature, top_k, top_p) -> tuple[float, int, float]:
    """The three settings as numbers, or a one-line ValueError naming the bad one."""
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise ValueError(f"temperature must be a number > 0, got {brief(temperature)}")
    t = float(temperature)
    if not math.isfinite(t) or t <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {brief(temperature)}")
    if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral) or top_k < 0:
        raise ValueError(f"top_k must be an integer ≥ 0 (0: off), got {brief(top_k)}")
    if isinstance(top_p, bool) or not isinstance(top_p, numbers.Real):
        raise ValueError(f"top_p must be a number in (0, 1], got {brief(top_p)}")
    p = float(top_p)
    if not (0.0 < p <= 1.0):  # NaN fails too
        raise ValueError(f"top_p must be in (0, 1] (1: off), got {brief(top_p)}")
    return t, int(top_k), p


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax of a float64 vector that may hold −inf (not all of it)."""
    e = np.exp(x - x.max())
    return e / e.sum()


def probabilities(
    logits, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0
) -> np.ndarray:
    """The sampling distribution of ``logits`` (one position's, over the vocabulary):
    softmax of logits / ``temperature`` in float64, then only the ``top_k`` largest
    (0: off), then the nucleus (the smallest set, by descending probability, whose mass
    reaches ``top_p``; 1: off), renormalised. Filtered tokens get probability 0.

    Same rules as transformers' Temperature-, TopK- and TopPLogitsWarper applied in that
    order: top-k keeps every token tied with the k-th, top-p removes the tokens whose
    ascending cumulative probability is ≤ 1 − top_p and always keeps the most likely
    (among equal probabilities the earlier token ranks first).
    """
    t, k, p = _check_sampling(temperature, top_k, top_p)
    x = np.asarray(logits)
    if x.ndim != 1 or x.size == 0 or not np.issubdtype(x.dtype, np.number):
        raise ValueError(f"logits must be a non-empty vector of numbers, got {brief(logits)}")
    x = x.astype(np.float64) / t
    if np.isnan(x).any() or np.isposinf(x).any() or not np.isfinite(x).any():
        raise ValueError("logits must be finite numbers (−inf where a token is impossible)")
    if 0 < k < x.size:
        kth = np.partition(x, x.size - k)[x.size - k]
        x = np.where(x < kth, -np.inf, x)  # ties with the k-th stay, as TopKLogitsWarper
    if p < 1.0:
        # Descending, ties by index; transformers walks the same order from the bottom.
        order = np.argsort(-x, kind="stable")
        ascending = order[::-1]
        mass = np.cumsum(_softmax(x)[ascending])
        drop = mass <= 1.0 - p
        drop[-1] = False  # the most likely token always stays
        x = x.copy()
        x[ascending[drop]] = -np.inf
    return _softmax(x)


def log_softmax(x: np.ndarray) -> np.ndarray:
    """Log-softmax along the last axis, max-subtracted so large logits do not overflow."""
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
