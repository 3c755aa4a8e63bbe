"""The layers panel's ``head_types`` and ``rollout`` arrays for ``attnviz export`` (no Qt).

``head_types`` is ``(layers, heads, types)``; its CSV has a row per head ("layer 0 · head
1") and a column per type, named as :data:`~attnviz.model.head_type_table.TYPES` (the NPY
keeps the three axes in that order). A synthetic head is one layer of one head.
``rollout`` is the n × n rollout after the last layer, rows and columns the tokens.
``layer_mixing`` is every head of the layer shown as its mixing matrix (``(h, n, n)``): a
softmax head's weights, a hybrid's other heads their proven M.
"""

from __future__ import annotations

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.head_type_table import TYPES
from attnviz.model.layer_analysis import model_head_types, model_rollout, synthetic_head_types

#: The layers panel's arrays read here.
ANALYSIS = ("head_types", "rollout", "layer_mixing")
#: Largest ``layer_mixing`` export: a short convolution's or a Mamba's heads are its
#: channels (thousands), each an n × n matrix.
MAX_LAYER_MIXING_BYTES = 1 << 30


def head_type_array(workspace) -> DataArray:
    """Every head's type scores, ``(layers, heads, types)``: a real model's, or the
    synthetic head's shown as ``(1, 1, types)``."""
    s = workspace.state
    if s.head == "model":
        scores = model_head_types(s.model_path, s.model_text).scores
    else:
        res = workspace.resolver.results
        scores = synthetic_head_types(res.attention.weights, s.tokens)
    layers, heads = scores.shape[:2]
    rows = tuple(f"layer {i} · head {j}" for i in range(layers) for j in range(heads))
    return DataArray(scores, rows, TYPES, corner="layer · head \\ type")


def _capture(workspace, what: str):
    """The capture of the real model shown; ValueError ``what`` and how to open one."""
    s = workspace.state
    cap = s.capture() if s.head == "model" else None
    if cap is None:
        raise ValueError(
            f"{what}: set attention.head=model (attnviz export --model DIR --text TEXT)"
        )
    return cap


def rollout_array(workspace) -> DataArray:
    """The rollout R = Â_L ··· Â_1 of a real model's sentence (n × n, rows and columns
    the tokens); a hybrid's other layers enter by their proven mixing matrices,
    ``rownorm(|M|)`` averaged over their heads."""
    s = workspace.state
    cap = _capture(workspace, "rollout runs through a real model's layers")
    r = model_rollout(cap, s.model_path, s.model_text)[-1]
    tokens = tuple(s.tokens) if len(s.tokens) == r.shape[0] else None
    return DataArray(np.asarray(r), tokens, tokens, corner="R: token \\ source")


def layer_mixing_array(workspace) -> DataArray:
    """Every head of the layer shown as its mixing matrix, ``(h, n, n)`` with
    ``out_t = Σ_s M[t, s] v_s``: a softmax head's weights, then (a hybrid's other heads,
    numbered after any attention heads beside them) each proven M. ValueError in one line
    for a layer whose heads would not fit :data:`MAX_LAYER_MIXING_BYTES`."""
    from attnviz.core import hf_mixing
    from attnviz.model import real_mixing
    from attnviz.model.layer_mixing import mixing_layers

    s = workspace.state
    cap = _capture(workspace, "the layers panel shows a real model")
    layer = s.layer
    parts = []
    if real_mixing.is_softmax(cap, layer):
        weights = cap.layer(layer).weights
        if weights is None:
            raise ValueError(
                "past 512 tokens the capture keeps no n × n weights; export one head: "
                "--panel heatmap --matrix mixing"
            )
        parts.append(np.asarray(weights, dtype=np.float64))
    if layer in mixing_layers(cap):
        found = real_mixing.layer_mixing(s.model_path, s.model_text, layer)
        n = found.v.shape[1]
        heads = found.heads + sum(p.shape[0] for p in parts)
        if heads * n * n * 8 > MAX_LAYER_MIXING_BYTES:
            raise ValueError(
                f"layer {layer}'s {heads} heads of {n} × {n} would take "
                f"{heads * n * n * 8 / 2**30:.1f} GiB; export one head: "
                "--panel heatmap --matrix mixing"
            )
        parts.append(np.stack([hf_mixing.prove_head(found, h) for h in range(found.heads)]))
    if not parts:  # an MLP-only layer
        raise ValueError(f"layer {layer} of {cap.name} mixes no tokens: it has no mixing matrix")
    m = np.concatenate(parts)
    return DataArray(m)


def analysis_data(workspace, name: str) -> DataArray:
    """The layers panel's array ``name`` of :data:`ANALYSIS`."""
    readers = {
        "head_types": head_type_array,
        "rollout": rollout_array,
        "layer_mixing": layer_mixing_array,
    }
    return readers[name](workspace)
