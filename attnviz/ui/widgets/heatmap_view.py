"""A reusable heatmap of one matrix: rows are queries, columns keys (or value dimensions).

One :class:`HeatmapView` holds a pyqtgraph ``ImageItem`` (``row-major``: row = query,
column = key) with a colour bar, token labels on both axes (thinned out when they would
collide), masked cells drawn as a grey hatch above the image (never as 0), the selected
query row outlined, the numbers printed in the cells of small matrices, and a per-row
entropy strip beside it (each row's entropy is reported on hover, as the cells' values
are). Every item is created once; :meth:`HeatmapView.set_matrix` is the hot path and only
copies the data into the view's float32 image buffer (kept while the shape stays), sets
the image with explicit levels, redraws the entropy strip and asks for one paint.
Line widths scale with :meth:`HeatmapView.set_line_scale`, so a 3840×2160 export draws
its axes as heavily as a 1920×1080 one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.AxisItem import AxisItem

# Imported by module, not through pyqtgraph's lazy attributes, so a frozen bundle has them.
from pyqtgraph.graphicsItems.LabelItem import LabelItem
from pyqtgraph.graphicsItems.TextItem import TextItem
from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsTextItem,
    QGraphicsView,
)

from attnviz.ui.theme import LIGHT, Theme
from attnviz.ui.widgets.colormaps import ColorBar, colormap
from attnviz.ui.widgets.heatmap_fit import HeatmapFit
from attnviz.ui.widgets.heatmap_items import MaskOverlay, entropy_strip_path
from attnviz.ui.widgets.heatmap_spotlight import HeatmapSpotlight
from attnviz.ui.widgets.numbers import fmt_g
from attnviz.ui.widgets.plot_style import localize_ticks
from attnviz.ui.widgets.premultiplied_image import PremultipliedImageItem
from attnviz.ui.widgets.token_axis import TokenAxis

#: Matrices up to this many cells (16 × 16) get their numbers printed inside the cells.
MAX_CELL_TEXT = 256
#: The largest share of the figure's width (height) the row (column) labels may take.
MAX_AXIS_SHARE = 0.3
#: The column :attr:`HeatmapView.sigHover` reports for the entropy strip beside a row.
ENTROPY_COL = -2


class HeatmapView(HeatmapFit, HeatmapSpotlight, pg.GraphicsLayoutWidget):
    """A matrix heatmap with colour bar, token labels, mask hatch and entropy strip.

    Signals
    -------
    sigHover(row, col, value)
        The cell under the mouse and its exact value (NaN for a masked cell); over the
        entropy strip ``col`` is :data:`ENTROPY_COL` and ``value`` the row's entropy;
        ``(-1, -1, nan)`` when the mouse leaves the matrix.
    sigClicked(row, col)
        A cell was clicked; ``col`` is -1 when only the row changed (arrow keys).
    """

    sigHover = Signal(int, int, float)
    sigClicked = Signal(int, int)

    def __init__(self, parent=None, *, show_title: bool = False) -> None:
        super().__init__(parent)
        self._values = np.zeros((1, 1))
        self._image_buffer: np.ndarray | None = None
        # The matrix's rows and columns; the image may be a coarser grid stretched over it.
        self._extent = (1, 1)
        self._allowed: np.ndarray | None = None
        self._row_labels: tuple[str, ...] = ()
        self._col_labels: tuple[str, ...] = ()
        self._hover = (-1, -1)
        self._selected_row = -1
        self._selection: tuple[int, tuple[int, int] | None] = (-1, None)
        self._cmap = colormap("viridis")
        self._levels = (0.0, 1.0)
        self._cell_texts: list[TextItem] = []
        self._entropy: np.ndarray | None = None
        self._max_entropy = -1.0
        self._line = 1.0
        self._theme = LIGHT
        self._font = QFont()
        self.ci.setContentsMargins(4, 4, 4, 4)
        self.title = self.addLabel("", row=0, col=0, colspan=3) if show_title else None

        self.rows_axis, self.cols_axis = TokenAxis("left"), TokenAxis("bottom")
        # enableMenu=False: no context menu is built only to be switched off below.
        self.plot = self.addPlot(
            row=1,
            col=0,
            axisItems={"left": self.rows_axis, "bottom": self.cols_axis},
            enableMenu=False,
        )
        self.plot.invertY(True)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.image = PremultipliedImageItem(axisOrder="row-major")
        # Give the image data before the colour bar touches its levels: levels set on an
        # empty ImageItem are deferred and would overwrite those of the first real image.
        self.image.setImage(np.zeros((1, 1), np.float32), autoLevels=False, levels=self._levels)
        self.plot.addItem(self.image)
        self.mask_item = MaskOverlay()
        self.mask_item.setZValue(1)
        self.plot.addItem(self.mask_item)
        self.row_box = QGraphicsRectItem()
        self.row_box.setZValue(3)
        self.plot.addItem(self.row_box)
        self.cell_box = QGraphicsRectItem()
        self.cell_box.setZValue(4)
        self.plot.addItem(self.cell_box)
        # A lesson's (or the presenter's pointer's) spotlight: the rest of the matrix dimmed,
        # the highlighted cell, row or column outlined.
        self._spotlight: tuple[str, tuple[int, ...]] | None = None
        self._veil = QColor(255, 255, 255, 110)
        self.spot_dim = QGraphicsPathItem()
        self.spot_dim.setZValue(5)
        self.spot_dim.setPen(QPen(Qt.PenStyle.NoPen))
        self.plot.addItem(self.spot_dim)
        self.spot_box = QGraphicsRectItem()
        self.spot_box.setZValue(6)
        self.plot.addItem(self.spot_box)

        self.entropy_plot = self.addPlot(row=1, col=1, enableMenu=False)
        self.entropy_plot.hideAxis("left")
        self.entropy_plot.invertY(True)
        self.entropy_plot.hideButtons()
        self.entropy_plot.setMenuEnabled(False)
        self.entropy_plot.setMouseEnabled(x=False, y=False)
        self.entropy_plot.setYLink(self.plot)
        # No "(×1e-09)" beside the title: the two ticks are written out in full.
        self.entropy_plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.entropy_item = QGraphicsPathItem()
        self.entropy_plot.addItem(self.entropy_item)
        self.entropy_max = pg.InfiniteLine(angle=90, movable=False)
        self.entropy_plot.addItem(self.entropy_max)

        self.colorbar = ColorBar(
            values=self._levels, colorMap=self._cmap, interactive=False, colorMapMenu=False
        )
        self.colorbar.setImageItem(self.image)
        self.addItem(self.colorbar, row=1, col=2)
        localize_ticks(self.colorbar.axis)
        # Token labels, an unlabelled colour bar and hidden axes never take an SI prefix;
        # checking for one sets each axis title's HTML again on every range or levels change.
        for plot in (self.plot, self.entropy_plot, self.colorbar):
            for name in ("left", "bottom", "right", "top"):
                plot.getAxis(name).enableAutoSIPrefix(False)
        self.ci.layout.setColumnStretchFactor(0, 1)

        self.scene().sigMouseMoved.connect(self._on_q_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_q_mouse_clicked)
        self._fitted_view: tuple | None = None  # the view's size and range at the last fit
        self.plot.vb.sigResized.connect(self._on_q_view_moved)
        self.plot.vb.sigRangeChanged.connect(self._on_q_view_moved)
        with self.held_fit():  # one fit for the style and the shape
            self.set_style(LIGHT, QFont())
            self._set_shape(1, 1)

    def cache_frame(self, on: bool = True) -> None:
        """Keep the axes, their titles and the plot titles as pixmaps between repaints.

        On screen a slider step then redraws only the matrix and the entropy strip (the
        frame is blitted: a full repaint goes from ≈3.3 to ≈1.3 ms at 900×700). Only
        for views on screen: an SVG painter would get the cached pixmaps, not vectors.
        """
        mode = (
            QGraphicsItem.CacheMode.DeviceCoordinateCache if on else QGraphicsItem.CacheMode.NoCache
        )
        for item in self.scene().items():
            if isinstance(item, AxisItem | LabelItem | QGraphicsTextItem):
                item.setCacheMode(mode)
        # The background too (≈0.6 ms less a repaint); a new brush or size redraws it.
        self.setCacheMode(
            QGraphicsView.CacheModeFlag.CacheBackground
            if on
            else QGraphicsView.CacheModeFlag.CacheNone
        )
        # That opaque background covers the whole viewport: Qt need not erase it first
        # (≈0.3 ms less).
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, on)

    # --- content --------------------------------------------------------------------
    def set_labels(self, rows: Sequence[str], cols: Sequence[str]) -> None:
        """Token labels of the rows (queries) and columns; a no-op when unchanged."""
        rows, cols = tuple(rows), tuple(cols)
        if rows == self._row_labels and cols == self._col_labels:
            return
        self._row_labels, self._col_labels = rows, cols
        self.refresh_ticks()

    def set_axis_titles(self, rows: str, cols: str, entropy: str) -> None:
        """The words under/beside the axes (e.g. "query", "key", "entropy (nats)")."""
        style = {"color": self._theme.muted, "font-size": f"{self._font.pixelSize()}px"}
        self.plot.setLabel("left", rows, **style)
        self.plot.setLabel("bottom", cols, **style)
        self.entropy_plot.setLabel("bottom", entropy, **style)

    def set_title(self, text: str) -> None:
        """The title above the figure (only when built with ``show_title``)."""
        if self.title is not None:
            size = f"{round(self._font.pixelSize() * 1.4)}px"
            self.title.setText(text, color=self._theme.foreground, size=size, bold=True)

    def set_matrix(
        self,
        values: np.ndarray,
        levels: tuple[float, float],
        *,
        allowed: np.ndarray | None = None,
        entropy: np.ndarray | None = None,
        max_entropy: float = 1.0,
        update_mask: bool = True,
        extent: tuple[int, int] | None = None,
    ) -> None:
        """Show ``values`` (rows × cols) with colour ``levels``; the hot path.

        ``allowed`` (rows × cols, bool) hatches the cells where it is False; pass
        ``update_mask=False`` to keep the current hatch. ``entropy`` fills the side strip.
        """
        values = np.asarray(values)
        rows, cols = extent if extent is not None else values.shape
        reshaped = (rows, cols) != self._extent
        regrid = values.shape != self._values.shape
        self._values = values
        self._extent = (rows, cols)
        self.image.setImage(self._image_data(values), autoLevels=False, levels=levels)
        if regrid or reshaped:
            # A pooled grid (a long sentence) covers the whole matrix, cell for block.
            self.image.setRect(QRectF(0, 0, cols, rows))
        levels = (float(levels[0]), float(levels[1]))
        if levels != self._levels:
            self._levels = levels
            # setImage does not tell the colour bar about new levels; say it (no re-render).
            # Only on a change: its axis regenerates every tick on each call.
            self.colorbar.setLevels(self._levels, update_items=False)
        if reshaped:
            self._set_shape(rows, cols)
        if update_mask or reshaped:
            self._allowed = allowed
            scale = (1.0, 1.0)
            if allowed is not None:
                scale = (rows / allowed.shape[0], cols / allowed.shape[1])
            self.mask_item.set_allowed(allowed, scale)
        self._set_entropy(entropy, max_entropy, rows)
        if self._cell_texts:
            self._update_cell_texts()
        if self._hover[0] >= 0:
            self._emit_hover(*self._hover)
        self._paint_once()

    def _image_data(self, values: np.ndarray) -> np.ndarray:
        """``values`` copied into the view's own float32, C-contiguous image buffer.

        The buffer is kept while the shape stays (a slider step allocates nothing) and is
        what the image item colours; the exact values stay in ``_values`` for the hover.
        """
        buffer = self._image_buffer
        if buffer is None or buffer.shape != values.shape:
            buffer = self._image_buffer = np.empty(values.shape, np.float32)
        with np.errstate(over="ignore", invalid="ignore"):  # past float32: ±inf, a table end
            np.copyto(buffer, values, casting="unsafe")
        return buffer

    def _paint_once(self) -> None:
        """Have the new matrix painted by one paint of the viewport.

        The scene turns item changes into viewport updates in a queued call, which paints
        at once when it runs. A caller that repaints first (``viewport().repaint()``, as
        the bench does) would then get that second paint of the same pixels. Processing
        the scene's changes now, with the view's own updates held, and asking for one
        update of the whole viewport leaves one paint, whoever triggers it.
        """
        mode = self.viewportUpdateMode()
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.NoViewportUpdate)
        try:
            QCoreApplication.sendPostedEvents(self.scene(), QEvent.Type.MetaCall)
        finally:
            self.setViewportUpdateMode(mode)
        self.viewport().update()

    def set_levels(self, levels: tuple[float, float]) -> None:
        """Colour levels (low, high) without new data."""
        self._levels = (float(levels[0]), float(levels[1]))
        self.colorbar.setLevels(self._levels)
        self._fit_colorbar_axis()
        if self._cell_texts:
            self._update_cell_texts()

    def set_colormap(self, cmap: pg.ColorMap) -> None:
        """The colour map of the image and the colour bar."""
        self._cmap = cmap
        self.colorbar.setColorMap(cmap)
        if self._cell_texts:
            self._update_cell_texts()

    def set_selection(self, row: int, cell: tuple[int, int] | None = None) -> None:
        """Outline query ``row`` (-1 for none) and, optionally, one cell."""
        self._selection = (row, cell)  # kept, and applied again when the shape changes
        rows, cols = self._extent
        self._selected_row = row if 0 <= row < rows else -1
        self.row_box.setVisible(self._selected_row >= 0)
        self.row_box.setRect(QRectF(0, max(row, 0), cols, 1))
        ok = cell is not None and 0 <= cell[0] < rows and 0 <= cell[1] < cols
        self.cell_box.setVisible(ok)
        if ok:
            self.cell_box.setRect(QRectF(cell[1], cell[0], 1, 1))

    def _grid(self, row: int, col: int, shape) -> tuple[int, int]:
        """The cell of an array of ``shape`` (the drawn grid) covering matrix cell (row, col)."""
        rows, cols = self._extent
        return row * shape[0] // rows, col * shape[1] // cols

    def value_at(self, row: int, col: int) -> float:
        """The value drawn at a cell (NaN when masked or outside the matrix); for a pooled
        grid, the mean of the block the cell is in."""
        rows, cols = self._extent
        if not (0 <= row < rows and 0 <= col < cols):
            return math.nan
        allowed = self._allowed
        if allowed is not None and not allowed[self._grid(row, col, allowed.shape)]:
            return math.nan
        return float(self._values[self._grid(row, col, self._values.shape)])

    @property
    def extent(self) -> tuple[int, int]:
        """Rows and columns of the matrix shown."""
        return self._extent

    def cell_values_shown(self) -> bool | None:
        """Whether the cells print their numbers now (None: too many cells to print any)."""
        if not self._cell_texts:
            return None
        return any(item.isVisible() for item in self._cell_texts)

    def set_entropy_shown(self, on: bool) -> None:
        """Draw the entropy strip beside the matrix, or give its room to the matrix."""
        self.entropy_shown = bool(on)
        self.entropy_plot.setVisible(self.entropy_shown)
        self._fit_entropy_strip()

    def entropy_at(self, row: int) -> float:
        """The entropy of query ``row`` in nats (NaN when none is shown for it)."""
        e = self._entropy
        rows = self._extent[0]
        if e is None or not 0 <= row < rows:
            return math.nan
        return float(e[row * e.shape[0] // rows])

    @property
    def max_entropy(self) -> float:
        """The entropy of a uniform row, ln n (the dashed line of the strip)."""
        return max(self._max_entropy, 0.0)

    def cell_texts(self) -> list[list[str]]:
        """The numbers printed in the cells (empty lists when the matrix is too large)."""
        if not self._cell_texts:
            return []
        cols = self._values.shape[1]
        texts = [item.toPlainText() for item in self._cell_texts]
        return [texts[i : i + cols] for i in range(0, len(texts), cols)]

    def tick_labels(self, axis: str) -> list[str]:
        """The labels placed now on the ``"left"`` (rows) or ``"bottom"`` (columns) axis."""
        return (self.rows_axis if axis == "left" else self.cols_axis).shown_labels()

    def hover_cell(self, row: int, col: int) -> None:
        """Act as if the mouse were over cell (``row``, ``col``); -1 clears."""
        self._hover = (row, col)
        self._emit_hover(row, col)

    # --- style ----------------------------------------------------------------------
    def set_line_scale(self, scale: float) -> None:
        """Draw every line ``scale`` times as wide (an export at twice the pixels: 2)."""
        self._line = max(float(scale), 1.0)
        self.set_style(self._theme, self._font)

    def line_width(self, base: float = 1.0) -> float:
        """The width in pixels that a line of ``base`` pixels is drawn with now."""
        return base * self._line

    def set_style(self, theme: Theme, font: QFont) -> None:
        """Colours from ``theme``; ``font`` (pixel-sized) for ticks, labels and numbers."""
        self._theme = theme
        font = QFont(font)
        if font.pixelSize() <= 0:
            font.setPixelSize(max(8, round(QFontMetricsF(font).height() * 0.8)))
        self._font = font
        self.setBackground(theme.background)
        fg, muted = QColor(theme.foreground), QColor(theme.muted)
        width = self.line_width
        # The axes drawn (each pen lays its axis title out again: not the hidden ones); the
        # colour bar's four make its frame.
        shown = (self.rows_axis, self.cols_axis, self.entropy_plot.getAxis("bottom"))
        frame = (self.colorbar.getAxis(name) for name in ("left", "bottom", "right", "top"))
        for axis in (*shown, *frame):
            axis.setPen(pg.mkPen(muted, width=width()))
            axis.setTextPen(pg.mkPen(fg))
            axis.setStyle(
                tickFont=font,
                tickTextOffset=max(3, font.pixelSize() // 3),
                tickLength=max(3, font.pixelSize() // 4),  # outward: never over cells
            )
        self._fit_colorbar_axis()
        self.colorbar.layout.setColumnFixedWidth(1, max(16, font.pixelSize()))
        self._fit_entropy_strip()
        self.mask_item.set_colors(theme.masked_fill, theme.masked_hatch, self._line)
        self.entropy_item.setBrush(QBrush(QColor(theme.entropy)))
        self.entropy_item.setPen(QPen(Qt.PenStyle.NoPen))
        self.entropy_max.setPen(pg.mkPen(muted, width=width(), style=Qt.PenStyle.DashLine))
        self.row_box.setPen(pg.mkPen(theme.highlight, width=width(3)))
        self.cell_box.setPen(pg.mkPen(theme.foreground, width=width(2), style=Qt.PenStyle.DashLine))
        dim = QColor(theme.background)
        dim.setAlpha(110)  # the dimmed cells stay legible; the spotlit one stands out
        self._veil = dim
        self.spot_dim.setBrush(QBrush(dim))
        self.spot_box.setPen(pg.mkPen(theme.highlight, width=width(5)))
        for item in self._cell_texts:
            item.setFont(font)
        self.refresh_ticks()
        if self._cell_texts:
            self._update_cell_texts()

    # --- internals ------------------------------------------------------------------
    def _set_shape(self, rows: int, cols: int) -> None:
        self.plot.setLimits(
            xMin=0, xMax=cols, yMin=0, yMax=rows, minXRange=min(cols, 4), minYRange=min(rows, 4)
        )
        self.plot.setRange(xRange=(0, cols), yRange=(0, rows), padding=0)
        for item in self._cell_texts:
            self.plot.removeItem(item)
        self._cell_texts = []
        if rows * cols <= MAX_CELL_TEXT:
            for r in range(rows):
                for c in range(cols):
                    item = TextItem(anchor=(0.5, 0.5))
                    item.setFont(self._font)
                    item.setPos(c + 0.5, r + 0.5)
                    item.setZValue(6)  # above the spotlight's veil (inks chosen for it)
                    # Shown by _fit_cell_texts once a cell has room for it: a text item
                    # shown in a view not laid out yet inverts a singular transform.
                    item.setVisible(False)
                    self.plot.addItem(item)
                    self._cell_texts.append(item)
        self.set_selection(*self._selection)
        self._apply_spotlight()
        self.refresh_ticks()

    def _set_entropy(self, entropy, max_entropy: float, rows: int) -> None:
        if entropy is None:
            self._entropy = None
            self.entropy_item.setPath(QPainterPath())
            return
        e = np.asarray(entropy, dtype=np.float64)
        self._entropy = e
        self.entropy_item.setPath(entropy_strip_path(e, rows))
        top = max(float(max_entropy), 0.0)
        if top != self._max_entropy:
            self._max_entropy = top
            self.entropy_max.setValue(top)
            # One token: ln 1 = 0, every row is certain; keep a unit-wide strip readable.
            span = top if top > 1e-6 else 1.0
            # Margins on both sides leave room for the two tick labels.
            self.entropy_plot.setXRange(-0.25 * span, span * 1.45, padding=0)
            # Two ticks say all there is: 0 (one key takes everything) and ln n (uniform).
            ticks = [(0, "0")] + ([(top, fmt_g(top, 2))] if top > 1e-6 else [])
            self.entropy_plot.getAxis("bottom").setTicks([ticks])

    def _view_key(self) -> tuple:
        vb = self.plot.vb
        return (
            self.width(),
            self.height(),
            vb.sceneBoundingRect().getRect(),
            tuple(map(tuple, vb.viewRange())),
        )

    def _on_q_view_moved(self, *_args) -> None:
        # Laying a window out resizes the view and sets its range several times over, most
        # of them to where it already is (11 fits before the first paint, 4 of them new):
        # fit again only for a new size or range. What else a fit reads (labels, font,
        # matrix, style) calls refresh_ticks itself when it changes.
        if self._view_key() != self._fitted_view:
            self.refresh_ticks()

    def refresh_ticks(self, *_args) -> None:
        """Place the token labels again for the current size and range (thinned out)."""
        if self._fit_held():
            return  # once, as the held block ends
        self._fitted_view = self._view_key()
        self.rows_axis.set_labels(self._row_labels, self._font)
        self.cols_axis.set_labels(self._col_labels, self._font)
        # Long words never take more than a third of the figure from the matrix.
        self.rows_axis.max_thickness = self.width() * MAX_AXIS_SHARE
        self.cols_axis.max_thickness = self.height() * MAX_AXIS_SHARE
        width = self.rows_axis.relayout()
        if width != self.rows_axis.width():
            self.rows_axis.setWidth(width)
        self._fit_top_margin()
        height = self.cols_axis.relayout()
        # Equal bottom-axis heights keep the entropy rows level with the matrix rows.
        for plot in (self.plot, self.entropy_plot, self.colorbar):
            axis = plot.getAxis("bottom")
            if axis.height() != height:
                axis.setHeight(height)
        self._fit_entropy_strip()
        self._fit_cell_texts()

    def _fit_top_margin(self) -> None:
        """Room above the matrix for the labels centred on its top edge: the first row's
        when the labels are taller than the rows (28 tokens on a slide: "the" stood half
        outside the view), and the colour bar's top value ("1.0", cut in half)."""
        font = self.rows_axis.style.get("tickFont") or self._font
        pitch = self.plot.vb.height() / max(self._extent[0], 1)
        bar = self.colorbar.axis.style.get("tickFont") or self._font
        need = max(
            4,
            math.ceil((QFontMetricsF(font).height() - pitch) / 2) + 1,
            math.ceil(QFontMetricsF(bar).height() / 2) + 1,
        )
        left, top, right, bottom = self.ci.layout.getContentsMargins()
        if abs(top - need) > 1:  # (the pitch follows the margin by a pixel or so)
            self.ci.setContentsMargins(left, need, right, bottom)

    def _cell(self, scene_pos: QPointF) -> tuple[int, int]:
        rows, cols = self._extent
        if self.entropy_plot.vb.sceneBoundingRect().contains(scene_pos):
            # The entropy strip: the row beside the mouse, its entropy as the value.
            r = math.floor(self.entropy_plot.vb.mapSceneToView(scene_pos).y())
            return (r, ENTROPY_COL) if 0 <= r < rows else (-1, -1)
        if not self.plot.vb.sceneBoundingRect().contains(scene_pos):
            return (-1, -1)
        p = self.plot.vb.mapSceneToView(scene_pos)
        r, c = math.floor(p.y()), math.floor(p.x())
        return (r, c) if 0 <= r < rows and 0 <= c < cols else (-1, -1)

    def _emit_hover(self, row: int, col: int) -> None:
        rows, cols = self._extent
        if not (0 <= row < rows and (0 <= col < cols or col == ENTROPY_COL)):
            # The matrix shrank under a resting mouse: nothing is under it any more.
            row = col = -1
            self._hover = (-1, -1)
        if row < 0:
            value = math.nan
        elif col == ENTROPY_COL:
            value = self.entropy_at(row)
        else:
            value = self.value_at(row, col)
        self.sigHover.emit(row, col, value)

    def _on_q_mouse_moved(self, scene_pos) -> None:
        cell = self._cell(scene_pos)
        if cell != self._hover:
            self.hover_cell(*cell)

    def _on_q_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        row, col = self._cell(event.scenePos())
        if row >= 0:
            self.sigClicked.emit(row, -1 if col == ENTROPY_COL else col)

    def leaveEvent(self, event) -> None:
        if self._hover != (-1, -1):
            self.hover_cell(-1, -1)
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:
        step = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}.get(event.key())
        rows = self._extent[0]
        if step is not None and rows:
            self.sigClicked.emit(min(max(self._selected_row + step, 0), rows - 1), -1)
            return
        super().keyPressEvent(event)
