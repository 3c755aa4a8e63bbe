"""Figures cropped to what they draw (issue 39, item 7).

Before: ``figure("steps")`` at 1280×720 was 64 % empty (its tables and sentences fill the
top third), the lessons panel 56 %. A wide empty band along an edge is now cut down to the
figure's own margin; a figure that fills its canvas keeps its exact size.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import attnviz
from attnviz.cli import main as cli_main
from attnviz.model.panels import panel_ids
from attnviz.notebook.crop import EMPTY_SHARE, _bands, crop_svg, drawn_box


def _words(png: bytes) -> np.ndarray:
    from PySide6.QtGui import QImage

    from attnviz.notebook.render import _words as words

    image = QImage.fromData(png)
    assert not image.isNull()
    return words(image)


# --- the box, on pictures whose answer is known ---------------------------------------------
def test_an_empty_band_is_cut_to_the_margin_of_the_other_edges():
    pixels = np.zeros((100, 200), np.uint32)
    pixels[3:40, 5:196] = 7  # margins 5 left, 3 top, 4 right; 60 rows empty below
    assert drawn_box(pixels) == (0, 0, 200, 43)  # the bottom keeps 3, the smallest margin


def test_a_filled_picture_and_narrow_bands_keep_the_exact_size():
    pixels = np.zeros((100, 200), np.uint32)
    pixels[5:95, 8:190] = 1  # every band under a tenth
    assert drawn_box(pixels) == (0, 0, 200, 100)
    assert drawn_box(np.zeros((10, 10), np.uint32)) == (0, 0, 10, 10)  # nothing drawn


def test_bands_on_several_edges():
    pixels = np.full((100, 100), 9, np.uint32)
    pixels[40:60, 30:35] = 2  # a small mark: every band is wide, the margin 1 % of 100
    assert drawn_box(pixels) == (29, 39, 7, 22)


def test_an_svg_is_cut_to_the_same_box(tmp_path):
    svg = tmp_path / "x.svg"
    svg.write_text(
        '<?xml version="1.0"?>\n<svg width="338.667mm" height="190.5mm"\n'
        ' viewBox="0 0 1920 1080"\n xmlns="http://www.w3.org/2000/svg">\n<g/></svg>\n',
        encoding="utf-8",
    )
    assert crop_svg(svg, (0, 0, 1280, 360), (1280, 720))
    text = svg.read_text(encoding="utf-8")
    assert 'width="338.667mm" height="95.25mm"' in text and 'viewBox="0 0 1920 540"' in text
    assert text.endswith("<g/></svg>\n")
    other = tmp_path / "y.svg"
    other.write_text("<svg><g/></svg>", encoding="utf-8")
    assert not crop_svg(other, (0, 0, 10, 10), (20, 20))
    assert other.read_text(encoding="utf-8") == "<svg><g/></svg>"


# --- the panels -----------------------------------------------------------------------------
def test_steps_is_the_clis_picture_without_its_empty_two_thirds(tmp_path):
    from PySide6.QtGui import QImage

    out = tmp_path / "cli.png"
    argv = ["export", "--panel", "steps", "--preset", "banco", "--out", str(out)]
    argv += ["--width", "1280", "--height", "720"]
    assert cli_main(argv) == 0
    whole = QImage(str(out))
    assert (whole.width(), whole.height()) == (1280, 720)
    png = attnviz.figure("steps", preset="banco")._repr_png_()
    pixels = _words(png)
    height, width = pixels.shape
    assert width == 1280 and height < 0.45 * 720  # the tables and sentences: about 270 rows
    assert np.array_equal(pixels, _words(_png(whole.copy(0, 0, width, height))))
    # What was cut was empty: every row below is the background.
    below = _words(_png(whole.copy(0, height, width, 720 - height)))
    assert (below == below[-1, -1]).all()


def _png(image) -> bytes:
    from attnviz.notebook.render import encoded_png

    return encoded_png(image)


@pytest.mark.parametrize("panel", panel_ids())
def test_no_figure_has_a_wide_empty_band(panel):
    png = attnviz.figure(panel, width=960, height=540)._repr_png_()
    pixels = _words(png)
    height, width = pixels.shape
    bands = _bands(pixels)
    assert bands is not None, "the figure draws nothing"
    limits = (width, height, width, height)
    wide = [b for b, limit in zip(bands, limits, strict=True) if b > EMPTY_SHARE * limit]
    assert not wide, f"{panel}: empty bands {bands} (left, top, right, bottom) on {width}×{height}"


def test_the_svg_of_steps_is_cropped_as_its_png(tmp_path):
    fig = attnviz.figure("steps", preset="banco")
    height = _words(fig._repr_png_()).shape[0]
    svg = fig.save(tmp_path / "steps.svg").read_text(encoding="utf-8")
    view = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert view, svg[:300]
    w, h = (float(v) for v in view.groups())
    assert h / w == pytest.approx(height / 1280, abs=1 / 1280)
