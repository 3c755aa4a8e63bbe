"""The ``positions`` topic: RoPE's base and context-extension scaling, and the positions shown.

The fields mirror a Hugging Face config (``rope_theta`` and its ``rope_scaling`` entry), so
a real model's settings can be typed in as they are written there; :meth:`scaling`
returns that entry for :func:`attnviz.core.rope.rope_frequencies`. The attention heatmap
reads ``base`` and the scaling when ``attention.rope`` is on.
"""

from __future__ import annotations

from attnviz.core.rope import ROPE_TYPES
from attnviz.core.score_terms import MAX_SLOPE
from attnviz.model.fields import Field, StateError
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: Largest position or context the panel offers (the lesson's model reaches 262,144;
#: scaled contexts of real models reach about a million).
MAX_POSITION = 1 << 24
MAX_HEAD_DIM = 1024

FIELDS = (
    Field(
        "head_dim",
        "int",
        8,
        2,
        MAX_HEAD_DIM,
        doc="rotated width of one head (even)",
        label=QT_TRANSLATE_NOOP("UndoController", "Head width"),
    ),
    Field(
        "base",
        "float",
        10000.0,
        2.0,
        1e12,
        doc="RoPE base (rope_theta)",
        label=QT_TRANSLATE_NOOP("UndoController", "RoPE base"),
    ),
    Field(
        "rope_type",
        "choice",
        "default",
        choices=ROPE_TYPES,
        doc="context-extension scaling (rope_scaling.rope_type)",
        label=QT_TRANSLATE_NOOP("UndoController", "RoPE scaling"),
    ),
    Field(
        "factor",
        "float",
        4.0,
        1.0,
        1024.0,
        doc="how many times the context is extended",
        label=QT_TRANSLATE_NOOP("UndoController", "Scaling factor"),
    ),
    Field(
        "original_context",
        "int",
        8192,
        1,
        MAX_POSITION,
        doc="context the model was trained at (original_max_position_embeddings)",
        label=QT_TRANSLATE_NOOP("UndoController", "Original context"),
    ),
    Field(
        "low_freq_factor",
        "float",
        1.0,
        0.001,
        1e6,
        doc="Llama 3: low-frequency factor",
        label=QT_TRANSLATE_NOOP("UndoController", "Low-frequency factor"),
    ),
    Field(
        "high_freq_factor",
        "float",
        4.0,
        0.001,
        1e6,
        doc="Llama 3: high-frequency factor",
        label=QT_TRANSLATE_NOOP("UndoController", "High-frequency factor"),
    ),
    Field(
        "beta_fast",
        "float",
        32.0,
        0.001,
        1e6,
        doc="YaRN: rotations where the ramp starts",
        label=QT_TRANSLATE_NOOP("UndoController", "YaRN β fast"),
    ),
    Field(
        "beta_slow",
        "float",
        1.0,
        0.001,
        1e6,
        doc="YaRN: rotations where the ramp ends",
        label=QT_TRANSLATE_NOOP("UndoController", "YaRN β slow"),
    ),
    Field(
        "position",
        "int",
        5,
        0,
        MAX_POSITION,
        doc="query position m on the dial",
        label=QT_TRANSLATE_NOOP("UndoController", "Query position"),
    ),
    Field(
        "key_position",
        "int",
        2,
        0,
        MAX_POSITION,
        doc="key position n on the dial",
        label=QT_TRANSLATE_NOOP("UndoController", "Key position"),
    ),
    Field(
        "offset",
        "int",
        64,
        0,
        MAX_POSITION,
        doc="shift added to both positions of the relative-score curves",
        label=QT_TRANSLATE_NOOP("UndoController", "Position offset"),
    ),
    Field(
        "alibi_slope",
        "float",
        0.0,
        0.0,
        MAX_SLOPE,
        doc="ALiBi drawn beside RoPE on the relative-score plot: q·k − slope·|m − n| "
        "(0 = not drawn)",
        label=QT_TRANSLATE_NOOP("UndoController", "ALiBi slope"),
    ),
    Field(
        "preset_id",
        "text",
        "rope-clock",
        doc="the positions preset shown",
        label=QT_TRANSLATE_NOOP("UndoController", "Preset"),
    ),
)


class PositionsState(Topic):
    """RoPE settings and the query/key positions the clock dial shows."""

    NAME = "positions"
    ORDER = 10
    FIELDS = FIELDS

    def scaling(self) -> dict | None:
        """The ``rope_scaling`` dict of these settings, None for plain RoPE."""
        return scaling_dict(self._values)

    @property
    def context(self) -> int:
        """The context the scaling reaches (original × factor), or the original one."""
        if self.rope_type == "default":
            return self.original_context
        return int(round(self.original_context * self.factor))

    def _check(self, v: dict, old: dict) -> None:
        if v["head_dim"] % 2:
            raise StateError(
                f"head_dim must be even (dimensions rotate in pairs), got {v['head_dim']}"
            )
        # Checked whatever the scaling chosen: the panel compares every method side by side.
        if not v["high_freq_factor"] > v["low_freq_factor"]:
            raise StateError("Llama 3 scaling needs high_freq_factor > low_freq_factor")
        if not v["beta_fast"] > v["beta_slow"]:
            raise StateError("YaRN needs beta_fast > beta_slow")


def scaling_dict(values: dict) -> dict | None:
    """``rope_scaling`` as a Hugging Face config writes it, from positions field values."""
    kind = values["rope_type"]
    if kind == "default":
        return None
    out = {"rope_type": kind, "factor": values["factor"]}
    if kind in ("dynamic", "llama3", "yarn"):
        out["original_max_position_embeddings"] = values["original_context"]
    if kind == "llama3":
        out["low_freq_factor"] = values["low_freq_factor"]
        out["high_freq_factor"] = values["high_freq_factor"]
    if kind == "yarn":
        out["beta_fast"] = values["beta_fast"]
        out["beta_slow"] = values["beta_slow"]
    return out
