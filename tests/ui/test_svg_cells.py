"""SVG exports draw cells as shapes, or embed a picture at the file's own pixel size.

The heatmap's SVG was its n × n image stretched over the plot (a 5-pixel picture blurred by
every viewer); now its cells are rectangles in their colours, read back here from the XML.
"""

from __future__ import annotations

import base64
import re
import struct
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtGui import QColor, QImage

from attnviz.model.panels import PANELS
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.resolve import Resolver
from attnviz.model.topics.attention import AttentionState
from attnviz.model.workspace import Workspace
from attnviz.ui.export import ExportSpec, build_figure, export
from attnviz.ui.widgets.svg_cells import CELLS_KEY, VECTOR_CELLS

SVG = "{http://www.w3.org/2000/svg}"


def _matrix(text: str) -> tuple[float, ...]:
    m = re.fullmatch(r"matrix\(([^)]*)\)", text or "matrix(1,0,0,1,0,0)")
    return tuple(float(x) for x in m.group(1).split(","))


def _groups(path):
    """``(transform, fill, element)`` of every drawn element: Qt writes each group with
    the whole transform and style of what it holds."""
    root = ET.parse(path).getroot()
    for g in root.iter(f"{SVG}g"):
        for child in g:
            yield _matrix(g.get("transform")), g.get("fill"), child


def _png_size(element) -> tuple[int, int]:
    href = element.get("{http://www.w3.org/1999/xlink}href")
    data = base64.b64decode(href.split("base64,", 1)[1])
    return struct.unpack(">II", data[16:24])


def _cell_colours(path, rows: int, cols: int) -> dict[tuple[int, int], str]:
    """The colour of every matrix cell the SVG's rectangles cover (the groups scaled to
    one cell: a matrix of 1920 × 1080 has cells of hundreds of units)."""
    cells: dict[tuple[int, int], str] = {}
    for (a, _b, _c, d, _e, _f), fill, el in _groups(path):
        if el.tag != f"{SVG}rect" or a < 20 or d < 20:
            continue
        x, y = float(el.get("x")), float(el.get("y"))
        w, h = float(el.get("width")), float(el.get("height"))
        assert h == 1 and x == int(x) and y == int(y) and w == int(w)
        for c in range(int(x), int(x + w)):
            cells[(int(y), c)] = fill
    return cells


@pytest.mark.parametrize("preset", ["banco", "gato"])
def test_the_heatmap_svg_draws_every_cell_as_a_rectangle_of_its_colour(qapp, tmp_path, preset):
    state = AttentionState(**preset_state_values(load_preset(preset)))
    results = Resolver(state).results
    spec = ExportSpec(1920, 1080)
    out = export(state, results, tmp_path / "h.svg", spec)
    root = ET.parse(out).getroot()
    assert root.get("viewBox") == "0 0 1920 1080"
    assert not list(root.iter(f"{SVG}image"))  # no picture at all: the colour bar is shapes too
    view = build_figure(state, results, spec)
    try:
        view.image.render()
        expected = view.image.qimage
        rows, cols = results.matrix(state.matrix).shape
    finally:
        view.close()
    cells = _cell_colours(out, rows, cols)
    assert set(cells) == {(r, c) for r in range(rows) for c in range(cols)}
    for (r, c), fill in cells.items():
        assert fill == QColor(expected.pixel(c, r)).name(), (r, c)
    # The numbers over them are text (one decimals rule: three of them for gato).
    texts = [el.text for _t, _f, el in _groups(out) if el.tag == f"{SVG}text"]
    if preset == "gato":
        assert "0.963" in texts and "0.004" in texts and "0.96" not in texts


def _long_state(n: int) -> AttentionState:
    return AttentionState(tokens=tuple(f"w{i}" for i in range(n)), head="content", d_k=4)


def test_past_the_threshold_the_matrix_is_a_picture_at_the_files_pixel_size(qapp, tmp_path):
    """80 × 80 cells: one picture, as many pixels as the plot covers in the 960 × 540 file
    (half the 1920-unit view box), not 80 × 80 stretched."""
    state = _long_state(80)
    assert 80 * 80 > VECTOR_CELLS >= 64 * 64
    results = Resolver(state).results
    spec = ExportSpec(960, 540)
    out = export(state, results, tmp_path / "long.svg", spec)
    view = build_figure(state, results, spec)
    try:
        plot = view.plot.vb.sceneBoundingRect()
        ratio = spec.width / view.width()
    finally:
        view.close()
    images = [(t, el) for t, _f, el in _groups(out) if el.tag == f"{SVG}image"]
    assert len(images) == 1
    (a, _b, _c, d, _e, _f), image = images[0]
    width, height = _png_size(image)
    assert abs(width - plot.width() * ratio) <= 2 and abs(height - plot.height() * ratio) <= 2
    shown = float(image.get("width")) * abs(a) * ratio, float(image.get("height")) * abs(d) * ratio
    assert abs(shown[0] - width) <= 2 and abs(shown[1] - height) <= 2  # shown 1:1
    href = image.get("{http://www.w3.org/1999/xlink}href")
    picture = QImage.fromData(base64.b64decode(href.split("base64,", 1)[1]))
    assert picture.text(CELLS_KEY)  # a figure of cells, which the notebook's check allows
    # Every cell a block of one colour of the map's 256 (nearest neighbour): a smoothed
    # upscale would blend neighbours into colours of their own.
    colours = {picture.pixel(x, y) for x in range(width) for y in range(height)}
    assert len(colours) <= 256


def _stretched_images(path, ratio: float) -> list[tuple]:
    """Pictures an SVG shows larger than they are (by more than two pixels and 5 %)."""
    out = []
    for (a, _b, _c, d, _e, _f), _fill, el in _groups(path):
        if el.tag != f"{SVG}image":
            continue
        width, height = _png_size(el)
        shown = float(el.get("width")) * abs(a) * ratio, float(el.get("height")) * abs(d) * ratio
        if shown[0] > max(width * 1.05, width + 2) or shown[1] > max(height * 1.05, height + 2):
            out.append((shown, (width, height)))
    return out


@pytest.mark.parametrize("panel", [p.id for p in PANELS if p.vector and p.id != "lessons"])
def test_no_panel_svg_stretches_a_small_picture(qapp, tmp_path, panel):
    """The heatmap's defect in every other figure of cells: the gradient's matrices, the
    heads' and layers' tiles, the embedding strip, the overview map, the colour bars."""
    from attnviz.ui.panel_export import export_panel

    ws = Workspace()
    ws.document.long.update(n=1024)  # the overview's map in a moment
    spec = ExportSpec(960, 540)
    out = export_panel(ws, panel, tmp_path / f"{panel}.svg", spec)
    assert _stretched_images(out, 0.5) == []
    ET.parse(out)  # well-formed after the empty groups are dropped


def test_the_svg_of_a_small_matrix_is_smaller_than_before(qapp, tmp_path):
    """Qt leaves an empty group for each change of pen or brush that draws nothing: they
    made five sixths of a 16 × 16 heatmap's file, and are gone."""
    state = _long_state(16)
    out = export(state, Resolver(state).results, tmp_path / "s.svg", ExportSpec())
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"<g\b[^<>]*>\s*</g>", text)
    assert len(text) < 400_000
