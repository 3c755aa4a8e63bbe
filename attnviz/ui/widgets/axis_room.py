"""Plot axes whose texts never touch: tick labels thinned where they would, and the axis
title clear of them.

pyqtgraph draws every label of an axis' first tick level however crowded (a log axis of
d_k wrote "4 16 64256" on a slide), and reserves only 0.8 of the title's height beside
the tick labels, measuring those at 0.8 of their height too ("usually an overestimate"):
in large type the title's descenders sit on the widest tick label. :class:`RoomyAxis`
keeps evenly spaced labels of each level — every one, every second, every third, … — with
a gap between neighbours (a label of a finer level only where it touches none kept), and
reserves the title's whole height and the labels' whole height, with a gap.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF

#: Free room between two tick labels along the axis, in the labels' (reduced) height: about
#: the width of two digits, so "64 256" never reads as one number.
GAP_ALONG = 0.6
#: Free room between the tick labels and the axis title, in the title's height.
GAP_TITLE = 0.15
#: pyqtgraph measures a tick label at this share of its height, and pyqtgraph's axis title
#: takes this share of its own height (and sits this many pixels outside the axis).
_REDUCED = 0.8
_NUDGE = 5


def _centre(rect: QRectF, vertical: bool) -> float:
    return rect.center().y() if vertical else rect.center().x()


def _box(rect: QRectF, vertical: bool) -> QRectF:
    """The room a label needs along the axis: its whole height (pyqtgraph's rectangle
    holds 0.8 of it) on a vertical axis, its width and a gap on a horizontal one."""
    if vertical:
        grow = rect.height() * (1 / _REDUCED - 1) / 2 + 1
        return rect.adjusted(0, -grow, 0, grow)
    gap = rect.height() * GAP_ALONG / 2
    return rect.adjusted(-gap, 0, gap, 0)


def first_level(centres: list[float]) -> int:
    """How many of the ``centres`` (positions along the axis, in pyqtgraph's order: level
    by level, each in the order of its values) belong to the first level: the run from the
    start that moves one way."""
    direction = 0
    for i in range(1, len(centres)):
        d = (centres[i] > centres[i - 1]) - (centres[i] < centres[i - 1])
        if d == 0 or (direction and d != direction):
            return i
        direction = d
    return len(centres)


def spaced_labels(specs: list, vertical: bool) -> list:
    """The text specs ``(rect, flags, text)`` of an axis, thinned so that no two touch.

    The first level keeps every ``k``-th label for the smallest ``k`` that leaves them
    apart (so 1, 16, 256 of 1, 4, …, 1024, rather than an irregular pick); a finer level's
    label stays only where it touches no label kept.
    """
    items = [spec for spec in specs if spec[2]]
    if len(items) < 2:
        return items
    boxes = [_box(rect, vertical) for rect, _flags, _text in items]
    centres = [_centre(rect, vertical) for rect, _flags, _text in items]
    top = first_level(centres)
    order = sorted(range(top), key=centres.__getitem__)
    kept: list[int] = order[:1]
    for step in range(1, len(order) + 1):
        chosen = order[::step]
        if all(not boxes[a].intersects(boxes[b]) for a, b in zip(chosen, chosen[1:], strict=False)):
            kept = chosen
            break
    for i in range(top, len(items)):
        if not any(boxes[i].intersects(boxes[k]) for k in kept):
            kept.append(i)
    return [items[i] for i in sorted(kept)]


class RoomyAxis(pg.AxisItem):
    """A pyqtgraph axis whose tick labels never touch one another or the axis title."""

    def generateDrawSpecs(self, p):  # pyqtgraph
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return None
        axis_spec, tick_specs, text_specs = specs
        vertical = self.orientation in ("left", "right")
        return axis_spec, tick_specs, spaced_labels(text_specs, vertical)

    def _title_room(self) -> float:
        """What the title needs beyond pyqtgraph's 0.8 of its height, with a gap."""
        if self.label is None or not self.label.isVisible():  # (None once closed)
            return 0.0
        height = self.label.boundingRect().height()
        return max(0.0, height * (1 - _REDUCED) - _NUDGE + height * GAP_TITLE)

    def _updateWidth(self) -> None:  # pyqtgraph
        super()._updateWidth()
        if self.fixedWidth is None and self.isVisible():
            width = self.maximumWidth() + self._title_room()
            self.setMaximumWidth(width)
            self.setMinimumWidth(width)

    def _updateHeight(self) -> None:  # pyqtgraph
        super()._updateHeight()
        if self.fixedHeight is None and self.isVisible():
            labels = self.textHeight if self.style["showValues"] else 0
            height = self.maximumHeight() + labels * (1 / _REDUCED - 1) + self._title_room()
            self.setMaximumHeight(height)
            self.setMinimumHeight(height)


def roomy_axes() -> dict[str, RoomyAxis]:
    """A :class:`RoomyAxis` on the left and at the bottom, for ``PlotItem(axisItems=…)``
    (pyqtgraph shows every axis it is given; the top and right ones stay its own, hidden)."""
    return {side: RoomyAxis(side) for side in ("left", "bottom")}
