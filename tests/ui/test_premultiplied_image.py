"""The heatmap's image item colours a matrix as pyqtgraph would, in the native format."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pyqtgraph.graphicsItems.ImageItem import ImageItem
from PySide6.QtGui import QImage

from attnviz.ui.widgets.premultiplied_image import (
    PremultipliedImageItem,
    argb_palette,
    color_indices,
)


def _rgba(qimage: QImage) -> np.ndarray:
    image = qimage.convertToFormat(QImage.Format.Format_RGBA8888)
    return (
        np.frombuffer(image.constBits(), np.uint8)
        .reshape(image.height(), image.bytesPerLine() // 4, 4)[:, : image.width()]
        .copy()
    )


def _rendered(item, values, levels, lut) -> np.ndarray:
    item.setLookupTable(lut)
    item.setImage(values, autoLevels=False, levels=levels)
    item.render()
    return _rgba(item.qimage)


@pytest.mark.parametrize("levels", [(0.0, 1.0), (-3.0, 2.5), (0.2, 0.2)])
def test_colours_match_pyqtgraph(qapp, levels):
    rng = np.random.default_rng(3)
    values = rng.normal(0.3, 1.5, (37, 53))
    values[0, :4] = [levels[0], levels[1], -1e300, 1e300]  # the ends and far beyond
    lut = pg.colormap.get("viridis").getLookupTable(nPts=256)
    ours = _rendered(PremultipliedImageItem(axisOrder="row-major"), values, levels, lut)
    with np.errstate(over="ignore"):
        single = values.astype(np.float32)  # what the heatmap drew before: ±1e300 → ±inf
    reference = _rendered(ImageItem(axisOrder="row-major"), single, levels, lut)
    assert ours.shape == reference.shape == (37, 53, 4)
    # float32 against float64 rounding may move a value sitting on a boundary one entry.
    step = np.abs(ours.astype(int) - reference.astype(int)).max(axis=-1)
    assert (step == 0).mean() > 0.99
    assert step.max() <= np.abs(np.diff(lut.astype(int), axis=0)).max()


def test_native_format_and_transparent_nan(qapp):
    item = PremultipliedImageItem(axisOrder="row-major")
    values = np.linspace(0, 1, 12).reshape(3, 4)
    values[1, 2] = np.nan
    rgba = _rendered(item, values, (0.0, 1.0), pg.colormap.get("magma").getLookupTable(nPts=256))
    assert item.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    assert rgba[1, 2, 3] == 0
    assert (np.delete(rgba.reshape(-1, 4), 6, axis=0)[:, 3] == 255).all()


def test_other_images_render_as_pyqtgraph_does_then_convert(qapp):
    item = PremultipliedImageItem(axisOrder="row-major")
    rgb = np.zeros((2, 3, 3), np.uint8)
    rgb[0, 1] = (10, 200, 30)
    item.setImage(rgb, levels=(0, 255))
    item.render()
    assert item.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    assert tuple(_rgba(item.qimage)[0, 1]) == (10, 200, 30, 255)


def test_index_mapping_and_palette():
    values = np.array([[-1.0, 0.0, 0.5, 0.999, 1.0, 7.0]])
    floats, index = np.empty(values.shape, np.float32), np.empty(values.shape, np.uint8)
    color_indices(values, (0.0, 1.0), 256, floats, index)
    assert index.tolist() == [[0, 0, 128, 255, 255, 255]]
    color_indices(values, (0.5, 0.5), 4, floats, index)  # an empty range counts as 1 wide
    assert index.tolist() == [[0, 0, 0, 1, 2, 3]]
    lut = np.array([[1, 2, 3], [255, 0, 128]], np.uint8)
    assert argb_palette(lut) == [0xFF010203, 0xFFFF0080]
    assert argb_palette(np.array([[10, 20, 30, 40]], np.uint8)) == [0x280A141E]


@settings(max_examples=60, deadline=None)
@given(
    values=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=9),
        elements=st.floats(allow_nan=True, allow_infinity=True, width=64),
    ),
    low=st.floats(allow_nan=True, allow_infinity=True),
    high=st.floats(allow_nan=True, allow_infinity=True),
    colors=st.sampled_from([256, 512]),
)
def test_any_matrix_and_levels_render_without_error(qapp, values, low, high, colors):
    """Hostile values (NaN, ±inf, 1e308) and levels (empty, reversed, NaN) still give a
    picture of the matrix's shape, with NaN cells transparent, on either path."""
    item = PremultipliedImageItem(axisOrder="row-major")
    lut = pg.colormap.get("viridis").getLookupTable(nPts=colors)
    rgba = _rendered(item, values, (low, high), lut)
    # 256 colours: the heatmap's own path; more: pyqtgraph's, then converted.
    assert (item._fast_table() is not None) == (colors == 256)
    assert rgba.shape == (*values.shape, 4)
    assert (rgba[np.isnan(values)][:, 3] == 0).all()
    assert (rgba[~np.isnan(values)][:, 3] == 255).all()
