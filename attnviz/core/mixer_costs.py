"""What each token mixer holds and spends, per head, as the sequence grows.

Counted for decoding token by token with d_k = d_v = d, numbers in float32 (4 bytes):

- the **state** after n tokens: the KV cache, 2·d numbers per token seen (softmax, top-k
  and strided: every key may be needed again; a window keeps its last ``window``), or a
  fixed d × d matrix (linear kinds; + d for linear attention's normaliser);
- the **FLOPs** of token t: 4·d per pair it attends to (2·d for the score, 2·d for the
  weighted value), top-k scoring all t keys; a recurrent step 2·d² per matrix-vector
  product or rank-1 update (linear: write and read, 4·d²; decayed + d² for the decay;
  DeltaNet 6·d² + 2·d: read S k, write, read S q; gated + d²);
- the **bytes** token t moves: the cache entries it reads, or its state read and written
  back (2 · 4 · d²).

Totals over a sequence of n tokens are sums over t = 1 … n; :func:`crossing` finds the
length from which a kind is cheaper than softmax for good.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.mixers import DEFAULTS, KINDS, MixerParams

#: Bytes of a number (float32, as attnviz runs models).
BYTES = 4


def _strided_seen(t: np.ndarray, stride: int) -> np.ndarray:
    """Keys a strided row at position t (1-based, t keys visible) keeps: the ``stride``
    nearest and the multiples of ``stride`` further back."""
    return np.minimum(t, stride) + (t - 1) // stride


def state_numbers(kind: str, n, d: int, params: MixerParams = DEFAULTS) -> np.ndarray:
    """Numbers a head holds after ``n`` tokens (array-like n)."""
    n = np.asarray(n, dtype=np.int64)
    if kind in ("softmax", "top_k", "strided"):
        return 2 * d * n
    if kind == "window":
        return 2 * d * np.minimum(n, params.window)
    extra = d if kind == "linear" and params.normalised else 0
    if kind in ("linear", "decayed", "deltanet", "gated_deltanet"):
        return np.full(n.shape, d * d + extra, dtype=np.int64)
    raise ValueError(f"unknown mixer kind {kind!r}")


def token_costs(kind: str, t, d: int, params: MixerParams = DEFAULTS):
    """``(flops, bytes)`` of decoding token ``t`` (1-based, array-like)."""
    t = np.asarray(t, dtype=np.int64)
    if kind == "softmax":
        seen = t
    elif kind == "window":
        seen = np.minimum(t, params.window)
    elif kind == "strided":
        seen = _strided_seen(t, params.stride)
    elif kind == "top_k":
        kept = np.minimum(t, params.top_k)
        return 2 * d * t + 2 * d * kept, BYTES * d * (t + kept)
    else:
        per_step = {"linear": 4, "decayed": 5, "deltanet": 6, "gated_deltanet": 7}
        if kind not in per_step:
            raise ValueError(f"unknown mixer kind {kind!r}")
        flops = per_step[kind] * d * d + (
            4 * d if kind == "linear" and params.normalised else 2 * d if "delta" in kind else 0
        )
        state = state_numbers(kind, t, d, params)
        return np.full(t.shape, flops, dtype=np.int64), 2 * BYTES * state
    return 4 * d * seen, 2 * BYTES * d * seen


def sequence_costs(kind: str, n_max: int, d: int, params: MixerParams = DEFAULTS):
    """``(flops, bytes)``: totals for every length 1 … ``n_max`` (arrays of n_max, float64)."""
    flops, moved = token_costs(kind, np.arange(1, n_max + 1), d, params)
    return np.cumsum(flops, dtype=np.float64), np.cumsum(moved, dtype=np.float64)


def crossing(cost: np.ndarray, reference: np.ndarray) -> int | None:
    """The length (1-based) from which ``cost`` stays below ``reference`` to the end; None
    when it never does (or is never above it: then it is cheaper from the first token)."""
    below = cost < reference
    if not below[-1]:
        return None
    above = np.flatnonzero(~below)
    return 1 if above.size == 0 else int(above[-1]) + 2


def cost_grid(n_max: int) -> np.ndarray:
    """Lengths 1 … n_max spaced evenly on a log axis (about eight per factor of ten)."""
    points = max(2, int(np.log10(max(n_max, 2)) * 8) + 1)
    return np.unique(np.round(np.geomspace(1, n_max, points)).astype(np.int64))


def all_costs(n_max: int, d: int, params: MixerParams = DEFAULTS) -> dict:
    """For each kind its ``(flops, bytes)`` totals over 1 … n_max (see :func:`sequence_costs`)."""
    return {kind: sequence_costs(kind, n_max, d, params) for kind in KINDS}
