"""DeepSeek Sparse Attention: the keys each query reads, recomputed from the indexer's weights.

DeepSeek-V3.2 and GLM's DSA models put an *indexer* before each attention layer: a small
multi-head scorer (its own query and key projections, a LayerNorm on the keys, rotary
positions on part of the width, a ReLU, and per-query weights over its heads) whose top-k
keys of each query are the only ones the attention may read. The model's attention then
puts its weights on those keys alone.

:func:`index_scores` recomputes the indexer's scores here, in float64, from the inputs it
was called with and its own weights; :func:`agrees` checks the model's selection against
them, ties and float32's rounding allowed for; :func:`recomputed_selection` tries the
rotary layouts the families use (DeepSeek's indexer turns half-split pairs, GLM's
interleaved ones) and returns the one the model's selection agrees with. What is shown is
then the model's own selection, proven to be the indexer's top-k.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Rotary layouts an indexer may use: half-split pairs (DeepSeek-V3.2), interleaved (GLM).
LAYOUTS = ("half", "interleaved")
#: Relative slack at the top-k threshold: the model scored in float32 (1e-7 of a score),
#: a thousand times that covers its rounding, and nothing a selection could hinge on.
TIE_SLACK = 1e-4


@dataclass(frozen=True)
class IndexerCall:
    """What one indexer call saw, as float64 arrays (one sentence, no batch)."""

    hidden: np.ndarray  # (S, hidden): the layer's normed input
    q_resid: np.ndarray  # (S, r): the compressed query the indexer's wq_b reads
    cos: np.ndarray  # (S, R): the model's rotary cosines (two equal halves)
    sin: np.ndarray  # (S, R)
    allowed: np.ndarray  # (S, T) bool: the keys the causal mask leaves a query
    wq_b: np.ndarray  # (H·D, r)
    wk: np.ndarray  # (D, hidden)
    norm_weight: np.ndarray  # (D,)
    norm_bias: np.ndarray  # (D,)
    norm_eps: float
    weights_proj: np.ndarray  # (H, hidden)
    n_heads: int
    head_dim: int
    rope_dim: int
    topk: int
    scale: float


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    """``x`` (S, …, R) turned by the model's cos and sin (S, R), as the family does."""
    extra = x.ndim - 2
    shape = (cos.shape[0],) + (1,) * extra + (cos.shape[-1],)
    if layout == "half":
        c, s = cos.reshape(shape), sin.reshape(shape)
        half = x.shape[-1] // 2
        turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return x * c + turned * s
    half = cos.shape[-1] // 2  # the first half holds each pair's angle
    c = cos[:, :half].reshape(shape[:-1] + (half,))
    s = sin[:, :half].reshape(shape[:-1] + (half,))
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], axis=-1)


def index_scores(call: IndexerCall, layout: str) -> np.ndarray:
    """The indexer's score of every key for every query, (S, T) float64, −inf where the
    mask hides the key: Σ_h w[s, h] · ReLU(scale · q_h[s] · k[t])."""
    s_len = call.hidden.shape[0]
    h, d, r = call.n_heads, call.head_dim, call.rope_dim
    q = (call.q_resid @ call.wq_b.T).reshape(s_len, h, d)
    k = call.hidden @ call.wk.T
    k = (k - k.mean(-1, keepdims=True)) / np.sqrt(k.var(-1, keepdims=True) + call.norm_eps)
    k = k * call.norm_weight + call.norm_bias
    q = np.concatenate([_rotate(q[..., :r], call.cos, call.sin, layout), q[..., r:]], axis=-1)
    k = np.concatenate([_rotate(k[..., :r], call.cos, call.sin, layout), k[..., r:]], axis=-1)
    per_head = np.maximum(np.einsum("shd,td->hst", q, k) * call.scale, 0.0)
    w = (call.hidden @ call.weights_proj.T) * h**-0.5  # (S, H)
    scores = np.einsum("sh,hst->st", w, per_head)
    return np.where(call.allowed, scores, -np.inf)


def agrees(selected: np.ndarray, scores: np.ndarray, topk: int) -> bool:
    """True when ``selected`` (S, T bool, the model's) is a top-``topk`` choice of every
    row of ``scores`` (−inf: hidden): as many visible keys as the row allows (at most
    ``topk``), none scoring clearly below a key left out (:data:`TIE_SLACK` of the
    threshold)."""
    for row, chosen in zip(scores, selected, strict=True):
        visible = np.isfinite(row)
        k = min(topk, int(visible.sum()))
        # A row that sees fewer than topk keys takes every one (and some hidden ones,
        # which its mask hides anyway): compare on the visible keys.
        if int((chosen & visible).sum()) != k:
            return False
        if k == 0:
            continue
        inside, outside = row[chosen & visible], row[visible & ~chosen]
        threshold = float(np.sort(row[visible])[::-1][k - 1])
        slack = TIE_SLACK * max(1.0, abs(threshold))
        if inside.size and inside.min() < threshold - slack:
            return False
        if outside.size and outside.max() > threshold + slack:
            return False
    return True


def recomputed_selection(call: IndexerCall, selected: np.ndarray) -> str | None:
    """The rotary layout under which attnviz's recomputation of ``call`` agrees with the
    model's ``selected`` keys, or None when none does."""
    for layout in LAYOUTS:
        if agrees(selected, index_scores(call, layout), call.topk):
            return layout
    return None
