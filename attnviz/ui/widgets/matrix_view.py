"""A small heatmap with numbers: one matrix in a diverging colormap symmetric about 0.

Built for matrices whose sign matters — gradients, a softmax Jacobian — where 0 must be
the neutral colour and equal magnitudes of either sign equally strong. One
:class:`MatrixView` draws, with a plain :class:`QPainter` (crisp at any export size, no
scene graph per cell):

- a title (the formula that made the matrix) and the row and column labels (tokens or
  dimensions, thinned out when they would collide);
- the cells, coloured by value over ``[−m, m]`` with ``m`` the largest |value| that is
  not masked, and the value written in each cell when it fits;
- masked cells as an opaque grey hatch, never as a colour (no colour can mean "hidden");
- optionally one more column of row sums (Σ), set apart by a gap;
- a thin colour scale under the matrix with its ends ``−m`` and ``+m``;
- the exact value of the cell under the mouse as a tooltip.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPaintEngine,
    QPainter,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip

from attnviz.ui.theme import Theme
from attnviz.ui.widgets.contrast import ink_for, qcolor_rgb
from attnviz.ui.widgets.numbers import MINUS, exact, fmt
from attnviz.ui.widgets.painted import PaintedWidget
from attnviz.ui.widgets.svg_cells import draw_cells
from attnviz.ui.widgets.token_axis import label_step

#: Colour stops from −m to +m (blue for negative, red for positive, as RdBu reversed).
STOPS_LIGHT = (
    "#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7",
    "#fddbc7", "#f4a582", "#d6604d", "#b2182b", "#67001f",
)  # fmt: skip
#: On a dark panel the neutral colour is dark too (a shade lighter than the panel, so a
#: row of zeros still shows as cells), and magnitude brightens both ways.
STOPS_DARK = (
    "#cfe6f7", "#8cc3eb", "#4a93cf", "#2d6396", "#2a4058", "#3b3d42",
    "#583330", "#8f3b2f", "#cf5a3f", "#f09a72", "#fbd5bf",
)  # fmt: skip
#: Labels longer than this are shortened (the tooltip gives them whole).
LABEL_CHARS = 8
#: Up to this many cells along a side, cells are sized for their numbers.
MAX_NUMBERED = 12
#: Cells never show fewer decimals than this (unless fewer were asked for).
MIN_DECIMALS = 2
#: The narrowest a numbered column may become (in pixels) before the layout scrolls.
MIN_CELL = 22.0


def sci(x: float) -> str:
    """``x`` as ``1.2e−10`` (a real minus sign, the UI's decimal separator), ``0`` for zero."""
    x = float(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return fmt(x)
    exp = math.floor(math.log10(abs(x)))
    mant = round(x / 10.0**exp, 1)
    if abs(mant) >= 10:
        mant, exp = mant / 10, exp + 1
    return f"{fmt(mant, 1)}e{exp}".replace("-", MINUS)


def scale_text(x: float, decimals: int) -> str:
    """An end of the colour scale: fixed decimals, or ``8.7e−19`` when those would show 0."""
    return fmt(x, decimals) if x == 0 or abs(x) >= 10.0**-decimals * 10 else sci(x)


def colormap_lut(stops: Sequence[str], size: int = 256) -> np.ndarray:
    """``size`` RGB colours (uint8) interpolated evenly through ``stops``."""
    rgb = np.array([QColor(s).getRgb()[:3] for s in stops], dtype=np.float64)
    at = np.linspace(0.0, 1.0, len(stops))
    x = np.linspace(0.0, 1.0, size)
    return np.stack([np.interp(x, at, rgb[:, c]) for c in range(3)], 1).round().astype(np.uint8)


def _rgb_image(rgb: np.ndarray) -> QImage:
    """A QImage that owns a copy of the (h, w, 3) uint8 pixels ``rgb``."""
    # The buffer stays referenced by this frame until the copy is taken: a QImage made
    # from a temporary's buffer could read freed memory.
    pixels = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w = pixels.shape[:2]
    image = QImage(pixels.data, w, h, 3 * w, QImage.Format.Format_RGB888)
    return image.copy()


def _short(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


class MatrixView(PaintedWidget):
    """One matrix as a diverging heatmap with numbers (see the module docstring).

    Signals
    -------
    sigHover(row, col)
        The cell under the mouse (``col`` = number of columns for the Σ column);
        ``(-1, -1)`` when the mouse leaves the cells.
    """

    sigHover = Signal(int, int)
    render_hints = (QPainter.RenderHint.TextAntialiasing,)
    #: A title wider than the view wraps onto more lines (and does not widen the view)
    #: instead of being elided: a map whose title names a token and what was done.
    WRAP_TITLE = False

    def __init__(self, symbol: str = "", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"matrix_{symbol}" if symbol else "matrix")
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.symbol = symbol
        self._title = ""
        self._values = np.zeros((0, 0))
        self._allowed: np.ndarray | None = None
        self._rows: tuple[str, ...] = ()
        self._cols: tuple[str, ...] = ()
        self._sums: np.ndarray | None = None
        self._sum_label = "Σ"
        self._decimals = 2
        self._vmax = 1.0
        self._image: QImage | None = None
        self._lut = colormap_lut(STOPS_LIGHT)
        self.hovered: tuple[int, int] = (-1, -1)

    # --- content -------------------------------------------------------------------
    def set_title(self, text: str) -> None:
        """The formula above the matrix."""
        if text != self._title:
            self._title = text
            self.updateGeometry()
            self.update()

    def title(self) -> str:
        """The formula above the matrix."""
        return self._title

    def set_matrix(
        self,
        values: np.ndarray,
        *,
        allowed: np.ndarray | None = None,
        rows: Sequence[str] | None = None,
        columns: Sequence[str] | None = None,
        row_sums: np.ndarray | None = None,
        decimals: int = 2,
    ) -> None:
        """Show ``values`` (rows × columns); ``allowed`` False marks masked cells.

        ``rows``/``columns`` default to 0, 1, …; ``row_sums`` adds the Σ column.
        """
        values = np.atleast_2d(np.asarray(values, dtype=np.float64))
        shape = values.shape
        if allowed is not None:
            allowed = np.broadcast_to(np.asarray(allowed, bool), shape)
        reshaped = shape != self._values.shape
        self._values = values
        self._allowed = None if allowed is None or allowed.all() else allowed
        self._rows = tuple(rows) if rows is not None else tuple(map(str, range(shape[0])))
        self._cols = tuple(columns) if columns is not None else tuple(map(str, range(shape[1])))
        self._sums = None if row_sums is None else np.asarray(row_sums, np.float64).ravel()
        self._decimals = decimals
        shown = values if self._allowed is None else values[self._allowed]
        finite = np.abs(shown[np.isfinite(shown)])
        top = float(finite.max()) if finite.size else 0.0
        self._vmax = top if top > 0 else 1.0
        self._image = self._build_image()
        if reshaped:
            self.updateGeometry()
        r, c = self.hovered
        if r >= shape[0] or c > shape[1] or (c == shape[1] and self._sums is None):
            self._set_hover(-1, -1)  # the data changed shape under a resting mouse
        self.update()

    def values(self) -> np.ndarray:
        """The matrix shown."""
        return self._values

    @property
    def vmax(self) -> float:
        """``m``: the colours span ``[−m, m]``."""
        return self._vmax

    def set_theme(self, theme: Theme) -> None:
        """Colormap and masked colours of ``theme`` (text follows the palette)."""
        self.theme = theme
        self._lut = colormap_lut(STOPS_DARK if theme.dark else STOPS_LIGHT)
        self._image = self._build_image()
        self.update()

    def color_at(self, value: float) -> QColor:
        """The colour a cell of ``value`` gets."""
        i = self._index(np.array([value]))[0]
        return QColor(*self._lut[i].tolist())

    def _index(self, values: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            x = np.nan_to_num(values / self._vmax, nan=0.0, posinf=1.0, neginf=-1.0)
        return np.clip(np.round((x + 1.0) * 0.5 * 255), 0, 255).astype(np.intp)

    def _build_image(self) -> QImage | None:
        if self._values.size == 0:
            return None
        return _rgb_image(self._lut[self._index(self._values)])

    # --- geometry ------------------------------------------------------------------
    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.font())

    def _text_width(self, decimals: int | None = None) -> float:
        decimals = self._decimals if decimals is None else decimals
        return self._metrics().horizontalAdvance("\u22120." + "0" * max(decimals, 1))

    def _label_width(self) -> float:
        fm = self._metrics()
        labels = [_short(s) for s in self._rows] or [""]
        return max(fm.horizontalAdvance(s) for s in labels) + 6

    def _columns(self) -> int:
        return self._values.shape[1] + (1 if self._sums is not None else 0)

    def _preferred_cell(self) -> tuple[float, float]:
        """Cells wide and tall enough for a number while a side has at most
        :data:`MAX_NUMBERED` cells; thin strips beyond (a 3 × 128 dQ keeps readable rows)."""
        rows, cols = self._values.shape if self._values.size else (1, 1)
        cw = self._text_width() + 6 if cols <= MAX_NUMBERED else max(3.0, 320.0 / cols)
        ch = self._metrics().height() + 6 if rows <= MAX_NUMBERED else max(3.0, 320.0 / rows)
        return cw, ch

    def _chrome(self, width: float | None = None) -> tuple[float, float, float]:
        """Heights of the title (at ``width``, default the view's) and column labels,
        height of the colour scale."""
        h = self._metrics().height()
        return self._title_height(self.width() if width is None else width) + 6, h + 4, h + 8

    def _bold(self) -> QFont:
        bold = QFont(self.font())
        bold.setBold(True)
        return bold

    def _title_height(self, width: float) -> float:
        """One line, or the lines a wrapping title takes at ``width``."""
        h = self._metrics().height()
        if not (self.WRAP_TITLE and self._title):
            return h
        room = QRectF(0, 0, max(width - 8, 1.0), 1e6)
        flags = int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap)
        return max(h, QFontMetricsF(self._bold()).boundingRect(room, flags, self._title).height())

    def _size_for(self, cw: float, ch: float) -> QSize:
        rows = max(self._values.shape[0], 1)
        width = self._label_width() + self._columns() * cw + (8 if self._sums is not None else 0)
        if not self.WRAP_TITLE:
            width = max(width, QFontMetricsF(self._bold()).horizontalAdvance(self._title) + 8)
        title, labels, scale = self._chrome(width + 8)
        return QSize(math.ceil(width + 8), math.ceil(title + labels + rows * ch + scale + 8))

    def sizeHint(self) -> QSize:
        return self._size_for(*self._preferred_cell())

    def cells_width(self) -> float:
        """The width its labels and cells want with every number printed (its title left
        out: a long title can take the room of a neighbour's numbers)."""
        cw, _ch = self._preferred_cell()
        return self._label_width() + self._columns() * cw + (8 if self._sums is not None else 0)

    def minimumSizeHint(self) -> QSize:
        # Rows keep the height of a line of text (their labels stay readable); columns may
        # narrow to colour alone (numbers come back with fewer decimals, then vanish), so
        # three matrices side by side fit a tab. The whole formula always fits.
        cw, ch = self._preferred_cell()
        rows, cols = self._values.shape if self._values.size else (1, 1)
        cw = min(cw, MIN_CELL if cols <= MAX_NUMBERED else 120.0 / cols)
        ch = ch if rows <= MAX_NUMBERED else min(ch, 120.0 / rows)
        return self._size_for(cw, ch)

    def _grid(self) -> tuple[QRectF, float, float]:
        """The rectangle of the cells (without Σ) and the cell width and height."""
        title, labels, scale = self._chrome()
        left = self._label_width() + 4
        gap = 8 if self._sums is not None else 0
        avail_w = max(self.width() - left - 4 - gap, 1)
        avail_h = max(self.height() - title - labels - scale - 8, 1)
        pw, ph = self._preferred_cell()
        rows, cols = self._values.shape
        cw = min(avail_w / max(self._columns(), 1), pw * 1.6)
        ch = min(avail_h / max(rows, 1), ph * 1.6)
        return QRectF(left, 4 + title + labels, cw * cols, ch * rows), cw, ch

    def _sum_rect(self, grid: QRectF, cw: float) -> QRectF:
        return QRectF(grid.right() + 8, grid.top(), cw, grid.height())

    def cell_at(self, pos: QPointF) -> tuple[int, int]:
        """``(row, col)`` under ``pos`` (col = number of columns for Σ), or ``(-1, -1)``."""
        if self._values.size == 0:
            return -1, -1
        grid, cw, ch = self._grid()
        rows, cols = self._values.shape
        r = math.floor((pos.y() - grid.top()) / ch)
        if not 0 <= r < rows:
            return -1, -1
        if grid.left() <= pos.x() < grid.right():
            return r, min(math.floor((pos.x() - grid.left()) / cw), cols - 1)
        if self._sums is not None and self._sum_rect(grid, cw).contains(pos):
            return r, cols
        return -1, -1

    # --- hover ---------------------------------------------------------------------
    def hover_text(self, row: int, col: int) -> str:
        """What the tooltip says about cell ``(row, col)`` ("" outside the matrix)."""
        rows, cols = self._values.shape
        if not (0 <= row < rows and 0 <= col <= cols):
            return ""
        name = self.symbol or "M"
        if col == cols:
            if self._sums is None:
                return ""
            return f"Σ_j {name}[{self._rows[row]}, j] = {exact(self._sums[row])}"
        text = f"{name}[{self._rows[row]}, {self._cols[col]}] = {exact(self._values[row, col])}"
        if self._allowed is not None and not self._allowed[row, col]:
            text += "  (" + self.tr("masked: this key is hidden from this query") + ")"
        return text

    def hover_cell(self, row: int, col: int) -> str:
        """Rest the mouse on ``(row, col)`` programmatically; returns the tooltip text."""
        self._set_hover(row, col)
        return self.hover_text(row, col)

    def _set_hover(self, row: int, col: int) -> None:
        if (row, col) != self.hovered:
            self.hovered = (row, col)
            self.sigHover.emit(row, col)

    def mouseMoveEvent(self, event) -> None:
        r, c = self.cell_at(event.position())
        self._set_hover(r, c)
        text = self.hover_text(r, c)
        if text:
            QToolTip.showText(event.globalPosition().toPoint(), text, self)
        else:
            QToolTip.hideText()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        self._set_hover(-1, -1)
        super().leaveEvent(event)

    # --- painting ------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        fg = self.palette().windowText().color()
        title, labels, _scale = self._chrome()
        bold = self._bold()
        painter.setFont(bold)
        painter.setPen(fg)
        if self.WRAP_TITLE:
            painter.drawText(
                QRectF(4, 2, self.width() - 8, title),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
                self._title,
            )
        else:
            painter.drawText(
                QRectF(4, 2, self.width() - 8, title),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                QFontMetricsF(bold).elidedText(
                    self._title, Qt.TextElideMode.ElideRight, self.width() - 8
                ),
            )
        painter.setFont(self.font())
        if self._image is None:
            return
        grid, cw, ch = self._grid()
        draw_cells(painter, grid, self._image)
        self._paint_masked(painter, grid, cw, ch)
        self._paint_frame(painter, grid, cw, ch)
        if self._sums is not None:
            self._paint_sums(painter, grid, cw, ch)
        self._paint_numbers(painter, grid, cw, ch)
        self._paint_labels(painter, grid, cw, ch, fg)
        self._paint_scale(painter, grid, fg)

    def _paint_frame(self, painter: QPainter, grid: QRectF, cw: float, ch: float) -> None:
        """An outline, and thin cell borders where the cells are large enough for numbers."""
        color = QColor(self.theme.muted)
        color.setAlphaF(0.55)
        painter.setPen(QPen(color, 1))
        if self._fits(cw, ch):
            rows, cols = self._values.shape
            for c in range(1, cols):
                x = grid.left() + c * cw
                painter.drawLine(QPointF(x, grid.top()), QPointF(x, grid.bottom()))
            for r in range(1, rows):
                y = grid.top() + r * ch
                painter.drawLine(QPointF(grid.left(), y), QPointF(grid.right(), y))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(grid)

    def _paint_masked(self, painter: QPainter, grid: QRectF, cw: float, ch: float) -> None:
        if self._allowed is None:
            return
        fill = QBrush(QColor(self.theme.masked_fill))
        # SVG has no device-pixel pattern brush: the grey fill alone marks masked cells there.
        svg = painter.paintEngine().type() == QPaintEngine.Type.SVG
        hatch = QBrush(QColor(self.theme.masked_hatch), Qt.BrushStyle.BDiagPattern)
        for r, c in zip(*np.nonzero(~self._allowed), strict=True):
            rect = QRectF(grid.left() + c * cw, grid.top() + r * ch, cw, ch)
            painter.fillRect(rect, fill)
            if not svg:
                painter.fillRect(rect, hatch)

    def _paint_sums(self, painter: QPainter, grid: QRectF, cw: float, ch: float) -> None:
        box = self._sum_rect(grid, cw)
        for r, value in enumerate(self._sums):
            painter.fillRect(QRectF(box.left(), box.top() + r * ch, cw, ch), self.color_at(value))
        painter.setPen(QPen(self.palette().mid().color(), 1))
        painter.drawRect(box)

    def shown_decimals(self, cw: float, ch: float) -> int | None:
        """The decimals the cells show at cell size ``cw`` × ``ch`` (None: no numbers).

        As many as asked when they fit, fewer when the cells are narrow, but never below
        :data:`MIN_DECIMALS` (a dQ of 0.012 written "0.0" would say nothing): colours only.
        """
        if self._values.size > 4096 or ch < self._metrics().height():
            return None  # one text per cell: keep the count bounded
        for decimals in range(self._decimals, min(MIN_DECIMALS, self._decimals) - 1, -1):
            if cw >= self._text_width(decimals) + 4:
                return decimals
        return None

    def cell_values_shown(self) -> bool | None:
        """Whether the cells print their numbers at the present size (None: no matrix, or
        more than 16 cells a side, which never print them)."""
        if self._image is None or not self._values.size or max(self._values.shape) > 16:
            return None
        _grid, cw, ch = self._grid()
        return self.shown_decimals(cw, ch) is not None

    def _fits(self, cw: float, ch: float) -> bool:
        return self.shown_decimals(cw, ch) is not None

    def _paint_numbers(self, painter: QPainter, grid: QRectF, cw: float, ch: float) -> None:
        decimals = self.shown_decimals(cw, ch)
        if decimals is None:
            return
        rows, cols = self._values.shape
        cells = [
            (r, c, self._values[r, c], grid.left() + c * cw)
            for r in range(rows)
            for c in range(cols)
        ]
        if self._sums is not None:
            left = self._sum_rect(grid, cw).left()
            cells += [(r, cols, self._sums[r], left) for r in range(rows)]
        for r, c, value, x in cells:
            if c < cols and self._allowed is not None and not self._allowed[r, c]:
                continue
            painter.setPen(QColor(ink_for(qcolor_rgb(self.color_at(value)))))
            rect = QRectF(x, grid.top() + r * ch, cw, ch)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, fmt(value, decimals))

    def _paint_labels(
        self, painter: QPainter, grid: QRectF, cw: float, ch: float, fg: QColor
    ) -> None:
        fm = self._metrics()
        painter.setPen(fg)
        rows, cols = self._values.shape
        step = label_step(rows, grid.height(), fm.height())
        line = fm.height()
        for r in range(0, rows, step):
            # A line high about the row's centre: a row lower than a line cut its label's
            # glyphs in half (a 24-row matrix in a slide's row of pictures).
            middle = grid.top() + (r + 0.5) * ch
            rect = QRectF(0, middle - max(ch, line) / 2, grid.left() - 4, max(ch, line))
            painter.drawText(
                rect,
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                _short(self._rows[r]),
            )
        widest = max(fm.horizontalAdvance(_short(s)) for s in self._cols) + 6
        if widest > cw:
            # Smaller type (to 70 %) before a shortened word: "second", not "seco…".
            for factor in (0.85, 0.7):
                font = QFont(self.font())
                if font.pixelSize() > 0:
                    font.setPixelSize(max(6, round(font.pixelSize() * factor)))
                else:
                    font.setPointSizeF(max(5.0, font.pointSizeF() * factor))
                small = QFontMetricsF(font)
                if max(small.horizontalAdvance(_short(s)) for s in self._cols) + 6 <= cw:
                    painter.setFont(font)
                    fm = small
                    widest = cw
                    break
        # Labels a little wider than their cell are shortened to it (every column keeps
        # one); only when a cell cannot hold three letters are labels thinned out.
        elide = widest > cw and cw >= fm.horizontalAdvance("Mm…") + 4
        step = 1 if elide else label_step(cols, grid.width(), widest)
        top = grid.top() - fm.height() - 2
        for c in range(0, cols, step):
            text = _short(self._cols[c])
            if elide:
                text = fm.elidedText(text, Qt.TextElideMode.ElideRight, cw - 4)
            rect = QRectF(grid.left() + c * cw - widest, top, cw + 2 * widest, fm.height())
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        if self._sums is not None:
            box = self._sum_rect(grid, cw)
            rect = QRectF(box.left() - 20, top, box.width() + 40, fm.height())
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self._sum_label)
        painter.setFont(self.font())  # the labels may have been set smaller

    def _paint_scale(self, painter: QPainter, grid: QRectF, fg: QColor) -> None:
        fm = self._metrics()
        lo, hi = (
            scale_text(-self._vmax, self._decimals),
            "+" + scale_text(self._vmax, self._decimals),
        )
        y = grid.bottom() + 4
        h = fm.height()
        x = grid.left()
        painter.setPen(fg)
        painter.drawText(
            QRectF(x, y, fm.horizontalAdvance(lo) + 2, h), Qt.AlignmentFlag.AlignLeft, lo
        )
        x += fm.horizontalAdvance(lo) + 6
        width = max(
            40.0, min(160.0, grid.width() - (x - grid.left()) - fm.horizontalAdvance(hi) - 6)
        )
        bar = _rgb_image(self._lut[None, :, :])
        strip = QRectF(x, y + h * 0.3, width, h * 0.45)
        draw_cells(painter, strip, bar)
        painter.drawText(
            QRectF(strip.right() + 4, y, fm.horizontalAdvance(hi) + 4, h),
            Qt.AlignmentFlag.AlignLeft,
            hi,
        )
