"""The ``display`` topic: how many decimals the panels write their numbers with.

``decimals`` is 0 for automatic: the fewest decimals, from 2 to 6, that tell the shown
values apart (two entries of a short row that differ are written differently) and never
write a weight that is not zero as 0. A number from 2 to 6 is the least the panels write;
they add decimals (up to 6) only where a value that is not zero would otherwise read 0,
so a lesson's 0.0003 is never drawn as 0.000. Presets carry the precision of the document
they follow (``lesson-sqrt-dk`` 3, ``backward-reference`` 3). How the rule is applied to a
set of values is :func:`attnviz.ui.widgets.numbers.shown_decimals`; this module only holds
the choice.

``compare`` says what the heatmap and the layers grid show of a real model with the
prediction topic's interventions: ``clean`` (the captured run, the default),
``intervened`` (the run with them, inside the model's forward pass) or ``difference``
(intervened − clean, diverging colours centred on 0). See :mod:`attnviz.model.intervened`.
"""

from __future__ import annotations

from attnviz.model.fields import Field, StateError
from attnviz.model.head_type_table import HEAD_TYPE_CHOICES, LAYERS_VIEWS
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: 0 is automatic; 1 decimal cannot tell the documents' weights apart, so it is not offered.
AUTOMATIC = 0
MIN_DECIMALS = 2
MAX_DECIMALS = 6
# The values of ``compare`` (:data:`attnviz.model.intervened.COMPARE`, without its imports).
COMPARE = ("clean", "intervened", "difference")

FIELDS = (
    Field("decimals", "int", AUTOMATIC, AUTOMATIC, MAX_DECIMALS, recompute=False,
          doc="decimals of the numbers drawn: 0 automatic, else 2 to 6 at least",
          label=QT_TRANSLATE_NOOP("UndoController", "Decimals")),
    Field("compare", "choice", "clean", choices=COMPARE, recompute=False,
          doc="a real model's heatmap and layers grid: clean, intervened (prediction.ablate, "
              "prediction.knockout) or difference (intervened - clean)",
          label=QT_TRANSLATE_NOOP("UndoController", "Before / after")),
    Field("layers_view", "choice", "weights", choices=LAYERS_VIEWS, recompute=False,
          doc="what the layers panel draws: every head's weights, the heads by type "
              "(head_types) or attention rollout across the layers (rollout)",
          label=QT_TRANSLATE_NOOP("UndoController", "Layers view")),
    Field("head_type", "choice", "strongest", choices=HEAD_TYPE_CHOICES, recompute=False,
          doc="the layers panel's heads by type: coloured by each head's strongest type, "
              "or by one type's score",
          label=QT_TRANSLATE_NOOP("UndoController", "Head type")),
)  # fmt: skip


class DisplayState(Topic):
    """How the panels write numbers (saved in sessions, set by presets)."""

    NAME = "display"
    ORDER = 80
    FIELDS = FIELDS

    def _check(self, new: dict, old: dict) -> None:
        d = new["decimals"]
        if d != AUTOMATIC and not MIN_DECIMALS <= d <= MAX_DECIMALS:
            raise StateError(
                f"decimals must be 0 (automatic) or between {MIN_DECIMALS} and "
                f"{MAX_DECIMALS}, got {d}"
            )
