"""Small matrices side by side on one grid of rows: the picture of the tiles panel.

:class:`AlignedMatrices` paints several titled matrices left to right with one cell size
and one row grid, so row i of every matrix is token i: the score matrix, then the running
max and sum and the partial output of the current query tile (at that tile's rows), then
the output. A cell is coloured by its value, empty (a thin frame) while not computed yet,
or grey when a causal mask hides it; outlines mark the current tiles; values are printed
in the cells when they fit and given exactly in a tooltip. :class:`MemoryBars` compares
what the tiles hold with the n×n matrix. Both paint with QPainter, so an SVG export keeps
text and lines as vectors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontInfo, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip

from attnviz.ui.widgets.colormaps import colormap
from attnviz.ui.widgets.contrast import BLACK, WHITE, dark_ink, ink_for, qcolor_rgb
from attnviz.ui.widgets.numbers import exact, fmt, grouped
from attnviz.ui.widgets.painted import PaintedWidget
from attnviz.ui.widgets.svg_cells import draw_cells

#: Largest cell, in multiples of the font height (a 4-token demo must not fill the screen).
MAX_CELL_EM = 3.2


@dataclass(frozen=True)
class Outline:
    """A rectangle over cells ``rows × cols`` (half-open) of one matrix, in ``color``."""

    r0: int
    r1: int
    c0: int
    c1: int
    color: str
    width: float = 2.0
    fill: bool = False


@dataclass
class Matrix:
    """One matrix of the row: ``values`` (NaN = not computed yet) starting at grid row
    ``row0``; ``hidden`` cells are grey; colours span ``levels``."""

    title: str
    values: np.ndarray
    row0: int = 0
    hidden: np.ndarray | None = None
    levels: tuple[float, float] | None = None
    outlines: list[Outline] = field(default_factory=list)
    decimals: int = 2

    def __post_init__(self) -> None:
        self.values = np.atleast_2d(np.asarray(self.values, dtype=np.float64))
        if self.hidden is None:
            self.hidden = np.zeros(self.values.shape, bool)
        if self.levels is None:
            finite = self.values[np.isfinite(self.values)]
            self.levels = (float(finite.min()), float(finite.max())) if finite.size else (0, 1)


class AlignedMatrices(PaintedWidget):
    """Matrices side by side sharing rows; see the module docstring."""

    render_hints = (QPainter.RenderHint.Antialiasing, QPainter.RenderHint.TextAntialiasing)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.matrices: list[Matrix] = []
        self.rows = 1
        self.cmap = colormap("viridis")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)

    def set_matrices(self, matrices, rows: int) -> None:
        """Show ``matrices`` on a grid of ``rows`` rows."""
        self.matrices = list(matrices)
        self.rows = max(rows, 1)
        self.update()

    def texts(self, index: int) -> list[list[str]]:
        """The values of matrix ``index`` as printed (empty for empty and hidden cells)."""
        m = self.matrices[index]
        return [
            [
                "" if m.hidden[r, c] or not math.isfinite(v) else fmt(v, m.decimals)
                for c, v in enumerate(row)
            ]
            for r, row in enumerate(m.values)
        ]

    # --- geometry ------------------------------------------------------------------
    def _geometry(self) -> tuple[float, float, float, list[float]]:
        """``(cell, left, top, x of each matrix)``: one cell size for all, each matrix as
        wide as its cells or its title, whichever is wider, one gap between them."""
        fm = QFontMetricsF(self.font())
        left = fm.horizontalAdvance(str(self.rows - 1)) + 10
        top = fm.height() * 2.5
        gap = fm.height()
        cols = [m.values.shape[1] for m in self.matrices]
        bold = QFont(self.font())
        bold.setBold(True)
        titles = [QFontMetricsF(bold).horizontalAdvance(m.title) + 6 for m in self.matrices]
        cell = min((self.height() - top - 4) / self.rows, MAX_CELL_EM * fm.height())
        # Shrink until the row fits the width (a title can be wider than its cells).
        for _ in range(8):
            used = sum(max(c * cell, t) for c, t in zip(cols, titles, strict=True))
            room = self.width() - left - gap * max(len(cols) - 1, 0) - 4
            if used <= room:
                break
            cell *= max(room, 1) / used
        cell = max(cell, 2.0)
        xs, x = [], left
        for c, t in zip(cols, titles, strict=True):
            xs.append(x)
            x += max(c * cell, t) + gap
        return cell, left, top, xs

    def sizeHint(self) -> QSize:
        fm = QFontMetricsF(self.font())
        cols = sum(m.values.shape[1] for m in self.matrices) + 2 * len(self.matrices)
        cell = fm.horizontalAdvance("−0.00") + 6
        return QSize(round(min(cols * cell, 900)), round(min(self.rows * cell, 500)))

    def minimumSizeHint(self) -> QSize:
        fm = QFontMetricsF(self.font())
        return QSize(200, round(6 * fm.height()))

    def cell_at(self, x: float, y: float):
        """``(matrix index, row, col)`` under widget point (x, y), or None."""
        cell, _left, top, xs = self._geometry()
        for i, (m, x0) in enumerate(zip(self.matrices, xs, strict=True)):
            r = math.floor((y - top) / cell) - m.row0
            c = math.floor((x - x0) / cell)
            if 0 <= r < m.values.shape[0] and 0 <= c < m.values.shape[1]:
                return i, r, c
        return None

    # --- painting ------------------------------------------------------------------
    def _has_content(self) -> bool:
        return bool(self.matrices)

    def _paint(self, p: QPainter) -> None:
        fm = QFontMetricsF(self.font())
        cell, left, top, xs = self._geometry()
        muted, fg = QColor(self.theme.muted), QColor(self.theme.foreground)
        step = max(1, math.ceil(fm.height() / cell))
        p.setPen(muted)
        for r in range(0, self.rows, step):
            h = fm.height()  # centred on the row, never clipped to a small cell
            # …nor by the widget's bottom edge (the last row's "15" was, in a short dock).
            y = min(top + (r + 0.5) * cell - h / 2, self.height() - h)
            p.drawText(
                QRectF(0, y, left - 6, h),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                str(r),
            )
        bold = QFont(self.font())
        bold.setBold(True)
        for m, x0 in zip(self.matrices, xs, strict=True):
            y0 = top + m.row0 * cell
            self._paint_cells(p, m, x0, y0, cell)
            title_w = QFontMetricsF(bold).horizontalAdvance(m.title) + 6
            width = max(m.values.shape[1] * cell, title_w)
            p.setFont(bold)
            p.setPen(fg)
            p.drawText(
                QRectF(x0, 0, width, fm.height() * 1.2),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                m.title,
            )
            p.setFont(self.font())
            p.setPen(muted)
            cols = m.values.shape[1]
            cstep = max(1, math.ceil((fm.horizontalAdvance(str(cols - 1)) + 4) / cell))
            for c in range(0, cols, cstep):
                p.drawText(
                    QRectF(x0 + (c - 1) * cell, fm.height() * 1.25, 3 * cell, fm.height()),
                    Qt.AlignmentFlag.AlignCenter,
                    str(c),
                )
            for o in m.outlines:
                rect = QRectF(
                    x0 + o.c0 * cell, y0 + o.r0 * cell, (o.c1 - o.c0) * cell, (o.r1 - o.r0) * cell
                )
                if o.fill:
                    tint = QColor(o.color)
                    tint.setAlpha(45)
                    p.fillRect(rect, tint)
                p.setPen(QPen(QColor(o.color), o.width))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(rect)

    def _paint_cells(self, p: QPainter, m: Matrix, x0: float, y0: float, cell: float) -> None:
        """One pixel per cell, scaled up (a 64 × 64 matrix repaints in a few ms), then the
        frames of the cells and, when they fit, their values."""
        rows, cols = m.values.shape
        lo, hi = m.levels
        finite = np.isfinite(m.values) & ~m.hidden
        norm = np.clip((np.nan_to_num(m.values) - lo) / ((hi - lo) or 1.0), 0, 1)
        rgba = self.cmap.map(norm.ravel(), mode="byte").reshape(rows, cols, -1)[..., :4].copy()
        rgba[..., 3] = 255
        rgba[~finite] = 0  # not computed yet: the background shows through the frame
        masked = QColor(self.theme.masked_fill)
        rgba[m.hidden] = (masked.red(), masked.green(), masked.blue(), 255)
        rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
        image = QImage(rgba.data, cols, rows, 4 * cols, QImage.Format.Format_RGBA8888)
        area = QRectF(x0, y0, cols * cell, rows * cell)
        p.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        draw_cells(p, area, image)
        if cell >= 5:
            p.setPen(QPen(QColor(self.theme.muted), 0.6))
            for r in range(rows + 1):
                p.drawLine(QPointF(x0, y0 + r * cell), QPointF(x0 + cols * cell, y0 + r * cell))
            for c in range(cols + 1):
                p.drawLine(QPointF(x0 + c * cell, y0), QPointF(x0 + c * cell, y0 + rows * cell))
        font = self._cell_font(cell)
        if font is None:
            return
        p.setFont(font)
        light = dark_ink(rgba[..., :3].astype(float) / 255.0)
        for r, c in zip(*np.nonzero(finite), strict=True):
            p.setPen(QColor(BLACK if light[r, c] else WHITE))
            rect = QRectF(x0 + c * cell, y0 + r * cell, cell, cell)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, fmt(m.values[r, c], m.decimals))
        p.setFont(self.font())

    def _cell_font(self, cell: float) -> QFont | None:
        """The font values are printed in: the widget's, or down to 60 % of it to fit."""
        for factor in (1.0, 0.85, 0.7, 0.6):
            font = QFont(self.font())
            if font.pixelSize() > 0:
                font.setPixelSize(max(9, round(font.pixelSize() * factor)))
            else:
                font.setPointSizeF(max(7.0, font.pointSizeF() * factor))
            if cell >= QFontMetricsF(font).horizontalAdvance("−0.00") + 4:
                return font
        return None

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            found = self.cell_at(event.pos().x(), event.pos().y())
            if found is None:
                QToolTip.hideText()
            else:
                i, r, c = found
                m = self.matrices[i]
                v = m.values[r, c]
                shown = "—" if m.hidden[r, c] or not math.isfinite(v) else exact(v)
                QToolTip.showText(event.globalPos(), f"{m.title} [{m.row0 + r}, {c}] = {shown}")
            return True
        return super().event(event)


class MemoryBars(PaintedWidget):
    """Bars of what the tiles hold against the n×n matrix, for one or more lengths."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple] = []
        self.names = ("", "")
        self.format = grouped
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_rows(self, rows, names: tuple[str, str], format=grouped) -> None:
        """``rows``: ``(label, tiles, dense)`` numbers held (or bytes moved), optionally with a
        fourth item, two words written after each bar's number; ``names``: the bars' words;
        ``format``: how a bar's number is written."""
        self.rows = list(rows)
        self.names = names
        self.format = format
        self.setFixedHeight(self.sizeHint().height())
        self.update()

    def sizeHint(self) -> QSize:
        h = QFontMetricsF(self.font()).height()
        return QSize(300, round(len(self.rows) * 2.6 * h + 4))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.setFixedHeight(self.sizeHint().height())
        super().changeEvent(event)

    def _paint(self, p: QPainter) -> None:
        m = QFontMetricsF(self.font())
        h = m.height()
        fg = QColor(self.theme.foreground)
        colors = (QColor(self.theme.highlight), QColor(self.theme.entropy))
        label_w = max((m.horizontalAdvance(r[0]) for r in self.rows), default=0) + 10
        width = max(self.width() - label_w - 4, 10)
        y = 2.0
        for label, tiles, dense, *extra in self.rows:
            p.setPen(fg)
            p.drawText(QRectF(0, y, label_w, 2.25 * h), Qt.AlignmentFlag.AlignVCenter, label)
            for j, count in enumerate((tiles, dense)):
                # The longer of the two fills the row (tiles can move more bytes than the
                # n×n matrix when their blocks are small).
                length = max(width * count / max(dense, tiles, 1), 2.0)
                row = QRectF(label_w, y + j * 1.25 * h, width, h)
                p.fillRect(QRectF(row.left(), row.top(), length, h), colors[j])
                text = f"{self.names[j]}: {self.format(count)}"
                if extra and extra[0][j]:
                    text += f", {extra[0][j]}"
                # Inside the bar when it fits there at full size or has the more room;
                # else after it. Either way a long text takes smaller type rather than run off.
                inside = m.horizontalAdvance(text) + 12 < length or length - 12 > width - length - 6
                ink = QColor(ink_for(qcolor_rgb(colors[j])))
                p.setPen(ink if inside else fg)
                spot = (
                    QRectF(row.left() + 6, row.top(), length - 12, h)
                    if inside
                    else row.adjusted(length + 6, 0, 0, 0)
                )
                p.setFont(_fitting(self.font(), text, spot.width()))
                p.drawText(spot, Qt.AlignmentFlag.AlignVCenter, text)
                p.setFont(self.font())
            y += 2.6 * h


def _fitting(font: QFont, text: str, room: float) -> QFont:
    """``font``, or a smaller one (down to 70 %) in which ``text`` fits ``room`` pixels."""
    width = QFontMetricsF(font).horizontalAdvance(text)
    if width <= room or width <= 0:
        return font
    smaller = QFont(font)
    px = QFontInfo(font).pixelSize()
    smaller.setPixelSize(max(math.ceil(px * 0.7), math.floor(px * room / width)))
    return smaller
