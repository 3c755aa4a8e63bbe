"""The layers panel's ``head_types`` and ``rollout`` arrays for ``attnviz export`` (no Qt).

``head_types`` is ``(layers, heads, types)``; its CSV has a row per head ("layer 0 · head
1") and a column per type, named as :data:`~attnviz.model.head_type_table.TYPES` (the NPY
keeps the three axes in that order). A synthetic head is one layer of one head.
``rollout`` is the n × n rollout after the last layer, rows and columns the tokens.
"""

from __future__ import annotations

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.head_type_table import TYPES
from attnviz.model.layer_analysis import model_head_types, model_rollout, synthetic_head_types

#: The layers panel's arrays read here.
ANALYSIS = ("head_types", "rollout")


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


def rollout_array(workspace) -> DataArray:
    """The rollout R = Â_L ··· Â_1 of a real model's sentence (n × n, rows and columns
    the tokens); a hybrid's other layers enter by their proven mixing matrices,
    ``rownorm(|M|)`` averaged over their heads."""
    s = workspace.state
    cap = s.capture() if s.head == "model" else None
    if cap is None:
        raise ValueError(
            "rollout runs through a real model's layers: set attention.head=model "
            "(attnviz export --model DIR --text TEXT)"
        )
    r = model_rollout(cap, s.model_path, s.model_text)[-1]
    tokens = tuple(s.tokens) if len(s.tokens) == r.shape[0] else None
    return DataArray(np.asarray(r), tokens, tokens, corner="R: token \\ source")


def analysis_data(workspace, name: str) -> DataArray:
    """The layers panel's array ``name`` of :data:`ANALYSIS`."""
    return {"head_types": head_type_array, "rollout": rollout_array}[name](workspace)
