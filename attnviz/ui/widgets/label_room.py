"""Room for a chart's labels: inside the plot, clear of its curves and of one another.

Every label first tries the places beside its point (:data:`ANCHORS`, the chart's usual
one first: :meth:`LabelRoom.beside`). A label with none clear takes, once the others are
placed, the nearest free box of the plot (:meth:`LabelRoom.away`), and the chart draws a
leader from the point to it: the lines of the reach chart fan out from one corner, so at
T = 1000 its marks at 64 tokens sit a few pixels apart. Boxes are tested in the scene's
pixels against the curves in view coordinates: between two points a curve is straight, so
over a box's width it takes every height between its lowest and its highest, which are
those of its points inside and of the box's two edges.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF

__all__ = ["ANCHORS", "LabelRoom", "crosses", "nearest_point"]

#: Places beside the point: above right, below left, below right, above left, each a little
#: off the point so that the line running into it does not touch the text's box.
ANCHORS = ((0.0, 1.2), (1.0, -0.3), (0.0, -0.3), (1.0, 1.2))


def _span(curve: tuple[np.ndarray, np.ndarray], x0: float, x1: float):
    """``(lowest, highest)`` of the line through ``curve``'s points (``x`` increasing)
    over ``[x0, x1]``, or None where it has no point there."""
    x, y = curve
    if x.size == 0 or x1 < x[0] or x0 > x[-1]:
        return None
    edges = np.interp([max(x0, x[0]), min(x1, x[-1])], x, y)
    inside = y[np.searchsorted(x, x0, "left") : np.searchsorted(x, x1, "right")]
    if inside.size:
        return min(edges.min(), inside.min()), max(edges.max(), inside.max())
    return edges.min(), edges.max()


def crosses(curve: tuple[np.ndarray, np.ndarray], box: QRectF) -> bool:
    """True when the line through ``curve``'s points (``x`` increasing, finite; view
    coordinates) enters ``box`` (view coordinates, top < bottom)."""
    span = _span(curve, box.left(), box.right())
    return span is not None and bool(span[1] >= box.top() and span[0] <= box.bottom())


class LabelRoom:
    """The free room of one view box: its area, the boxes taken so far and its curves.

    ``curves`` are ``(x, y)`` arrays in view coordinates (a log axis: its log10); ``taken``
    are scene rectangles (a legend) that no label may cover.
    """

    def __init__(self, vb, curves, taken=()) -> None:
        self.vb = vb
        self.area = vb.sceneBoundingRect()
        self.taken: list[QRectF] = list(taken)
        self.curves = [(np.asarray(x, float), np.asarray(y, float)) for x, y in curves]
        # The scene → view map is a scale and a shift on each axis (no rotation).
        a, b = vb.mapSceneToView(QPointF(0, 0)), vb.mapSceneToView(QPointF(1, 1))
        self._origin = (a.x(), a.y())
        self._scale = (b.x() - a.x(), b.y() - a.y())

    def _to_view(self, rect: QRectF) -> QRectF:
        (ox, oy), (sx, sy) = self._origin, self._scale
        xs = sorted((ox + sx * rect.left(), ox + sx * rect.right()))
        ys = sorted((oy + sy * rect.top(), oy + sy * rect.bottom()))
        return QRectF(QPointF(xs[0], ys[0]), QPointF(xs[1], ys[1]))

    def clear(self, rect: QRectF) -> bool:
        """True when the scene box ``rect`` lies inside the plot, on no box taken and on
        no curve."""
        if not self.area.contains(rect) or any(rect.intersects(t) for t in self.taken):
            return False
        box = self._to_view(rect)
        return not any(crosses(c, box) for c in self.curves)

    def beside(self, item, point: QPointF, first, anchors=ANCHORS) -> bool:
        """Put the text item ``item`` (a ``pg.TextItem``) of the view point ``point``
        beside it where it is clear (``first``, then the other ``anchors``) and take its
        box; False (its box not taken) where no place beside it is clear."""
        for anchor in (first, *(a for a in anchors if a != first)):
            rect = _anchored(item, point, anchor)
            if self.clear(rect):
                self.taken.append(rect)
                return True
        return False

    def away(self, item, point: QPointF, first) -> bool:
        """Put ``item`` (see :meth:`beside`) in the free box of the plot nearest its point
        (True: it then wants a leader to its point); where none is free, beside its point
        at ``first`` (False). Its box is taken either way."""
        size = _anchored(item, point, (0.0, 0.0)).size()
        spot = self._nearest_free(self.vb.mapViewToScene(point), size.width(), size.height())
        if spot is None:
            self.taken.append(_anchored(item, point, first))
            return False
        item.setAnchor((0.0, 0.0))
        item.setPos(self.vb.mapSceneToView(spot.topLeft()))
        item.updateTransform(force=True)
        self.taken.append(item.sceneBoundingRect())
        return True

    def _nearest_free(self, at: QPointF, w: float, h: float) -> QRectF | None:
        """The free ``w × h`` scene box nearest ``at`` on a grid over the plot (every
        6 pixels down, 12 across), or None. Every box of the grid is judged at once: a
        column of boxes shares its width, so each curve's lowest and highest over it are
        found once per column."""
        area = self.area
        if w > area.width() or h > area.height():
            return None
        lefts = np.linspace(area.left(), area.right() - w, max(2, math.ceil(area.width() / 12)))
        tops = np.linspace(area.top(), area.bottom() - h, max(2, math.ceil(area.height() / 6)))
        free = np.ones((tops.size, lefts.size), bool)
        for t in self.taken:
            free &= ~(
                (lefts[None, :] < t.right())
                & (lefts[None, :] + w > t.left())
                & (tops[:, None] < t.bottom())
                & (tops[:, None] + h > t.top())
            )
        (ox, oy), (sx, sy) = self._origin, self._scale
        y_a, y_b = oy + sy * tops, oy + sy * (tops + h)
        rows_low, rows_high = np.minimum(y_a, y_b), np.maximum(y_a, y_b)
        for column, left in enumerate(lefts):
            x_a, x_b = ox + sx * left, ox + sx * (left + w)
            for curve in self.curves:
                span = _span(curve, min(x_a, x_b), max(x_a, x_b))
                if span is not None:
                    free[:, column] &= ~((span[1] >= rows_low) & (span[0] <= rows_high))
        if not free.any():
            return None
        # Distance from the point to each box (0 when inside it); the nearest free one.
        dx = np.maximum(np.maximum(lefts - at.x(), at.x() - (lefts + w)), 0.0)
        dy = np.maximum(np.maximum(tops - at.y(), at.y() - (tops + h)), 0.0)
        distance = np.where(free, np.hypot(dy[:, None], dx[None, :]), np.inf)
        row, column = np.unravel_index(int(np.argmin(distance)), distance.shape)
        return QRectF(float(lefts[column]), float(tops[row]), w, h)


def _anchored(item, point, anchor) -> QRectF:
    """``item``'s scene box at ``point`` anchored at ``anchor`` (its transform brought up
    to date: the view may have moved since it was last painted)."""
    item.setPos(point)
    item.setAnchor(anchor)
    item.updateTransform(force=True)
    return item.sceneBoundingRect()


def nearest_point(rect: QRectF, at: QPointF) -> QPointF:
    """The point of ``rect`` nearest ``at``: where a leader from ``at`` meets the box."""
    return QPointF(
        min(max(at.x(), rect.left()), rect.right()), min(max(at.y(), rect.top()), rect.bottom())
    )
