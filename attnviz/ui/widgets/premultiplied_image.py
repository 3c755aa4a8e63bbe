"""An ``ImageItem`` that colours a matrix straight into the painter's native format.

pyqtgraph renders a one-channel image through a 256-entry lookup table into an
``Indexed8`` QImage. Qt cannot scale an indexed image directly: every paint converts it
to 32-bit first, about 3.5 ms for 512×512 at projector sizes, more than the rest of the
heatmap's repaint together. Here a float matrix with a colour table is mapped once per
render, in a few passes over reused buffers, to premultiplied ARGB (the raster engine's
own format), so each paint is a plain scaled blit (≈0.3 ms). Anything else (a callable
table, colour images, downsampling) renders as pyqtgraph does, then is converted once.

In an SVG the cells are shapes, not the image stretched (:mod:`attnviz.ui.widgets.
svg_cells`). The colour table of a colour map and its palette of ``QRgb`` words are
computed once per colour map and kept (a colour map or levels change restyles without
computing them again); the float and index buffers are kept while the image keeps its
shape.
"""

from __future__ import annotations

import numpy as np
from pyqtgraph import colormap
from pyqtgraph import functions as fn
from pyqtgraph.graphicsItems.ImageItem import ImageItem
from PySide6.QtCore import QRectF
from PySide6.QtGui import QImage

from attnviz.ui.widgets.svg_cells import draw_cells, is_svg

_NATIVE = QImage.Format.Format_ARGB32_Premultiplied
#: Palettes kept for tables that came without a colour map (``setLookupTable``).
_KEPT_TABLES = 16


def argb_palette(lut: np.ndarray) -> list[int]:
    """A colour table (N × 3 or N × 4, uint8 RGB[A]) as N ``QRgb`` words (0xAARRGGBB)."""
    lut = np.asarray(lut, dtype=np.uint32)
    alpha = lut[:, 3] if lut.shape[1] == 4 else np.full(lut.shape[0], 255, np.uint32)
    words = (alpha << 24) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]
    return [int(w) for w in words]


def color_indices(values: np.ndarray, levels, colors: int, out_float, out_index) -> None:
    """Write into ``out_index`` each value's entry in a table of ``colors`` colours.

    The mapping is pyqtgraph's: ``(v − low) · colors / (high − low)``, clipped to the
    table and truncated; an empty range maps as if it were 1 wide.
    """
    low, high = float(levels[0]), float(levels[1])
    span = (high - low) or 1.0
    # Beyond float32's range a value becomes ±inf and clips to an end of the table; a
    # NaN gets some index here and is made transparent by the caller.
    with np.errstate(over="ignore", invalid="ignore"):
        if low == 0.0:  # weights on fixed levels 0 to 1: one pass fewer
            np.multiply(values, colors / span, out=out_float, casting="unsafe")
        else:
            np.subtract(values, low, out=out_float, casting="unsafe")
            np.multiply(out_float, colors / span, out=out_float)
        np.clip(out_float, 0, colors - 1, out=out_float)
        np.copyto(out_index, out_float, casting="unsafe")


class PremultipliedImageItem(ImageItem):
    """``ImageItem`` whose rendered QImage is always premultiplied ARGB32."""

    def __init__(self, *args, **kwargs) -> None:
        # Colour map id → (the map, its 256-entry table, the table's palette); table id →
        # (the table, its palette). A few entries: the maps a view has shown.
        self._tables: dict[int, tuple] = {}
        self._palettes: dict[int, tuple] = {}
        self._buffers: tuple | None = None  # float and index scratch for one shape
        super().__init__(*args, **kwargs)

    def setColorMap(self, colorMap) -> None:
        """As ``ImageItem.setColorMap``, but the table of a map seen before is reused:
        pyqtgraph samples the map anew on every call (the colour bar calls it on every
        restyle)."""
        if isinstance(colorMap, str):
            colorMap = colormap.get(colorMap)
        entry = self._tables.get(id(colorMap))
        if entry is None or entry[0] is not colorMap:
            lut = colorMap.getLookupTable(nPts=256)
            entry = (colorMap, lut, argb_palette(lut))
            self._tables[id(colorMap)] = entry
            self._palettes[id(lut)] = (lut, entry[2])
        self._colorMap = colorMap
        self.setLookupTable(entry[1])

    def _palette_for(self, lut: np.ndarray) -> list[int]:
        """The ``QRgb`` words of ``lut``, computed the first time it is drawn."""
        entry = self._palettes.get(id(lut))
        if entry is None or entry[0] is not lut:
            if len(self._palettes) >= _KEPT_TABLES:  # tables set from outside, one by one
                self._palettes.clear()
            entry = (lut, argb_palette(lut))
            self._palettes[id(lut)] = entry
        return entry[1]

    def _fast_table(self) -> np.ndarray | None:
        """The colour table when this image can take the direct path, else None."""
        image, lut, levels = self.image, self.lut, self.levels
        if image is None or image.ndim != 2 or image.dtype.kind != "f" or image.size == 0:
            return None
        if self.autoDownsample or self.axisOrder != "row-major" or levels is None:
            return None
        if not isinstance(lut, np.ndarray) or lut.dtype != np.uint8 or lut.ndim != 2:
            return None
        if lut.shape[1] not in (3, 4) or not 0 < lut.shape[0] <= 256:
            return None
        if np.ndim(levels) != 1:
            return None
        return lut

    def render(self) -> None:
        """Colour the matrix into a premultiplied ARGB32 QImage (see the module notes)."""
        lut = self._fast_table()
        if lut is None:
            with np.errstate(over="ignore", invalid="ignore"):  # ±inf and NaN, as above
                super().render()
            if self.qimage is not None and self.qimage.format() != _NATIVE:
                self.qimage = self.qimage.convertToFormat(_NATIVE)
            return
        palette = self._palette_for(lut)
        image = self.image
        if self._buffers is None or self._buffers[0].shape != image.shape:
            self._buffers = (np.empty(image.shape, np.float32), np.empty(image.shape, np.uint8))
        floats, index = self._buffers
        color_indices(image, self.levels, len(palette), floats, index)
        # Qt's own conversion looks the colours up several times faster than np.take (and
        # than drawing into a kept ARGB image: ≈0.1 ms against 0.3 ms at 512 × 512).
        indexed = fn.ndarray_to_qimage(index, QImage.Format.Format_Indexed8)
        indexed.setColorTable(palette)
        qimage = indexed.convertToFormat(_NATIVE)
        if self._imageHasNans is None:
            self._imageHasNans = bool(np.isnan(image.min()))
        if self._imageHasNans:
            argb = np.frombuffer(qimage.bits(), np.uint32).reshape(image.shape[0], -1)
            argb[:, : image.shape[1]][np.isnan(image)] = 0  # transparent, as pyqtgraph does
        self.qimage = qimage
        self._renderRequired = False
        self._unrenderable = False

    def paint(self, painter, *args) -> None:
        """As ``ImageItem.paint``; into an SVG, the cells as shapes (or the image at the
        file's pixel size past :data:`~attnviz.ui.widgets.svg_cells.VECTOR_CELLS`)."""
        if not is_svg(painter) or self.image is None:
            super().paint(painter, *args)
            return
        if self._renderRequired:
            self.render()
            if self._unrenderable or self.qimage is None:
                return
        shape = self.image.shape[:2]
        if self.axisOrder == "row-major":
            shape = shape[::-1]
        draw_cells(painter, QRectF(0, 0, *shape), self.qimage)
