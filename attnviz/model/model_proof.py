"""The proof a real model's heads pass before anything shows them (no Qt).

The heatmap of a real head is not the model's tensor: the attention topic recomputes it
from the captured q and k with the settings it can express (causal or not, a sliding
window, the model's scale as √d_k and a temperature, tanh capping, ALiBi slopes, a sink
logit). A family whose attention does something those settings do not (a setting a
config leaves out but the class applies by default, a window of a kind the mask reader
does not know, a term of its own) would show weights that are not the model's, silently.
So after every capture each layer's weights are recomputed that way, for every head, and
compared with the weights the model itself produced; a layer off by more than
:data:`TOLERANCE` refuses the model in one line naming the layer and what differs
(:func:`prove_capture`).

The reference (:func:`block_difference`, head by head in float64) decides every refusal;
a layer passes on a quicker measure of the same difference — every head at once in
torch, float32 where the model computed in float32 — only well inside the tolerance
(:data:`FAST_PASS`). Both are attnviz's own recomputation of every head from the
captured q and k; nothing the model computed is taken on trust but its weights, which
are what the recomputation must match.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.attention import masked_softmax, score_scale
from attnviz.core.hf_capture import Capture, LayerCapture, ModelError
from attnviz.core.hf_proof import heads_difference
from attnviz.core.masks import causal_mask, chunked_mask, sliding_window_mask
from attnviz.core.score_terms import ScoreTerms

#: The largest difference between attnviz's weights and the model's that passes.
TOLERANCE = 1e-4


def mask_settings(lc: LayerCapture) -> tuple[bool, int, bool]:
    """``(causal, window, window_causal)`` of the attention topic that give this layer's
    mask: every pair, causal, a causal sliding window, or a window that looks both ways
    (ModernBERT's local layers).

    A mask the topic cannot express falls back to causal for a decoder-shaped mask and
    none otherwise; the proof then finds the layer's weights differ and refuses it.
    """
    allowed = lc.allowed
    n = allowed.shape[0]
    if allowed.all():
        return False, 0, True
    if np.array_equal(allowed, causal_mask(n)):
        return True, 0, True
    window = int(lc.window or 0)
    if window > 0 and np.array_equal(allowed, sliding_window_mask(n, window)):
        return True, window, True
    if window > 0 and np.array_equal(allowed, sliding_window_mask(n, window, causal=False)):
        return False, window, False
    return bool(not allowed[np.triu_indices(n, 1)].any()), 0, True


def chunk_of(lc: LayerCapture) -> int:
    """The chunk of Llama 4's chunked attention when this layer's mask is one (a query sees
    the keys of its own chunk only, causally or not), else 0: the attention topic's
    ``chunk``, with the causal flag of :func:`mask_settings`."""
    allowed = lc.allowed
    n = allowed.shape[0]
    breaks = np.flatnonzero(~np.diagonal(allowed, -1))  # row i + 1 does not see key i
    if n < 2 or breaks.size == 0:
        return 0
    chunk = int(breaks[0]) + 1
    inside = chunked_mask(n, chunk)
    if np.array_equal(allowed, inside & causal_mask(n)) or np.array_equal(allowed, inside):
        return chunk
    return 0


def temperature_for(lc: LayerCapture, d_head: int) -> float:
    """The softmax temperature T with 1/(√d_head · T) = the layer's scale (1 for most)."""
    t = 1.0 / (lc.scaling * np.sqrt(d_head))
    return 1.0 if abs(t - 1.0) < 1e-12 else float(t)


def topic_mask(
    causal: bool, window: int, n: int, window_causal: bool = True, chunk: int = 0
) -> np.ndarray | None:
    """The mask the attention topic draws for these settings (None: every pair)."""
    if window > 0:
        inside = sliding_window_mask(n, window, causal=window_causal)
        out = inside & causal_mask(n) if causal else inside
    else:
        out = causal_mask(n) if causal else None
    if 0 < chunk < n:
        inside = chunked_mask(n, chunk)
        out = inside if out is None else out & inside
    return out


def head_terms(lc: LayerCapture, head: int) -> ScoreTerms:
    """The capping, ALiBi slope and sink logit of query head ``head`` of this layer."""
    return ScoreTerms(
        softcap=float(lc.softcap or 0.0),
        alibi=0.0 if lc.alibi is None else float(lc.alibi[head]),
        sink=None if lc.sinks is None else float(lc.sinks[head]),
    )


def shown_weights(
    lc: LayerCapture,
    head: int,
    kv_head: int,
    rows: slice | None = None,
    mask: np.ndarray | None = None,
    keys: slice | None = None,
) -> np.ndarray:
    """The weights the heatmap draws for query head ``head`` of this layer (float64), for
    the query ``rows`` (all by default) and the ``keys`` (all by default: a narrower slice
    must hold every key these rows may see, or their softmax would lose some); ``mask`` is
    the layer's :func:`drawn_mask`, when the caller has it already."""
    rows = slice(None) if rows is None else rows
    keys = slice(None) if keys is None else keys
    q = np.asarray(lc.q[head][rows], dtype=np.float64)
    k = np.asarray(lc.k[kv_head][keys], dtype=np.float64)
    if mask is None:
        mask = drawn_mask(lc)
    c = score_scale(q.shape[1], True, temperature_for(lc, q.shape[1]))
    n = lc.q.shape[1]
    row0 = range(n)[rows].start if q.shape[0] else 0
    col0 = range(n)[keys].start if k.shape[0] else 0
    terms = head_terms(lc, head)
    logits = terms.logits((q @ k.T) * c, row0=row0, col0=col0)
    return masked_softmax(logits, None if mask is None else mask[rows, keys], terms.sink)[0]


def drawn_mask(lc: LayerCapture) -> np.ndarray | None:
    """The mask the attention topic draws for this layer (None: every pair): its causal,
    window and chunk settings, and a DSA layer's selection of keys."""
    causal, window, window_causal = mask_settings(lc)
    out = topic_mask(causal, window, lc.q.shape[1], window_causal, chunk_of(lc))
    if lc.selected is not None:
        out = lc.selected if out is None else out & lc.selected
    return out


#: Query rows compared at once by the block-wise proof of a long sentence.
BLOCK_ROWS = 256


def block_difference(lc: LayerCapture, weights_of) -> tuple[float, int]:
    """The largest difference between attnviz's weights and the model's in this layer, and
    the query head where it is, ``BLOCK_ROWS`` query rows at a time; ``weights_of(head)``
    gives the model's (n, n) weights of one query head (a long sentence's proof runs
    during the forward pass, while they exist).

    A block is computed over the keys its rows may see (a causal block's keys stop at its
    last row, a window's start at its first row's window); outside them the model's own
    weights are compared with the zero attnviz draws there — read, not computed."""
    heads, n = lc.q.shape[0], lc.q.shape[1]
    group = heads // lc.k.shape[0]
    mask = drawn_mask(lc)
    starts = range(0, n, BLOCK_ROWS)
    spans = [_key_span(mask, start, min(start + BLOCK_ROWS, n), n) for start in starts]
    worst, at = 0.0, 0
    for head in range(heads):
        model = weights_of(head)
        for start, (lo, hi) in zip(starts, spans, strict=True):
            rows = slice(start, min(start + BLOCK_ROWS, n))
            ours = shown_weights(lc, head, head // group, rows, mask, keys=slice(lo, hi))
            diff = float(np.max(np.abs(ours - model[rows, lo:hi]))) if hi > lo else 0.0
            for outside in (model[rows, :lo], model[rows, hi:]):
                if outside.size:
                    diff = max(diff, float(np.max(np.abs(outside))))
            if not diff <= worst:  # NaN counts as the worst
                worst, at = diff, head
                if not np.isfinite(diff):
                    return worst, at
    return worst, at


def _key_span(mask: np.ndarray | None, start: int, stop: int, n: int) -> tuple[int, int]:
    """``[lo, hi)``: the keys some query of rows ``start … stop − 1`` may see."""
    if mask is None:
        return 0, n
    seen = np.flatnonzero(mask[start:stop].any(axis=0))
    return (int(seen[0]), int(seen[-1]) + 1) if seen.size else (0, 0)


#: A layer passes on the quick figure (:func:`fast_difference`) only up to this; above
#: it (and for NaN) the float64 reference decides, and its figure is the one reported.
FAST_PASS = TOLERANCE / 4


def fast_difference(lc: LayerCapture, work: dict | None = None) -> tuple[float, int] | None:
    """:func:`block_difference` of a layer that keeps its weights, every head at once
    (:func:`attnviz.core.hf_proof.heads_difference`: a few torch calls per layer, float32
    for plain scores as the model's own), to float32's rounding — about 1e-6, a
    hundredth of :data:`TOLERANCE`; None when it cannot run here (no torch). ``work``
    keeps its buffer from one layer to the next."""
    heads, d = lc.q.shape[0], lc.q.shape[2]
    terms = [head_terms(lc, head) for head in range(heads)]
    diffs = heads_difference(
        lc.q,
        lc.k,
        lc.weights,
        scale=score_scale(d, True, temperature_for(lc, d)),
        mask=drawn_mask(lc),
        softcap=terms[0].softcap,
        alibi=None if lc.alibi is None else np.array([t.alibi for t in terms]),
        sinks=None if lc.sinks is None else np.array([t.sink for t in terms]),
        work=work,
    )
    if diffs is None:
        return None
    bad = np.flatnonzero(~np.isfinite(diffs))
    head = int(bad[0]) if bad.size else int(np.argmax(diffs))
    return float(diffs[head]), head


def layer_difference(capture: Capture, layer: int, work: dict | None = None) -> tuple[float, int]:
    """The largest difference between attnviz's weights and the model's in the captured
    softmax layer ``layer`` (its position in ``capture.layers``), and the query head where
    it is (a long sentence's: as proven during its capture).

    A layer that keeps its weights is measured by :func:`fast_difference`; a figure
    above :data:`FAST_PASS` (or none) is measured again by the float64 reference,
    :func:`block_difference`, which decides.
    So a layer passes on float32 only three quarters of the tolerance away from failing
    (its rounding is a hundredth of the tolerance), fails only on the reference, and a
    refusal quotes the reference's figure. ``work``: as :func:`fast_difference`'s."""
    lc = capture.layers[layer]
    if lc.weights is None:
        return lc.proof if lc.proof is not None else (float("nan"), 0)
    fast = fast_difference(lc, work)
    if fast is not None and fast[0] <= FAST_PASS:
        return fast
    return block_difference(lc, lambda head: lc.weights[head])


def _why(lc: LayerCapture) -> str:
    """What in this layer the attention topic does not do as the model does."""
    n = lc.allowed.shape[0]
    drawn = drawn_mask(lc)
    if not np.array_equal(np.ones((n, n), bool) if drawn is None else drawn, lc.allowed):
        kind = f"a window of {lc.window}" if lc.window else "a mask"
        return f"it uses {kind} that attnviz cannot draw (not causal, a sliding window nor chunks)"
    return (
        "its scores are not q·kᵀ times one scale per layer (a setting the config leaves "
        "out, or a term of its own)"
    )


def prove_capture(capture: Capture) -> None:
    """Refuse ``capture`` (:class:`ModelError`, one line) when any layer's weights as
    attnviz draws them differ from the model's own by more than :data:`TOLERANCE`."""
    work: dict = {}  # one buffer for the quick measure of every layer
    at = capture.attention_at or tuple(range(len(capture.layers)))
    for position, (lc, layer) in enumerate(zip(capture.layers, at, strict=True)):
        try:
            for head in range(lc.q.shape[0]):
                head_terms(lc, head)
        except (ValueError, IndexError, TypeError) as exc:
            raise ModelError(
                f"{capture.name}: layer {layer}: its score terms cannot be shown ({exc}); not shown"
            ) from None
        if lc.unknown:
            raise ModelError(
                f"{capture.name}: layer {layer}: its attention is called with "
                f"{', '.join(lc.unknown)}, which attnviz does not reproduce; not shown"
            )
        if lc.selected is not None and lc.index_layout is None:
            raise ModelError(
                f"{capture.name}: layer {layer}: the keys its sparse-attention indexer "
                "chose are not those attnviz recomputes from the indexer's weights; not shown"
            )
        if lc.weights is None and lc.proof is None:
            raise ModelError(
                f"{capture.name}: layer {layer} was not proven while its weights "
                "existed (a long sentence keeps none); not shown"
            )
        diff, head = layer_difference(capture, position, work)
        if not diff <= TOLERANCE:
            raise ModelError(
                f"{capture.name}: layer {layer}, head {head}: attnviz's weights differ from "
                f"the model's by {diff:.1e}, because {_why(lc)}; not shown"
            )
