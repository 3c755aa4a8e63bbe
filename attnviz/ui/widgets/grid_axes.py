"""The labels around a layers × heads grid of tiles: head numbers over the columns and
"layer i" beside the rows, each thinned so that none touches the next (the layers grid
and the heads-by-type grid share them)."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter


def paint_grid_labels(
    painter: QPainter,
    metrics: QFontMetricsF,
    geometry: tuple[float, float, float, float],
    layers: int,
    heads: int,
    layer_text: str,
) -> None:
    """Draw head numbers and ``layer_text`` (with ``%1`` for the layer, translated by the
    caller) around a grid whose ``geometry`` is ``(left, top, tile, gap)``."""
    left, top, tile, gap = geometry
    step = max(1, math.ceil(metrics.horizontalAdvance("00") * 1.3 / tile))
    for j in range(0, heads, step):
        painter.drawText(
            QRectF(left + j * tile, 0, tile - gap, top),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
            str(j),
        )
    rstep = max(1, math.ceil(metrics.height() / tile))
    for i in range(0, layers, rstep):
        painter.drawText(
            QRectF(4, top + i * tile, left - 12, tile - gap),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            layer_text.replace("%1", str(i)),
        )
