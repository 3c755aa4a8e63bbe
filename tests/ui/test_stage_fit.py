"""On a slide a panel shows the parts its lesson speaks of, in type that fits its room."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from attnviz.model.lessons import lesson_by_id
from attnviz.model.workspace import Workspace
from attnviz.ui.panels import panel_ids
from attnviz.ui.slides import staged_step
from attnviz.ui.stage import STAGE_LARGE_FONTS
from attnviz.ui.stage_fit import MIN_SCALE, overflowing


def _stage(lesson_id: str, index: int, width=1280, height=720):
    return staged_step(
        Workspace(),
        lesson_by_id(lesson_id, panel_ids()),
        index,
        width,
        height,
        font_scale=STAGE_LARGE_FONTS,
    )


def test_a_panel_that_would_scroll_takes_smaller_type_and_nothing_scrolls(qtbot):
    with _stage("backward", 1) as stage:  # the chain and J beside nothing, Large Fonts
        gradient = stage.panels["gradient"]
        stage_px, px = stage.font().pixelSize(), gradient.font().pixelSize()
        assert px < stage_px and px >= stage_px * MIN_SCALE
        assert not overflowing(gradient)
        # Its matrices follow the panel's type (their numbers are drawn in it).
        assert gradient.views["dq"].font().pixelSize() == px
        # A larger room: the fit starts again from the stage's type and needs less.
        stage.resize(stage.width() * 2, stage.height() * 2)
        for _ in range(40):
            QApplication.processEvents()
        assert gradient.font().pixelSize() > px


def test_a_panel_that_fits_keeps_the_stages_type(qtbot):
    with _stage("hand-worked", 2) as stage:
        panel = stage.panels["steps"]
        assert panel.font().pixelSize() == stage.font().pixelSize()


def test_the_gradient_shows_the_chain_only_in_a_lesson_about_it(qtbot):
    with _stage("backward", 0) as stage:
        gradient = stage.panels["gradient"]
        assert gradient.views["dscores"].isVisibleTo(gradient)
        assert not gradient.plot.isVisibleTo(gradient)
    with _stage("sqrt-dk", 1) as stage:  # about the Jacobian: J and the saturation plot
        gradient = stage.panels["gradient"]
        assert not any(v.isVisibleTo(gradient) for v in gradient.views.values())
        assert gradient.jacobian.isVisibleTo(gradient) and gradient.plot.isVisibleTo(gradient)
        assert "d_k curve" in gradient.summary.text()
    with _stage("backward", 4) as stage:  # the temperature moves, but the chain is the point
        gradient = stage.panels["gradient"]
        assert not gradient.plot.isVisibleTo(gradient)
        assert "d_k curve" not in gradient.summary.text()  # no word about an absent plot


def test_the_controls_show_the_group_of_the_step(qtbot):
    with _stage("blog", 5) as stage:  # a sliding window of 3
        controls = stage.panels["controls"]
        assert controls.masks.isVisibleTo(controls)
        assert not controls.scores_box.isVisibleTo(controls)
        assert not controls.view_box.isVisibleTo(controls)
    with _stage("blog", 6) as stage:  # "check the √d_k factor"
        controls = stage.panels["controls"]
        assert controls.scores_box.isVisibleTo(controls)
        assert not controls.masks.isVisibleTo(controls)
    with _stage("masks", 1) as stage:  # a step that sets nothing: the lesson's masks
        controls = stage.panels["controls"]
        assert controls.masks.isVisibleTo(controls)
        assert not controls.scores_box.isVisibleTo(controls)


def test_the_vector_table_shows_where_it_is_legible_or_the_point(qtbot):
    with _stage("hand-worked", 0) as stage:  # 2-D vectors: every column fits
        editor = stage.panels["editor"]
        assert editor.table.isVisibleTo(editor)
    with _stage("positions", 0) as stage:  # eight random dimensions beside a word swap
        editor = stage.panels["editor"]
        assert not editor.table.isVisibleTo(editor)
        assert editor.tokens.isVisibleTo(editor)
