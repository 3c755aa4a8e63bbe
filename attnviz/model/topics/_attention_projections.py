"""The ``projections`` head source of the attention topic: Q, K, V of query head
``head_index`` as X·W of a small multi-head layer (no Qt).

Heads are contiguous column blocks of width d_k = d_head; query head i reads KV head
i // (n_heads / n_kv_heads). Typed X and W are fitted to a new layout, null ones are drawn
from the seed (:func:`effective_projections`).
"""

from __future__ import annotations

import numpy as np

from attnviz.core.heads import seeded_projection
from attnviz.core.multihead import fit_projection, project_head, projection_shape
from attnviz.model.fields import StateError
from attnviz.model.topics._attention_limits import ARRAYS, MATS, MAX_PROJ_WIDTH, PROJ_KEYS


def _layout(values: dict, name: str) -> tuple[int, int]:
    """``(heads, d_head)`` of matrix ``name``'s head blocks."""
    heads = values["n_kv_heads"] if name in ("w_k", "w_v") else values["n_heads"]
    return heads, values["d_k"]


def _shape(values: dict, name: str) -> tuple[int, int]:
    v = values
    return projection_shape(
        name, len(v["tokens"]), v["d_model"], v["n_heads"], v["n_kv_heads"], v["d_k"]
    )


def _seeded(values: dict, name: str) -> np.ndarray:
    v = values
    return seeded_projection(
        name, v["tokens"], v["d_model"], v["n_heads"], v["n_kv_heads"], v["d_k"], v["seed"]
    )


def effective_projections(values: dict) -> dict[str, np.ndarray]:
    """X and the W matrices of field ``values``: typed ones as they are, null ones seeded."""
    return {name: _seeded(values, name) if values[name] is None else values[name] for name in MATS}


def follow_layout(new: dict, old: dict, given: set[str]) -> None:
    """KV heads and the selected head follow the number of heads (for every source)."""
    h = new["n_heads"]
    if "n_kv_heads" not in given and h % new["n_kv_heads"]:
        # The largest divisor of h not above the KV heads there were: GQA stays GQA.
        new["n_kv_heads"] = max(g for g in range(1, new["n_kv_heads"] + 1) if h % g == 0)
    if "head_index" not in given and new["head_index"] >= h:
        new["head_index"] = h - 1
    _follow_heads_off(new, given)


def _follow_heads_off(new: dict, given: set[str]) -> None:
    """Heads switched off: sorted, once each; an edit that removes heads drops theirs, and
    leaving the projections switches every head back on (the switch is theirs alone)."""
    off = new["heads_off"]
    if "heads_off" in given:
        new["heads_off"] = tuple(sorted(set(off)))
    elif off and new["head"] != "projections":
        new["heads_off"] = ()
    elif off and max(off) >= new["n_heads"]:
        new["heads_off"] = tuple(i for i in off if i < new["n_heads"])


def follow_projections(new: dict, old: dict, given: set[str]) -> None:
    """Fit typed X/W to the fields and derive Q, K, V of the selected head."""
    switched = old["head"] != "projections"
    if not (switched or given & PROJ_KEYS):
        return  # the slider path: temperature, masks, the view
    _follow_widths(new, given, switched)
    _check_layout(new)
    _fit_typed(new, old, given)
    if set(ARRAYS) & given:
        return
    for name in MATS:
        if new[name] is not None and new[name].shape != _shape(new, name):
            return  # a typed matrix of the wrong shape: _check says which
    _derive_head(new)


def _follow_widths(new: dict, given: set[str], switched: bool) -> None:
    """d_model follows a typed X, and d_k = d_head follows d_model and the heads, unless
    the update sets them itself."""
    if "x" in given and new["x"] is not None and "d_model" not in given:
        new["d_model"] = new["x"].shape[1]
    if (switched or {"n_heads", "d_model"} & given) and not {"d_k", "q"} & given:
        # d_head = d_model / h, as the chapter splits d = 4096 into 32 heads of 128.
        new["d_k"] = max(1, new["d_model"] // new["n_heads"])


def _fit_typed(new: dict, old: dict, given: set[str]) -> None:
    """Refit each typed X or W that the update does not set and whose shape no longer
    fits the layout (read-only): from the old head layout when the projections were in use
    already, else without one."""
    for name in MATS:
        arr = new[name]
        if arr is None or name in given or arr.shape == _shape(new, name):
            continue
        fitted_for = old if old["head"] == "projections" else None
        old_layout = _layout(fitted_for, name) if fitted_for else None
        out = fit_projection(name, arr, _seeded(new, name), old_layout, _layout(new, name))
        out.flags.writeable = False
        new[name] = out


def _derive_head(new: dict) -> None:
    """Q, K, V of the selected head from X and the W matrices (read-only); a layout that
    cannot be projected is a :class:`StateError`."""
    m = effective_projections(new)
    try:
        arrays = project_head(
            m["x"],
            m["w_q"],
            m["w_k"],
            m["w_v"],
            new["head_index"],
            n_heads=new["n_heads"],
            n_kv_heads=new["n_kv_heads"],
        )
    except ValueError as exc:
        raise StateError(str(exc)) from exc
    for name, arr in zip(ARRAYS, arrays, strict=True):
        arr.flags.writeable = False
        new[name] = arr


def _check_layout(v: dict) -> None:
    """Refuse head layouts before anything of their size is allocated."""
    h, h_kv = v["n_heads"], v["n_kv_heads"]
    if h % h_kv:
        raise StateError(f"n_kv_heads={h_kv} does not divide n_heads={h}")
    if not 0 <= v["head_index"] < h:
        raise StateError(f"head_index {v['head_index']} is outside 0…{h - 1}")
    if v["head"] == "projections" and h * v["d_k"] > MAX_PROJ_WIDTH:
        raise StateError(
            f"n_heads·d_k = {h}·{v['d_k']} = {h * v['d_k']} is wider than {MAX_PROJ_WIDTH}"
        )


def _check_heads_off(v: dict) -> None:
    """Heads switched off exist and belong to the projections."""
    off = v["heads_off"]
    if not off:
        return
    if v["head"] != "projections":
        raise StateError(
            "heads_off switches off heads of the projections: set attention.head=projections "
            "(a real model's heads: prediction.ablate)"
        )
    if off[-1] >= v["n_heads"]:
        raise StateError(
            f"head {off[-1]} is outside 0…{v['n_heads'] - 1}: it cannot be switched off"
        )


def check_projections(v: dict) -> None:
    """Refuse a head layout, heads switched off that do not exist, and typed X and W whose
    shapes do not fit the fields."""
    _check_layout(v)
    _check_heads_off(v)
    if v["head"] != "projections":
        return  # typed X and W wait, unchecked, until the projections are used again
    for name in MATS:
        arr, shape = v[name], _shape(v, name)
        if arr is not None and arr.shape != shape:
            raise StateError(
                f"{name} must have shape {shape[0]} × {shape[1]} (n = {len(v['tokens'])}, "
                f"d_model = {v['d_model']}, n_heads = {v['n_heads']}, n_kv_heads = "
                f"{v['n_kv_heads']}, d_k = {v['d_k']}), got {arr.shape[0]} × {arr.shape[1]}"
            )
