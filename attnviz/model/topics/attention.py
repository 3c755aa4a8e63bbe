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

Here: the fields and the checks. The choices and limits are in ``_attention_limits``,
what an edit brings along (one strategy per head source) in ``_attention_follow``, the
projections and a real model's head in ``_attention_projections`` and ``_attention_model``;
the names scripts use are importable from this module as before.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.score_terms import (
    MAX_CAP,
    MAX_SINK,
    MAX_SLOPE,
    MAX_TUNING,
    MAX_TUNING_FLOOR,
    ScoreTerms,
)
from attnviz.model.fields import Field, check_text
from attnviz.model.fields import StateError as StateError  # importable from the topic, as before
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic
from attnviz.model.topics._attention_checks import check_consistency
from attnviz.model.topics._attention_fields import MASK_AND_VIEW_FIELDS
from attnviz.model.topics._attention_follow import follow_fields
from attnviz.model.topics._attention_limits import (
    ARRAYS,
    HEAD_SOURCES,
    MAX_D_K,
    MAX_D_MODEL,
    MAX_HEADS,
    MAX_LAYERS,
    MAX_MODEL_HEADS,
    MAX_PATH_TEXT,
    MAX_SEED,
    MAX_SENTENCE,
    MAX_TOKENS,
    TEMPERATURE_RANGE,
)
from attnviz.model.topics._attention_limits import BACKENDS as BACKENDS
from attnviz.model.topics._attention_limits import COLORMAPS as COLORMAPS

# The groups of fields the head sources follow, importable from the topic as before.
from attnviz.model.topics._attention_limits import DETACH_KEYS as DETACH_KEYS
from attnviz.model.topics._attention_limits import GRAD_SOURCES as GRAD_SOURCES
from attnviz.model.topics._attention_limits import MATRICES as MATRICES
from attnviz.model.topics._attention_limits import MATS as MATS
from attnviz.model.topics._attention_limits import MAX_PROJ_WIDTH as MAX_PROJ_WIDTH
from attnviz.model.topics._attention_limits import MODEL_KEYS as MODEL_KEYS
from attnviz.model.topics._attention_limits import PROJ_KEYS as PROJ_KEYS
from attnviz.model.topics._attention_limits import SOFTMAX_DTYPES as SOFTMAX_DTYPES
from attnviz.model.topics._attention_model import model_capture
from attnviz.model.topics._attention_projections import effective_projections
from attnviz.model.topics._attention_qk_fields import QK_MAP_FIELDS


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
    Field(
        "tokens",
        "texts",
        ("sentei", "banco", "praça"),
        max_len=MAX_TOKENS,
        doc="the sentence, one token per entry",
        label=QT_TRANSLATE_NOOP("UndoController", "Tokens"),
    ),
    Field(
        "head",
        "choice",
        "manual",
        choices=HEAD_SOURCES,
        doc="where Q, K, V come from: typed vectors, a synthetic head, projections or a real model",
        label=QT_TRANSLATE_NOOP("UndoController", "Head type"),
    ),
    Field(
        "seed",
        "int",
        0,
        0,
        MAX_SEED,
        doc="seed of a synthetic head",
        label=QT_TRANSLATE_NOOP("UndoController", "Seed"),
    ),
    Field(
        "d_k",
        "int",
        2,
        1,
        MAX_D_K,
        doc="width of queries and keys",
        label=QT_TRANSLATE_NOOP("UndoController", "d_k"),
    ),
    Field(
        "d_model",
        "int",
        16,
        1,
        MAX_D_MODEL,
        doc="projections: width of the token embeddings X",
        label=QT_TRANSLATE_NOOP("UndoController", "Model width d_model"),
    ),
    Field(
        "n_heads",
        "int",
        4,
        1,
        MAX_HEADS,
        doc="projections: query heads h",
        label=QT_TRANSLATE_NOOP("UndoController", "Number of heads"),
    ),
    Field(
        "n_kv_heads",
        "int",
        2,
        1,
        MAX_HEADS,
        doc="projections: key/value heads (divides n_heads; 1 = MQA, n_heads = MHA)",
        label=QT_TRANSLATE_NOOP("UndoController", "KV heads"),
    ),
    Field(
        "head_index",
        "int",
        0,
        0,
        MAX_HEADS - 1,
        doc="projections: the query head whose Q, K, V the heatmap shows",
        label=QT_TRANSLATE_NOOP("UndoController", "Head shown"),
    ),
    Field(
        "heads_off",
        "ints",
        (),
        0,
        MAX_HEADS - 1,
        max_len=MAX_HEADS,
        doc="projections: query heads switched off in the output (their slice of W^O's input "
        "set to 0; the heads panel's switches)",
        label=QT_TRANSLATE_NOOP("UndoController", "Heads switched off"),
    ),
    Field(
        "x",
        "optmatrix",
        None,
        doc="projections: token embeddings (n × d_model); null = drawn from the seed",
        label=QT_TRANSLATE_NOOP("UndoController", "Embeddings X"),
    ),
    Field(
        "w_q",
        "optmatrix",
        None,
        doc="projections: W_Q (d_model × n_heads·d_k); null = drawn from the seed",
        label=QT_TRANSLATE_NOOP("UndoController", "W_Q"),
    ),
    Field(
        "w_k",
        "optmatrix",
        None,
        doc="projections: W_K (d_model × n_kv_heads·d_k); null = drawn from the seed",
        label=QT_TRANSLATE_NOOP("UndoController", "W_K"),
    ),
    Field(
        "w_v",
        "optmatrix",
        None,
        doc="projections: W_V (d_model × n_kv_heads·d_k); null = drawn from the seed",
        label=QT_TRANSLATE_NOOP("UndoController", "W_V"),
    ),
    Field(
        "w_o",
        "optmatrix",
        None,
        doc="projections: W^O (n_heads·d_k × d_model); null = drawn from the seed",
        label=QT_TRANSLATE_NOOP("UndoController", "W^O"),
    ),
    _LongText(
        "model_path",
        "text",
        "",
        max_len=MAX_PATH_TEXT,
        doc="model: the local Hugging Face model folder",
        label=QT_TRANSLATE_NOOP("UndoController", "Model"),
    ),
    _LongText(
        "model_text",
        "text",
        "I sat on the bank of the river",
        max_len=MAX_SENTENCE,
        doc="model: the sentence run through the model (its tokenizer makes the tokens)",
        label=QT_TRANSLATE_NOOP("UndoController", "Sentence"),
    ),
    Field(
        "layer",
        "int",
        0,
        0,
        MAX_LAYERS - 1,
        doc="model: the layer whose head is shown",
        label=QT_TRANSLATE_NOOP("UndoController", "Layer"),
    ),
    Field(
        "model_head",
        "int",
        0,
        0,
        MAX_MODEL_HEADS - 1,
        doc="model: the query head shown (it reads KV head model_head // (h / h_kv))",
        label=QT_TRANSLATE_NOOP("UndoController", "Model head"),
    ),
    Field(
        "q",
        "matrix",
        None,
        doc="queries, one row per token (n × d_k)",
        label=QT_TRANSLATE_NOOP("UndoController", "Query vectors"),
    ),
    Field(
        "k",
        "matrix",
        None,
        doc="keys, one row per token (n × d_k)",
        label=QT_TRANSLATE_NOOP("UndoController", "Key vectors"),
    ),
    Field(
        "v",
        "matrix",
        None,
        doc="values, one row per token (n × d_v)",
        label=QT_TRANSLATE_NOOP("UndoController", "Value vectors"),
    ),
    Field(
        "scale",
        "bool",
        True,
        doc="divide the scores by √d_k",
        label=QT_TRANSLATE_NOOP("UndoController", "√d_k scaling"),
    ),
    Field(
        "temperature",
        "float",
        1.0,
        *TEMPERATURE_RANGE,
        doc="softmax temperature T",
        label=QT_TRANSLATE_NOOP("UndoController", "Temperature"),
    ),
    Field(
        "softcap",
        "float",
        0.0,
        0.0,
        MAX_CAP,
        doc="cap of the scores: s → cap·tanh(s/cap) before the mask (0 = off; Gemma 2)",
        label=QT_TRANSLATE_NOOP("UndoController", "Logit soft-cap"),
    ),
    Field(
        "alibi",
        "float",
        0.0,
        0.0,
        MAX_SLOPE,
        doc="ALiBi slope: each score minus slope·|i − j| (0 = off; BLOOM)",
        label=QT_TRANSLATE_NOOP("UndoController", "ALiBi"),
    ),
    Field(
        "sink",
        "bool",
        False,
        doc="a sink logit joins every softmax denominator: rows sum to less than 1 (gpt-oss)",
        label=QT_TRANSLATE_NOOP("UndoController", "Attention sink"),
    ),
    Field(
        "sink_logit",
        "float",
        0.0,
        -MAX_SINK,
        MAX_SINK,
        doc="the sink logit",
        label=QT_TRANSLATE_NOOP("UndoController", "Sink logit"),
    ),
    Field(
        "tuning",
        "float",
        0.0,
        0.0,
        MAX_TUNING,
        doc="temperature tuning (Llama 4's NoPE layers): query i's scores times "
        "1 + tuning·ln(⌊(i + 1) / tuning_floor⌋ + 1) (0 = off; Llama 4: 0.1)",
        label=QT_TRANSLATE_NOOP("UndoController", "Temperature tuning"),
    ),
    Field(
        "tuning_floor",
        "int",
        8192,
        1,
        MAX_TUNING_FLOOR,
        doc="temperature tuning: the positions per step of its logarithm (Llama 4: 8192)",
        label=QT_TRANSLATE_NOOP("UndoController", "Tuning floor"),
    ),
    Field(
        "rope",
        "bool",
        False,
        doc="rotate Q and K by token position (positions topic)",
        label=QT_TRANSLATE_NOOP("UndoController", "RoPE on the heatmap"),
    ),
    Field(
        "rope_dims",
        "int",
        0,
        0,
        MAX_D_K,
        doc="RoPE turns only the first rope_dims dimensions, the rest as they are (0 = all; "
        "partial rotary)",
        label=QT_TRANSLATE_NOOP("UndoController", "Rotated dimensions"),
    ),
    *MASK_AND_VIEW_FIELDS,
    *QK_MAP_FIELDS,
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
        return model_capture(self._values)

    def projections(self) -> dict[str, np.ndarray]:
        """X, W_Q, W_K, W_V and W^O in use: the typed ones, the others drawn from the seed.

        Meaningful while ``head == "projections"`` (then every shape fits the fields).
        """
        return effective_projections(self._values)

    def score_terms(self) -> ScoreTerms:
        """Temperature tuning, capping, ALiBi and the sink logit of these settings (all off
        by default)."""
        return terms_of(self._values)

    @property
    def d_head(self) -> int:
        """Width of one head of the projections (d_k)."""
        return self._values["d_k"]

    # --- dependent fields --------------------------------------------------------------
    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        # One strategy per head mode fills Q, K, V; what hangs on the length follows.
        follow_fields(new, old, given)

    def _check(self, v: dict, old: dict) -> None:
        check_consistency(v, old)


def terms_of(values: dict) -> ScoreTerms:
    """The :class:`ScoreTerms` of attention field ``values``."""
    sink = values["sink_logit"] if values["sink"] else None
    return ScoreTerms(
        values["softcap"], values["alibi"], sink, values["tuning"], values["tuning_floor"]
    )
