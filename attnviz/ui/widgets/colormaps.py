"""pyqtgraph's colour maps and colour bar, without the work it does for what attnviz never
shows (both are built before the window's first paint).

``pg.colormap.get(name)`` parses the map's file line by line and passes every colour
through ``mkColor`` (a QColor each): about 12 ms a map on a slow machine. :func:`colormap`
reads the same file, rounds the same way and stores the same floats (a test compares them
with pyqtgraph's for every shipped map), so what is drawn does not change.

``pg.ColorBarItem`` builds its view's context menu (two forms of widgets, ≈ 5 ms) and then
switches it off; :class:`ColorBar` never builds it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from pyqtgraph.graphicsItems.ColorBarItem import ColorBarItem

from attnviz.ui.widgets.svg_cells import CellPixmapItem

_MAPS = Path(pg.__file__).parent / "colors" / "maps"


def _read_colors(path: Path) -> np.ndarray | None:
    """The file's colours as 0–255 integers (n × 3 or n × 4), parsed as pyqtgraph parses
    them (``;`` starts a comment; CSV floats are rounded as ``int(255 * c + 0.5)``), or
    None for a line this reader does not know (pyqtgraph reads the file then)."""
    csv = path.suffix.lower() != ".hex"
    rows = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line[0] == ";":
            continue
        text = line.split(";", 1)[0]
        if csv:
            parts = text.split(",")
            if len(parts) < 3:
                continue
            rows.append([int(255 * float(c) + 0.5) for c in parts])
        else:
            return None  # hex maps are few and not used at start-up: pyqtgraph reads them
    if not rows or len({len(r) for r in rows}) != 1 or len(rows[0]) not in (3, 4):
        return None
    return np.array(rows, dtype=np.int64)


@cache
def colormap(name: str) -> pg.ColorMap:
    """The pyqtgraph colour map ``name`` (as ``pg.colormap.get(name)`` gives it)."""
    path = _MAPS / f"{name}.csv"
    ints = _read_colors(path) if path.is_file() else None
    if ints is None or ints.min() < 0 or ints.max() > 255:
        return pg.colormap.get(name)
    cmap = pg.ColorMap(None, [])  # filled below: no QColor per entry
    rgba = np.full((len(ints), 4), 255, dtype=np.int64)
    rgba[:, : ints.shape[1]] = ints
    # QColor keeps 16-bit channels and getRgbF divides in single precision: c·257 / 65535
    # rounded to float32 is c / 255 rounded to float32.
    cmap.color = (rgba.astype(np.float32) / np.float32(255)).astype(np.float64)
    cmap.pos = np.linspace(0.0, 1.0, len(ints))
    cmap.name = name
    return cmap


class _PlotItemWithoutMenu(pg.PlotItem):
    """A PlotItem whose view box gets no context menu (``enableMenu=False``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("enableMenu", False)
        super().__init__(*args, **kwargs)


class ColorBar(ColorBarItem, _PlotItemWithoutMenu):
    """``pg.ColorBarItem`` whose plot is made without the menus it switches off at once,
    and whose gradient is shapes in an SVG (:class:`~attnviz.ui.widgets.svg_cells.
    CellPixmapItem`), not a 1 × 256 image stretched.

    ColorBarItem calls ``super().__init__()`` bare; in this class's method order that call
    reaches :class:`_PlotItemWithoutMenu` first, which asks for no menu.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        plain, self.bar = self.bar, CellPixmapItem()
        self.bar.setShapeMode(plain.shapeMode())
        self.bar.setPixmap(plain.pixmap())
        self.removeItem(plain)
        self.addItem(self.bar)
