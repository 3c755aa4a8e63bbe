"""The ``reach`` topic: how far back a gradient reaches through an RNN, an LSTM and attention.

The fields are the inputs of :func:`attnviz.core.recurrence.gradient_reach`: the sequence
length T, the seed of the simulated networks, the scale of their recurrent weights (1 is
the chapter's setting) and the spread of attention's random scores (0: no content
preference, every token weighted alike).
"""

from __future__ import annotations

from attnviz.model.fields import Field
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: Longest sequence the panel simulates (the LSTM runs one step per token).
MAX_LENGTH = 1024
MAX_SEED = 2**31 - 1

FIELDS = (
    Field("length", "int", 256, 2, MAX_LENGTH,
          doc="sequence length T: the gradient runs from the last token back to the first",
          label=QT_TRANSLATE_NOOP("UndoController", "Sequence length")),
    Field("seed", "int", 0, 0, MAX_SEED, doc="seed of the random networks and inputs",
          label=QT_TRANSLATE_NOOP("UndoController", "Seed")),
    Field("weight_scale", "float", 1.0, 0.05, 2.0,
          doc="scale of the recurrent weights (1: the chapter's setting)",
          label=QT_TRANSLATE_NOOP("UndoController", "Weight scale")),
    Field("score_std", "float", 0.0, 0.0, 10.0,
          doc="attention: spread of the random scores (0: every token weighted alike)",
          label=QT_TRANSLATE_NOOP("UndoController", "Score spread")),
)  # fmt: skip


class ReachState(Topic):
    """Settings of the gradient-reach comparison."""

    NAME = "reach"
    ORDER = 30
    FIELDS = FIELDS
