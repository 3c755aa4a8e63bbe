"""display.decimals: the documents' precision drawn by the panels, View → Decimals, contrast."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QFont

from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.steps import StepsPanel
from attnviz.ui.widgets import numbers
from attnviz.ui.widgets.contrast import AA, contrast_ratio, dark_ink, ink_for

SQRT_DK_OFF = [0.9816843611112658, 0.017980286383272245, 0.00033535250546204]
SQRT_DK_ON = [0.41922927, 0.32649512, 0.25427561]
_e = np.exp(np.array([1.0, 3.0, 4.0]) / np.sqrt(2))
BANCO = list(_e / _e.sum())  # the chapter's 0.07, 0.31, 0.62


@pytest.fixture(autouse=True)
def automatic():
    numbers.set_display_decimals(0)
    yield
    numbers.set_display_decimals(0)


def test_automatic_keeps_the_chapters_two_decimals_and_never_writes_a_weight_as_zero():
    assert numbers.fmt_row(BANCO) == ["0.07", "0.31", "0.62"]
    assert numbers.fmt_row(SQRT_DK_OFF) == ["0.9817", "0.0180", "0.0003"]
    # Two different weights of a short row are written differently.
    assert numbers.fmt_row([0.4210, 0.4240]) == ["0.421", "0.424"]
    # Equal weights stay equal, and a weight that is exactly 0 is 0.00.
    assert numbers.fmt_row([0.45, 0.45, 0.11]) == ["0.45", "0.45", "0.11"]
    # Short exact values as they are (the lesson's scores 0.5, 0.25, 0), not 0.50, 0.25, 0.00.
    assert numbers.fmt_row([0.5, 0.5, 0.0]) == ["0.5", "0.5", "0"]
    assert numbers.fmt_row([0.5, 0.25, 0.0]) == ["0.5", "0.25", "0"]
    # A value that would read 0 even at six decimals does not widen the others.
    assert numbers.fmt_row([1e-12, 0.5, 0.5]) == ["0.00", "0.50", "0.50"]


def test_a_chosen_number_of_decimals_is_the_least_written():
    numbers.set_display_decimals(3)
    assert numbers.fmt_row(SQRT_DK_ON) == ["0.419", "0.326", "0.254"]
    assert numbers.fmt_row(SQRT_DK_OFF) == ["0.9817", "0.0180", "0.0003"]
    numbers.set_display_decimals(5)
    assert numbers.fmt_row(BANCO) == ["0.07432", "0.30570", "0.61999"]
    with pytest.raises(ValueError):
        numbers.set_display_decimals(1)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.floats(-1e6, 1e6) | st.sampled_from([np.nan, np.inf, -np.inf, 0.0, 3e-7]), max_size=40
    ),
    st.sampled_from([0, 2, 3, 4, 5, 6]),
)
def test_shown_decimals_is_always_a_valid_count(values, base):
    d = numbers.shown_decimals(np.asarray(values, dtype=float), base)
    assert (base or 2) <= d <= 6
    finite = [v for v in values if np.isfinite(v) and abs(v) >= 5e-7]
    assert all(float(numbers.fmt(v, d).replace("\u2212", "-")) != 0 for v in finite)


def test_the_topic_takes_automatic_or_two_to_six_and_nothing_else():
    doc = Document()
    assert doc["display"].decimals == 0
    for bad in (1, 7, -1, 2.5, "3", True, 10**400):
        with pytest.raises(StateError):
            doc["display"].update(decimals=bad)
    assert doc["display"].decimals == 0
    doc.set_field("display.decimals", 4)
    assert doc.snapshot()["display"] == {**Document().snapshot()["display"], "decimals": 4}


def test_presets_carry_the_documents_precision():
    assert document_preset_values("lesson-sqrt-dk")["display"] == {"decimals": 3}
    assert document_preset_values("backward-reference")["display"] == {"decimals": 3}
    assert document_preset_values("banco")["display"] == {"decimals": 0}


def _steps(qtbot, preset: str, **attention):
    workspace = Workspace()
    workspace.document.restore(document_preset_values(preset))
    workspace.state.update(**attention)
    numbers.follow_document(workspace.document)
    panel = StepsPanel.create(workspace)
    qtbot.addWidget(panel)
    return workspace, panel


def test_the_sqrt_dk_preset_draws_the_lessons_numbers(qtbot):
    _ws, panel = _steps(qtbot, "lesson-sqrt-dk")
    assert panel.step_texts()[2] == ["0.419", "0.326", "0.254"]
    _ws, panel = _steps(qtbot, "lesson-sqrt-dk", scale=False)
    assert panel.step_texts()[0] == ["8", "4", "0"]
    assert panel.step_texts()[2] == ["0.9817", "0.0180", "0.0003"]


def test_view_decimals_rewrites_every_panel_and_undoes(window, qtbot):
    heatmap = window.panels["heatmap"]
    steps = window.panels["steps"]
    window.apply_preset("backward-reference")
    assert window.document["display"].decimals == 3
    texts = [t.toPlainText() for t in heatmap.view._cell_texts]
    assert texts[:3] == ["0.226", "0.475", "0.298"]  # the chapter's first row of A
    window.decimals_actions[5].trigger()
    assert window.document["display"].decimals == 5
    rng = np.random.default_rng(0)  # the chapter's reference run: q, k drawn first
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    s = q @ k.T / 2.0
    a = np.exp(s - s.max(1, keepdims=True))
    a /= a.sum(1, keepdims=True)
    assert heatmap.view._cell_texts[0].toPlainText() == f"{a[0, 0]:.5f}"
    assert all(len(t.split(".")[1]) == 5 for t in steps.step_texts()[2])
    assert window.decimals_actions[5].isChecked()
    window.undo.stack.undo()
    assert window.document["display"].decimals == 3
    assert heatmap.view._cell_texts[0].toPlainText() == "0.226"
    assert window.decimals_actions[3].isChecked()
    window.undo.stack.undo()  # the preset and its precision are one step
    assert window.document["display"].decimals == 0
    assert window.state.preset_id != "backward-reference"


def test_black_or_white_ink_always_passes_wcag_aa():
    rng = np.random.default_rng(0)
    colors = rng.random((20000, 3))
    ink = np.where(dark_ink(colors)[:, None], 0.0, 1.0) * np.ones(3)
    assert contrast_ratio(colors, ink).min() >= AA
    # The two colours a lightness threshold got wrong: teal and yellow.
    assert ink_for((0.13, 0.57, 0.55)) == "#000000"
    assert ink_for((0.99, 0.91, 0.14)) == "#000000"
    assert contrast_ratio((1, 1, 1), (0, 0, 0)) == pytest.approx(21.0)


def _cell_contrasts(view) -> list[float]:
    """The contrast of every drawn cell text against its cell as seen (through the veil)."""
    from PySide6.QtCore import QPointF

    scene_view = view.plot.getViewBox()
    image = view.grab().toImage()
    out = []
    for item in view._cell_texts:
        if not item.toPlainText():
            continue
        ink = item.textItem.defaultTextColor()
        pos = scene_view.mapViewToScene(QPointF(item.pos().x() - 0.45, item.pos().y() - 0.45))
        point = view.mapFromScene(pos) if hasattr(view, "mapFromScene") else pos
        pixel = image.pixelColor(int(point.x()), int(point.y()))
        rgb = (pixel.redF(), pixel.greenF(), pixel.blueF())
        out.append(float(contrast_ratio(rgb, (ink.redF(), ink.greenF(), ink.blueF()))))
    return out


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("spot", [None, ("row", (1,))])
def test_every_heatmap_cell_text_reads_at_aa_against_its_cell(qtbot, theme, spot):
    from attnviz.ui.theme import theme_named
    from attnviz.ui.widgets.heatmap_view import HeatmapView

    view = HeatmapView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    font = QFont(view.font())
    font.setPixelSize(20)
    view.set_style(theme_named(theme), font)
    values = np.linspace(0.0, 1.0, 36).reshape(6, 6)  # every colour of the map
    view.set_matrix(values, (0.0, 1.0))
    view.set_labels(list("abcdef"), list("abcdef"))
    if spot:
        view.set_spotlight(*spot)
    view.show()
    qtbot.waitExposed(view)
    ratios = _cell_contrasts(view)
    assert len(ratios) == 36
    assert min(ratios) >= AA


def test_the_heatmap_writes_every_cell_with_the_decimals_the_matrix_needs(qtbot):
    from attnviz.ui.widgets.heatmap_view import HeatmapView

    view = HeatmapView()
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.set_matrix(np.array([[0.037, 0.963], [0.004, 0.996]]), (0.0, 1.0))
    # A 0.004 that must not read 0.00 asks three decimals of every cell, not of its row
    # alone: one heatmap wrote 0.6169 beside 0.18.
    assert view.cell_texts() == [["0.037", "0.963"], ["0.004", "0.996"]]
    numbers.set_display_decimals(4)
    view.set_matrix(np.array([[0.037, 0.963], [0.004, 0.996]]), (0.0, 1.0))
    assert view.cell_texts() == [["0.0370", "0.9630"], ["0.0040", "0.9960"]]


def _decimals(texts) -> set[int]:
    """How many decimals each written number has (a masked cell writes nothing)."""
    return {len(t.partition(".")[2]) for row in texts for t in row if t}


@pytest.mark.parametrize("decimals", [0, 3])
def test_one_decimals_rule_per_heatmap_for_every_preset(qapp, decimals):
    """Every cell of one heatmap, on screen and in a picture, has as many decimals as
    every other (View → Decimals chooses the least)."""
    from attnviz.model.presets import preset_ids
    from attnviz.ui.export import ExportSpec, build_figure

    written = 0
    for pid in preset_ids():
        ws = Workspace()
        ws.document.restore(document_preset_values(pid))
        ws.document["display"].update(decimals=decimals)
        numbers.follow_document(ws.document)
        for matrix in ("scores", "weights"):
            spec = ExportSpec(1920, 1080, matrix=matrix)
            view = build_figure(ws.state, ws.resolver.results, spec)
            try:
                texts = view.cell_texts() if view.cell_values_shown() else []
            finally:
                view.close()
            found = _decimals(texts)
            assert len(found) <= 1, (pid, matrix, texts)
            assert not found or min(found) >= decimals, (pid, matrix, texts)
            written += bool(found)
    assert written >= 10  # the presets of small matrices print their numbers


def test_a_saturated_row_is_not_written_with_six_decimals():
    from attnviz.ui.widgets.numbers import shown_decimals

    # 1e−9 beside 1e−12 would read alike at any decimals a cell holds: the fewest at which
    # no value that is not zero reads 0 (0.000149 → 4), not six.
    row = [0.999851, 0.000149, 1e-9, 1e-12, 3e-15]
    assert shown_decimals(row, 0) == 4
    assert shown_decimals([0.331, 0.342, 0.327], 0) == 3  # told apart as before
    assert shown_decimals([0.5, 0.25, 0.25], 0) == 2


def test_rows_read_alike_exactly_when_two_of_their_distinct_entries_round_alike():
    """The sorted, vectorised check agrees with the plain one (np.unique per row), NaN,
    ±inf and −0 included."""
    from attnviz.ui.widgets.numbers import _rows_apart

    def plain(rows, d):
        for row in rows:
            row = row[np.isfinite(row)]
            if np.unique(np.round(row, d)).size < np.unique(row).size:
                return False
        return True

    rng = np.random.default_rng(7)
    for _ in range(400):
        shape = (int(rng.integers(1, 5)), int(rng.integers(1, 9)))
        rows = [rng.normal(size=shape), np.round(rng.normal(size=shape), 3)]
        rows.append(rng.integers(-3, 3, shape) * 0.1)
        for x in rows:
            x[rng.random(shape) < 0.15] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
            for d in range(2, 7):
                assert _rows_apart(x, d) == plain(x, d), (x, d)


class _Recorder:
    """A stand-in painter that keeps every text drawn (and does nothing else)."""

    def __init__(self, font) -> None:
        self.texts: list[str] = []
        self._font = font

    def font(self):
        return self._font

    def drawText(self, _rect, _flags, text) -> None:
        self.texts.append(text)

    def __getattr__(self, _name):
        return lambda *args, **kwargs: None


def test_the_layer_grid_writes_the_linked_weight_of_every_head_alike(qtbot):
    """Tiles filled by one link's weight are a heatmap too: one rule for all of them."""
    from attnviz.ui.widgets.layer_grid import LayerGrid

    grid = LayerGrid()
    qtbot.addWidget(grid)
    grid.resize(900, 600)
    weights = np.full((2, 2, 2, 2), 0.5)
    weights[:, :, 1, 0] = [[0.6169, 0.18], [0.004, 0.5]]  # link (1, 0) of each head
    grid.set_data(list(weights), ["a", "b"], (0, 0))
    grid.set_link((1, 0), True)
    recorder = _Recorder(grid.font())
    grid._paint(recorder)
    numbers_drawn = [t for t in recorder.texts if t[:1].isdigit() and "." in t]
    # Each tile by itself wrote 0.004 beside 0.62 and 0.18.
    assert sorted(numbers_drawn) == ["0.004", "0.180", "0.500", "0.617"]
