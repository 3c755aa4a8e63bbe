"""The overview's ``model`` head: the real model's head the heatmap shows, mapped as a long head.

A synthetic head is made of q and k alone, so the tiled path maps it from its row
log-sum-exp. A real model's head also carries its mask (causal, a sliding window), its
scale and the terms after it (capping, ALiBi, a sink), which the tiled path does not
know; so its map is made by blocks of query rows with
:class:`~attnviz.model.resolve._row_blocks.RowBlockAttention` — the very arithmetic the
heatmap draws and the proof checked against the model's own weights after the capture —
and every zoomed block comes from the same rows. Nothing is drawn that was not proven.

A hybrid's other heads (Gated DeltaNet, KDA, Mamba-2, Mamba, a short convolution,
lightning attention) are no softmax: their map is their mixing matrix ``M``
(``out_t = Σ_s M[t, s] v_s``) as :func:`attnviz.model.real_mixing.mixing_matrix` gives it,
proven against the model's own kernel output, pooled on the map's worker
(:class:`MixingRows`): a cell the block's mean, or its entry farthest from 0 (M is signed).
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
#: The map of a mixing head against n² × one float64 score cell at width
#: ``max(d_k, MIXING_WIDTH)``: building M when it is not kept (at n = 1,024–2,048 on the
#: 2-core CI machine: the delta rule 3–5, growing to 14 at 4,096 as its state leaves the
#: cache; Mamba-2's SSD 1–2.5, Mamba's selective scan 7–8 at 16 state dimensions, a short
#: convolution 0.5), its proof and the pooling (0.3).
MIXING_CELL_SHARE = {
    "Gated DeltaNet": 15.0,
    "DeltaNet": 15.0,
    "KDA (Kimi Delta Attention)": 15.0,
    "Mamba-2": 3.5,
    "lightning attention": 3.5,
    "Mamba": 10.0,
    "short convolution": 1.5,
}
#: A mixing head's q and k can be 1 wide (a channel's gates): its cost is not theirs.
MIXING_WIDTH = 64
#: n² float64 arrays the building of M holds at once (M and the SSD's decay, product,
#: mask and scores), besides the kept M.
MIXING_COPIES = 5
#: What a mixing head's q and k exports are, by kind (None: it has none of its own).
MIXING_QK = {
    "Gated DeltaNet": ("q as its kernel reads it", "k as its kernel reads it"),
    "DeltaNet": ("q as its kernel reads it", "k as its kernel reads it"),
    "KDA (Kimi Delta Attention)": ("q as its kernel reads it", "k as its kernel reads it"),
    "lightning attention": ("q after its activation", "k after its activation"),
    "Mamba-2": ("C, its scan's output matrix", "B, its scan's input matrix"),
    "short convolution": ("C, its output gate", "B, its input gate"),
    "Mamba": None,
}
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
    #: A non-softmax head's kind ("" for softmax attention), its sentence's folder and
    #: text (M comes from them, on the map's worker) and its layer's captured bytes.
    kind: str = ""
    path: str = ""
    text: str = ""
    capture_bytes: int = 0

    @property
    def mixing(self) -> bool:
        """True for a head whose map is its mixing matrix M, not softmax weights."""
        return bool(self.kind)

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
            self.kind,
        )


def model_head(document) -> ModelHead:
    """The head the attention topic shows, when it is a real model's (else ValueError
    naming what to open)."""
    s = document["attention"]
    cap = s.capture() if s.head == "model" else None
    if cap is None:
        raise ValueError(NO_MODEL_HEAD)
    from attnviz.model import real_mixing

    if not real_mixing.is_softmax_head(cap, s.layer, s.model_head):  # Gated DeltaNet, …
        return _mixing_head(s, cap)
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


def _mixing_head(s, cap) -> ModelHead:
    """A hybrid's non-softmax head: q, k, v as its core reads them (the topic's), its
    kind, and what its layer's capture holds (kept: the topic proved M on selecting it)."""
    from attnviz.model import real_mixing, real_model

    try:
        found = real_mixing.layer_mixing(s.model_path, s.model_text, s.layer)
    except real_model.ModelError as exc:
        raise ValueError(str(exc)) from None
    held = (found.q, found.k, found.v, found.out, *found.gates.values())
    return ModelHead(
        s.q,
        s.k,
        s.v,
        1.0,
        mask_key(s),
        None,
        s.score_terms(),
        cap.name,
        s.layer,
        s.model_head,
        real_mixing.head_kind(cap, s.layer, s.model_head),
        s.model_path,
        s.model_text,
        int(sum(np.asarray(a).nbytes for a in held)),
    )


def row_blocks(src: ModelHead) -> RowBlockAttention:
    """The exact rows of ``src`` (q and k rotated first when RoPE is on)."""
    q, k = src.q, src.k
    if src.rope_key is not None:
        width, fields = src.rope_key
        q, k = rotate(q, k, rope_frequencies_for(width, dict(fields)))
    return RowBlockAttention(q, k, src.v, src.c, mask_from_key(src.mask_key), src.terms)


def weights_block(rows, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """Weights of queries ``r0:r1`` × keys ``c0:c1``, exact (each row's softmax over every
    key), :data:`BLOCK_ROWS` rows at a time; of a :class:`MixingRows`, M's slice."""
    if isinstance(rows, MixingRows):
        return np.array(rows.m[r0:r1, c0:c1])
    out = np.empty((r1 - r0, c1 - c0))
    for a in range(r0, r1, BLOCK_ROWS):
        b = min(a + BLOCK_ROWS, r1)
        out[a - r0 : b - r0] = rows._block(a, b)[1][:, c0:c1]
    return out


def model_map(rows: RowBlockAttention, bins: int, reduce: str, progress=None, cancel=None):
    """The ``bins × bins`` map of the head's weights (groups as ``numpy.array_split``,
    each cell the ``reduce`` — "mean" or "max" — of the weights it covers)."""
    return _pooled_map(
        rows.n, bins, reduce, lambda a, b: rows._block(a, b)[1], False, progress, cancel
    )


def _pooled_map(n: int, bins: int, reduce: str, rows_of, signed: bool, progress, cancel):
    """``bins × bins`` cells of an n × n matrix whose rows ``a:b`` come from
    ``rows_of(a, b)``, a strip of whole row groups at a time (:func:`pool` each)."""
    starts, sizes = split_starts(n, bins)
    out = np.zeros((bins, bins))
    per_strip = max(1, BLOCK_ROWS // int(sizes[0]))
    for g0 in range(0, bins, per_strip):
        if cancel is not None and cancel():
            raise Cancelled("the map of the model's head was cancelled")
        g1 = min(g0 + per_strip, bins)
        a, b = int(starts[g0]), int(starts[g1 - 1] + sizes[g1 - 1])
        out[g0:g1] = pool(rows_of(a, b), starts[g0:g1] - a, starts, reduce, signed=signed)
        if progress is not None:
            progress(g1 / bins)
    if reduce == "mean":
        out /= sizes[:, None] * sizes[None, :]
    return out


def model_bytes(n: int, d: int, bins: int) -> int:
    """Peak bytes of a model head's map: q, k, v in float64, the mask, one block of rows
    with the softmax's temporaries, the map."""
    return 3 * 8 * n * d + n * n + 5 * 8 * BLOCK_ROWS * n + 8 * bins * bins


class MixingRows:
    """A mixing head's proven M (n × n float64, read-only), in place of
    :class:`~attnviz.model.resolve._row_blocks.RowBlockAttention`'s rows."""

    def __init__(self, src: ModelHead, m: np.ndarray) -> None:
        self.kind, self.m = src.kind, m
        self.q, self.k, self.v = src.q, src.k, src.v

    @property
    def n(self) -> int:
        """Tokens of the sentence."""
        return int(self.m.shape[0])


def mixing_rows(src: ModelHead) -> MixingRows:
    """The proven M of ``src`` (:func:`attnviz.model.real_mixing.mixing_matrix`, kept or
    made now: on the map's worker); ValueError of one line when it cannot be proven."""
    from attnviz.model import real_mixing, real_model

    try:
        _kind, m = real_mixing.mixing_matrix(src.path, src.text, src.layer, src.head)
    except real_model.ModelError as exc:
        raise ValueError(str(exc)) from None
    if m.shape[0] != src.n:
        raise ValueError(f"the mixing matrix has {m.shape[0]} tokens, the head {src.n}")
    return MixingRows(src, m)


def pool(a: np.ndarray, r_starts, c_starts, reduce: str, signed: bool = False) -> np.ndarray:
    """``a`` pooled by groups starting at ``r_starts`` (rows) and ``c_starts`` (columns):
    the sums ("mean": the caller divides by the sizes), the maxima ("max"), or with
    ``signed`` the entry farthest from 0 (the positive one on a tie)."""
    if reduce == "mean":
        return np.add.reduceat(np.add.reduceat(a, c_starts, axis=1), r_starts, axis=0)
    hi = np.maximum.reduceat(np.maximum.reduceat(a, c_starts, axis=1), r_starts, axis=0)
    if not signed:
        return hi
    lo = np.minimum.reduceat(np.minimum.reduceat(a, c_starts, axis=1), r_starts, axis=0)
    return np.where(hi >= -lo, hi, lo)


def mixing_map(rows: MixingRows, bins: int, reduce: str, progress=None, cancel=None):
    """The ``bins × bins`` map of M (groups as ``numpy.array_split``): each cell the mean of
    its block ("mean") or its entry of largest |M|, signed ("max")."""
    return _pooled_map(rows.n, bins, reduce, lambda a, b: rows.m[a:b], True, progress, cancel)


def mixing_bytes(n: int, capture_bytes: int, bins: int) -> int:
    """Peak bytes of a mixing head's map: M (n² float64) and the temporaries of its
    building, the layer's capture, a strip of pooling, the map."""
    return (1 + MIXING_COPIES) * 8 * n * n + capture_bytes + 3 * 8 * BLOCK_ROWS * n + 8 * bins**2


def mixing_share(kind: str) -> float:
    """:data:`MIXING_CELL_SHARE` of ``kind`` (the slowest form's for one not listed)."""
    return MIXING_CELL_SHARE.get(kind, max(MIXING_CELL_SHARE.values()))
