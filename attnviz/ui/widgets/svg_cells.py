"""A small image of cells drawn stretched: pixels on screen, shapes in an SVG.

A heatmap keeps its matrix as an image of one pixel per cell (5 × 5 for five tokens) and
lets the painter stretch it over the plot. On screen and in a PNG that is exact (Qt scales
without smoothing). Written into an SVG it became a 5-pixel picture stretched to 1,500
points, which every viewer blurs (the cells run into each other), and printers with it.
:func:`draw_cells` writes the cells of an SVG as what they are:

- up to :data:`VECTOR_CELLS` cells, rectangles (runs of equal cells in a row, grouped
  by colour) in the cells' colours: sharp at any zoom and in print, and the numbers
  printed over them stay text;
- past that, the image scaled (without smoothing) to the pixels it covers in the
  exported file, so that a viewer shows it 1:1: every cell a sharp block.

The threshold is set by file size. A rectangle costs about 100 bytes of SVG at worst
(every cell its own colour, as in a matrix of random weights): 64 × 64 cells make
0.41 MB, where the picture of a 1920 × 1080 export makes 0.07 MB, and past that the
rectangles grow with n² (1.1 MB at 128 × 128) while the picture stays near 0.1 MB. So
up to 64 × 64 = 4,096 cells (every matrix that prints its numbers, every sentence of a
slide) an SVG stays under half a megabyte of shapes; a larger one embeds the picture.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPaintEngine, QPen
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsPixmapItem

#: Cells drawn as rectangles in an SVG; an image of more is embedded at its pixel size.
VECTOR_CELLS = 4096
#: The text key of an embedded picture of cells (a PNG tEXt chunk in the SVG).
CELLS_KEY = "attnviz-cells"
#: Width in pixels of the outline that hides the seams between shapes.
SEAM_PX = 2.0


def is_svg(painter) -> bool:
    """True when ``painter`` writes an SVG (QSvgGenerator)."""
    engine = painter.paintEngine()
    return engine is not None and engine.type() == QPaintEngine.Type.SVG


def _pixel_ratio(painter) -> float:
    """Pixels of the exported file per unit of the SVG's coordinates (its size over its
    view box: 2 for a 3840-pixel SVG of a 1920-unit figure)."""
    # The engine's device: a widget rendered into the SVG is the painter's device then.
    device = painter.paintEngine().paintDevice()
    if not isinstance(device, QSvgGenerator):
        return 1.0
    size, box = device.size(), device.viewBoxF()
    if box.width() > 0 and size.width() > 0:
        return size.width() / box.width()
    return 1.0


def _argb(image: QImage) -> np.ndarray:
    """The image's pixels as 0xAARRGGBB words (not premultiplied), rows × columns."""
    plain = image.convertToFormat(QImage.Format.Format_ARGB32)
    line = plain.bytesPerLine() // 4
    words = np.frombuffer(plain.constBits(), np.uint32, count=plain.height() * line)
    return words.reshape(plain.height(), line)[:, : plain.width()].copy()


def _draw_rectangles(painter, target: QRectF, image: QImage) -> None:
    words = _argb(image)
    rows, cols = words.shape
    # The rectangles of each colour (runs of it along a row) in whole cells, drawn together:
    # the SVG gets one group per colour (a colour map has 256) of short <rect> elements.
    runs: dict[int, list[QRectF]] = {}
    for r in range(rows):
        row = words[r]
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        ends = np.r_[starts[1:], cols]
        for c0, c1 in zip(starts.tolist(), ends.tolist(), strict=True):
            word = int(row[c0])
            if word >> 24:  # a transparent cell (a NaN) is left clear, as on screen
                runs.setdefault(word, []).append(QRectF(c0, r, c1 - c0, 1))
    painter.save()
    painter.translate(target.topLeft())
    painter.scale(target.width() / cols, target.height() / rows)
    for word, rects in runs.items():
        color = QColor.fromRgba(word)
        # Shapes whose edges only meet leave a light seam in anti-aliasing viewers (each
        # covers the edge's pixels in part): a 2-pixel outline in the cell's own colour
        # covers the seam (the colour drawn later takes the pixel).
        pen = QPen(color, SEAM_PX)
        pen.setCosmetic(True)
        pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
        painter.setPen(pen)
        painter.setBrush(color)
        painter.drawRects(rects)
    painter.restore()


def _draw_full_size(painter, target: QRectF, image: QImage) -> None:
    covered = painter.deviceTransform().mapRect(target)
    ratio = _pixel_ratio(painter)
    width = max(1, min(round(covered.width() * ratio), 16384))
    height = max(1, min(round(covered.height() * ratio), 16384))
    if (width, height) != (image.width(), image.height()):
        image = image.scaled(
            width,
            height,
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.FastTransformation,  # every cell a block of one colour
        )
    else:
        image = image.copy()
    # Said in the PNG itself: a figure of data cells, not a picture of a widget's pixels.
    image.setText(CELLS_KEY, "cells at the file's pixel size")
    painter.drawImage(target, image)


def draw_cells(painter, target: QRectF, image: QImage, *, total_cells: int | None = None) -> None:
    """Draw ``image`` (one pixel per cell) stretched over ``target``: as the painter does
    on screen and in a PNG; into an SVG as rectangles (up to :data:`VECTOR_CELLS` cells)
    or as the image at the pixel size it covers in the file (see the module notes).
    ``total_cells``: the cells of the whole figure it is part of (a grid of tiles), which
    the threshold counts instead of the image's own."""
    if image.isNull() or target.isEmpty():
        return
    cells = image.width() * image.height() if total_cells is None else total_cells
    if not is_svg(painter):
        painter.drawImage(target, image)
    elif cells <= VECTOR_CELLS:
        _draw_rectangles(painter, target, image)
    else:
        _draw_full_size(painter, target, image)


_EMPTY_GROUP = re.compile(r"<g\b[^<>]*>\s*</g>\s*")


def drop_empty_groups(path) -> None:
    """Remove the empty groups Qt's SVG writer leaves (one for every change of pen, brush
    or transform that draws nothing: five sixths of a 16 × 16 heatmap's file)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    while True:
        shorter = _EMPTY_GROUP.sub("", text)
        if shorter == text:
            break
        text = shorter
    path.write_text(text, encoding="utf-8")


class CellPixmapItem(QGraphicsPixmapItem):
    """A pixmap item (a colour bar's 1 × 256 gradient) whose SVG is shapes, as
    :func:`draw_cells` draws them."""

    def paint(self, painter, option, widget=None) -> None:
        if not is_svg(painter):
            super().paint(painter, option, widget)
            return
        pixmap = self.pixmap()
        if not pixmap.isNull():
            target = QRectF(self.offset(), pixmap.size().toSizeF())
            draw_cells(painter, target, pixmap.toImage())
