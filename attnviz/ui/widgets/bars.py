"""Horizontal bars with their names and values written out, readable from the back of a room.

One row per bar: the name at the left, the bar on a shared linear scale (so "4× larger"
looks four times as long), the value at its end. A row can be marked as the current one
(bold, outlined) or as a counterfactual (hatched, muted: what a saving avoids). Hovering a
row shows its tooltip.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip

from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.plot_style import line_width, series_color


@dataclass(frozen=True)
class Bar:
    """One row: ``name``, ``value`` (≥ 0), the ``text`` written after the bar, a tooltip.

    ``detail`` follows the text, muted, when the row has room for it (it is never allowed
    to squeeze the bars). ``kind`` is ``"current"`` (the card's own design), ``"other"`` or
    ``"without"`` (a counterfactual: the card without one of its savings).
    """

    name: str
    value: float
    text: str
    tip: str = ""
    detail: str = ""
    kind: str = "other"
    color: int = 0


#: A row's least height in lines: the name and value, and air between the bars (a panel
#: in a 720-pixel window keeps the KV cache's four designs in view).
ROW_LINES = 1.35


class BarChart(PaintedWidget):
    """Horizontal bars on one linear scale (see the module docstring)."""

    background = Background.THEME
    render_hints = (QPainter.RenderHint.Antialiasing,)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.bars: tuple[Bar, ...] = ()
        self.title = ""
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_bars(self, bars, title: str = "") -> None:
        """Show ``bars`` (a sequence of :class:`Bar`) under ``title``."""
        self.bars = tuple(bars)
        self.title = title
        self.updateGeometry()
        self.update()

    def _row_height(self) -> float:
        """The least height of a row (rows grow to twice this where there is room)."""
        return QFontMetricsF(self.font()).height() * ROW_LINES

    def _title_rect(self, width: float) -> QRectF:
        """Where the title goes at ``width``: wrapped onto more lines rather than cut."""
        fm = QFontMetricsF(self.font())
        flags = int(Qt.TextFlag.TextWordWrap.value)
        return fm.boundingRect(QRectF(0, 0, max(width, 1.0), 1e6), flags, self.title)

    def _top(self, width: float | None = None) -> float:
        if not self.title:
            return 0.0
        line = QFontMetricsF(self.font()).height()
        return self._title_rect(self.width() if width is None else width).height() + 0.4 * line

    def sizeHint(self) -> QSize:
        top = self._top(max(self.width(), 360))
        return QSize(360, math.ceil(top + self._row_height() * max(len(self.bars), 4)))

    def minimumSizeHint(self) -> QSize:
        top = self._top(max(self.width(), 200))
        return QSize(200, math.ceil(top + self._row_height() * max(len(self.bars), 1)))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return math.ceil(self._top(width) + self._row_height() * max(len(self.bars), 1))

    def _height_of_rows(self) -> float:
        free = (self.height() - self._top()) / max(len(self.bars), 1)
        return min(max(self._row_height(), free), 2 * self._row_height())

    def row_at(self, y: float) -> int | None:
        """Index of the bar at height ``y``, or None."""
        i = math.floor((y - self._top()) / self._height_of_rows())
        return i if 0 <= i < len(self.bars) and y >= self._top() else None

    def columns(self) -> tuple[float, float, float]:
        """Widths of the names' column, of the values' and of the longest bar: the bars
        get the room the names and the values leave, so the longest still ends where its
        value fits (a bar given half the width pushed "96 GiB" past the edge of a narrow
        dock beside a long name)."""
        font = self.font()
        bold = QFont(font)
        bold.setBold(True)
        fm, fmb = QFontMetricsF(font), QFontMetricsF(bold)
        name_w = max(fmb.horizontalAdvance(b.name) for b in self.bars) + fm.height() * 0.5
        text_w = max(fmb.horizontalAdvance(b.text) for b in self.bars) + fm.height() * 0.5
        return name_w, text_w, max(self.width() - name_w - text_w - fm.height() * 0.3, 10.0)

    # --- painting ----------------------------------------------------------------------
    def _paint(self, p: QPainter) -> None:
        if not self.bars:
            return
        font = self.font()
        bold = QFont(font)
        bold.setBold(True)
        fm = QFontMetricsF(font)
        fg, muted = QColor(self.theme.foreground), QColor(self.theme.muted)
        if self.title:
            p.setPen(QPen(fg))
            p.drawText(
                QRectF(0, 0, self.width(), self._top()),
                Qt.AlignmentFlag.AlignLeft
                | Qt.AlignmentFlag.AlignVCenter
                | Qt.TextFlag.TextWordWrap,
                self.title,
            )
        name_w, text_w, room = self.columns()
        top = max((b.value for b in self.bars), default=0.0) or 1.0
        h = self._height_of_rows()  # rows grow with the room (an export), up to twice
        for i, b in enumerate(self.bars):
            y = self._top() + i * h
            current = b.kind == "current"
            p.setFont(bold if current else font)
            p.setPen(QPen(fg if b.kind != "without" else muted))
            p.drawText(
                QRectF(0, y, name_w - fm.height() * 0.3, h),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                b.name,
            )
            length = room * b.value / top
            rect = QRectF(name_w, y + h * 0.18, max(length, 1.0), h * 0.64)
            color = series_color(self.theme, b.color)
            if b.kind == "without":
                p.fillRect(rect, QBrush(muted, Qt.BrushStyle.BDiagPattern))
                p.setPen(QPen(muted, 1))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(rect)
            else:
                p.fillRect(rect, color)
                if current:
                    p.setPen(QPen(fg, line_width(font)))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(rect)
            p.setPen(QPen(fg if b.kind != "without" else muted))
            left = rect.right() + fm.height() * 0.3
            p.drawText(
                QRectF(left, y, text_w + fm.height(), h),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                b.text,
            )
            used = QFontMetricsF(p.font()).horizontalAdvance(b.text + "  ")
            if b.detail and left + used + fm.horizontalAdvance(b.detail) <= self.width():
                p.setFont(font)
                p.setPen(QPen(muted))
                p.drawText(
                    QRectF(left + used, y, self.width() - left - used, h),
                    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    b.detail,
                )
        p.setFont(font)

    # --- mouse -------------------------------------------------------------------------
    def mouseMoveEvent(self, event) -> None:
        i = self.row_at(event.position().y())
        tip = self.bars[i].tip if i is not None else ""
        if tip:
            QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QToolTip.hideText()
        super().mouseMoveEvent(event)
