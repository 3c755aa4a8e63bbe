"""The items a :class:`~attnviz.ui.widgets.heatmap_view.HeatmapView` draws besides its
image: the hatch over masked cells and the outline of the per-row entropy strip."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPaintEngine, QPainterPath, QTransform
from PySide6.QtWidgets import QGraphicsPathItem

from attnviz.ui.theme import LIGHT


class MaskOverlay(QGraphicsPathItem):
    """Masked cells: an opaque grey fill with a hatch on top, so no colour can mean 0."""

    def __init__(self) -> None:
        super().__init__()
        self._fill = QBrush(QColor(LIGHT.masked_fill))
        self._hatch = QBrush(QColor(LIGHT.masked_hatch), Qt.BrushStyle.BDiagPattern)

    def set_colors(self, fill: str, hatch: str, scale: float = 1.0) -> None:
        """Fill and hatch colours; ``scale`` widens the hatch's lines and gaps (exports)."""
        self._fill = QBrush(QColor(fill))
        self._hatch = QBrush(QColor(hatch), Qt.BrushStyle.BDiagPattern)
        if scale != 1.0:
            # A pattern brush is drawn in device pixels: thin and dense on a 4K image.
            self._hatch.setTransform(QTransform.fromScale(scale, scale))
        self.update()

    def set_allowed(self, allowed: np.ndarray | None, scale=(1.0, 1.0)) -> None:
        """Cover every cell where ``allowed`` is False (one rectangle per run in a row);
        ``scale`` (rows, columns) stretches a pooled grid over the whole matrix."""
        path = QPainterPath()
        if allowed is not None and not allowed.all():
            blocked = np.zeros((allowed.shape[0], allowed.shape[1] + 2), np.int8)
            blocked[:, 1:-1] = ~allowed
            edges = np.diff(blocked, axis=1)
            rows, starts = np.nonzero(edges == 1)
            _, ends = np.nonzero(edges == -1)
            sy, sx = scale
            for r, c0, c1 in zip(rows.tolist(), starts.tolist(), ends.tolist(), strict=True):
                path.addRect(QRectF(c0 * sx, r * sy, (c1 - c0) * sx, sy))
        self.setPath(path)

    def paint(self, painter, option, widget=None) -> None:
        path = self.path()
        if path.isEmpty():
            return  # no mask: an SVG would get a path without data, which readers refuse
        painter.fillPath(path, self._fill)
        # SVG has no device-pixel pattern brush (it becomes a blurred mask in viewers): the
        # grey fill alone marks masked cells there.
        if painter.paintEngine().type() != QPaintEngine.Type.SVG:
            painter.fillPath(path, self._hatch)


def entropy_strip_path(entropy: np.ndarray, rows: int) -> QPainterPath:
    """The bars of the entropy strip: one per entry of ``entropy`` (a row of the matrix, or
    a block of rows of a pooled grid), stacked over ``rows`` matrix rows, length = entropy."""
    height = rows / entropy.shape[0]
    rows = entropy.shape[0]
    if rows <= 64:
        # One rectangle per row (per block of rows for a pooled grid), gaps between
        # them while rows are tall enough for gaps not to alias into stripes.
        gap = 0.12
        y0 = np.arange(rows, dtype=np.float64) * height + gap
        y1 = y0 + height - 2 * gap
        zero = np.zeros(rows)
        x = np.stack([zero, entropy, entropy, zero, zero], axis=1).ravel()
        y = np.stack([y0, y0, y1, y1, y0], axis=1).ravel()
        connect = np.ones((rows, 5), dtype=np.int32)
        connect[:, -1] = 0
        return pg.arrayToQPath(x, y, connect=connect.ravel())
    # Bars that touch: one staircase polygon along their ends fills the same area
    # with a fifth of the points (a third of the time at 512 rows).
    edges = np.arange(rows + 1, dtype=np.float64) * height
    x = np.concatenate(([0.0], np.repeat(entropy, 2), [0.0]))
    y = np.concatenate(([0.0], np.repeat(edges, 2)[1:-1], [edges[-1]]))
    return pg.arrayToQPath(x, y, connect="all")
