"""The attribution panel's query–key map: a head's queries (circles) and keys (triangles)
in one plane through the origin, coloured by position or by token.

The plane is the two directions along which the stacked rows spread most, uncentred
(:func:`attnviz.core.pair_terms.qk_projection`): a dot product in the plane is the head's
own when two directions hold the rows (the hand-worked example's 2-d head: exactly). The
selected query is an arrow from the origin; a key's score with it is its shadow along the
arrow times the arrow's length, so the key reaching furthest along it is the one it reads.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF

from attnviz.core.pair_terms import Projection
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.steady_plot import SteadyPlot

#: How the points are coloured: a ramp along the positions, or one colour per token text.
COLOUR_BY = ("position", "token")
#: Points nearer the mouse than this share of the view's width are hovered.
HOVER_REACH = 0.04
#: Up to this many tokens each point is named beside it (more would crowd the names).
NAMED_POINTS = 12


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
        self.setLabel("bottom", self.tr("direction 1"))
        self.setLabel("left", self.tr("direction 2"))
        self.queries = pg.ScatterPlotItem()
        self.keys = pg.ScatterPlotItem()
        self.arrow = pg.PlotDataItem()
        self.origin = pg.ScatterPlotItem()
        # The arrow's line through the whole view, and the top key's shadow on it.
        self.line = pg.PlotDataItem()
        self.shadow = pg.PlotDataItem()
        for item in (self.line, self.shadow, self.arrow, self.queries, self.keys, self.origin):
            self.addItem(item)
        self.names: list[pg.TextItem] = []
        self.getPlotItem().vb.sigResized.connect(self._renamed)
        self.legend_entry(self.queries, self.tr("queries"))
        self.legend_entry(self.keys, self.tr("keys"))
        self.legend_entry(self.arrow, self.tr("the selected query"))
        self.proj: Projection | None = None
        self.tokens: tuple[str, ...] = ()
        self.query = 0
        self.colour_by = "position"
        self.top: int | None = None

    def set_map(
        self, proj: Projection, tokens, query: int, colour_by: str, top: int | None = None
    ) -> None:
        """Draw ``proj`` with ``tokens`` (one per row), the arrow of row ``query`` and
        the shadow on it of key ``top`` (None: no shadow)."""
        self.proj, self.tokens, self.query, self.colour_by = proj, tuple(tokens), query, colour_by
        self.top = top
        self.redraw()

    def _colours(self) -> list[QColor]:
        n = len(self.tokens)
        dark = self.theme is not None and self.theme.dark
        if self.colour_by == "token":
            index = {t: i for i, t in enumerate(dict.fromkeys(self.tokens))}
            return [series_color(self.theme, index[t]) for t in self.tokens]
        return _ramp(np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(n), dark)

    def redraw(self) -> None:
        """Draw the held map in the current theme and font."""
        if self.proj is None or self.theme is None:
            return
        size = max(7, round(self.plot_font.pixelSize() * 0.7)) if self.plot_font else 9
        colours = self._colours()
        edge = pg.mkPen(QColor(self.theme.foreground), width=0.6)
        brushes = [pg.mkBrush(c) for c in colours]
        q, k = self.proj.queries, self.proj.keys
        self.queries.setData(x=q[:, 0], y=q[:, 1], symbol="o", size=size, brush=brushes, pen=edge)
        self.keys.setData(
            x=k[:, 0], y=k[:, 1], symbol="t", size=size * 1.2, brush=brushes, pen=edge
        )
        self.origin.setData(x=[0], y=[0], symbol="+", size=size, pen=edge, brush=None)
        self._draw_arrow(q, k)
        span = np.vstack([q, k, np.zeros((1, 2))])
        lo, hi = span.min(axis=0), span.max(axis=0)
        pad = 0.12 * max(float((hi - lo).max()), 1e-9)
        # The legend sits top right: room above the points for it.
        self.setXRange(lo[0] - pad, hi[0] + pad, padding=0)
        self.setYRange(lo[1] - pad, hi[1] + 3.5 * pad, padding=0)
        self._name_points(q, k)  # after the range: the names are placed in pixels

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
        every point)."""
        for item in self.names:
            self.removeItem(item)
        self.names = []
        if len(self.tokens) > NAMED_POINTS or self.plot_font is None:
            return
        font = self.plot_font
        metrics = QFontMetricsF(font)
        vb = self.getPlotItem().vb
        placed: list[QRectF] = []
        # The selected query and the key it reads most are named first: they tell why.
        order = [("q", self.query), ("k", self.top)]
        order += [(kind, j) for kind in ("q", "k") for j in range(len(self.tokens))]
        done = set()
        for kind, j in order:
            if j is None or (kind, j) in done or not 0 <= j < len(self.tokens):
                continue
            done.add((kind, j))
            token, (x, y) = self.tokens[j], (q if kind == "q" else k)[j]
            at = vb.mapViewToScene(QPointF(float(x), float(y)))
            w, h = metrics.horizontalAdvance(token) + 8, metrics.height() + 4
            box = QRectF(at.x() + 0.15 * w, at.y() - h / 2, w, h)
            if any(box.intersects(other) for other in placed):
                continue
            placed.append(box)
            item = pg.TextItem(token, color=QColor(self.theme.foreground), anchor=(-0.15, 0.5))
            item.setFont(font)
            item.setPos(float(x), float(y))
            self.addItem(item)
            self.names.append(item)

    def _renamed(self, *_args) -> None:
        # A new size or range moves the points apart or together: place the names again.
        if self.proj is not None and self.theme is not None:
            self._name_points(self.proj.queries, self.proj.keys)

    def point_at(self, x: float, y: float) -> tuple[str, int] | None:
        """``("query" | "key", row)`` of the point nearest view point (x, y) within
        :data:`HOVER_REACH` of the view's width, else None."""
        if self.proj is None:
            return None
        best, found = np.inf, None
        for kind, pts in (("query", self.proj.queries), ("key", self.proj.keys)):
            if not pts.shape[0]:
                continue
            dist = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
            j = int(np.argmin(dist))
            if dist[j] < best:
                best, found = float(dist[j]), (kind, j)
        (x0, x1), _ = self.getPlotItem().vb.viewRange()
        return found if best <= HOVER_REACH * (x1 - x0) else None

    def hover_text(self, kind: str, row: int, score: float | None) -> str:
        """What the status bar says of point ``row`` of ``kind``: its token, position and
        exact coordinates (and a key's q·k with the selected query)."""
        pts = self.proj.queries if kind == "query" else self.proj.keys
        x, y = pts[row]
        token = self.tokens[row] if row < len(self.tokens) else str(row)
        if kind == "query":
            return fill(
                self.tr("query of “%1” (position %2): (%3, %4)"), token, row, fmt(x, 4), fmt(y, 4)
            )
        return fill(
            self.tr("key of “%1” (position %2): (%3, %4); q·k with the selected query %5"),
            token,
            row,
            fmt(x, 4),
            fmt(y, 4),
            fmt(score, 4) if score is not None else "—",
        )
