"""A zoomable map of an n×n attention matrix in token coordinates: a coarse map of the
whole, and a finer (down to exact) picture of the window being looked at.

:class:`TokenMapView` draws two layers on axes numbered in tokens (row = query, column =
key, pyqtgraph ``row-major``): the ``bins × bins`` overview stretched over ``[0, n)²``,
and a detail over the zoom window — a finer map or the exact weights, one pixel per cell.
Each layer's cells have token boundaries (``numpy.array_split`` groups), so the hover can
name exactly which tokens a cell covers. Dragging a rectangle or scrolling zooms;
:attr:`TokenMapView.sigWindow` reports the window once the view settles. Cells hidden by
a causal mask are left transparent over a grey fill (never a colour that could mean 0);
small windows of exact cells print their values.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.TextItem import TextItem
from PySide6.QtCore import QRectF, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsRectItem

from attnviz.ui.theme import LIGHT, Theme
from attnviz.ui.widgets.colormaps import ColorBar, colormap
from attnviz.ui.widgets.premultiplied_image import PremultipliedImageItem

#: Cells across (and down) the view below which exact values are printed in them.
TEXT_CELLS = 16
#: Milliseconds the view must rest before a new window is reported.
SETTLE_MS = 250
#: The smallest window, in tokens per side.
MIN_SPAN = 4
#: Token j covers [j − ½, j + ½) on the axes, so a tick labelled j sits on its cell's centre.
HALF = 0.5


def cell_text(value: float) -> str:
    """A value short enough for a cell: three decimals, or two digits and an exponent
    (a signed mixing matrix's negatives with a true minus sign)."""
    if not math.isfinite(value):
        return ""
    if value == 0 or abs(value) >= 0.01:
        return f"{value:.3f}".replace("-", "\u2212")
    return f"{value:.1e}".replace("e-0", "e-").replace("-", "\u2212")


class _Layer:
    """One picture: its values, the token edges of its cells and its image item."""

    def __init__(self, z: float) -> None:
        self.image = PremultipliedImageItem(axisOrder="row-major")
        self.image.setZValue(z)
        self.values: np.ndarray | None = None
        self.row_edges = self.col_edges = np.zeros(1, np.int64)
        self.exact = False

    def set(self, values, row_edges, col_edges, exact: bool) -> None:
        self.values = None if values is None else np.asarray(values)
        self.row_edges = np.asarray(row_edges, np.int64)
        self.col_edges = np.asarray(col_edges, np.int64)
        self.exact = exact
        self.image.setVisible(values is not None)

    def cell(self, row: int, col: int):
        """``(value, (r0, r1), (c0, c1))`` of the cell holding token pair (row, col)."""
        if self.values is None:
            return None
        re, ce = self.row_edges, self.col_edges
        if not (re[0] <= row < re[-1] and ce[0] <= col < ce[-1]):
            return None
        a = int(np.searchsorted(re, row, side="right")) - 1
        b = int(np.searchsorted(ce, col, side="right")) - 1
        return float(self.values[a, b]), (int(re[a]), int(re[a + 1])), (int(ce[b]), int(ce[b + 1]))

    def hidden(self, causal: bool) -> np.ndarray | None:
        """Cells every query of which is causally blind to every key (first key > last query)."""
        if not causal or self.values is None:
            return None
        return self.col_edges[None, :-1] > self.row_edges[1:, None] - 1


class TokenMapView(pg.GraphicsLayoutWidget):
    """The overview map with a zoomable detail layer and a colour bar.

    Signals
    -------
    sigWindow(r0, r1, c0, c1)
        The user zoomed or panned to query rows ``r0:r1`` × keys ``c0:c1`` (after the view
        has rested for :data:`SETTLE_MS`).
    sigHover(row, col)
        The token pair under the mouse; ``(-1, -1)`` when it leaves the map.
    """

    sigWindow = Signal(int, int, int, int)
    sigHover = Signal(int, int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.n = 1
        self.causal = False
        self.log = True
        self._levels = (0.0, 1.0)
        self._theme = LIGHT
        self._font = QFont()
        self._applying = False
        self._hover = (-1, -1)
        self._last: tuple[int, int, int, int] | None = None
        self.ci.setContentsMargins(4, 4, 4, 4)
        self.plot = self.addPlot(row=0, col=0, enableMenu=False)
        self.plot.invertY(True)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.vb.setMouseMode(pg.ViewBox.RectMode)
        self.fill = QGraphicsRectItem()
        self.fill.setZValue(-1)
        self.plot.addItem(self.fill)
        self.coarse, self.detail = _Layer(0), _Layer(2)
        self.detail_fill = QGraphicsRectItem()
        self.detail_fill.setZValue(1)
        self.plot.addItem(self.detail_fill)
        for layer in (self.coarse, self.detail):
            layer.image.setImage(np.zeros((1, 1), np.float32), autoLevels=False, levels=(0, 1))
            self.plot.addItem(layer.image)
        self.detail.image.setVisible(False)
        self.detail_fill.setVisible(False)
        self._texts: list[TextItem] = []
        self.colorbar = ColorBar(
            values=self._levels,
            colorMap=colormap("viridis"),
            interactive=False,
            colorMapMenu=False,
        )
        self.colorbar.setImageItem([self.coarse.image, self.detail.image])
        # Ticks in the values' own units: a "(x0.001)" after the bar's title reads as part
        # of the name (a signed M's title is "M (Gated DeltaNet)").
        self.colorbar.axis.enableAutoSIPrefix(False)
        self.addItem(self.colorbar, row=0, col=1)
        self.ci.layout.setColumnStretchFactor(0, 1)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._on_q_settled)
        self.plot.vb.sigRangeChanged.connect(self._on_q_range_changed)
        self.scene().sigMouseMoved.connect(self._on_q_mouse_moved)
        self.set_extent(1)
        self.set_style(LIGHT, QFont())  # a pixel-sized font before any label is written

    # --- content -------------------------------------------------------------------
    def set_extent(self, n: int) -> None:
        """A map of ``n`` tokens: axes and limits from 0 to n, all of it in view."""
        n = max(int(n), 1)
        if n == self.n and self._last is not None:
            return
        self.n = n
        span = min(MIN_SPAN, n)
        lo, hi = -HALF, n - HALF
        self._applying = True
        try:
            self.plot.setLimits(xMin=lo, xMax=hi, yMin=lo, yMax=hi, minXRange=span, minYRange=span)
            self.plot.setRange(xRange=(lo, hi), yRange=(lo, hi), padding=0)
        finally:
            self._applying = False
        self.fill.setRect(QRectF(lo, lo, n, n))
        self._settle.stop()
        self._last = (0, n, 0, n)

    def set_map(self, values, row_edges, col_edges) -> None:
        """The coarse map (cells × cells) and the token edges of its cells."""
        self._set_layer(self.coarse, values, row_edges, col_edges, exact=False)

    def set_detail(self, values, row_edges=None, col_edges=None, *, exact: bool = False):
        """The detail over the window (None removes it); ``exact`` cells are single tokens."""
        if values is None:
            self.detail.set(None, [0], [0], False)
            self.detail_fill.setVisible(False)
            self._place_texts()
            return
        self._set_layer(self.detail, values, row_edges, col_edges, exact=exact)
        r = self.detail
        rect = QRectF(
            r.col_edges[0] - HALF,
            r.row_edges[0] - HALF,
            r.col_edges[-1] - r.col_edges[0],
            r.row_edges[-1] - r.row_edges[0],
        )
        self.detail_fill.setRect(rect)
        self.detail_fill.setVisible(True)

    def _set_layer(self, layer: _Layer, values, row_edges, col_edges, *, exact: bool) -> None:
        layer.set(values, row_edges, col_edges, exact)
        self._render(layer)
        re, ce = layer.row_edges, layer.col_edges
        layer.image.setRect(QRectF(ce[0] - HALF, re[0] - HALF, ce[-1] - ce[0], re[-1] - re[0]))
        self._place_texts()
        if self._hover[0] >= 0:
            self.sigHover.emit(*self._hover)

    def _render(self, layer: _Layer) -> None:
        if layer.values is None:
            return
        with np.errstate(divide="ignore", invalid="ignore"):
            shown = np.log10(layer.values) if self.log else layer.values.astype(np.float64)
        shown = np.where(np.isfinite(shown), shown, self._levels[0]).astype(np.float32)
        hidden = layer.hidden(self.causal)
        if hidden is not None:
            shown[hidden] = np.nan  # transparent over the grey fill
        layer.image.setImage(shown, autoLevels=False, levels=self._levels)

    def set_scale(self, levels: tuple[float, float], *, log: bool, causal: bool) -> None:
        """Colour ``levels`` (in log10 units when ``log``) and whether hidden cells exist."""
        self._levels = (float(levels[0]), float(levels[1]))
        self.log, self.causal = log, causal
        for layer in (self.coarse, self.detail):
            self._render(layer)
        self.colorbar.setLevels(self._levels)
        self._place_texts()

    def set_colormap(self, cmap: pg.ColorMap) -> None:
        """Colour both layers and the bar with ``cmap`` (a signed M takes a diverging map)."""
        if cmap is self.colorbar.colorMap():
            return
        self.colorbar.setColorMap(cmap)
        self._place_texts()

    def set_window(self, r0: int, r1: int, c0: int, c1: int) -> None:
        """Show query rows ``r0:r1`` × keys ``c0:c1`` without reporting it back."""
        self._applying = True
        try:
            self.plot.setRange(
                xRange=(c0 - HALF, c1 - HALF), yRange=(r0 - HALF, r1 - HALF), padding=0
            )
        finally:
            self._applying = False
        self._settle.stop()
        self._last = (r0, r1, c0, c1)
        self._place_texts()

    def window(self) -> tuple[int, int, int, int]:
        """The token window the view shows now, ``(r0, r1, c0, c1)``."""
        (x0, x1), (y0, y1) = self.plot.vb.viewRange()
        n = self.n

        def span(a: float, b: float) -> tuple[int, int]:
            lo = min(max(math.floor(a + HALF + 1e-6), 0), n - 1)
            hi = max(min(math.ceil(b + HALF - 1e-6), n), lo + 1)
            return lo, hi

        return (*span(y0, y1), *span(x0, x1))

    def value_at(self, row: int, col: int):
        """``(value, rows, cols, exact)`` of the finest layer over token pair (row, col)."""
        for layer in (self.detail, self.coarse):
            found = layer.cell(row, col)
            if found is not None:
                return (*found, layer.exact)
        return None

    @property
    def hovered(self) -> tuple[int, int]:
        """The token pair under the mouse, ``(-1, -1)`` when none."""
        return self._hover

    def hover(self, row: int, col: int) -> None:
        """Act as if the mouse were over token pair (row, col); -1 clears."""
        self._hover = (row, col)
        self.sigHover.emit(row, col)

    def cell_texts(self) -> list[str]:
        """The values printed in cells now (empty when the window is too large)."""
        return [t.toPlainText() for t in self._texts if t.isVisible()]

    # --- style ---------------------------------------------------------------------
    def set_style(self, theme: Theme, font: QFont) -> None:
        """Colours from ``theme``; ``font`` (pixel-sized) for ticks and cell values."""
        self._theme = theme
        font = QFont(font)
        if font.pixelSize() <= 0:
            font.setPixelSize(max(8, round(QFontMetricsF(font).height() * 0.8)))
        self._font = font
        # Room above the map for half a tick label: token 0 sits half a cell below the top
        # and its label, centred on it, was cut by the view's edge on a long sentence.
        half = math.ceil(QFontMetricsF(font).height() / 2)
        self.ci.setContentsMargins(4, max(4, half), 4, 4)
        self.setBackground(theme.background)
        fg, muted = QColor(theme.foreground), QColor(theme.muted)
        for item in (self.plot, self.colorbar):
            for name in ("left", "bottom", "right", "top"):
                axis = item.getAxis(name)
                axis.setPen(pg.mkPen(muted))
                axis.setTextPen(pg.mkPen(fg))
                axis.setStyle(tickFont=font, tickTextOffset=max(3, font.pixelSize() // 3))
        self.colorbar.axis.setWidth(round(QFontMetricsF(font).horizontalAdvance("−0.000")) + 12)
        self.colorbar.layout.setColumnFixedWidth(1, max(16, font.pixelSize()))
        for item in (self.fill, self.detail_fill):
            item.setBrush(QBrush(QColor(theme.masked_fill)))
            item.setPen(pg.mkPen(None))
        for text in self._texts:
            text.setFont(font)
        self._place_texts()

    def set_axis_titles(self, rows: str, cols: str, bar: str) -> None:
        """Titles of the query axis, the key axis and the colour bar."""
        style = {"color": self._theme.muted, "font-size": f"{self._font.pixelSize()}px"}
        self.plot.setLabel("left", rows, **style)
        self.plot.setLabel("bottom", cols, **style)
        self.colorbar.axis.setLabel(bar, **style)

    # --- cell values ---------------------------------------------------------------
    def _place_texts(self) -> None:
        layer = self.detail if self.detail.exact else None
        r0, r1, c0, c1 = self.window()
        cells = []
        if layer is not None and layer.values is not None:
            re, ce = layer.row_edges, layer.col_edges
            rows = range(max(r0, re[0]), min(r1, re[-1]))
            cols = range(max(c0, ce[0]), min(c1, ce[-1]))
            if len(rows) <= TEXT_CELLS and len(cols) <= TEXT_CELLS and self._fits(c1 - c0):
                cells = [(r, c) for r in rows for c in cols]
        while len(self._texts) < len(cells):
            item = TextItem(anchor=(0.5, 0.5))
            item.setZValue(4)
            item.setFont(self._font)
            self.plot.addItem(item)
            self._texts.append(item)
        cmap = self.colorbar.colorMap()
        hidden = self.detail.hidden(self.causal)
        lo, hi = self._levels
        for item, (r, c) in zip(self._texts, cells, strict=False):
            a, b = r - int(layer.row_edges[0]), c - int(layer.col_edges[0])
            value = float(layer.values[a, b])
            if hidden is not None and hidden[a, b]:
                item.setVisible(False)
                continue
            shown = math.log10(value) if self.log and value > 0 else (value if not self.log else lo)
            norm = min(max((shown - lo) / ((hi - lo) or 1.0), 0.0), 1.0)
            rgb = cmap.map(np.array([norm]), mode="float")[0][:3]
            ink = "#000000" if float(rgb @ np.array([0.2126, 0.7152, 0.0722])) > 0.5 else "#ffffff"
            item.setText(cell_text(value), color=ink)
            item.setPos(c, r)
            item.setVisible(True)
        for item in self._texts[len(cells) :]:
            item.setVisible(False)

    def _fits(self, columns: int) -> bool:
        """Whether a value like "0.123" fits in one cell at the current width."""
        width = self.plot.vb.width()
        widest = "0.000"
        values = self.detail.values
        if values is not None and values.size and float(np.nanmin(values)) < 0:
            widest = "\u22120.000"  # a signed M's negatives print a minus sign
        need = QFontMetricsF(self._font).horizontalAdvance(widest) * 1.15
        return columns > 0 and width / columns >= need

    # --- mouse ---------------------------------------------------------------------
    def _on_q_range_changed(self, *_args) -> None:
        self._place_texts()
        if not self._applying:
            self._settle.start()

    def _on_q_settled(self) -> None:
        # Resizes and limit changes move the range too; report only what the user changed.
        window = self.window()
        if window != self._last:
            self._last = window
            self.sigWindow.emit(*window)

    def _on_q_mouse_moved(self, scene_pos) -> None:
        cell = (-1, -1)
        if self.plot.vb.sceneBoundingRect().contains(scene_pos):
            p = self.plot.vb.mapSceneToView(scene_pos)
            r, c = math.floor(p.y() + HALF), math.floor(p.x() + HALF)
            if 0 <= r < self.n and 0 <= c < self.n:
                cell = (r, c)
        if cell != self._hover:
            self.hover(*cell)

    def leaveEvent(self, event) -> None:
        if self._hover != (-1, -1):
            self.hover(-1, -1)
        super().leaveEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if hasattr(self, "detail"):  # pyqtgraph resizes once before __init__ is through
            self._place_texts()
