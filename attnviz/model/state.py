"""The application state: one Qt-free object that every control writes and every panel reads.

Controls write fields (``state.d_k = 64`` or ``state.update(scale=False, temperature=2)``);
the state validates them, keeps dependent fields consistent (Q/K/V follow the tokens and
d_k), and emits :attr:`AttentionState.changed` once per update with the names of the
fields that changed. Nothing here imports Qt.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, fields

import numpy as np
from psygnal import Signal

from attnviz.core.heads import HEAD_KINDS, generate_head

#: Head sources: vectors typed by hand, or one of the synthetic heads.
HEAD_SOURCES = ("manual", *HEAD_KINDS)
MATRICES = ("scores", "weights", "output")
COLORMAPS = ("viridis", "cividis", "magma", "inferno", "plasma", "diverging")
BACKENDS = ("numpy", "torch", "auto")
MAX_TOKENS = 4096
MAX_D_K = 1024
#: The smallest and largest temperatures a control may set; beyond them the softmax is
#: numerically a hard argmax or a flat line, which the ends already show.
TEMPERATURE_RANGE = (0.01, 100.0)

#: Fields whose change requires recomputation; the others only restyle the views.
RECOMPUTE_KEYS = frozenset(
    {
        "tokens",
        "head",
        "seed",
        "d_k",
        "q",
        "k",
        "v",
        "scale",
        "temperature",
        "causal",
        "padding",
        "segments",
        "window",
        "window_causal",
        "backend",
    }
)
RESTYLE_KEYS = frozenset({"matrix", "colormap", "levels_auto", "levels"})


class StateError(ValueError):
    """A value a control tried to set is out of range or inconsistent."""


@dataclass
class _Fields:
    tokens: tuple[str, ...] = ("sentei", "banco", "praça")
    head: str = "manual"
    seed: int = 0
    d_k: int = 2
    q: np.ndarray = None  # type: ignore[assignment]
    k: np.ndarray = None  # type: ignore[assignment]
    v: np.ndarray = None  # type: ignore[assignment]
    scale: bool = True
    temperature: float = 1.0
    causal: bool = False
    padding: tuple[bool, ...] = ()
    segments: tuple[int, ...] = ()
    window: int = 0
    window_causal: bool = True
    selected_query: int = 0
    selected_cell: tuple[int, int] | None = None
    matrix: str = "weights"
    colormap: str = "viridis"
    levels_auto: bool = True
    levels: tuple[float, float] = (0.0, 1.0)
    value_labels: tuple[str, ...] = ()
    preset_id: str = ""
    backend: str = "numpy"


FIELD_NAMES = tuple(f.name for f in fields(_Fields))
_ARRAYS = ("q", "k", "v")


def values_equal(a, b) -> bool:
    """Equality of two field values, arrays compared by shape and content."""
    if a is b:
        return True  # the common case on the slider path: the field was not touched
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return a == b


class AttentionState:
    """Everything the panels show, as plain values; emits ``changed(frozenset_of_names)``."""

    changed = Signal(frozenset)

    def __init__(self, **values) -> None:
        object.__setattr__(self, "_values", {})
        defaults = _Fields()
        for name in FIELD_NAMES:
            self._values[name] = getattr(defaults, name)
        banco = {
            "q": np.array([[2.0, 0.0], [1.0, 2.0], [0.0, 1.0]]),
            "k": np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]),
            "v": np.array([[1.0, 0.0], [0.5, 0.5], [1.0, 0.0]]),
            "selected_query": 1,
            "value_labels": ("seat", "money"),
            "preset_id": "banco",
        }
        self._values.update(banco)
        self._values["padding"] = (True,) * len(self._values["tokens"])
        self._values["segments"] = (0,) * len(self._values["tokens"])
        if values:
            with self.changed.blocked():
                self.update(**values)

    # --- access -----------------------------------------------------------------------
    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    def __setattr__(self, name, value) -> None:
        if name in FIELD_NAMES:
            self.update(**{name: value})
        else:
            object.__setattr__(self, name, value)

    @property
    def n(self) -> int:
        """Number of tokens."""
        return len(self._values["tokens"])

    def snapshot(self) -> dict:
        """A deep copy of every field, for undo and sessions."""
        return copy.deepcopy(self._values)

    def restore(self, snapshot: dict) -> frozenset:
        """Set every field of ``snapshot`` at once (as :meth:`update` does)."""
        return self.update(**snapshot)

    # --- writing ----------------------------------------------------------------------
    def update(self, **values) -> frozenset:
        """Validate and set several fields at once; emit ``changed`` once; return the names.

        Dependent fields follow: with a synthetic head, Q/K/V are regenerated when the
        tokens, head, seed or d_k change; with manual vectors, rows are added (zeros) or
        dropped with the tokens and columns with d_k. Raises :class:`StateError` and
        changes nothing when a value is invalid.
        """
        unknown = set(values) - set(FIELD_NAMES)
        if unknown:
            raise StateError(f"unknown state field(s): {', '.join(sorted(unknown))}")
        new = dict(self._values)
        for name, value in values.items():
            new[name] = _coerce(name, value)
        _follow(new, self._values, set(values))
        _check(new, self._values)
        changed = frozenset(n for n in FIELD_NAMES if not values_equal(new[n], self._values[n]))
        if changed:
            self._values = new
            self.changed.emit(changed)
        return changed


def _coerce(name: str, value):
    try:
        if name == "tokens":
            return tuple(str(t) for t in value)
        if name in _ARRAYS:
            arr = np.array(value, dtype=np.float64)
            return arr
        if name in ("seed", "d_k", "window", "selected_query"):
            if isinstance(value, bool) or int(value) != value:
                raise StateError(f"{name} must be an integer, got {value!r}")
            return int(value)
        if name in ("scale", "causal", "window_causal", "levels_auto"):
            return bool(value)
        if name == "temperature":
            return float(value)
        if name == "padding":
            return tuple(bool(x) for x in value)
        if name == "segments":
            return tuple(int(x) for x in value)
        if name == "levels":
            lo, hi = (float(x) for x in value)
            return (lo, hi)
        if name == "selected_cell":
            return None if value is None else tuple(int(x) for x in value)
        if name == "value_labels":
            return tuple(str(x) for x in value)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, StateError):
            raise
        raise StateError(f"{name}: cannot use {value!r} ({exc})") from exc
    return value


def _resize(arr: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols))
    r, c = min(rows, arr.shape[0]), min(cols, arr.shape[1])
    out[:r, :c] = arr[:r, :c]
    return out


def _follow(new: dict, old: dict, given: set[str]) -> None:
    """Make dependent fields agree with the ones just set (in place on ``new``)."""
    n = len(new["tokens"])
    if "q" in given and "d_k" not in given and new["q"].ndim == 2:
        new["d_k"] = new["q"].shape[1]
    if new["head"] != "manual":
        regen = {"tokens", "head", "seed", "d_k"} & given and not (set(_ARRAYS) & given)
        if regen:
            _check_head_inputs(new)
            try:
                h = generate_head(
                    new["head"], n, new["d_k"], seed=new["seed"], tokens=list(new["tokens"])
                )
            except ValueError as exc:
                raise StateError(str(exc)) from exc
            new["q"], new["k"], new["v"] = h.q, h.k, h.v
    else:
        for name in _ARRAYS:
            if name in given:
                continue
            arr = new[name]
            cols = new["d_k"] if name != "v" else arr.shape[1]
            if arr.shape != (n, cols):
                new[name] = _resize(arr, n, cols)
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


def _check_head_inputs(v: dict) -> None:
    if not 1 <= v["d_k"] <= MAX_D_K:
        raise StateError(f"d_k must be between 1 and {MAX_D_K}, got {v['d_k']}")
    if v["head"] == "decay" and v["d_k"] < 3:
        raise StateError("the distance-decay head needs d_k ≥ 3")
    if v["seed"] < 0:
        raise StateError(f"seed must be ≥ 0, got {v['seed']}")


def _check(v: dict, old: dict | None = None) -> None:
    n = len(v["tokens"])
    if n == 0:
        raise StateError("the sequence is empty: give at least one token")
    if n > MAX_TOKENS:
        raise StateError(f"{n} tokens is more than the editor holds ({MAX_TOKENS})")
    if any(not t.strip() for t in v["tokens"]):
        raise StateError("a token cannot be blank")
    for name, options in (
        ("head", HEAD_SOURCES),
        ("matrix", MATRICES),
        ("colormap", COLORMAPS),
        ("backend", BACKENDS),
    ):
        if v[name] not in options:
            raise StateError(f"unknown {name} {v[name]!r}; expected one of {', '.join(options)}")
    _check_head_inputs(v)
    for name in _ARRAYS:
        arr = v[name]
        if arr.ndim != 2 or arr.shape[0] != n or arr.shape[1] < 1:
            raise StateError(f"{name} must have one row per token ({n}), got shape {arr.shape}")
        if old is not None and arr is old[name]:
            continue  # already checked when it was set
        if not np.all(np.isfinite(arr)):
            raise StateError(f"{name} holds a non-finite number")
    if v["q"].shape[1] != v["d_k"] or v["k"].shape[1] != v["d_k"]:
        raise StateError(f"q and k must have d_k = {v['d_k']} columns")
    lo, hi = TEMPERATURE_RANGE
    if not (math.isfinite(v["temperature"]) and lo <= v["temperature"] <= hi):
        raise StateError(f"temperature must be between {lo} and {hi}, got {v['temperature']}")
    if len(v["padding"]) != n or len(v["segments"]) != n:
        raise StateError("padding flags and document segments need one entry per token")
    if v["window"] < 0:
        raise StateError(f"window must be ≥ 0 (0 = off), got {v['window']}")
    if not 0 <= v["selected_query"] < n:
        raise StateError(f"selected query {v['selected_query']} is outside 0…{n - 1}")
    cell = v["selected_cell"]
    if cell is not None and (len(cell) != 2 or not all(0 <= c < n for c in cell)):
        raise StateError(f"selected cell {cell} is outside the matrix")
    lo_l, hi_l = v["levels"]
    if not (math.isfinite(lo_l) and math.isfinite(hi_l) and lo_l < hi_l):
        raise StateError(f"levels must be finite with low < high, got {v['levels']}")
    if v["seed"] < 0:
        raise StateError(f"seed must be ≥ 0, got {v['seed']}")
