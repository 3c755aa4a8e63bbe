"""A slide's panels in smaller type rather than cut: the stage's fit to its room.

A panel that scrolls in a dock (the gradient's seven matrices, the memory figure, the
controls) has no one to scroll it on a slide: what lies past its edge is simply not seen;
a matrix squeezed below its numbers shows colours where the audience wants values.
:class:`StageFit` shrinks such a panel's type a pixel at a time, each step after the
layout has followed the last, until nothing in it scrolls any more, down to
:data:`MIN_SCALE` of the stage's type (below that a number is no longer legible from the
back of a hall, and the slide check reports the panel as cut instead). A new step, a
resize or a new stage font starts again from the full size.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QAbstractScrollArea, QComboBox, QWidget

#: The smallest type a panel takes on a slide, as a share of the stage's.
MIN_SCALE = 0.7


def scrolled_by(area: QAbstractScrollArea) -> list[tuple[str, int, bool]]:
    """``(side, hidden, per_item)`` for each way ``area``'s content exceeds its room:
    ``side`` "wide" or "tall", ``hidden`` the scroll range (pixels, or rows and columns for
    an item view that scrolls by whole items, ``per_item``). Empty when all of it shows."""
    out = []
    for bar, side in ((area.horizontalScrollBar(), "wide"), (area.verticalScrollBar(), "tall")):
        hidden = bar.maximum() - bar.minimum()
        per_item = (
            isinstance(area, QAbstractItemView)
            and (area.horizontalScrollMode() if side == "wide" else area.verticalScrollMode())
            == QAbstractItemView.ScrollMode.ScrollPerItem
        )
        if hidden > (0 if per_item else 2):
            out.append((side, hidden, per_item))
    return out


def overflowing(panel: QWidget) -> bool:
    """True when a visible scrolled view in ``panel`` (not a combo box's list) is cut, or
    a visible matrix small enough to print its numbers (16 cells a side) prints none."""
    for area in panel.findChildren(QAbstractScrollArea):
        if isinstance(area, QComboBox) or not area.isVisibleTo(panel):
            continue
        if scrolled_by(area):
            return True
    return bool(unnumbered_views(panel))


def unnumbered_views(widget: QWidget) -> list[QWidget]:
    """The visible matrix views in ``widget`` small enough to print their cells' numbers
    (at most 16 a side) that print none (heatmaps and the gradient's matrices)."""
    return [
        view
        for view in widget.findChildren(QWidget)
        if hasattr(view, "cell_values_shown")
        and view.isVisibleTo(widget)
        and view.cell_values_shown() is False
    ]


class StageFit(QObject):
    """Fits the shown panels of ``stage`` (a :class:`~attnviz.ui.stage.Stage`)."""

    def __init__(self, stage) -> None:
        super().__init__(stage)
        self.stage = stage
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._step)

    @property
    def busy(self) -> bool:
        """True while a panel is still being fitted."""
        return self._timer.isActive()

    def restart(self) -> None:
        """Every panel back to the stage's type, then fit again."""
        for panel in self.stage.panels.values():
            if panel.testAttribute(Qt.WidgetAttribute.WA_SetFont):
                panel.setFont(QFont())  # inherit the stage's again
        self._timer.start()

    def _step(self) -> None:
        # The layouts first, so the scroll ranges measured are those of the last font.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        base = self.stage.font().pixelSize()
        if base <= 0:
            return
        low = math.ceil(base * MIN_SCALE)
        again = False
        for pid in self.stage.shown:
            panel = self.stage.panels[pid]
            px = panel.font().pixelSize()
            if px > low and overflowing(panel):
                font = QFont(panel.font())
                font.setPixelSize(px - 1)
                panel.setFont(font)
                again = True
        if again:
            self._timer.start()
