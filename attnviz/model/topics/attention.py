"""The ``attention`` topic: the sentence, its Q/K/V, the score settings, masks and the view.

Q/K/V follow the tokens and d_k: with a synthetic head they are regenerated from (head,
seed, d_k, tokens) — so undo steps and session files need not store them —, with vectors
typed by hand rows are added (zeros) or dropped with the tokens and columns with d_k.
Writing vectors of a synthetic head makes them hand-typed (``head`` becomes ``manual``):
the arrays then no longer come from the head.

With ``head = "projections"`` Q, K and V are those of query head ``head_index`` of a small
model: token embeddings X (n × d_model) times W_Q, W_K, W_V (heads are contiguous column
blocks of width d_k = d_head; query head i reads KV head i // (n_heads / n_kv_heads)).
X and the W matrices are null while they are drawn from the seed — nothing to store in
the undo history or a session — and hold the numbers once typed; :meth:`projections`
gives the arrays in use either way.

With ``head = "model"`` the sentence ``model_text`` has gone through the real model in
folder ``model_path`` (:mod:`attnviz.model.real_model`): the tokens are the model's own
and Q, K, V are those of query head ``model_head`` of layer ``layer`` as the model's
attention product received them (after RoPE where it applies); the mask and the scale
follow the layer. Only the four fields are stored: the arrays come back from the captured
sentence, or from running it again. Typing vectors, tokens or d_k detaches the head from
the model (``head`` becomes ``manual`` with the edited arrays): a what-if.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.heads import HEAD_KINDS, generate_head, seeded_projection
from attnviz.core.multihead import fit_projection, project_head, projection_shape
from attnviz.core.score_terms import MAX_CAP, MAX_SINK, MAX_SLOPE, ScoreTerms
from attnviz.model import real_model
from attnviz.model.fields import Field, StateError, check_text
from attnviz.model.topic import Topic

#: Head sources: vectors typed by hand, one of the synthetic heads, learned projections
#: of token embeddings (many heads), or a real model's head.
HEAD_SOURCES = ("manual", *HEAD_KINDS, "projections", "model")
MATRICES = ("scores", "weights", "output")
COLORMAPS = ("viridis", "cividis", "magma", "inferno", "plasma", "diverging")
BACKENDS = ("numpy", "torch", "auto")
#: Longest sentence (a real model's up to 8,192 tokens); past DENSE_LIMIT the resolver
#: works by row blocks and keeps no n × n matrix.
MAX_TOKENS = 8192
MAX_D_K = 1024
#: Largest seed: what a spin box (a C int) can show.
MAX_SEED = 2**31 - 1
#: The smallest and largest temperatures a control may set; beyond them the softmax is
#: numerically a hard argmax or a flat line, which the ends already show.
TEMPERATURE_RANGE = (0.01, 100.0)
ARRAYS = ("q", "k", "v")
#: Where the upstream gradient dO comes from (the gradient panel).
GRAD_SOURCES = ("preset", "random", "onehot")
#: The matrices of the projections source: embeddings X, then W_Q, W_K, W_V, W^O.
MATS = ("x", "w_q", "w_k", "w_v", "w_o")
MAX_D_MODEL = 1024
MAX_HEADS = 64
#: Widest h·d_head of W_Q: four W matrices of 1024 × 2048 are 64 MB, still instant to draw.
MAX_PROJ_WIDTH = 2048
#: Fields behind the projections' Q, K and V.
PROJ_KEYS = frozenset(
    {"tokens", "head", "seed", "d_k", "d_model", "n_heads", "n_kv_heads", "head_index", *MATS}
)

#: Real models: most layers and query heads addressed, longest folder name and sentence.
MAX_LAYERS = 512
MAX_MODEL_HEADS = 256
MAX_PATH_TEXT = 1024
#: ≈ 8k tokens of ordinary text: a sentence the capture cannot hold is refused by its own
#: token bound, in tokens (a 512-token text is some 2,500 characters).
MAX_SENTENCE = 64_000
#: Fields behind a model head's Q, K and V.
MODEL_KEYS = frozenset({"head", "model_path", "model_text", "layer", "model_head"})
#: Typing these on a model head makes it a what-if: it leaves the model.
DETACH_KEYS = frozenset({"tokens", "d_k", *ARRAYS})


class _LongText(Field):
    """A text field longer than a label: a folder, a sentence (``max_len`` characters)."""

    def _text(self, value):
        return check_text(self.name, value, limit=self.max_len)


_BANCO = {
    "q": ((2.0, 0.0), (1.0, 2.0), (0.0, 1.0)),
    "k": ((1.0, 0.0), (1.0, 1.0), (0.0, 2.0)),
    "v": ((1.0, 0.0), (0.5, 0.5), (1.0, 0.0)),
}

FIELDS = (
    Field("tokens", "texts", ("sentei", "banco", "praça"), max_len=MAX_TOKENS,
          doc="the sentence, one token per entry"),
    Field("head", "choice", "manual", choices=HEAD_SOURCES,
          doc="where Q, K, V come from: typed vectors, a synthetic head, projections or a "
              "real model"),
    Field("seed", "int", 0, 0, MAX_SEED, doc="seed of a synthetic head"),
    Field("d_k", "int", 2, 1, MAX_D_K, doc="width of queries and keys"),
    Field("d_model", "int", 16, 1, MAX_D_MODEL,
          doc="projections: width of the token embeddings X"),
    Field("n_heads", "int", 4, 1, MAX_HEADS, doc="projections: query heads h"),
    Field("n_kv_heads", "int", 2, 1, MAX_HEADS,
          doc="projections: key/value heads (divides n_heads; 1 = MQA, n_heads = MHA)"),
    Field("head_index", "int", 0, 0, MAX_HEADS - 1,
          doc="projections: the query head whose Q, K, V the heatmap shows"),
    Field("x", "optmatrix", None,
          doc="projections: token embeddings (n × d_model); null = drawn from the seed"),
    Field("w_q", "optmatrix", None,
          doc="projections: W_Q (d_model × n_heads·d_k); null = drawn from the seed"),
    Field("w_k", "optmatrix", None,
          doc="projections: W_K (d_model × n_kv_heads·d_k); null = drawn from the seed"),
    Field("w_v", "optmatrix", None,
          doc="projections: W_V (d_model × n_kv_heads·d_k); null = drawn from the seed"),
    Field("w_o", "optmatrix", None,
          doc="projections: W^O (n_heads·d_k × d_model); null = drawn from the seed"),
    _LongText("model_path", "text", "", max_len=MAX_PATH_TEXT,
              doc="model: the local Hugging Face model folder"),
    _LongText("model_text", "text", "I sat on the bank of the river", max_len=MAX_SENTENCE,
              doc="model: the sentence run through the model (its tokenizer makes the tokens)"),
    Field("layer", "int", 0, 0, MAX_LAYERS - 1, doc="model: the layer whose head is shown"),
    Field("model_head", "int", 0, 0, MAX_MODEL_HEADS - 1,
          doc="model: the query head shown (it reads KV head model_head // (h / h_kv))"),
    Field("q", "matrix", None, doc="queries, one row per token (n × d_k)"),
    Field("k", "matrix", None, doc="keys, one row per token (n × d_k)"),
    Field("v", "matrix", None, doc="values, one row per token (n × d_v)"),
    Field("scale", "bool", True, doc="divide the scores by √d_k"),
    Field("temperature", "float", 1.0, *TEMPERATURE_RANGE, doc="softmax temperature T"),
    Field("softcap", "float", 0.0, 0.0, MAX_CAP,
          doc="cap of the scores: s → cap·tanh(s/cap) before the mask (0 = off; Gemma 2)"),
    Field("alibi", "float", 0.0, 0.0, MAX_SLOPE,
          doc="ALiBi slope: each score minus slope·|i − j| (0 = off; BLOOM)"),
    Field("sink", "bool", False,
          doc="a sink logit joins every softmax denominator: rows sum to less than 1 (gpt-oss)"),
    Field("sink_logit", "float", 0.0, -MAX_SINK, MAX_SINK, doc="the sink logit"),
    Field("rope", "bool", False, doc="rotate Q and K by token position (positions topic)"),
    Field("rope_dims", "int", 0, 0, MAX_D_K,
          doc="RoPE turns only the first rope_dims dimensions, the rest as they are (0 = all; "
              "partial rotary)"),
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
        """A field whose presence in an update makes Q/K/V come back from the others.

        Undo applies a step's values onto the state the step left, where every field the
        step did not change is already as it was, so one trigger is enough: ``d_k`` for a
        synthetic head, ``head_index`` for the projections. Typed X and W are not stored
        by a step that leaves them alone. (One trigger, late in the list of undo names,
        also keeps a step named by what was really changed: "Seed", "Embeddings".)
        A model head comes back from its captured sentence: ``model_head``.
        """
        trigger = {"projections": "head_index", "model": "model_head"}.get(self.head, "d_k")
        return frozenset({trigger})

    def capture(self):
        """The captured sentence of a model head (None for the other sources).

        From the cache, or run again (loading the model when needed; :class:`StateError`
        when the folder cannot be used).
        """
        if self.head != "model":
            return None
        return _model_capture(self._values)

    def projections(self) -> dict[str, np.ndarray]:
        """X, W_Q, W_K, W_V and W^O in use: the typed ones, the others drawn from the seed.

        Meaningful while ``head == "projections"`` (then every shape fits the fields).
        """
        return effective_projections(self._values)

    def score_terms(self) -> ScoreTerms:
        """Capping, ALiBi and the sink logit of these settings (all off by default)."""
        return terms_of(self._values)

    @property
    def d_head(self) -> int:
        """Width of one head of the projections (d_k)."""
        return self._values["d_k"]

    # --- dependent fields --------------------------------------------------------------
    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        # One strategy per head mode fills Q, K, V (the model's capture, projections of x,
        # a synthetic head, typed vectors); what hangs on the sentence's length follows.
        arrays_given = bool(set(ARRAYS) & given)
        _follow_mode(new, given, arrays_given)
        if new["head"] == "model":
            _follow_model(new, old, given, arrays_given)
        _follow_layout(new, old, given)
        _ARRAYS_BY_MODE.get(new["head"], _synthetic_arrays)(new, old, given, arrays_given)
        _follow_length(new, given)
        _follow_gradient(new, given)

    def _check(self, v: dict, old: dict) -> None:
        n = len(v["tokens"])
        if n == 0:
            raise StateError("the sequence is empty: give at least one token")
        if v["tokens"] is not old["tokens"] and any(not t.strip() for t in v["tokens"]):
            raise StateError("a token cannot be blank")
        _check_head_inputs(v)
        _check_projections(v)
        if v["head"] == "model" and not v["model_path"]:
            raise StateError(NO_MODEL)
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


def terms_of(values: dict) -> ScoreTerms:
    """The :class:`ScoreTerms` of attention field ``values``."""
    sink = values["sink_logit"] if values["sink"] else None
    return ScoreTerms(values["softcap"], values["alibi"], sink)


def _resize(arr: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros((rows, cols))
    r, c = min(rows, arr.shape[0]), min(cols, arr.shape[1])
    out[:r, :c] = arr[:r, :c]
    out.flags.writeable = False
    return out


def _check_head_inputs(v: dict) -> None:
    if v["head"] == "decay" and v["d_k"] < 3:
        raise StateError("the distance-decay head needs d_k ≥ 3")


# --- projections -----------------------------------------------------------------------
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
    return {name: _seeded(values, name) if values[name] is None else values[name]
            for name in MATS}


def _follow_layout(new: dict, old: dict, given: set[str]) -> None:
    """KV heads and the selected head follow the number of heads (for every source)."""
    h = new["n_heads"]
    if "n_kv_heads" not in given and h % new["n_kv_heads"]:
        # The largest divisor of h not above the KV heads there were: GQA stays GQA.
        new["n_kv_heads"] = max(g for g in range(1, new["n_kv_heads"] + 1) if h % g == 0)
    if "head_index" not in given and new["head_index"] >= h:
        new["head_index"] = h - 1


def _follow_projections(new: dict, old: dict, given: set[str]) -> None:
    """Fit typed X/W to the fields and derive Q, K, V of the selected head."""
    switched = old["head"] != "projections"
    if not (switched or given & PROJ_KEYS):
        return  # the slider path: temperature, masks, the view
    if "x" in given and new["x"] is not None and "d_model" not in given:
        new["d_model"] = new["x"].shape[1]
    if (switched or {"n_heads", "d_model"} & given) and not {"d_k", "q"} & given:
        # d_head = d_model / h, as the chapter splits d = 4096 into 32 heads of 128.
        new["d_k"] = max(1, new["d_model"] // new["n_heads"])
    _check_layout(new)
    for name in MATS:
        arr = new[name]
        if arr is None or name in given or arr.shape == _shape(new, name):
            continue
        fitted_for = old if old["head"] == "projections" else None
        old_layout = _layout(fitted_for, name) if fitted_for else None
        out = fit_projection(name, arr, _seeded(new, name), old_layout, _layout(new, name))
        out.flags.writeable = False
        new[name] = out
    if set(ARRAYS) & given:
        return
    for name in MATS:
        if new[name] is not None and new[name].shape != _shape(new, name):
            return  # a typed matrix of the wrong shape: _check says which
    m = effective_projections(new)
    try:
        arrays = project_head(
            m["x"], m["w_q"], m["w_k"], m["w_v"], new["head_index"],
            n_heads=new["n_heads"], n_kv_heads=new["n_kv_heads"],
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


def _check_projections(v: dict) -> None:
    _check_layout(v)
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


# --- a real model's head ---------------------------------------------------------------
NO_MODEL = "no model is open: File → Open Model… or attnviz --model DIR"


def _model_capture(values: dict):
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


def _follow_model(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """Tokens, Q, K, V, mask and scale of the selected head of the captured sentence."""
    switched = old["head"] != "model"
    if arrays_given or not (switched or given & MODEL_KEYS):
        return  # the slider path, or a snapshot that brings its own arrays
    cap = _model_capture(new)
    layers, heads = len(cap.layers), cap.n_heads
    other = switched or given & {"model_path", "model_text"}
    if other and "layer" not in given and new["layer"] >= layers:
        new["layer"] = layers - 1
    if other and "model_head" not in given and new["model_head"] >= heads:
        new["model_head"] = heads - 1
    if not 0 <= new["layer"] < layers:
        raise StateError(f"layer {new['layer']} is outside 0…{layers - 1} "
                         f"({cap.name} has {layers} layers)")
    if not 0 <= new["model_head"] < heads:
        raise StateError(f"model_head {new['model_head']} is outside 0…{heads - 1} "
                         f"({cap.name} has {heads} query heads per layer)")
    lc = cap.layers[new["layer"]]
    new["tokens"] = real_model.display_tokens(cap)
    new.update(real_model.head_arrays(cap, new["layer"], new["model_head"]))
    new["d_k"] = cap.head_dim
    n = len(new["tokens"])
    follow = {}
    if other or "layer" in given:
        # Each layer its own mask and scale (a model may scale its layers differently).
        causal, window, window_causal = real_model.mask_settings(lc)
        follow |= {"causal": causal, "window": window, "window_causal": window_causal,
                   "padding": (True,) * n, "segments": (0,) * n,
                   "temperature": real_model.temperature_for(lc, cap.head_dim)}
    if other or given & {"layer", "model_head"}:
        # Each head its own ALiBi slope and sink logit, each layer its cap.
        terms = real_model.head_terms(lc, new["model_head"])
        follow |= {"softcap": terms.softcap, "alibi": terms.alibi,
                   "sink": terms.sink is not None, "sink_logit": terms.sink or 0.0}
    if other:
        # The heatmap then computes the model's own weights: no extra rotation (q and k
        # are already rotated), the model's scale as √d_k and a temperature.
        follow |= {"rope": False, "scale": True, "preset_id": ""}
    for name, value in follow.items():
        if name not in given:
            new[name] = value
    if heads <= MAX_HEADS and "n_heads" not in given and "n_kv_heads" not in given:
        # The heads panel shows this layer's layout and highlights the head shown.
        new["n_heads"], new["n_kv_heads"] = heads, cap.n_kv_heads
        new["head_index"] = new["model_head"]
        if cap.hidden_size <= MAX_D_MODEL and "d_model" not in given:
            new["d_model"] = cap.hidden_size


# --- the attention topic's dependent fields, by concern (AttentionState._follow) -----------
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
    """A real model's head: Q, K, V came from the captured sentence (_follow_model)."""


def _projected_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """Q, K, V as x·W of the projections."""
    _follow_projections(new, old, given)


def _synthetic_arrays(new: dict, old: dict, given: set[str], arrays_given: bool) -> None:
    """A generated head (random, positional, …): made again when its inputs change."""
    if not {"tokens", "head", "seed", "d_k"} & given or arrays_given:
        return
    _check_head_inputs(new)
    try:
        h = generate_head(new["head"], len(new["tokens"]), new["d_k"], seed=new["seed"],
                          tokens=list(new["tokens"]))
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


_ARRAYS_BY_MODE = {"model": _model_arrays, "projections": _projected_arrays,
                   "manual": _typed_arrays}


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
