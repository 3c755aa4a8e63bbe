"""The mixing matrix of any layer and head of a real model, proven before it is shown (no Qt).

``out_t = Σ_s M[t, s] v_s`` for every token mixer (DESIGN.md, Wave 4). A softmax layer's
``M`` is its weights, already proven against the model by :mod:`attnviz.model.model_proof`;
a hybrid's other layers (Gated DeltaNet, Mamba-2) are captured from the model's own kernel
by :mod:`attnviz.core.hf_mixing`, and each head's ``M @ v`` is compared with the kernel's
output before it is returned (a :class:`ModelError` of one line naming the mechanism
otherwise). A layer whose attention and SSM heads stand side by side (Falcon-H1) numbers
its attention heads first, then its SSM heads. The captured layers and the last matrices
are kept, keyed like the captures of :mod:`attnviz.model.real_model` (folder, sentence,
layer, head).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from attnviz.core import hf_mixing
from attnviz.core.hf_errors import ModelError
from attnviz.core.wording import counted
from attnviz.model import real_model
from attnviz.model.model_proof import drawn_mask, shown_weights

__all__ = [
    "MixingLayer",
    "beside",
    "head_kind",
    "is_softmax",
    "is_softmax_head",
    "layer_mixing",
    "layers_mixing",
    "mixing_matrix",
    "refuse_weights",
    "softmax_heads",
]

MixingLayer = hf_mixing.MixingLayer
#: Captured layers kept (their q, k, v and gates: n × d each, small) and matrices (n × n).
MAX_LAYERS_KEPT = 8
MAX_MATRICES_KEPT = 4

_LOCK = threading.Lock()
_LAYERS: OrderedDict[tuple, MixingLayer] = OrderedDict()
_MATRICES: OrderedDict[tuple, np.ndarray] = OrderedDict()


def is_softmax(capture, layer: int) -> bool:
    """True when model layer ``layer`` has softmax attention attnviz captured."""
    return capture.captured(layer) is not None


def softmax_heads(capture, layer: int) -> int:
    """The query heads of model layer ``layer``'s softmax attention (0: it has none)."""
    return capture.layer(layer).q.shape[0] if is_softmax(capture, layer) else 0


def beside(capture, layer: int) -> str:
    """The kind of the mixer that runs beside a layer's softmax attention (Falcon-H1's
    ``"softmax + Mamba-2"`` → ``"Mamba-2"``), or "" when none does."""
    kind = capture.layer_kind(layer) if 0 <= layer < capture.layer_count else ""
    return kind.partition(" + ")[2] if kind.startswith("softmax + ") else ""


def is_softmax_head(capture, layer: int, head: int) -> bool:
    """True when ``head`` of model layer ``layer`` is a softmax attention head: a layer
    whose attention and SSM heads stand side by side numbers its attention heads first."""
    return 0 <= head < softmax_heads(capture, layer)


def head_kind(capture, layer: int, head: int) -> str:
    """What ``head`` of model layer ``layer`` is: the layer's kind, or beside a softmax
    attention the other mixer's for the heads after the attention heads."""
    other = beside(capture, layer)
    if other and not is_softmax_head(capture, layer, head):
        return other
    return capture.layer_kind(layer)


def refuse_weights(capture, layer: int, what: str, head: int = 0) -> str | None:
    """Why ``what`` (weights, scores, output of softmax attention) cannot be shown at
    ``head`` of model layer ``layer``, in one line naming its kind; None on a softmax head
    (or a layer out of range, refused elsewhere)."""
    if not 0 <= layer < capture.layer_count or is_softmax_head(capture, layer, head):
        return None
    if is_softmax(capture, layer) and not beside(capture, layer):
        return None  # a head out of range: refused with the range
    kind = head_kind(capture, layer, head)
    if is_softmax(capture, layer):  # an SSM head beside the attention heads
        where, what_is = f"head {head} of layer {layer}", f"a {kind} head"
    else:
        where, what_is = f"layer {layer}", f"a {kind} layer"
    return (
        f"{where} of {capture.name} is {what_is}, not softmax attention: it has no "
        f"attention {what}; --matrix mixing shows how it mixes its tokens"
    )


def _key(path: str, text: str, *rest) -> tuple:
    return (real_model.normalize_path(path), text, *rest)


def layer_mixing(path: str, text: str, layer: int) -> MixingLayer:
    """What the mixing core of non-softmax model layer ``layer`` received and returned for
    ``text`` (captured now, or kept from before)."""
    loaded = real_model.STORE.model(path)
    key = _key(path, text, layer, id(loaded))
    with _LOCK:
        if key in _LAYERS:
            _LAYERS.move_to_end(key)
            return _LAYERS[key]
    found = hf_mixing.capture_mixing(loaded, text, layer)
    with _LOCK:
        _LAYERS[key] = found
        while len(_LAYERS) > MAX_LAYERS_KEPT:
            _LAYERS.popitem(last=False)
    return found


def layers_mixing(path: str, text: str, layers) -> dict[int, MixingLayer]:
    """:func:`layer_mixing` of every layer in ``layers``, those not kept captured together
    in one pass of ``text``."""
    loaded = real_model.STORE.model(path)
    out, missing = {}, []
    with _LOCK:
        for layer in layers:
            key = _key(path, text, layer, id(loaded))
            if key in _LAYERS:
                out[layer] = _LAYERS[key]
            else:
                missing.append(layer)
    found = hf_mixing.capture_mixing_layers(loaded, text, missing) if missing else {}
    with _LOCK:
        for layer, mixing in found.items():
            _LAYERS[_key(path, text, layer, id(loaded))] = mixing
        while len(_LAYERS) > max(MAX_LAYERS_KEPT, len(found)):
            _LAYERS.popitem(last=False)
    return out | found


def _check_head(capture, layer: int, head: int, heads: int) -> None:
    if not 0 <= head < heads:
        raise ModelError(
            f"model_head {head} is outside 0…{heads - 1} (layer {layer} of {capture.name} "
            f"has {counted(heads, 'head')})"
        )


def mixing_matrix(path: str, text: str, layer: int, head: int) -> tuple[str, np.ndarray]:
    """``(kind, M)`` of ``head`` of model layer ``layer`` for ``text``: a softmax layer's
    weights (float64, as the heatmap draws them), or the proven matrix of another kind.
    :class:`ModelError` (one line) for a layer or head the model has not, or a matrix
    that does not reproduce the model's own output."""
    capture = real_model.STORE.capture(path, text)
    if not 0 <= layer < capture.layer_count:
        raise ModelError(
            f"layer {layer} is outside 0…{capture.layer_count - 1} "
            f"({capture.name} has {counted(capture.layer_count, 'layer')})"
        )
    kind = head_kind(capture, layer, head)
    # The loaded model's identity: a folder loaded again (changed on disk) is another key.
    key = _key(path, text, layer, head, id(real_model.STORE.loaded(path)))
    with _LOCK:
        if key in _MATRICES:
            _MATRICES.move_to_end(key)
            return kind, _MATRICES[key]
    attention = softmax_heads(capture, layer)
    if head < attention or (attention and not beside(capture, layer)):
        lc = capture.layer(layer)
        _check_head(capture, layer, head, lc.q.shape[0])
        if lc.weights is not None:
            m = np.asarray(lc.weights[head], dtype=np.float64)
        else:  # a long sentence keeps no n × n weights: recomputed as proven equal
            group = lc.q.shape[0] // lc.k.shape[0]
            m = shown_weights(lc, head, head // group, None, drawn_mask(lc))
    else:  # its SSM (or recurrent) heads, after any attention heads beside them
        found = layer_mixing(path, text, layer)
        _check_head(capture, layer, head, attention + found.heads)
        m = hf_mixing.prove_head(found, head - attention)
    m.flags.writeable = False
    with _LOCK:
        _MATRICES[key] = m
        while len(_MATRICES) > MAX_MATRICES_KEPT:
            _MATRICES.popitem(last=False)
    return kind, m


def clear() -> None:
    """Forget every kept layer and matrix (tests; a model that changed on disk)."""
    with _LOCK:
        _LAYERS.clear()
        _MATRICES.clear()
