"""The embedding table's rows as a strip of cells, in frequency order, coloured by a value.

Row 0 (the most frequent token) is the top-left cell; rows follow left to right, then line
by line, like reading the table. Each cell is one row of the table when they fit at two
pixels or more, else a bin of consecutive rows (its colour the mean of theirs). A row whose
value is 0 — a token that is not in the batch, a row the gradient leaves untouched — takes
the theme's "masked" grey; the others a perceptual colour map on a log scale, explained by
the colour bar at the right.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.theme import Theme
from attnviz.ui.widgets.colormaps import colormap
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.svg_cells import draw_cells

#: Smallest cell (pixels, as an area): below it, consecutive rows share a cell.
MIN_CELL_AREA = 4.0


def cell_layout(n: int, width: float, height: float) -> tuple[int, int, int]:
    """``(columns, lines, rows_per_cell)`` filling ``width × height`` with ``n`` rows.

    The cells keep about a square shape and fill the area; when they would be smaller than
    :data:`MIN_CELL_AREA` pixels, each holds several consecutive rows.
    """
    per = max(1, math.ceil(n * MIN_CELL_AREA / max(width * height, 1.0)))
    cells = math.ceil(n / per)
    cols = max(1, min(cells, math.ceil(math.sqrt(cells * width / max(height, 1.0)))))
    return cols, math.ceil(cells / cols), per


_VIRIDIS = colormap("viridis")


def lut(theme: Theme) -> np.ndarray:
    """256 RGB rows of viridis; on a dark background its darkest quarter is left out, so
    that a row touched once still stands out from the untouched ones."""
    start = 0.3 if theme.dark else 0.0
    return _VIRIDIS.getLookupTable(start, 1.0, 256, alpha=False).astype(np.uint32)


def untouched_color(theme: Theme) -> QColor:
    """The colour of a row with value 0: a step away from the background."""
    bg = QColor(theme.background)
    return bg.lighter(150) if theme.dark else bg.darker(118)


def binned(values: np.ndarray, per_cell: int) -> tuple[np.ndarray, np.ndarray]:
    """``(mean of log1p(value), any nonzero)`` per bin of ``per_cell`` consecutive rows."""
    v = np.log1p(np.asarray(values, dtype=np.float64))
    n = v.shape[0]
    cells = math.ceil(n / per_cell)
    padded = np.zeros(cells * per_cell)
    padded[:n] = v
    groups = padded.reshape(cells, per_cell)
    # The last bin may hold fewer rows: average over the rows it really has.
    sizes = np.full(cells, per_cell, dtype=np.float64)
    sizes[-1] = n - (cells - 1) * per_cell
    return groups.sum(axis=1) / sizes, groups.max(axis=1) > 0


class EmbeddingStrip(PaintedWidget):
    """A view of one value per table row (update count, gradient norm).

    Signals
    -------
    sigHover(int, int)
        The first and last row under the mouse, or (−1, −1) when it leaves the cells.
    """

    sigHover = Signal(int, int)  # Qt naming
    background = Background.THEME

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumSize(240, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.values = np.zeros(0)
        self.title = ""

    # --- data --------------------------------------------------------------------------
    def set_values(self, values: np.ndarray, title: str) -> None:
        """Show ``values`` (one per row, ≥ 0) with the colour bar titled ``title``."""
        self.values = np.asarray(values, dtype=np.float64)
        self.title = title
        self.update()

    def geometry_of_cells(self) -> tuple[QRectF, int, int, int] | None:
        """``(rect, columns, lines, rows_per_cell)`` of the cells at the current size."""
        fm = QFontMetricsF(self.font())
        head = fm.height() * 1.3  # the title line, right-aligned above cells and bar
        area = QRectF(0, head, self.width() - self._bar_width() - fm.height() * 0.5,
                      self.height() - head)  # fmt: skip
        if not self.values.size or area.width() < 4 or area.height() < 4:
            return None
        return (area, *cell_layout(self.values.size, area.width(), area.height()))

    def rows_at(self, pos: QPointF) -> tuple[int, int] | None:
        """The first and last row of the cell at widget position ``pos``, or None."""
        cells = self.geometry_of_cells()
        if cells is None:
            return None
        rect, cols, lines, per = cells
        if not rect.contains(pos):
            return None
        col = int((pos.x() - rect.left()) / rect.width() * cols)
        line = int((pos.y() - rect.top()) / rect.height() * lines)
        first = (line * cols + col) * per
        if col >= cols or first >= self.values.size:
            return None
        return first, min(first + per, self.values.size) - 1

    # --- painting ----------------------------------------------------------------------
    def _bar_width(self) -> float:
        fm = QFontMetricsF(self.font())
        return fm.horizontalAdvance("0000.0") + fm.height() * 1.5

    def _paint(self, painter: QPainter) -> None:
        fm = QFontMetricsF(self.font())
        fg = QColor(self.theme.foreground)
        painter.setPen(QPen(fg))
        painter.drawText(
            QRectF(0, 0, self.width(), fm.height() * 1.3),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            self.title,
        )
        cells = self.geometry_of_cells()
        if cells is None:
            return
        area, cols, lines, per = cells
        mean, touched = binned(self.values, per)
        top = float(mean.max()) or 1.0
        idx = np.clip((mean / top * 255).astype(np.int64), 0, 255)
        table = lut(self.theme)
        rgb = table[idx]
        argb = (0xFF << 24) | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        grey = untouched_color(self.theme)
        argb[~touched] = 0xFF000000 | (grey.red() << 16) | (grey.green() << 8) | grey.blue()
        cells = np.full(lines * cols, QColor(self.theme.background).rgba(), dtype=np.uint32)
        cells[: mean.size] = argb
        image = QImage(cells.reshape(lines, cols).copy().data, cols, lines,
                       QImage.Format.Format_ARGB32).copy()  # fmt: skip
        draw_cells(painter, area, image)  # nearest-neighbour: every cell keeps its colour
        bar = QRectF(area.right() + fm.height() * 0.5, area.top(), self._bar_width(),
                     area.height())  # fmt: skip
        self._paint_bar(painter, fm, fg, bar, top, table)

    def _paint_bar(
        self, painter: QPainter, fm, fg: QColor, rect: QRectF, top: float, table: np.ndarray
    ) -> None:
        """A vertical colour bar of log1p(value), ticks at 1, 10, 100, …; under it the
        untouched rows' swatch, labelled 0."""
        line = fm.height()
        bar = QRect(int(rect.left()), int(rect.top() + line * 0.5), int(line * 0.8),
                    int(rect.height() - line * 2.2))  # fmt: skip
        if bar.height() < 10:
            return
        swatch = QRectF(bar.left(), bar.bottom() + line * 0.6, line * 0.8, line * 0.8)
        painter.fillRect(swatch, untouched_color(self.theme))
        painter.setPen(QPen(QColor(self.theme.muted)))
        painter.drawRect(swatch)
        painter.setPen(QPen(fg))
        painter.drawText(
            QRectF(swatch.right() + line * 0.4, swatch.top() - line * 0.1, rect.width(), line),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            "0",
        )
        column = table[np.linspace(255, 0, bar.height()).astype(np.int64)]
        argb = (0xFF << 24) | (column[:, 0] << 16) | (column[:, 1] << 8) | column[:, 2]
        image = QImage(argb.astype(np.uint32).reshape(-1, 1).copy().data, 1, bar.height(),
                       QImage.Format.Format_ARGB32).copy()  # fmt: skip
        draw_cells(painter, QRectF(bar), image)
        painter.setPen(QPen(fg))
        vmax = math.expm1(top)
        ticks = [10.0**k for k in range(0, int(math.log10(max(vmax, 1))) + 1)]
        if vmax < 10:
            ticks = sorted({1.0, round(vmax, 1)})
        for value in ticks:
            frac = math.log1p(value) / top if top else 0.0
            if frac > 1.0001:
                continue
            y = bar.bottom() - frac * bar.height()
            painter.drawLine(QPointF(bar.right() + 1, y), QPointF(bar.right() + line * 0.3, y))
            text = f"{value:g}" if value < 1e4 else f"1e{int(round(math.log10(value)))}"
            painter.drawText(
                QRectF(bar.right() + line * 0.4, y - line / 2, rect.width(), line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )

    # --- mouse -------------------------------------------------------------------------
    def mouseMoveEvent(self, event) -> None:
        rows = self.rows_at(event.position())
        self.sigHover.emit(*(rows if rows is not None else (-1, -1)))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        self.sigHover.emit(-1, -1)
        super().leaveEvent(event)
