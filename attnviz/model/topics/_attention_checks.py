"""The attention topic's consistency checks: what a set of values must satisfy together.

:meth:`AttentionState._check <attnviz.model.topics.attention.AttentionState._check>` runs
:func:`check_consistency` on the values an update would leave; the first problem found is
refused with a :class:`StateError` naming it, and nothing changes.
"""

from __future__ import annotations

from attnviz.model.fields import StateError
from attnviz.model.topics._attention_follow import check_head_inputs
from attnviz.model.topics._attention_limits import ARRAYS, MAX_D_K
from attnviz.model.topics._attention_model import NO_MODEL
from attnviz.model.topics._attention_projections import check_projections


def check_consistency(v: dict, old: dict) -> None:
    """Refuse values ``v`` (the topic's values after an update from ``old``) that do not
    fit together: the tokens, the head's inputs and projections, a model's folder, Q, K
    and V, the per-token settings and selections, the upstream gradient."""
    n = len(v["tokens"])
    _check_tokens(v, old)
    check_head_inputs(v)
    check_projections(v)
    if v["head"] == "model" and not v["model_path"]:
        raise StateError(NO_MODEL)
    _check_model_matrix(v, old)
    _check_arrays(v, n)
    _check_per_token(v, n)
    _check_gradient(v)


def _check_model_matrix(v: dict, old: dict) -> None:
    """A real model's layer without softmax attention shows its mixing matrix only: asking
    for its weights, scores or output is refused naming the layer's kind (looked up when
    the matrix or the layer changes, in the capture already held)."""
    if v["head"] != "model" or v["matrix"] == "mixing":
        return
    same = all(v[k] == old[k] for k in ("matrix", "layer", "model_head", "head"))
    if same:
        return
    from attnviz.model import real_mixing, real_model

    cap = real_model.STORE.cached(v["model_path"], v["model_text"])
    layer, head = v["layer"], v["model_head"]
    problem = None if cap is None else real_mixing.refuse_weights(cap, layer, v["matrix"], head)
    if problem:
        raise StateError(problem)


def _check_tokens(v: dict, old: dict) -> None:
    """At least one token, none blank (checked only when the tokens are new)."""
    if not v["tokens"]:
        raise StateError("the sequence is empty: give at least one token")
    if v["tokens"] is not old["tokens"] and any(not t.strip() for t in v["tokens"]):
        raise StateError("a token cannot be blank")


def _check_arrays(v: dict, n: int) -> None:
    """Q, K, V: a row per token, d_k columns for Q and K, at most MAX_D_K for V."""
    for name in ARRAYS:
        arr = v[name]
        if arr.shape[0] != n or arr.shape[1] < 1:
            raise StateError(f"{name} must have one row per token ({n}), got shape {arr.shape}")
    if v["q"].shape[1] != v["d_k"] or v["k"].shape[1] != v["d_k"]:
        raise StateError(f"q and k must have d_k = {v['d_k']} columns")
    if v["v"].shape[1] > MAX_D_K:
        raise StateError(f"v has {v['v'].shape[1]} columns; at most {MAX_D_K}")


def _check_per_token(v: dict, n: int) -> None:
    """The masks' flags and segments, and the selections, fit the n tokens."""
    if len(v["padding"]) != n or len(v["segments"]) != n:
        raise StateError("padding flags and document segments need one entry per token")
    if not 0 <= v["selected_query"] < n:
        raise StateError(f"selected query {v['selected_query']} is outside 0…{n - 1}")
    cell = v["selected_cell"]
    if cell is not None and not all(0 <= c < n for c in cell):
        raise StateError(f"selected cell {list(cell)} is outside the matrix")


def _check_gradient(v: dict) -> None:
    """The upstream gradient: V's shape when given, given when asked for, a valid dimension."""
    if v["d_output"] is not None and v["d_output"].shape != v["v"].shape:
        raise StateError(
            f"d_output must have the shape of V {v['v'].shape}, got {v['d_output'].shape}"
        )
    if v["grad_source"] == "preset" and v["d_output"] is None:
        raise StateError("this example has no upstream gradient of its own (d_output)")
    if v["grad_dim"] >= v["v"].shape[1]:
        raise StateError(
            f"grad_dim {v['grad_dim']} is outside the value dimensions 0…{v['v'].shape[1] - 1}"
        )
