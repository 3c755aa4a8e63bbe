"""The overview's ``model`` head: the real model's head the heatmap shows, mapped as a long head.

A synthetic head is made of q and k alone, so the tiled path maps it from its row
log-sum-exp. A real model's head also carries its mask (causal, a sliding window), its
scale and the terms after it (capping, ALiBi, a sink), which the tiled path does not
know; so its map is made by blocks of query rows with
:class:`~attnviz.model.resolve._row_blocks.RowBlockAttention` — the very arithmetic the
heatmap draws and the proof checked against the model's own weights after the capture —
and every zoomed block comes from the same rows. Nothing is drawn that was not proven.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention import score_scale
from attnviz.core.score_terms import ScoreTerms
from attnviz.core.work import Cancelled, split_starts
from attnviz.model.resolve._row_blocks import BLOCK_ROWS, RowBlockAttention
from attnviz.model.resolve.attention import (
    mask_from_key,
    mask_key,
    rope_frequencies_for,
    rope_key,
    rotate,
)

#: The overview's seconds against n² × one float64 score cell's: the row blocks also
#: mask, cap, add the slopes and compute the entropy (6.4 measured at 8,192 tokens on the
#: 2-core CI machine).
MODEL_CELL_SHARE = 6.5
#: Fields of the attention topic the model head's map depends on.
ATTENTION_KEYS = frozenset(
    {
        "head",
        "model_path",
        "model_text",
        "layer",
        "model_head",
        "tokens",
        "q",
        "k",
        "v",
        "d_k",
        "scale",
        "temperature",
        "causal",
        "padding",
        "segments",
        "window",
        "window_causal",
        "softcap",
        "alibi",
        "sink",
        "sink_logit",
        "tuning",
        "tuning_floor",
        "rope",
        "rope_dims",
    }
)
NO_MODEL_HEAD = (
    "long.head=model maps the real model's head the heatmap shows: open a model first "
    "(attention.model_path and attention.model_text)"
)


@dataclass(frozen=True, eq=False)
class ModelHead:
    """A snapshot of the head the heatmap shows: q, k, v as the attention topic holds them
    (read-only arrays), its factor ``c``, mask settings, rotation and terms."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    c: float
    mask_key: tuple
    rope_key: tuple | None
    terms: ScoreTerms
    name: str
    layer: int
    head: int

    @property
    def n(self) -> int:
        """Tokens of the sentence."""
        return int(self.q.shape[0])

    @property
    def causal(self) -> bool:
        """True when a query sees no later key."""
        return bool(self.mask_key[1])

    def key(self) -> tuple:
        """What identifies the map. The arrays are never mutated (the topic replaces
        them), so their identity stands for their values while this snapshot keeps them
        alive (an :class:`~attnviz.model.resolve.long.Overview` holds its source)."""
        return (
            "model",
            id(self.q),
            id(self.k),
            self.c,
            self.mask_key,
            self.rope_key,
            self.terms,
            self.layer,
            self.head,
        )


def model_head(document) -> ModelHead:
    """The head the attention topic shows, when it is a real model's (else ValueError
    naming what to open)."""
    s = document["attention"]
    cap = s.capture() if s.head == "model" else None
    if cap is None:
        raise ValueError(NO_MODEL_HEAD)
    from attnviz.model.real_mixing import head_kind, is_softmax_head

    if not is_softmax_head(cap, s.layer, s.model_head):  # a hybrid's Gated DeltaNet, …
        raise ValueError(
            f"layer {s.layer} head {s.model_head} of {cap.name} is "
            f"{head_kind(cap, s.layer, s.model_head)}, not softmax attention: the long map "
            "draws softmax weights; its mixing matrix is the heatmap's (--matrix mixing)"
        )
    return ModelHead(
        s.q,
        s.k,
        s.v,
        score_scale(s.d_k, s.scale, s.temperature),
        mask_key(s),
        rope_key(s, document["positions"]),
        s.score_terms(),
        cap.name,
        s.layer,
        s.model_head,
    )


def row_blocks(src: ModelHead) -> RowBlockAttention:
    """The exact rows of ``src`` (q and k rotated first when RoPE is on)."""
    q, k = src.q, src.k
    if src.rope_key is not None:
        width, fields = src.rope_key
        q, k = rotate(q, k, rope_frequencies_for(width, dict(fields)))
    return RowBlockAttention(q, k, src.v, src.c, mask_from_key(src.mask_key), src.terms)


def weights_block(rows: RowBlockAttention, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """Weights of queries ``r0:r1`` × keys ``c0:c1``, exact (each row's softmax over every
    key), :data:`BLOCK_ROWS` rows at a time."""
    out = np.empty((r1 - r0, c1 - c0))
    for a in range(r0, r1, BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, r1)
        out[a - r0 : b - r0] = rows._block(a, b)[1][:, c0:c1]
    return out


def model_map(rows: RowBlockAttention, bins: int, reduce: str, progress=None, cancel=None):
    """The ``bins × bins`` map of the head's weights (groups as ``numpy.array_split``,
    each cell the ``reduce`` — "mean" or "max" — of the weights it covers)."""
    n = rows.n
    starts, sizes = split_starts(n, bins)
    how = np.add if reduce == "mean" else np.maximum
    out = np.zeros((bins, bins))
    per_strip = max(1, BLOCK_ROWS // int(sizes[0]))
    for g0 in range(0, bins, per_strip):
        if cancel is not None and cancel():
            raise Cancelled("the map of the model's head was cancelled")
        g1 = min(g0 + per_strip, bins)
        a, b = int(starts[g0]), int(starts[g1 - 1] + sizes[g1 - 1])
        weights = rows._block(a, b)[1]
        cols = how.reduceat(weights, starts, axis=1)
        out[g0:g1] = how.reduceat(cols, starts[g0:g1] - a, axis=0)
        if progress is not None:
            progress(g1 / bins)
    if reduce == "mean":
        out /= sizes[:, None] * sizes[None, :]
    return out


def model_bytes(n: int, d: int, bins: int) -> int:
    """Peak bytes of a model head's map: q, k, v in float64, the mask, one block of rows
    with the softmax's temporaries, the map."""
    return 3 * 8 * n * d + n * n + 5 * 8 * BLOCK_ROWS * n + 8 * bins * bins
