"""The attribution panel's query–key map: a head's queries (circles) and keys (triangles)
in two dimensions, coloured by position, by token or by sentence.

By PCA the plane is the two directions along which the stacked rows spread most, uncentred
(:func:`attnviz.core.pair_terms.qk_projection`): a dot product in the plane is the head's
own when two directions hold the rows (the hand-worked example's 2-d head: exactly). The
selected query is an arrow from the origin; a key's score with it is its shadow along the
arrow times the arrow's length, so the key reaching furthest along it is the one it reads.
By UMAP there is no origin and no arrow (distances are not dot products): the selected
query and the key it reads most are ringed.

The map may hold the queries and keys of several texts (the text shown first, then the
extra sentences): each point knows its text and its position in it, and the hover says both.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF

from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.steady_plot import SteadyPlot

#: How the points are coloured: a ramp along the positions, one colour per token text, or
#: one per sentence (the field ``attention.qk_colour``).
COLOUR_BY = ("position", "token", "sentence")
#: Points nearer the mouse than this share of the view's width are hovered.
HOVER_REACH = 0.04
#: Up to this many tokens each point is named beside it (more would crowd the names; then
#: only the selected query and the key it reads most are named).
NAMED_POINTS = 12
#: Past this many points they are drawn smaller and without an outline (a long text).
MANY_POINTS = 400
#: Sentences named in the legend when colouring by sentence (the hover names every one).
LEGEND_SENTENCES = 6
#: Characters of a sentence the legend shows.
LEGEND_CHARS = 24
#: Steps of the position ramp: a long text's thousands of points share this many brushes.
RAMP_STEPS = 64


def _ramp(t: np.ndarray, dark: bool) -> list[QColor]:
    """Early positions blue, late ones orange (both readable on either background)."""
    a, b = (
        (np.array([80, 160, 255]), np.array([255, 170, 60]))
        if dark
        else (
            np.array([30, 90, 200]),
            np.array([220, 110, 0]),
        )
    )
    return [QColor(*(a + (b - a) * x).astype(int)) for x in t]


class QKMap(SteadyPlot):
    """The map (see the module docstring); :meth:`set_map` draws it, :meth:`point_at`
    names what is under a point of the view."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("qk_map")
        self.setAspectLocked(True)
        self.queries = pg.ScatterPlotItem()
        self.keys = pg.ScatterPlotItem()
        self.arrow = pg.PlotDataItem()
        self.origin = pg.ScatterPlotItem()
        # The arrow's line through the whole view, and the top key's shadow on it.
        self.line = pg.PlotDataItem()
        self.shadow = pg.PlotDataItem()
        # Rings round the selected query and the key it reads most (over many points).
        self.rings = pg.ScatterPlotItem()
        items = (self.line, self.shadow, self.arrow, self.queries, self.keys, self.origin)
        for item in (*items, self.rings):
            self.addItem(item)
        self.names: list[pg.TextItem] = []
        self.getPlotItem().vb.sigResized.connect(self._renamed)
        self.legend_entry(self.queries, self.tr("queries"))
        self.legend_entry(self.keys, self.tr("keys"))
        self.legend_entry(self.arrow, self.tr("the selected query"))
        self._arrow_named = True  # UMAP draws no arrow: its legend line goes
        self.sentence_entries: list[pg.ScatterPlotItem] = []  # legend samples alone
        self.data = None  # model.resolve.qk_map.QKMapData
        self.tokens: tuple[str, ...] = ()
        self.query = 0
        self.colour_by = "position"
        self.top: int | None = None
        self._axes("pca")

    def _axes(self, method: str) -> None:
        if method == "umap":
            self.setLabel("bottom", self.tr("UMAP 1"))
            self.setLabel("left", self.tr("UMAP 2"))
        else:
            self.setLabel("bottom", self.tr("direction 1"))
            self.setLabel("left", self.tr("direction 2"))

    @property
    def proj(self):
        """The drawn map (queries, keys ``(N, 2)``), or None."""
        return self.data

    def set_map(self, data, query: int, colour_by: str, top: int | None = None) -> None:
        """Draw ``data`` (:class:`~attnviz.model.resolve.qk_map.QKMapData`; None clears the
        map), the arrow of row ``query`` and the shadow on it of key ``top`` (None: no
        shadow)."""
        same = data is not None and data is self.data and colour_by == self.colour_by
        self.data, self.query, self.colour_by, self.top = data, query, colour_by, top
        if same and self.theme is not None:
            # Another selected query over the same points: a long text's thousands of
            # points stay as drawn; the arrow, rings and names move.
            self._draw_selection()
            return
        self.tokens = () if data is None else tuple(data.tokens)
        self.redraw()

    def _draw_selection(self) -> None:
        q, k = self.data.queries, self.data.keys
        if self.data.method != "umap":
            self._draw_arrow(q, k)
        self._draw_rings(q, k, max(self._size(q.shape[0]), 8))
        self._name_points(q, k)

    def _size(self, n: int) -> int:
        size = max(7, round(self.plot_font.pixelSize() * 0.7)) if self.plot_font else 9
        return max(4, size // 2) if n > MANY_POINTS else size

    def clear_map(self) -> None:
        """Draw nothing (a map that could not be computed)."""
        self.set_map(None, 0, self.colour_by)
        for item in (self.queries, self.keys, self.origin, self.rings):
            item.setData(x=[], y=[])
        for item in (self.arrow, self.line, self.shadow):
            item.setData([], [])
        self._name_points(np.zeros((0, 2)), np.zeros((0, 2)))

    def _colours(self) -> tuple[list[QColor], np.ndarray]:
        """The palette and each row's index into it (a long text's thousands of points
        share a few brushes)."""
        dark = self.theme is not None and self.theme.dark
        if self.colour_by == "token":
            index = {t: i for i, t in enumerate(dict.fromkeys(self.tokens))}
            which = np.fromiter((index[t] for t in self.tokens), int, len(self.tokens))
            return [series_color(self.theme, i) for i in range(len(index))], which
        if self.colour_by == "sentence":
            text = self.data.text.astype(int)
            return [series_color(self.theme, i) for i in range(int(text.max()) + 1)], text
        pos = self.data.position
        top = max(int(pos.max(initial=0)), 1)
        steps = np.round(pos / top * (RAMP_STEPS - 1)).astype(int)
        return _ramp(np.linspace(0.0, 1.0, RAMP_STEPS), dark), steps

    def redraw(self) -> None:
        """Draw the held map in the current theme and font."""
        if self.data is None or self.theme is None:
            return
        q, k = self.data.queries, self.data.keys
        many = q.shape[0] > MANY_POINTS
        size = self._size(q.shape[0])
        palette, which = self._colours()
        edge = pg.mkPen(QColor(self.theme.foreground), width=0.6)
        pal = [pg.mkBrush(c) for c in palette]
        brushes = [pal[i] for i in which.tolist()]
        pen = None if many else edge
        # Drawn last row first: the text shown (the first rows) on top of the sentences
        # whose points fall on its own.
        back = brushes[::-1]
        self.queries.setData(x=q[::-1, 0], y=q[::-1, 1], symbol="o", size=size, brush=back, pen=pen)
        self.keys.setData(
            x=k[::-1, 0], y=k[::-1, 1], symbol="t", size=size * 1.2, brush=back, pen=pen
        )
        umap = self.data.method == "umap"
        self._axes(self.data.method)
        if umap == self._arrow_named:
            if umap:
                self.legend.removeItem(self.arrow)
            else:
                self.legend_entry(self.arrow, self.tr("the selected query"))
            self._arrow_named = not umap
        if umap:
            self.origin.setData(x=[], y=[])
            for item in (self.arrow, self.line, self.shadow):
                item.setData([], [])
        else:
            self.origin.setData(x=[0], y=[0], symbol="+", size=size, pen=edge, brush=None)
            self._draw_arrow(q, k)
        self._draw_rings(q, k, max(size, 8))
        self._sentence_legend()
        span = np.vstack([q, k] if umap else [q, k, np.zeros((1, 2))])
        lo, hi = span.min(axis=0), span.max(axis=0)
        pad = 0.12 * max(float((hi - lo).max()), 1e-9)
        # The legend sits top right: room above the points for it.
        self.setXRange(lo[0] - pad, hi[0] + pad, padding=0)
        self.setYRange(lo[1] - pad, hi[1] + 3.5 * pad, padding=0)
        self._name_points(q, k)  # after the range: the names are placed in pixels

    def _sentence_legend(self) -> None:
        """Colouring by sentence, the legend names the first sentences' colours."""
        for item in self.sentence_entries:
            self.legend.removeItem(item)
        self.sentence_entries = []
        if self.colour_by != "sentence" or self.data is None or not self.data.many:
            return
        for i, text in enumerate(self.data.texts[:LEGEND_SENTENCES]):
            if i == 0:
                name = self.tr("the text shown")
            else:
                short = text if len(text) <= LEGEND_CHARS else text[: LEGEND_CHARS - 1] + "…"
                name = fill(self.tr("%1: %2"), i, short)
            sample = pg.ScatterPlotItem(symbol="s", brush=pg.mkBrush(series_color(self.theme, i)))
            sample.setPen(None)
            self.legend_entry(sample, name)
            self.sentence_entries.append(sample)

    def _draw_rings(self, q: np.ndarray, k: np.ndarray, size: float) -> None:
        at = []
        if 0 <= self.query < q.shape[0]:
            at.append(q[self.query])
        if self.top is not None and 0 <= self.top < k.shape[0]:
            at.append(k[self.top])
        pts = np.array(at).reshape(-1, 2)
        self.rings.setData(
            x=pts[:, 0], y=pts[:, 1], symbol="o", size=2.2 * size, brush=None,
            pen=self.pen(3, width=1.6),
        )  # fmt: skip

    def _draw_arrow(self, q: np.ndarray, k: np.ndarray) -> None:
        if not 0 <= self.query < q.shape[0]:
            return
        a = q[self.query]
        self.arrow.setData([0.0, a[0]], [0.0, a[1]])
        self.arrow.setPen(self.pen(3, width=1.6))
        norm = float(a @ a)
        # The arrow's line across the whole picture: past every point on both sides.
        reach = 4.0 * max(float(np.abs(np.vstack([q, k])).max()), 1e-9)
        unit = a / np.sqrt(norm) if norm > 0 else np.zeros(2)
        self.line.setData([-reach * unit[0], reach * unit[0]], [-reach * unit[1], reach * unit[1]])
        self.line.setPen(self.pen(3, width=0.6, dash=True))
        top = self.top
        if top is None or norm == 0 or not 0 <= top < k.shape[0]:
            self.shadow.setData([], [])
            return
        foot = a * float(k[top] @ a) / norm  # where the key's shadow falls on the line
        self.shadow.setData([k[top, 0], foot[0]], [k[top, 1], foot[1]])
        self.shadow.setPen(self.pen(3, width=1.0, dash=True))

    def _name_points(self, q: np.ndarray, k: np.ndarray) -> None:
        """Name the points beside them, each name only where it overlaps no name already
        placed (coinciding points, as a positional head's, are named once; the hover names
        every point). Past :data:`NAMED_POINTS` tokens only the selected query and the key
        it reads most are named."""
        for item in self.names:
            self.removeItem(item)
        self.names = []
        if self.plot_font is None or not q.shape[0]:
            return
        font = self.plot_font
        metrics = QFontMetricsF(font)
        vb = self.getPlotItem().vb
        placed: list[QRectF] = []
        # The selected query and the key it reads most are named first: they tell why.
        order = [("q", self.query), ("k", self.top)]
        if len(self.tokens) <= NAMED_POINTS:
            order += [(kind, j) for kind in ("q", "k") for j in range(len(self.tokens))]
        done = set()
        for kind, j in order:
            if j is None or (kind, j) in done or not 0 <= j < min(len(self.tokens), q.shape[0]):
                continue
            done.add((kind, j))
            token, (x, y) = self.tokens[j], (q if kind == "q" else k)[j]
            at = vb.mapViewToScene(QPointF(float(x), float(y)))
            w, h = metrics.horizontalAdvance(token) + 8, metrics.height() + 4
            # Clear of the point and its ring: a one-letter name ("i") hid inside them.
            gap = max(0.15 * w, 1.2 * self._size(q.shape[0]))
            box = QRectF(at.x() + gap, at.y() - h / 2, w, h)
            if any(box.intersects(other) for other in placed):
                continue
            placed.append(box)
            item = pg.TextItem(token, color=QColor(self.theme.foreground), anchor=(-gap / w, 0.5))
            item.setFont(font)
            item.setZValue(10)  # over the points: a name among many stays readable
            item.setPos(float(x), float(y))
            self.addItem(item)
            self.names.append(item)

    def _renamed(self, *_args) -> None:
        # A new size or range moves the points apart or together: place the names again.
        if self.data is not None and self.theme is not None:
            self._name_points(self.data.queries, self.data.keys)

    def point_at(self, x: float, y: float) -> tuple[str, int] | None:
        """``("query" | "key", row)`` of the point nearest view point (x, y) within
        :data:`HOVER_REACH` of the view's width, else None."""
        if self.data is None:
            return None
        best, found = np.inf, None
        for kind, pts in (("query", self.data.queries), ("key", self.data.keys)):
            if not pts.shape[0]:
                continue
            dist = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
            j = int(np.argmin(dist))
            if dist[j] < best:
                best, found = float(dist[j]), (kind, j)
        (x0, x1), _ = self.getPlotItem().vb.viewRange()
        return found if best <= HOVER_REACH * (x1 - x0) else None

    def hover_text(self, kind: str, row: int, score: float | None) -> str:
        """What the status bar says of point ``row`` of ``kind``: its token, position (and
        sentence, when the map holds several) and exact coordinates, and a key's q·k with
        the selected query (None: a key of another sentence, which the query never sees)."""
        pts = self.data.queries if kind == "query" else self.data.keys
        x, y = pts[row]
        token = self.tokens[row] if row < len(self.tokens) else str(row)
        pos = int(self.data.position[row])
        if self.data.many:
            text = int(self.data.text[row])
            where = (
                self.tr("the text shown") if text == 0
                else fill(self.tr("sentence %1"), text)
            )  # fmt: skip
            if kind == "query":
                return fill(
                    self.tr("query of “%1” (position %2 of %3): (%4, %5)"),
                    token, pos, where, fmt(x, 4), fmt(y, 4),
                )  # fmt: skip
            if score is None:
                return fill(
                    self.tr("key of “%1” (position %2 of %3): (%4, %5)"),
                    token, pos, where, fmt(x, 4), fmt(y, 4),
                )  # fmt: skip
            return fill(
                self.tr(
                    "key of “%1” (position %2 of %3): (%4, %5); q·k with the selected query %6"
                ),
                token, pos, where, fmt(x, 4), fmt(y, 4), fmt(score, 4),
            )  # fmt: skip
        if kind == "query":
            return fill(
                self.tr("query of “%1” (position %2): (%3, %4)"), token, pos, fmt(x, 4), fmt(y, 4)
            )
        return fill(
            self.tr("key of “%1” (position %2): (%3, %4); q·k with the selected query %5"),
            token,
            pos,
            fmt(x, 4),
            fmt(y, 4),
            fmt(score, 4) if score is not None else "—",
        )
