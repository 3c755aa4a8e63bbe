"""An axis of token labels: thinned out when they would collide, turned upright when the
column labels do not fit side by side.

pyqtgraph's :class:`AxisItem` draws tick labels horizontally only, so a sentence of thirty
tokens under a matrix loses most of its labels. :class:`TokenAxis` keeps pyqtgraph's axis
line and ticks and, on the bottom axis, draws the labels rotated by 90° when that shows
more of them; it also works out how thick the axis must be for its labels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyqtgraph.graphicsItems.AxisItem import AxisItem
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

#: Longer tokens are shortened on the axes (the hover text gives them whole).
LABEL_CHARS = 14


def shorten(label: str) -> str:
    """``label`` cut to :data:`LABEL_CHARS` characters with an ellipsis."""
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def label_step(count: float, pixels: float, per_label: float) -> int:
    """Show every ``step``-th of ``count`` labels so that each gets ``per_label`` pixels."""
    if pixels <= 0 or count <= 0:
        return 1
    fits = max(1.0, pixels / max(per_label, 1.0))
    return max(1, math.ceil(count / fits))


class TokenAxis(AxisItem):
    """The left (queries) or bottom (keys) axis of a heatmap, one label per cell centre."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.rotated = False
        self._labels: tuple[str, ...] = ()
        self._shown: list[tuple[float, str]] = []
        self._font = QFont()
        self._widest = 0.0

    def set_labels(self, labels: Sequence[str], font: QFont) -> None:
        """The full list of labels, one per row or column, and the font they are drawn in."""
        self._labels = tuple(shorten(s) for s in labels)
        self._font = QFont(font)
        metrics = QFontMetricsF(self._font)
        self._widest = max((metrics.horizontalAdvance(s) for s in self._labels), default=0.0)

    def relayout(self) -> float:
        """Choose which labels to show (and their direction); return the axis thickness.

        The thickness is the width of a left axis or the height of a bottom axis, title
        included, so that neighbouring plots can be given the same.
        """
        metrics = QFontMetricsF(self._font)
        line = metrics.height()
        lo, hi = sorted(self.range)
        rect = self.linkedView().boundingRect() if self.linkedView() is not None else QRectF()
        ticks = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0]
        title = line * 1.6 if self.label.isVisible() else 0.0
        if self.orientation == "left":
            self.rotated = False
            step = label_step(hi - lo, rect.height(), line * 1.1)
            thickness = self._widest + ticks + title + 6
        else:
            step = label_step(hi - lo, rect.width(), self._widest + line)
            upright = label_step(hi - lo, rect.width(), line * 1.15)
            self.rotated = step > 1 and upright < step
            if self.rotated:
                step = upright
                thickness = self._widest + ticks + title + 6
            else:
                thickness = line + ticks + title + 4
        self._shown = [(i + 0.5, self._labels[i]) for i in range(0, len(self._labels), step)]
        # Rotated labels are drawn here; pyqtgraph gets none, or it would clip them.
        self.setTicks([[] if self.rotated else self._shown])
        self.picture = None
        self.update()
        return round(thickness)

    def shown_labels(self) -> list[str]:
        """The labels placed now (after thinning out)."""
        return [label for _pos, label in self._shown]

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs) -> None:
        if not self.rotated:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        bounds = self.boundingRect()
        lo, hi = self.range
        if hi == lo:
            return
        p.setFont(self._font)
        p.setPen(self.textPen())
        p.setClipRect(bounds)
        line = QFontMetricsF(self._font).height()
        top = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]
        for pos, text in self._shown:
            x = bounds.left() + (pos - lo) * bounds.width() / (hi - lo)
            if not bounds.left() + line / 2 <= x <= bounds.right() - line / 2:
                continue  # half of it would be clipped
            p.save()
            p.translate(x, top)
            p.rotate(-90)  # text runs upwards; its end sits next to the axis
            flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            p.drawText(QRectF(-self._widest - 2, -line / 2, self._widest, line), flags, text)
            p.restore()
