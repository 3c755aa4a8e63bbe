"""The projections as a picture of blocks: X·W_Q = Q, X·W_K = K, X·W_V = V, concat·W^O = O.

Each matrix is a box whose sides grow with the square root of its sizes (so 12 × 64 and
64 × 64 both fit one picture), cut into head blocks: W_Q and Q into h column blocks, W_K,
W_V, K and V into h_kv, the concatenated head outputs into h, and W^O into h row blocks —
the rows head i's output meets. A head takes its KV head's colour (the grid's frames), so
the heads sharing K and V read as one colour; the selected head is outlined. The picture
is never cut: the widget asks for the width its names and operators take (a splitter
beside the heads' maps gives it that much), and in a narrower one its type gets smaller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.plot_style import line_width, series_color


@dataclass(frozen=True)
class Box:
    """One matrix of the picture: name, rows × columns, and how it is cut into heads."""

    name: str
    rows: int
    cols: int
    blocks: int = 1  # head blocks along the cut
    by_rows: bool = False  # W^O: blocks of rows
    kv: bool = False  # blocks are KV heads (one colour each) rather than query heads


def picture_rows(n: int, d_model: int, h: int, h_kv: int, d: int) -> list[tuple[Box, Box, Box]]:
    """The four products of the picture as ``(left, right, result)`` boxes."""
    x = Box("X", n, d_model)
    return [
        (x, Box("W_Q", d_model, h * d, h), Box("Q", n, h * d, h)),
        (x, Box("W_K", d_model, h_kv * d, h_kv, kv=True), Box("K", n, h_kv * d, h_kv, kv=True)),
        (x, Box("W_V", d_model, h_kv * d, h_kv, kv=True), Box("V", n, h_kv * d, h_kv, kv=True)),
        (
            Box("concat", n, h * d, h),
            Box("W^O", h * d, d_model, h, by_rows=True),
            Box("O", n, d_model),
        ),
    ]


class BlocksView(PaintedWidget):
    """The four products of one attention layer, drawn as blocks (see the module docstring)."""

    background = Background.EXPORTED
    render_hints = (QPainter.RenderHint.Antialiasing,)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.layout_key = (1, 1, 1, 1, 1)
        self.selected = 0
        self.rows: list[tuple[Box, Box, Box]] = []
        self.message = ""

    def sizeHint(self) -> QSize:
        return QSize(300, 240)

    def minimumSizeHint(self) -> QSize:
        # The names, operators and shapes of the widest row with boxes a few pixels wide.
        if not self.rows:
            return QSize(200, 160)
        return QSize(max(200, math.ceil(self._text_row_width(self.font()) + 24)), 160)

    def _text_row_width(self, font: QFont) -> float:
        """The width of the widest row's texts alone (the boxes at no width)."""
        metrics = QFontMetricsF(font)
        op = metrics.horizontalAdvance(" = ") + 8
        return 8 + max(sum(self._text_width(metrics, b) for b in r) + 2 * op for r in self.rows)

    def _fitting_font(self) -> QFont:
        """The widget's font, or the largest smaller one (a pixel at a time, down to 60 %)
        in which the texts of every row fit its width."""
        font = QFont(self.font())
        if self._text_row_width(font) <= self.width():
            return font
        base = QFontInfo(font).pixelSize()
        for px in range(base - 1, max(6, math.ceil(base * 0.6)) - 1, -1):
            font.setPixelSize(px)
            if self._text_row_width(font) <= self.width():
                break
        return font

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()  # the names' width is the minimum one
        super().changeEvent(event)

    def set_layout(self, n: int, d_model: int, h: int, h_kv: int, d: int, selected: int) -> None:
        """Draw the products of a layer of ``h`` heads (``h_kv`` KV heads) of width ``d``."""
        self.layout_key = (n, d_model, h, h_kv, d)
        self.rows = picture_rows(n, d_model, h, h_kv, d)
        self.selected = selected
        self.message = ""
        self.updateGeometry()
        self.update()

    def set_message(self, text: str) -> None:
        """Show ``text`` instead of the picture (no projections to draw)."""
        self.rows = []
        self.message = text
        self.update()

    def set_selected(self, head: int) -> None:
        """Outline ``head``'s blocks."""
        self.selected = head
        self.update()

    # --- painting ----------------------------------------------------------------------
    def _scale(self, metrics: QFontMetricsF) -> float:
        """Pixels per √(dimension): the largest that fits every row in the widget.

        A label wider than its box takes its own width, whatever the scale: when the
        labels alone overflow, the boxes still get the height they can have.
        """
        line = metrics.height()
        op = metrics.horizontalAdvance(" = ") + 8
        avail_h = self.height() - 8 - len(self.rows) * self._text_lines(metrics) * line
        top = avail_h / max(1e-9, sum(max(math.sqrt(b.rows) for b in r) for r in self.rows))

        def width(unit: float) -> float:
            return 8 + max(
                sum(max(unit * math.sqrt(b.cols), self._text_width(metrics, b)) for b in r) + 2 * op
                for r in self.rows
            )

        if width(top) <= self.width() or width(0.0) >= self.width():
            return max(top, 0.5)
        lo, hi = 0.0, top
        for _ in range(30):  # bisection: width() grows with the unit
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if width(mid) <= self.width() else (lo, mid)
        return max(lo, 0.5)

    def _shapes_shown(self, metrics: QFontMetricsF) -> bool:
        """Sizes under the boxes, unless they would leave the boxes too little height
        (large fonts on a small dock: the shapes table has them too)."""
        spare = self.height() - 8 - len(self.rows) * 2.8 * metrics.height()
        return spare >= 0.5 * self.height()

    def _text_lines(self, metrics: QFontMetricsF) -> float:
        return 2.8 if self._shapes_shown(metrics) else 1.6

    def _text_width(self, metrics: QFontMetricsF, box: Box) -> float:
        width = metrics.horizontalAdvance(box.name)
        if self._shapes_shown(metrics):
            width = max(width, metrics.horizontalAdvance(_shape_text(box)))
        return width + 6

    def _paint(self, painter: QPainter) -> None:
        font = self._fitting_font() if self.rows else self.font()
        painter.setFont(font)
        if not self.rows:
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(
                QRectF(self.rect()).adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.message,
            )
            return
        metrics = QFontMetricsF(font)
        line = metrics.height()
        unit = self._scale(metrics)
        shapes = self._shapes_shown(metrics)
        op_w = metrics.horizontalAdvance(" = ") + 8
        y = 4.0
        fg = QColor(self.theme.foreground)
        for left, right, result in self.rows:
            height = max(unit * math.sqrt(b.rows) for b in (left, right, result))
            top = y + line * 1.4  # the name above, its underscore clear of the box
            x = 4.0
            for box, op in ((left, "·"), (right, "="), (result, "")):
                w = unit * math.sqrt(box.cols)
                slot = max(w, self._text_width(metrics, box))
                bh = unit * math.sqrt(box.rows)
                rect = QRectF(x + (slot - w) / 2, top + (height - bh) / 2, w, bh)
                self._paint_box(painter, box, rect)
                painter.setPen(fg)
                # Room below the baseline: the underscore of W_Q must not be clipped.
                painter.drawText(
                    QRectF(x, y, slot, line * 1.25),
                    Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter,
                    box.name,
                )
                if shapes:
                    painter.drawText(
                        QRectF(x, top + height, slot, line * 1.2),
                        Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                        _shape_text(box),
                    )
                x += slot
                if op:
                    painter.drawText(QRectF(x, top, op_w, height), Qt.AlignmentFlag.AlignCenter, op)
                    x += op_w
            y = top + height + line * (1.4 if shapes else 0.2)

    def _paint_box(self, painter: QPainter, box: Box, rect: QRectF) -> None:
        theme = self.theme
        _n, _d_model, h, h_kv, _d = self.layout_key
        group = max(1, h // max(1, h_kv))
        width = max(1.0, line_width(self.font()) / 2)
        if box.blocks <= 1 and box.name in ("X", "O"):
            painter.setPen(QPen(QColor(theme.muted), width))
            painter.setBrush(
                QColor(theme.muted).lighter(160)
                if not theme.dark
                else QColor(theme.muted).darker(200)
            )
            painter.drawRect(rect)
            return
        span = rect.height() if box.by_rows else rect.width()
        step = span / box.blocks
        outline = None
        for b in range(box.blocks):
            g = b if box.kv else b // group
            color = QColor(series_color(theme, g))
            # Neighbouring heads of one KV group alternate in strength to stay apart.
            color.setAlpha(230 if (b % 2 == 0 or box.kv) else 140)
            if box.by_rows:
                part = QRectF(rect.left(), rect.top() + b * step, rect.width(), step)
            else:
                part = QRectF(rect.left() + b * step, rect.top(), step, rect.height())
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(color)
            painter.drawRect(part)
            chosen = self.selected // group if box.kv else self.selected
            if b == chosen:
                outline = part
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(theme.foreground), width))
        painter.drawRect(rect)
        if outline is not None:
            painter.setPen(QPen(QColor(theme.highlight), width * 3))
            painter.drawRect(outline)


def _shape_text(box: Box) -> str:
    return f"{box.rows} × {box.cols}"
