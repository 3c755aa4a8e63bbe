"""The heatmap panel: state changes reach the pixels, exact values on hover, masks as masks."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.ui.heatmap_look import auto_levels
from attnviz.ui.panels.heatmap import HeatmapPanel
from attnviz.ui.theme import theme_named
from tests.ui.workspaces import workspace_of

BANCO_A = [["0.45", "0.45", "0.11"], ["0.07", "0.31", "0.62"], ["0.14", "0.28", "0.58"]]


@pytest.fixture
def panel(qtbot, workspace):
    p = HeatmapPanel(workspace)
    qtbot.addWidget(p)
    p.apply_theme(theme_named("light"))
    p.resize(700, 520)
    p.show()
    qtbot.waitExposed(p)
    return p


def _grab(panel) -> QImage:
    panel.view.viewport().repaint()
    return panel.view.grab().toImage()


def _cell_point(panel, row: float, col: float) -> QPoint:
    """Viewport pixel of a point given in cell units (col + 0.5 is a column's centre)."""
    scene = panel.view.plot.vb.mapViewToScene(QPointF(col, row))
    return panel.view.mapFromScene(scene)


def _pixel(image: QImage, panel, row: float, col: float) -> QColor:
    p = _cell_point(panel, row, col)
    ratio = image.devicePixelRatio()
    return QColor(image.pixel(round(p.x() * ratio), round(p.y() * ratio)))


def test_a_state_change_reaches_the_pixels(panel, state):
    before = _grab(panel)
    state.scale = False  # scores grow by √2: the weights sharpen
    after = _grab(panel)
    assert before.size() == after.size()
    assert before != after
    # The model's matrix in the view's float32 image buffer (the hover reads the exact one).
    shown = panel.view.image.image
    assert shown.dtype == np.float32 and shown.flags.c_contiguous
    np.testing.assert_array_equal(
        shown, panel.resolver.results.attention.weights.astype(np.float32)
    )


def test_banco_shows_a_with_the_documents_numbers(qtbot, panel, state):
    assert state.matrix == "weights"
    assert panel.view.cell_texts() == BANCO_A
    texts = []
    panel.sigHoverText.connect(texts.append)
    # A real mouse move over cell (banco, praça): the status text carries the exact value.
    QTest.mouseMove(panel.view.viewport(), _cell_point(panel, 1.5, 2.5))
    qtbot.waitUntil(lambda: bool(texts) and "praça" in texts[-1])
    assert "“banco”" in texts[-1] and texts[-1].startswith("A")
    value = float(texts[-1].rsplit("=", 1)[1])
    assert round(value, 2) == 0.62
    # The tooltip adds the row's entropy on a second line.
    tip = panel.view.image.toolTip().split("\n")
    assert tip[0] == texts[-1] and "entropy" in tip[1]
    row = [panel.view.value_at(1, c) for c in range(3)]
    assert [round(v, 2) for v in row] == [0.07, 0.31, 0.62]
    assert panel.hover_text(0, 0).endswith(f"= {panel.view.value_at(0, 0):.6g}")


def test_scores_and_output_match_the_chapter(panel, state):
    state.matrix = "scores"
    assert panel.view.cell_texts()[1] == ["0.71", "2.12", "2.83"]
    assert "S = QKᵀ / √d_k" in panel.caption.text()
    state.matrix = "output"
    assert panel.view.cell_texts() == [["0.78", "0.22"], ["0.85", "0.15"], ["0.86", "0.14"]]
    assert "dimension “seat”" in panel.hover_text(1, 0)
    assert panel.view.tick_labels("bottom") == ["seat", "money"]


MASKS = {
    "causal": {"causal": True},
    "padding": {"padding": (True, True, False)},
    "document": {"segments": (0, 0, 1)},
    "sliding window": {"window": 1},
    "window both ways": {"window": 1, "window_causal": False},
}


@pytest.mark.parametrize("kind", list(MASKS))
def test_every_mask_kind_renders_masked_cells_apart_from_zero(panel, state, resolver, kind):
    # Fixed levels: a weight of 0 gets the colormap's lowest colour, which a masked cell
    # must never get.
    state.update(levels_auto=False, levels=(0.0, 1.0), **MASKS[kind])
    allowed = resolver.results.mask
    assert allowed is not None and not allowed.all()
    image = _grab(panel)
    zero_color = QColor.fromRgbF(*panel.view._cmap.map(0.0, mode="float")[:3])
    for r in range(3):
        for c in range(3):
            # Near a corner of the cell, away from the number printed at its centre.
            color = _pixel(image, panel, r + 0.2, c + 0.2)
            neutral = max(color.red(), color.green(), color.blue()) - min(
                color.red(), color.green(), color.blue()
            )
            if allowed[r, c]:
                assert neutral > 20, (r, c, color.name())  # a colormap colour
            else:
                assert neutral < 8, (r, c, color.name())  # grey fill or hatch
                assert color.name() != zero_color.name()
                assert math.isnan(panel.view.value_at(r, c))
                assert "masked" in panel.hover_text(r, c)
                assert resolver.results.attention.weights[r, c] == 0.0
    texts = panel.view.cell_texts()
    assert all(texts[r][c] == "" for r, c in zip(*np.nonzero(~allowed), strict=True))


def test_restyle_keys_restyle_without_new_image_data(panel, state, monkeypatch):
    calls = []
    original = panel.view.set_matrix
    monkeypatch.setattr(
        panel.view, "set_matrix", lambda *a, **k: (calls.append(1), original(*a, **k))
    )
    lut_before = panel.view.image.lut
    state.colormap = "cividis"
    assert not np.array_equal(panel.view.image.lut, lut_before)
    state.update(levels_auto=False, levels=(0.0, 0.5))
    assert tuple(panel.view.image.levels) == (0.0, 0.5)
    assert tuple(panel.view.colorbar.values) == (0.0, 0.5)
    assert calls == []
    state.temperature = 2.0  # a recompute key: new image data
    assert calls == [1]


def test_diverging_map_is_centred_on_zero_for_scores(panel, state):
    state.update(matrix="scores", colormap="diverging", scale=False, q=[[-2, 0], [1, 2], [0, 1]])
    lo, hi = panel.view.image.levels
    assert lo == -hi and hi == pytest.approx(np.abs(panel.view.image.image).max(), rel=1e-6)
    assert auto_levels(np.array([[1.0, 2.0]]), None, diverging=False) == (1.0, 2.0)


def test_click_selects_the_query_and_cell(qtbot, panel, state):
    QTest.mouseClick(
        panel.view.viewport(), Qt.MouseButton.LeftButton, pos=_cell_point(panel, 2.5, 0.5)
    )
    assert state.selected_query == 2 and state.selected_cell == (2, 0)
    box = panel.view.row_box
    assert box.isVisible() and box.rect().top() == 2
    panel.view.setFocus()
    QTest.keyClick(panel.view, Qt.Key.Key_Up)
    assert state.selected_query == 1 and state.selected_cell is None


def test_labels_follow_tokens_and_thin_out(panel, state, monkeypatch):
    tokens = tuple(f"token{i}" for i in range(300))
    state.update(tokens=tokens, head="content", d_k=16)
    labels = panel.view.tick_labels("left")
    assert 1 < len(labels) < 300 and labels[0] == "token0"
    left = panel.view.plot.getAxis("left")
    calls = []
    monkeypatch.setattr(left, "setTicks", lambda *a: calls.append(a))
    state.temperature = 1.5  # no token change: the labels are left alone
    assert calls == []
    assert panel.view.cell_texts() == []  # too many cells for printed numbers


def test_preset_change_updates_labels_and_image(panel, state):
    state.update(**preset_state_values(load_preset("gato")))
    assert panel.view.tick_labels("left") == list(state.tokens)
    assert panel.view.image.image.shape == (state.n, state.n)


def test_key_labels_turn_upright_when_they_do_not_fit_side_by_side(panel, state):
    assert not panel.view.cols_axis.rotated  # three short tokens fit
    state.update(**preset_state_values(load_preset("long-sentence")))
    assert panel.view.cols_axis.rotated
    labels = panel.view.tick_labels("bottom")
    step = round(state.n / len(labels))
    assert step <= 2 and labels == list(state.tokens[::step])  # side by side: one in four
    heights = {p.getAxis("bottom").height() for p in (panel.view.plot, panel.view.entropy_plot)}
    assert len(heights) == 1  # the entropy rows stay level with the matrix rows


def test_the_update_benchmark_is_registered_and_reports_its_numbers(qapp):
    from attnviz.benchmarks import figures
    from attnviz.benchmarks.ui import heatmap_update

    assert {"heatmap_update", "startup", "export_4k"} <= set(figures())
    result = heatmap_update(quick=True, n=64, d_k=16)
    assert result["n"] == 64 and result["d_k"] == 16 and result["steps"] == 60
    assert 0 < result["median_ms"] <= result["p95_ms"]
    assert result["model_median_ms"] > 0 and result["view_median_ms"] > 0


def test_the_cached_frame_follows_theme_labels_and_size(qtbot, panel, state):
    """The live view keeps its axes and background as pixmaps: a theme switch, new token
    labels and a resize must still reach the screen, not the stale pixmaps."""
    light = theme_named("light")
    dark = theme_named("dark")
    corner = QPoint(2, 2)  # background, outside every item
    image = _grab(panel)
    assert QColor(image.pixel(corner)) == QColor(light.background)
    panel.apply_theme(dark)
    image = _grab(panel)
    assert QColor(image.pixel(corner)) == QColor(dark.background)
    before = _grab(panel)
    state.tokens = tuple("W" * 8 for _ in state.tokens)
    after = _grab(panel)
    p = _cell_point(panel, 1.5, 0.0)
    strip = lambda img: [img.pixel(x, p.y()) for x in range(0, max(1, p.x() - 2))]  # noqa: E731
    assert strip(before) != strip(after)  # the row labels were redrawn
    panel.resize(560, 430)
    qtbot.wait(20)
    resized = _grab(panel)
    assert resized.size() != after.size()
    assert QColor(resized.pixel(corner)) == QColor(dark.background)


def test_an_svg_of_the_live_panel_has_vector_labels(qapp, tmp_path):
    """The live panel keeps its frame as pixmaps; an SVG of it must still get vectors."""
    from attnviz.model.workspace import Workspace
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import write_panel_svg

    svg = write_panel_svg(Workspace(), "heatmap", tmp_path / "h.svg", ExportSpec(960, 540))
    text = svg.read_text(encoding="utf-8")
    # The token labels and the axis titles are text; only the matrix and the colour bar
    # are pictures.
    labels = re.findall(r">([^<>]+)</text>", text)
    assert {"banco", "praça"} <= {t.strip() for t in labels}, labels[:40]
    assert text.count("<image") <= 2


def test_the_spotlight_of_a_pooled_long_matrix_is_in_token_cells(qapp):
    """A 2,048-token matrix drawn as an 8 × 8 grid: a lesson's row 1,500 is still row 1,500."""
    from attnviz.ui.widgets.heatmap_view import HeatmapView

    view = HeatmapView()
    view.set_matrix(np.full((8, 8), 1 / 2048), (0.0, 1.0), extent=(2048, 2048))
    view.set_spotlight("row", (1500,))
    assert view.spotlight_rect() == QRectF(0, 1500, 2048, 1)
    view.set_spotlight("cell", (2047, 3))
    assert view.spotlight_rect() == QRectF(3, 2047, 1, 1)
    assert view.spot_dim.path().boundingRect() == QRectF(0, 0, 2048, 2048)


def test_the_caption_writes_the_score_terms_that_are_on(qtbot, workspace, state):
    from attnviz.ui.panels.heatmap import HeatmapPanel

    panel = HeatmapPanel(workspace)
    qtbot.addWidget(panel)
    state.update(matrix="scores", softcap=30.0, alibi=0.5)
    assert "30·tanh(QKᵀ / √d_k / 30) − 0.5·|i − j|" in panel.caption.text()
    state.update(tuning=0.1, tuning_floor=4)
    text = panel.caption.text()
    assert "30·tanh(τᵢ·(QKᵀ / √d_k) / 30) − 0.5·|i − j|" in text
    assert "τᵢ = 1 + 0.1·ln(⌊(i + 1)/4⌋ + 1)" in text
    state.update(tuning=0.0)
    state.update(matrix="weights", sink=True, sink_logit=1.5)
    assert "e^1.5" in panel.caption.text() and "less than 1" in panel.caption.text()
    state.update(sink=False)
    assert "probability distribution" in panel.caption.text()


def test_a_long_sentence_by_row_blocks_hovers_exact_values(qtbot, monkeypatch):
    """Past DENSE_LIMIT the hovered cell and its row's entropy are computed from q and k."""
    import numpy as np

    from attnviz.model.resolve import Resolver
    from attnviz.model.resolve import attention as resolve_attention
    from attnviz.model.topics.attention import AttentionState
    from attnviz.ui.panels.controls import ControlsPanel
    from attnviz.ui.panels.heatmap import HeatmapPanel

    def make():
        return AttentionState(
            tokens=tuple(f"t{i}" for i in range(1200)), head="content", d_k=8, causal=True
        )

    dense = Resolver(make()).results
    monkeypatch.setattr(resolve_attention, "DENSE_LIMIT", 1000)
    workspace = workspace_of(make())
    panel = HeatmapPanel(workspace)
    qtbot.addWidget(panel)
    assert panel._exact_value("weights", 900, 850) == pytest.approx(
        dense.matrix("weights")[900, 850], rel=1e-12
    )
    assert np.isnan(panel._exact_value("weights", 850, 900))  # masked
    assert f"{dense.attention.entropy[900]:.3f}" in panel.entropy_text(900)
    controls = ControlsPanel(workspace)
    qtbot.addWidget(controls)
    controls.show()
    seen = dense.attention.scores[dense.mask]
    assert controls.spread_value() == pytest.approx(float(np.std(seen)), rel=1e-9)


# --- one paint per step, buffers kept --------------------------------------------------------
def _count_paints(qapp, panel, steps, *, repaint: bool) -> list[int]:
    """Viewport paints per ``state.update`` of ``steps`` (each a dict of fields), the
    events run to the end; with ``repaint`` the step is painted at once first, as the
    bench does."""
    from PySide6.QtCore import QEvent, QObject

    viewport = panel.view.viewport()

    class Counter(QObject):
        paints = 0

        def eventFilter(self, obj, event) -> bool:
            if obj is viewport and event.type() == QEvent.Type.Paint:
                self.paints += 1
            return False

    counter = Counter()
    viewport.installEventFilter(counter)
    counts = []
    try:
        for fields in steps:
            qapp.processEvents()
            counter.paints = 0
            panel.state.update(**fields)
            if repaint:
                viewport.repaint()
            for _ in range(5):  # a queued update would have posted its paint by now
                qapp.processEvents()
            counts.append(counter.paints)
    finally:
        viewport.removeEventFilter(counter)
    return counts


@pytest.mark.parametrize("repaint", [False, True], ids=["event loop", "repaint first"])
@pytest.mark.parametrize("matrix", ["weights", "scores"])
def test_a_slider_step_paints_the_view_once(qapp, panel, state, repaint, matrix):
    """Temperature steps on a 40-token content head: the image, the entropy strip, the
    colour bar's levels (auto for S) and the caption change, and the view paints once."""
    state.update(tokens=tuple(f"t{i}" for i in range(40)), head="content", d_k=16, matrix=matrix)
    steps = [{"temperature": 1.0 + 0.05 * (i + 1)} for i in range(8)]
    counts = _count_paints(qapp, panel, steps, repaint=repaint)
    assert counts[2:] == [1] * (len(steps) - 2), counts
    assert max(counts) == 1, counts


def test_the_image_buffer_is_kept_while_the_shape_stays(qapp, panel, state, resolver):
    state.update(tokens=tuple(f"t{i}" for i in range(6)), head="content", d_k=8)
    first = panel.view.image.image
    address = first.__array_interface__["data"][0]
    state.temperature = 1.7
    second = panel.view.image.image
    assert second.__array_interface__["data"][0] == address
    assert second.dtype == np.float32 and second.flags.c_contiguous
    weights = resolver.results.attention.weights
    np.testing.assert_array_equal(second, weights.astype(np.float32))
    # The pixels are the new values in the colour map, at the levels 0 to 1.
    image = _grab(panel)
    lut = panel.view.image.lut
    for r, c in ((0, 0), (2, 4), (5, 1)):
        index = min(int(weights[r, c] * lut.shape[0]), lut.shape[0] - 1)
        color = _pixel(image, panel, r + 0.2, c + 0.2)  # away from the printed number
        drawn = (color.red(), color.green(), color.blue())
        assert drawn == tuple(int(x) for x in lut[index][:3]), (r, c, weights[r, c])
    state.tokens = tuple(f"t{i}" for i in range(7))  # a new shape, a new buffer
    assert panel.view.image.image.shape == (7, 7)
    assert panel.view.image.image.__array_interface__["data"][0] != address


def test_the_colour_table_is_computed_once_per_colour_map(panel, state, monkeypatch):
    from attnviz.ui.widgets import premultiplied_image

    computed = []
    real = premultiplied_image.argb_palette
    monkeypatch.setattr(
        premultiplied_image, "argb_palette", lambda lut: (computed.append(1), real(lut))[1]
    )
    lut = panel.view.image.lut
    for t in (1.2, 1.4, 0.9):
        state.temperature = t
        _grab(panel)
    assert computed == [] and panel.view.image.lut is lut  # steps reuse the table
    state.update(levels_auto=False, levels=(0.1, 0.8))  # levels restyle with the same table
    _grab(panel)
    assert computed == [] and panel.view.image.lut is lut
    state.colormap = "cividis"
    _grab(panel)
    assert len(computed) == 1
    state.colormap = "viridis"  # seen before: its table is kept
    _grab(panel)
    state.colormap = "cividis"
    _grab(panel)
    assert len(computed) == 1


def test_values_past_float32_draw_at_the_ends_of_the_table(qapp):
    """The image buffer is float32: a score past its range is ±inf there (the ends of the
    colour table), without a warning; the hover keeps the exact value."""
    import warnings

    from attnviz.ui.widgets.heatmap_view import HeatmapView

    view = HeatmapView()
    values = np.array([[1e300, -1e300], [0.25, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        view.set_matrix(values, (0.0, 1.0))
        view.image.render()
    assert view.image.image.dtype == np.float32
    assert np.isposinf(view.image.image[0, 0]) and np.isneginf(view.image.image[0, 1])
    assert view.value_at(0, 0) == 1e300


def test_a_refresh_of_every_field_fits_the_labels_and_numbers_once(panel, state, monkeypatch):
    # Tokens, matrix, colour map, levels and selection all handled: one fit, at the end.
    fits = []
    view = panel.view
    plain = type(view).refresh_ticks
    monkeypatch.setattr(view, "refresh_ticks", lambda *a: (fits.append(1), plain(view)))
    panel._refresh(panel._fields)
    assert fits == [1]
    assert view.tick_labels("left") == list(state.tokens) and view.cell_texts() == BANCO_A


def test_held_fit_fits_once_as_the_block_ends(panel, state):
    view = panel.view
    with view.held_fit():
        view.set_labels(("a", "b", "c"), ("x", "y", "z"))
        assert view.tick_labels("left") != ["a", "b", "c"]  # not yet
        with view.held_fit():
            view.set_colormap(view._cmap)
        assert view._fit_due  # an inner block leaves it to the outer one
    assert not view._fit_due and view.tick_labels("left") == ["a", "b", "c"]


def test_building_a_figure_inverts_no_singular_transform(qapp, state, resolver, monkeypatch):
    # A cell's number shown before the view had a size inverted a singular transform (a
    # LAPACK SVD per cell on the GUI thread); the numbers are shown once there is room.
    import pyqtgraph.functions as fn

    from attnviz.ui.heatmap_look import configure_view
    from attnviz.ui.widgets.heatmap_view import HeatmapView

    singular = []
    plain = fn._pinv_fallback
    monkeypatch.setattr(fn, "_pinv_fallback", lambda tr: (singular.append(tr), plain(tr))[1])
    view = HeatmapView()
    configure_view(view, state, resolver.results)
    view.resize(500, 400)
    view.show()
    QTest.qWaitForWindowExposed(view)
    view.grab()
    assert view.cell_values_shown() and view.cell_texts() == BANCO_A
    assert not singular
    view.close()
