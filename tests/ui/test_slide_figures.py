"""Figures whole on the slides the issue names: the hand-worked deck's X·W diagram, the
sqrt-dk deck's saturation plot with room for its ticks and legend, the tiles in the
slide's type."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from attnviz.model.lessons import lesson_by_id
from attnviz.model.workspace import Workspace
from attnviz.ui.panels import panel_ids
from attnviz.ui.slides import staged_step
from attnviz.ui.stage import STAGE_LARGE_FONTS
from attnviz.ui.text_overlap import check_texts
from attnviz.ui.widgets.head_blocks import BlocksView


def _slide(lesson_id: str, index: int):
    lesson = lesson_by_id(lesson_id, panel_ids())
    return staged_step(Workspace(), lesson, index, 1280, 720, font_scale=STAGE_LARGE_FONTS)


def test_the_xw_diagram_is_whole_on_the_hand_worked_slide(qtbot):
    with _slide("hand-worked", 10) as stage:
        blocks = stage.panels["heads"].blocks
        # Room for every name and operator in the panel's own type, none painted smaller.
        assert blocks.width() >= blocks._text_row_width(blocks.font())
        assert blocks._fitting_font().pixelSize() == blocks.font().pixelSize()
        found = check_texts(stage.slots["heads"], kinds=("cut", "overlap"))
        assert not [str(f) for f in found if "head_blocks" in str(f)]


def test_blocks_too_narrow_paint_smaller_type_rather_than_cut(qtbot):
    view = BlocksView()
    qtbot.addWidget(view)
    font = view.font()
    font.setPixelSize(30)
    view.setFont(font)
    view.set_layout(5, 2, 2, 1, 2, 0)
    need = view._text_row_width(view.font())
    assert view.minimumSizeHint().width() >= need  # a splitter gives it this much
    view.resize(round(need * 0.7), 400)
    smaller = view._fitting_font().pixelSize()
    assert smaller < 30 and view._text_row_width(view._fitting_font()) <= view.width() + 1


def test_the_saturation_plot_takes_the_width_under_j(qtbot):
    with _slide("sqrt-dk", 1) as stage:
        gradient = stage.panels["gradient"]
        plot, j = gradient.plot, gradient.jacobian
        assert plot.isVisibleTo(gradient) and not gradient.chain_shown
        assert plot.geometry().top() >= j.geometry().bottom()  # under J, not beside it
        assert plot.width() >= 0.9 * gradient.figure.width()
        assert gradient.font().pixelSize() == stage.font().pixelSize()  # no smaller type
    with _slide("backward", 0) as stage:  # with the chain: beside J, as in the window
        gradient = stage.panels["gradient"]
        assert gradient.chain_shown
        assert gradient.rows[2].indexOf(gradient.plot) >= 0


def test_the_tiles_are_drawn_in_the_slides_type(qtbot):
    with _slide("n-squared", 1) as stage:
        tiles = stage.panels["tiles"]
        px = tiles.font().pixelSize()
        assert px >= 0.7 * stage.font().pixelSize()
        assert tiles.matrices.font().pixelSize() == px  # they kept 9 points before
        assert tiles.memory.font().pixelSize() == px


def test_the_first_row_label_stands_inside_the_heatmap(qtbot):
    """28 tokens on a slide: the labels are taller than the rows, and the first ("the")
    stood half above the view; the heatmap now leaves it room."""
    with _slide("matrix", 0) as stage:
        view = stage.panels["heatmap"].view
        assert view.ci.layout.getContentsMargins()[1] > 4
        found = check_texts(stage.slots["heatmap"])
        assert not found, [str(f) for f in found]


def test_the_colour_bars_top_value_stands_inside_the_heatmap(qtbot):
    """At the stage's own type the colour bar's "1.0" sat on the view's top edge, cut in
    half, on 31 slides of eight decks."""
    lesson = lesson_by_id("sqrt-dk", panel_ids())
    with staged_step(Workspace(), lesson, 0, 1280, 720) as stage:
        found = check_texts(stage.slots["heatmap"])
        assert not found, [str(f) for f in found]


def test_a_long_bar_label_takes_smaller_type_rather_than_run_off(qtbot):
    from PySide6.QtWidgets import QApplication

    from attnviz.ui import language

    app = QApplication.instance()
    language.install_translations(app, "pt_BR")  # "guardados pelos blocos: 88" ran off
    try:
        with _slide("n-squared", 1) as stage:
            found = check_texts(stage.slots["tiles"])
            assert not found, [str(f) for f in found]
    finally:
        language.install_translations(app, "en")


def test_vector_labels_keep_off_the_arrows(qtbot):
    """The hand-worked deck's first slide wrote "k·praça" and "q·praça" across the arrow
    to q·banco: a place a line runs through is now as bad as one on another head."""
    import numpy as np

    from attnviz.ui.widgets.vector_plot import _crossed

    rects = np.array([[0, 0, 10, 10, 0], [20, 0, 30, 10, 0]], dtype=float)
    lines = np.array([[-5, 5, 15, 5], [25, -5, 25, 20], [40, 0, 50, 10]], dtype=float)
    assert _crossed(rects, lines).tolist() == [1.0, 1.0]
    with _slide("hand-worked", 0) as stage:
        found = check_texts(stage.slots["editor"], kinds=("curve", "overlap"))
        assert not found, [str(f) for f in found]


def test_segments_enter_rectangles_as_clipping_says():
    import numpy as np

    from attnviz.ui.widgets.segments import segments_enter

    rects = [[0, 0, 10, 10], [20, 0, 30, 10]]
    segments = [
        [-5, 5, 15, 5],  # across the first
        [25, -5, 25, 20],  # down through the second
        [12, 12, 18, 18],  # between them
        [5, 5, 5, 5],  # a point inside the first
        [np.nan, 0, 1, 1],  # not finite: nowhere
    ]
    assert segments_enter(rects, segments).tolist() == [
        [True, False, False, True, False],
        [False, True, False, False, False],
    ]


def test_the_steps_table_settles_with_every_column_in_view(qtbot, monkeypatch):
    """sqrt-dk's third slide at Large Fonts: the table fitted its columns to a viewport
    whose edge the fit itself moved (the row labels' width), refitted on the viewport's
    resize, and swung between two layouts for ever, the third key cut in one of them."""
    from attnviz.ui.widgets.steps_table import StepsTable

    fits = []
    plain = StepsTable._fit
    monkeypatch.setattr(StepsTable, "_fit", lambda self: fits.append(self) or plain(self))
    with _slide("sqrt-dk", 2) as stage:
        table = stage.panels["steps"].table
        count = sum(t is table for t in fits)
        QApplication.processEvents()
        QApplication.processEvents()
        assert sum(t is table for t in fits) == count  # settled: no fit after the last
        assert table.horizontalHeader().length() <= table.viewport().width()
        found = check_texts(stage.slots["steps"])
        assert not found, [str(f) for f in found]
