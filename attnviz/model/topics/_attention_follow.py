"""The attention topic's dependent fields: what an edit brings along, by concern (no Qt).

:func:`follow_fields` is what ``AttentionState._follow`` does
(:mod:`attnviz.model.topics.attention`): one strategy per head source fills Q, K, V (the
model's capture, projections of X, a synthetic head, typed vectors); what hangs on the
sentence's length and on V's shape follows.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.heads import generate_head
from attnviz.model.fields import StateError
from attnviz.model.topics._attention_limits import ARRAYS, DETACH_KEYS, MODEL_KEYS
from attnviz.model.topics._attention_model import follow_model
from attnviz.model.topics._attention_projections import follow_layout, follow_projections


def follow_fields(new: dict, old: dict, given: set[str]) -> None:
    """Bring the fields that hang on those ``given`` in line, in ``new`` (``old``: before)."""
    arrays_given = bool(set(ARRAYS) & given)
    _follow_mode(new, given, arrays_given)
    if new["head"] == "model":
        follow_model(new, old, given, arrays_given)
    follow_layout(new, old, given)
    _ARRAYS_BY_MODE.get(new["head"], _synthetic_arrays)(new, old, given, arrays_given)
    _follow_length(new, given)
    _follow_gradient(new, given)


def check_head_inputs(v: dict) -> None:
    """Refuse a synthetic head's inputs it cannot be made from."""
    if v["head"] == "decay" and v["d_k"] < 3:
        raise StateError("the distance-decay head needs d_k ≥ 3")


def _resize(arr: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols))
    r, c = min(rows, arr.shape[0]), min(cols, arr.shape[1])
    out[:r, :c] = arr[:r, :c]
    out.flags.writeable = False
    return out


def _follow_mode(new: dict, given: set[str], arrays_given: bool) -> None:
    """The head mode an edit implies when it does not set one itself."""
    if "q" in given and "d_k" not in given:
        new["d_k"] = new["q"].shape[1]
    if arrays_given and "head" not in given and new["head"] != "manual":
        new["head"] = "manual"  # typed vectors no longer come from the head
    if new["head"] != "model":
        return
    if "head" not in given and given & DETACH_KEYS and not given & MODEL_KEYS:
        new["head"] = "manual"  # tokens or d_k typed by hand: a what-if off the model
    elif "head_index" in given and "model_head" not in given:
        new["model_head"] = new["head_index"]  # a click in the heads panel's grid


def _model_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """A real model's head: Q, K, V came from the captured sentence (:func:`follow_model`)."""


def _projected_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """Q, K, V as x·W of the projections."""
    follow_projections(new, old, given)


def _synthetic_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """A generated head (random, positional, …): made again when its inputs change."""
    if not {"tokens", "head", "seed", "d_k"} & given or arrays_given:
        return
    check_head_inputs(new)
    try:
        h = generate_head(
            new["head"],
            len(new["tokens"]),
            new["d_k"],
            seed=new["seed"],
            tokens=list(new["tokens"]),
        )
    except ValueError as exc:
        raise StateError(str(exc)) from exc
    for name in ARRAYS:
        arr = getattr(h, name)
        arr.flags.writeable = False
        new[name] = arr


def _typed_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """Vectors typed by hand: kept, cut or padded to the sentence's length and d_k."""
    n = len(new["tokens"])
    for name in ARRAYS:
        if name in given:
            continue
        arr = new[name]
        cols = new["d_k"] if name != "v" else arr.shape[1]
        if arr.shape != (n, cols):
            new[name] = _resize(arr, n, cols)


_ARRAYS_BY_MODE = {
    "model": _model_arrays,
    "projections": _projected_arrays,
    "manual": _typed_arrays,
}


def _follow_length(new: dict, given: set[str]) -> None:
    """Per-token flags and the selection follow the sentence's length."""
    n = len(new["tokens"])
    if len(new["padding"]) != n and "padding" not in given:
        new["padding"] = (new["padding"] + (True,) * n)[:n]
    if len(new["segments"]) != n and "segments" not in given:
        last = new["segments"][-1] if new["segments"] else 0
        new["segments"] = (new["segments"] + (last,) * n)[:n]
    if new["selected_query"] >= n and "selected_query" not in given:
        new["selected_query"] = n - 1
    cell = new["selected_cell"]
    if cell is not None and "selected_cell" not in given and max(cell) >= n:
        new["selected_cell"] = None


def _follow_gradient(new: dict, given: set[str]) -> None:
    """The gradient's source follows V's shape."""
    d_o = new["d_output"]
    if d_o is not None and "d_output" not in given and d_o.shape != new["v"].shape:
        # The preset's gradient no longer fits the sentence: fall back to one component.
        new["d_output"] = None
        if new["grad_source"] == "preset" and "grad_source" not in given:
            new["grad_source"] = "onehot"
    d_v = new["v"].shape[1]
    if new["grad_dim"] >= d_v and "grad_dim" not in given:
        new["grad_dim"] = d_v - 1
