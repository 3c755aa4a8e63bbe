"""The ``model`` head source of the attention topic: Q, K, V, tokens, mask and scale of a
real model's head, from the sentence captured in :mod:`attnviz.model.real_model` (no Qt).
"""

from __future__ import annotations

import numpy as np

from attnviz.core.wording import counted
from attnviz.model.fields import StateError
from attnviz.model.topics._attention_limits import MAX_D_MODEL, MAX_HEADS, MODEL_KEYS

NO_MODEL = "no model is open: File → Open Model… or attnviz --model DIR"


def model_capture(values: dict):
    """The captured sentence of field ``values`` (cached, or run again); a folder or a
    sentence that cannot be used is a :class:`StateError` of one line."""
    # Imported on first use: the model chain (loaders, proofs, capture) is not needed to
    # start the window, which opens on a preset.
    from attnviz.model import real_model

    if not values["model_path"]:
        raise StateError(NO_MODEL)
    try:
        real_model.normalize_path(values["model_path"])
    except real_model.ModelError as exc:  # a NUL, a loop of links, an unencodable name
        raise StateError(f"model_path: {exc}") from None
    try:
        return real_model.STORE.capture(values["model_path"], values["model_text"])
    except real_model.ModelError as exc:
        raise StateError(str(exc)) from None
    except (ValueError, OSError) as exc:  # a NUL byte, a name too long, a loop of links
        raise StateError(f"model_path cannot be opened: {exc}") from None


def follow_model(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """Tokens, Q, K, V, mask and scale of the selected head of the captured sentence."""
    from attnviz.model import real_model

    switched = old["head"] != "model"
    if arrays_given or not (switched or given & MODEL_KEYS):
        return  # the slider path, or a snapshot that brings its own arrays
    cap = model_capture(new)
    other = switched or given & {"model_path", "model_text"}
    _select_head(new, given, cap, other)
    from attnviz.model.real_mixing import is_softmax_head

    if not is_softmax_head(cap, new["layer"], new["model_head"]):
        # A hybrid's Gated DeltaNet, Mamba-2, … layer, or an SSM head beside attention.
        _follow_mixing_layer(new, given, cap, other)
        return
    lc = cap.layer(new["layer"])
    new["tokens"] = real_model.display_tokens(cap)
    new.update(real_model.head_arrays(cap, new["layer"], new["model_head"]))
    new["d_k"] = lc.q.shape[2]  # the layer's own (Gemma 4's global layers are wider)
    follow = _head_settings(new, given, cap, lc, other)
    for name, value in follow.items():
        if name not in given:
            new[name] = value
    _follow_head_layout(new, given, cap)


def _select_head(new: dict, given: set[str], cap, other) -> None:
    """Keep the layer and head within another model or sentence (``other``) unless the
    update sets them — on a layer with softmax attention: a hybrid's first such layer
    from the one asked — then refuse a layer or head the captured model does not have,
    and a layer of another kind, naming it."""
    layers = cap.layer_count
    if other and "layer" not in given:
        new["layer"] = _softmax_layer(cap, min(new["layer"], layers - 1))
    if not 0 <= new["layer"] < layers:
        raise StateError(
            f"layer {new['layer']} is outside 0…{layers - 1} "
            f"({cap.name} has {counted(layers, 'layer')})"
        )
    heads = _heads_of(new, given, cap)
    if other and "model_head" not in given and new["model_head"] >= heads:
        new["model_head"] = heads - 1
    if not 0 <= new["model_head"] < heads:
        raise StateError(
            f"model_head {new['model_head']} is outside 0…{heads - 1} "
            f"({cap.name} has {counted(heads, 'query head')} per layer)"
        )


def _heads_of(new: dict, given: set[str], cap) -> int:
    """The heads of the selected layer: its query heads; at a layer without softmax
    attention the heads of its mixing matrix (captured now), and beside a softmax
    attention (Falcon-H1) the attention heads, then the SSM heads. A mixing head is shown
    as ``matrix = "mixing"`` only: an update that asks for another matrix there is
    refused naming its kind."""
    from attnviz.model import real_mixing, real_model

    layer, head = new["layer"], new["model_head"]
    attention = real_mixing.softmax_heads(cap, layer)
    if attention and (not real_mixing.beside(cap, layer) or 0 <= head < attention):
        return attention  # (an SSM head beside them is counted only when asked for)
    if "matrix" in given and new["matrix"] != "mixing":
        raise StateError(real_mixing.refuse_weights(cap, layer, new["matrix"], head))
    try:
        return (
            attention + real_mixing.layer_mixing(new["model_path"], new["model_text"], layer).heads
        )
    except real_model.ModelError as exc:  # a kind attnviz does not capture (yet)
        raise StateError(str(exc)) from None


def _follow_mixing_layer(new: dict, given: set[str], cap, other) -> None:
    """A layer without softmax attention (or an SSM head beside it): the model's tokens,
    and as Q, K, V the head's q, k and v as its mixing core reads them (a Mamba-2 head's
    C, B and x); the heatmap shows its mixing matrix."""
    from attnviz.model import real_mixing, real_model

    path, text, layer, head = (new[k] for k in ("model_path", "model_text", "layer", "model_head"))
    try:
        # Proven before anything shows it: M @ v against the model's own kernel output.
        real_mixing.mixing_matrix(path, text, layer, head)
    except real_model.ModelError as exc:
        raise StateError(str(exc)) from None
    found = real_mixing.layer_mixing(path, text, layer)
    head -= real_mixing.softmax_heads(cap, layer)  # its SSM heads come after attention's
    n = found.v.shape[1]
    new["tokens"] = real_model.display_tokens(cap)
    for name in ("q", "k", "v"):
        arr = np.array(getattr(found, name)[head], dtype=np.float64)
        arr.flags.writeable = False
        new[name] = arr
    new["d_k"] = found.q.shape[2]
    follow = {"causal": True, "window": 0, "chunk": 0, "padding": (True,) * n,
              "segments": (0,) * n, "temperature": 1.0, "softcap": 0.0, "alibi": 0.0,
              "sink": False, "sink_logit": 0.0, "tuning": 0.0, "matrix": "mixing"}  # fmt: skip
    if other:
        follow |= {"rope": False, "scale": True, "preset_id": ""}
    for name, value in follow.items():
        if name not in given:
            new[name] = value
    _follow_head_layout(new, given, cap)


def _softmax_layer(cap, layer: int) -> int:
    """``layer``, or where it has no softmax attention (a hybrid's linear layer), the next
    layer that has, else the last before it."""
    after = [i for i in cap.attention_at if i >= layer] if cap.attention_at else [layer]
    before = [i for i in cap.attention_at if i < layer] if cap.attention_at else []
    return after[0] if after else before[-1]


def _head_settings(new: dict, given: set[str], cap, lc, other) -> dict:
    """The mask, scale and score terms of the selected layer ``lc`` and head that follow
    it: those of a new layer when the layer changes, of a new head when the head does,
    and all of them for another model or sentence (``other``)."""
    from attnviz.model import real_model

    n = len(new["tokens"])
    follow = {}
    if other or "layer" in given:
        # Each layer its own mask and scale (a model may scale its layers differently).
        causal, window, window_causal = real_model.mask_settings(lc)
        follow |= {
            "causal": causal,
            "window": window,
            "window_causal": window_causal,
            "chunk": real_model.chunk_of(lc),
            "padding": (True,) * n,
            "segments": (0,) * n,
            "temperature": real_model.temperature_for(lc, lc.q.shape[2]),
        }
    if other or given & {"layer", "model_head"}:
        # Each head its own ALiBi slope and sink logit, each layer its cap.
        terms = real_model.head_terms(lc, new["model_head"])
        follow |= {
            "softcap": terms.softcap,
            "alibi": terms.alibi,
            "sink": terms.sink is not None,
            "sink_logit": terms.sink or 0.0,
            # A model's temperature tuning (Llama 4) scales q before the capture reads it.
            "tuning": 0.0,
        }
    if other:
        # The heatmap then computes the model's own weights: no extra rotation (q and k
        # are already rotated), the model's scale as √d_k and a temperature.
        follow |= {"rope": False, "scale": True, "preset_id": ""}
    return follow


def _follow_head_layout(new: dict, given: set[str], cap) -> None:
    """The heads panel's layout becomes this model's (when it can show that many heads and
    the update does not set it), with the head shown selected."""
    heads = cap.n_heads
    if heads <= MAX_HEADS and "n_heads" not in given and "n_kv_heads" not in given:
        # The heads panel shows this layer's layout and highlights the head shown.
        new["n_heads"], new["n_kv_heads"] = heads, cap.n_kv_heads
        new["head_index"] = new["model_head"]
        if cap.hidden_size <= MAX_D_MODEL and "d_model" not in given:
            new["d_model"] = cap.hidden_size
