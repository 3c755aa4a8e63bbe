"""The spotlight of a :class:`~attnviz.ui.widgets.heatmap_view.HeatmapView`: one cell, row
or column kept bright while the rest of the matrix is dimmed (a lesson step points at it).

A mixin: the view owns the items (``spot_dim``, a path with the spotlit rectangle as a hole,
and ``spot_box``, its outline), the matrix's extent ``_extent`` and the cell texts, whose
inks follow the veil. The spotlight asked for is kept while the matrix changes shape and
drawn only while it falls inside it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainterPath


class HeatmapSpotlight:
    """Spotlight methods of the heatmap view (see the module's docstring)."""

    def set_spotlight(self, kind: str | None, index=()) -> None:
        """Spotlight a ``"cell"`` (``index`` = (row, column)), a ``"row"`` or a ``"column"``
        (``index`` = (i,)): the rest of the matrix is dimmed. None clears it."""
        self._spotlight = None if kind is None else (kind, tuple(int(i) for i in index))
        self._apply_spotlight()
        if self._cell_texts:
            self._update_cell_texts()  # the inks follow the veil

    def spotlight(self) -> tuple[str, tuple[int, ...]] | None:
        """The spotlight asked for (kept while the matrix changes shape), or None."""
        return self._spotlight

    def spotlight_rect(self) -> QRectF | None:
        """The spotlit region in cells, or None when nothing of it is in the matrix now."""
        if self._spotlight is None:
            return None
        rows, cols = self._extent  # the matrix's cells, also when a pooled grid is drawn
        kind, idx = self._spotlight
        if kind == "row" and 0 <= idx[0] < rows:
            return QRectF(0, idx[0], cols, 1)
        if kind == "column" and 0 <= idx[0] < cols:
            return QRectF(idx[0], 0, 1, rows)
        if kind == "cell" and 0 <= idx[0] < rows and 0 <= idx[1] < cols:
            return QRectF(idx[1], idx[0], 1, 1)
        return None

    def _apply_spotlight(self) -> None:
        rect = self.spotlight_rect()
        self.spot_dim.setVisible(rect is not None)
        self.spot_box.setVisible(rect is not None)
        if rect is None:
            return
        rows, cols = self._extent
        path = QPainterPath()
        path.setFillRule(Qt.FillRule.OddEvenFill)  # the spotlit rectangle is a hole
        path.addRect(QRectF(0, 0, cols, rows))
        path.addRect(rect)
        self.spot_dim.setPath(path)
        self.spot_box.setRect(rect)
