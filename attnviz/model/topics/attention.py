"""The ``attention`` topic: the sentence, its Q/K/V, the score settings, masks and the view.

Q/K/V follow the tokens and d_k: with a synthetic head they are regenerated from (head,
seed, d_k, tokens) — so undo steps and session files need not store them —, with vectors
typed by hand rows are added (zeros) or dropped with the tokens and columns with d_k.
Writing vectors of a synthetic head makes them hand-typed (``head`` becomes ``manual``):
the arrays then no longer come from the head.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.heads import HEAD_KINDS, generate_head
from attnviz.model.fields import Field, StateError
from attnviz.model.topic import Topic

#: Head sources: vectors typed by hand, or one of the synthetic heads.
HEAD_SOURCES = ("manual", *HEAD_KINDS)
MATRICES = ("scores", "weights", "output")
COLORMAPS = ("viridis", "cividis", "magma", "inferno", "plasma", "diverging")
BACKENDS = ("numpy", "torch", "auto")
MAX_TOKENS = 4096
MAX_D_K = 1024
#: Largest seed: what a spin box (a C int) can show.
MAX_SEED = 2**31 - 1
#: The smallest and largest temperatures a control may set; beyond them the softmax is
#: numerically a hard argmax or a flat line, which the ends already show.
TEMPERATURE_RANGE = (0.01, 100.0)
ARRAYS = ("q", "k", "v")
#: Where the upstream gradient dO comes from (the gradient panel).
GRAD_SOURCES = ("preset", "random", "onehot")

_BANCO = {
    "q": ((2.0, 0.0), (1.0, 2.0), (0.0, 1.0)),
    "k": ((1.0, 0.0), (1.0, 1.0), (0.0, 2.0)),
    "v": ((1.0, 0.0), (0.5, 0.5), (1.0, 0.0)),
}

FIELDS = (
    Field("tokens", "texts", ("sentei", "banco", "praça"), max_len=MAX_TOKENS,
          doc="the sentence, one token per entry"),
    Field("head", "choice", "manual", choices=HEAD_SOURCES,
          doc="where Q, K, V come from: typed vectors or a synthetic head"),
    Field("seed", "int", 0, 0, MAX_SEED, doc="seed of a synthetic head"),
    Field("d_k", "int", 2, 1, MAX_D_K, doc="width of queries and keys"),
    Field("q", "matrix", None, doc="queries, one row per token (n × d_k)"),
    Field("k", "matrix", None, doc="keys, one row per token (n × d_k)"),
    Field("v", "matrix", None, doc="values, one row per token (n × d_v)"),
    Field("scale", "bool", True, doc="divide the scores by √d_k"),
    Field("temperature", "float", 1.0, *TEMPERATURE_RANGE, doc="softmax temperature T"),
    Field("rope", "bool", False, doc="rotate Q and K by token position (positions topic)"),
    Field("causal", "bool", False, doc="causal mask: a query sees only earlier keys"),
    Field("padding", "flags", (True, True, True), max_len=MAX_TOKENS,
          doc="per token: false hides the key from every query"),
    Field("segments", "ints", (0, 0, 0), 0, MAX_SEED, max_len=MAX_TOKENS,
          doc="document id per token (packed sequences)"),
    Field("window", "int", 0, 0, MAX_TOKENS, doc="sliding window in tokens (0 = off)"),
    Field("window_causal", "bool", True, doc="the window looks only backwards"),
    Field("selected_query", "int", 1, 0, MAX_TOKENS - 1, browse=True,
          doc="the query row the steps show"),
    Field("selected_cell", "cell", None, 0, MAX_TOKENS - 1, browse=True,
          doc="the highlighted cell [row, column] or null"),
    Field("matrix", "choice", "weights", choices=MATRICES, recompute=False,
          doc="the matrix the heatmap shows"),
    Field("colormap", "choice", "viridis", choices=COLORMAPS, recompute=False,
          doc="heatmap colours"),
    Field("levels_auto", "bool", True, recompute=False,
          doc="automatic colour levels (A: 0 to 1; S and O: their range)"),
    Field("stretch_weights", "bool", False, recompute=False,
          doc="automatic levels of A span its own range instead of 0 to 1"),
    Field("levels", "pair", (0.0, 1.0), -1e12, 1e12, recompute=False,
          doc="fixed colour levels [low, high]"),
    Field("value_labels", "texts", ("seat", "money"), max_len=MAX_D_K,
          doc="names of the value dimensions"),
    Field("preset_id", "text", "banco", doc="the preset shown"),
    Field("backend", "choice", "numpy", choices=BACKENDS, doc="where the matrix is computed"),
    Field("grad_source", "choice", "onehot", choices=GRAD_SOURCES,
          doc="upstream gradient dO: the preset's own, seeded random, or one output component"),
    Field("grad_seed", "int", 0, 0, MAX_SEED, doc="seed of the random upstream gradient"),
    Field("grad_dim", "int", 0, 0, MAX_D_K - 1,
          doc="onehot: the value dimension of the selected query's output the loss reads"),
    Field("d_output", "optmatrix", None, doc="the preset's own upstream gradient (n × d_v)"),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)


class AttentionState(Topic):
    """Everything the attention panels show: tokens, Q/K/V, scores, masks, the view."""

    NAME = "attention"
    ORDER = 0
    FIELDS = FIELDS

    @classmethod
    def _defaults(cls) -> dict:
        values = super()._defaults()
        for name, rows in _BANCO.items():
            arr = np.array(rows)
            arr.flags.writeable = False
            values[name] = arr
        return values

    @property
    def n(self) -> int:
        """Number of tokens."""
        return len(self._values["tokens"])

    def regenerable(self, values: dict) -> frozenset:
        """Q/K/V of a synthetic head come back from (head, seed, d_k, tokens)."""
        if values.get("head", self.head) != "manual":
            return frozenset(ARRAYS)
        return frozenset()

    def regeneration_inputs(self) -> frozenset:
        """The fields a synthetic head is generated from."""
        return frozenset({"tokens", "head", "seed", "d_k"})

    # --- dependent fields --------------------------------------------------------------
    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        n = len(new["tokens"])
        arrays_given = set(ARRAYS) & given
        if "q" in given and "d_k" not in given:
            new["d_k"] = new["q"].shape[1]
        if arrays_given and "head" not in given and new["head"] != "manual":
            new["head"] = "manual"  # typed vectors no longer come from the head
        if new["head"] != "manual":
            regen = {"tokens", "head", "seed", "d_k"} & given and not arrays_given
            if regen:
                _check_head_inputs(new)
                try:
                    h = generate_head(
                        new["head"], n, new["d_k"], seed=new["seed"], tokens=list(new["tokens"])
                    )
                except ValueError as exc:
                    raise StateError(str(exc)) from exc
                for name in ARRAYS:
                    arr = getattr(h, name)
                    arr.flags.writeable = False
                    new[name] = arr
        else:
            for name in ARRAYS:
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
        d_o = new["d_output"]
        if d_o is not None and "d_output" not in given and d_o.shape != new["v"].shape:
            # The preset's gradient no longer fits the sentence: fall back to one component.
            new["d_output"] = None
            if new["grad_source"] == "preset" and "grad_source" not in given:
                new["grad_source"] = "onehot"
        d_v = new["v"].shape[1]
        if new["grad_dim"] >= d_v and "grad_dim" not in given:
            new["grad_dim"] = d_v - 1

    def _check(self, v: dict, old: dict) -> None:
        n = len(v["tokens"])
        if n == 0:
            raise StateError("the sequence is empty: give at least one token")
        if any(not t.strip() for t in v["tokens"]):
            raise StateError("a token cannot be blank")
        _check_head_inputs(v)
        for name in ARRAYS:
            arr = v[name]
            if arr.shape[0] != n or arr.shape[1] < 1:
                raise StateError(f"{name} must have one row per token ({n}), got shape {arr.shape}")
        if v["q"].shape[1] != v["d_k"] or v["k"].shape[1] != v["d_k"]:
            raise StateError(f"q and k must have d_k = {v['d_k']} columns")
        if v["v"].shape[1] > MAX_D_K:
            raise StateError(f"v has {v['v'].shape[1]} columns; at most {MAX_D_K}")
        if len(v["padding"]) != n or len(v["segments"]) != n:
            raise StateError("padding flags and document segments need one entry per token")
        if not 0 <= v["selected_query"] < n:
            raise StateError(f"selected query {v['selected_query']} is outside 0…{n - 1}")
        cell = v["selected_cell"]
        if cell is not None and not all(0 <= c < n for c in cell):
            raise StateError(f"selected cell {list(cell)} is outside the matrix")
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


def _resize(arr: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols))
    r, c = min(rows, arr.shape[0]), min(cols, arr.shape[1])
    out[:r, :c] = arr[:r, :c]
    out.flags.writeable = False
    return out


def _check_head_inputs(v: dict) -> None:
    if v["head"] == "decay" and v["d_k"] < 3:
        raise StateError("the distance-decay head needs d_k ≥ 3")
