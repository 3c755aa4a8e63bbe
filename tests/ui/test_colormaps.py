"""The colour maps and colour bar built for start-up draw what pyqtgraph's own would."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from pyqtgraph.graphicsItems.ColorBarItem import ColorBarItem

from attnviz.ui.widgets.colormaps import ColorBar, colormap

SHIPPED = sorted(p.stem for p in (Path(pg.__file__).parent / "colors" / "maps").glob("*.csv"))


def test_pyqtgraph_ships_the_maps_the_app_names():
    assert {"viridis", "CET-D1"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_a_map_read_here_is_pyqtgraphs_to_the_bit(name):
    ours, theirs = colormap(name), pg.colormap.get(name, skipCache=True)
    assert ours.name == theirs.name and ours.mapping_mode == theirs.mapping_mode
    np.testing.assert_array_equal(ours.pos, theirs.pos)
    assert ours.color.dtype == theirs.color.dtype
    np.testing.assert_array_equal(ours.color, theirs.color)  # the same floats, not near
    for n in (2, 256, 1000):
        np.testing.assert_array_equal(ours.getLookupTable(nPts=n), theirs.getLookupTable(nPts=n))
    assert colormap(name) is ours  # read once


def test_a_map_this_reader_does_not_know_comes_from_pyqtgraph(monkeypatch, tmp_path):
    import attnviz.ui.widgets.colormaps as module

    monkeypatch.setattr(module, "_MAPS", tmp_path)  # no file here: pyqtgraph's own lookup
    module.colormap.cache_clear()
    try:
        got = module.colormap("viridis")
        np.testing.assert_array_equal(got.color, pg.colormap.get("viridis").color)
    finally:
        module.colormap.cache_clear()


def test_the_colour_bar_has_no_menu_and_colours_its_image_as_pyqtgraphs(qtbot, monkeypatch):
    viewbox_module = importlib.import_module("pyqtgraph.graphicsItems.ViewBox.ViewBox")

    menus = []
    real_menu = viewbox_module.ViewBoxMenu
    monkeypatch.setattr(viewbox_module, "ViewBoxMenu", lambda vb: menus.append(vb) or real_menu(vb))
    data = np.array([[0.0, 1.0], [2.0, 0.5]], dtype=np.float32)
    bars, images = [], []
    for cls, cmap in ((ColorBar, colormap("viridis")), (ColorBarItem, pg.colormap.get("viridis"))):
        bar = cls(values=(0.0, 2.0), colorMap=cmap, interactive=False, colorMapMenu=False)
        image = pg.ImageItem(data)
        bar.setImageItem(image)
        bars.append(bar)
        images.append(image)
    ours, theirs = bars
    assert isinstance(ours, ColorBarItem) and ours.vb.menu is None
    assert menus == [theirs.vb]  # pyqtgraph's builds a menu it then switches off; ours not
    assert not ours.menuEnabled() and not theirs.menuEnabled()
    assert tuple(images[0].getLevels()) == tuple(images[1].getLevels()) == (0.0, 2.0)
    assert images[0].lut is not None
    np.testing.assert_array_equal(images[0].lut, images[1].lut)
    strip = ours.bar.pixmap().toImage()
    assert not strip.isNull() and strip == theirs.bar.pixmap().toImage()
