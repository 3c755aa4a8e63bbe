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
"""

from __future__ import annotations

import numpy as np

from attnviz.core.attention import attention_from_scores, score_scale
from attnviz.core.hf_capture import Capture, LayerCapture, ModelError
from attnviz.core.masks import causal_mask, sliding_window_mask
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


def temperature_for(lc: LayerCapture, d_head: int) -> float:
    """The softmax temperature T with 1/(√d_head · T) = the layer's scale (1 for most)."""
    t = 1.0 / (lc.scaling * np.sqrt(d_head))
    return 1.0 if abs(t - 1.0) < 1e-12 else float(t)


def topic_mask(causal: bool, window: int, n: int, window_causal: bool = True) -> np.ndarray | None:
    """The mask the attention topic draws for these settings (None: every pair)."""
    if window > 0:
        inside = sliding_window_mask(n, window, causal=window_causal)
        return inside & causal_mask(n) if causal else inside
    return causal_mask(n) if causal else None


def head_terms(lc: LayerCapture, head: int) -> ScoreTerms:
    """The capping, ALiBi slope and sink logit of query head ``head`` of this layer."""
    return ScoreTerms(
        softcap=float(lc.softcap or 0.0),
        alibi=0.0 if lc.alibi is None else float(lc.alibi[head]),
        sink=None if lc.sinks is None else float(lc.sinks[head]),
    )


def shown_weights(lc: LayerCapture, head: int, kv_head: int) -> np.ndarray:
    """The weights the heatmap draws for query head ``head`` of this layer (float64)."""
    q = np.asarray(lc.q[head], dtype=np.float64)
    k = np.asarray(lc.k[kv_head], dtype=np.float64)
    causal, window, window_causal = mask_settings(lc)
    c = score_scale(q.shape[1], True, temperature_for(lc, q.shape[1]))
    mask = topic_mask(causal, window, q.shape[0], window_causal)
    res = attention_from_scores((q @ k.T) * c, np.zeros((q.shape[0], 1)), mask=mask,
                                terms=head_terms(lc, head))
    return res.weights


def layer_difference(capture: Capture, layer: int) -> tuple[float, int]:
    """The largest difference between attnviz's weights and the model's in ``layer``,
    and the query head where it is."""
    lc = capture.layers[layer]
    group = capture.n_heads // capture.n_kv_heads
    worst, at = 0.0, 0
    for head in range(capture.n_heads):
        diff = float(np.max(np.abs(shown_weights(lc, head, head // group) - lc.weights[head])))
        if not diff <= worst:  # NaN counts as the worst
            worst, at = diff, head
            if not np.isfinite(diff):
                break
    return worst, at


def _why(lc: LayerCapture) -> str:
    """What in this layer the attention topic does not do as the model does."""
    n = lc.allowed.shape[0]
    drawn = topic_mask(*mask_settings(lc)[:2], n, mask_settings(lc)[2])
    if not np.array_equal(np.ones((n, n), bool) if drawn is None else drawn, lc.allowed):
        kind = f"a window of {lc.window}" if lc.window else "a mask"
        return f"it uses {kind} that attnviz cannot draw (not causal, nor a sliding window)"
    return ("its scores are not q·kᵀ times one scale per layer (a setting the config leaves "
            "out, or a term of its own)")


def prove_capture(capture: Capture) -> None:
    """Refuse ``capture`` (:class:`ModelError`, one line) when any layer's weights as
    attnviz draws them differ from the model's own by more than :data:`TOLERANCE`."""
    for layer, lc in enumerate(capture.layers):
        try:
            for head in range(capture.n_heads):
                head_terms(lc, head)
        except (ValueError, IndexError, TypeError) as exc:
            raise ModelError(f"{capture.name}: layer {layer}: its score terms cannot be shown "
                             f"({exc}); not shown") from None
        diff, head = layer_difference(capture, layer)
        if not diff <= TOLERANCE:
            raise ModelError(
                f"{capture.name}: layer {layer}, head {head}: attnviz's weights differ from "
                f"the model's by {diff:.1e}, because {_why(lc)}; not shown"
            )
