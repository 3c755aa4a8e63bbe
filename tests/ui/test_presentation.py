"""Presentation mode: F5 in, Esc out with the window exactly as it was; PageDown/PageUp step,
B and . black the screen, H points; fonts for the back row; slides equal to the stage (the
other keys, the lesson list and the key line: ``test_presenter_keys.py``)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction, QFontInfo, QImage, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QMenu, QToolBar

from attnviz.model.lesson_check import play_step
from attnviz.model.workspace import Workspace
from attnviz.ui.lesson_text import caption_html
from attnviz.ui.main_window import MainWindow
from attnviz.ui.slides import render_step
from attnviz.ui.stage import (
    POINTER_MODES,
    Stage,
    stage_font_px,
)
from tests.ui.soak import Action, Soak, resize, switch_theme, wait_every


def _looks(w: MainWindow) -> dict:
    bars = w.findChildren(QToolBar)
    return {
        "state": w.saveState(),
        "geometry": w.saveGeometry(),
        "window_state": w.windowState(),
        "theme": (w.themes.mode, w.themes.large_fonts, w.themes.theme),
        "font": QApplication.font().toString(),
        "palette": QApplication.palette().color(QApplication.palette().ColorRole.Window).name(),
        "toolbars": [b.isVisible() for b in bars],
        "menu": w.menuBar().isVisible(),
        "status": w.statusBar().isVisible(),
        "docks": {
            pid: (d.isVisible(), d.isFloating(), w.dockWidgetArea(d)) for pid, d in w.docks.items()
        },
    }


def _pixels(image: QImage) -> np.ndarray:
    """RGB of ``image`` as an (h, w, 3) int array (copied: the image may go away)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB32)
    raw = np.frombuffer(bytes(rgb.constBits()), np.uint8)
    return raw.reshape(rgb.height(), rgb.bytesPerLine() // 4, 4)[:, : rgb.width(), :3].astype(int)


def _stage_at(workspace, lesson, index, size) -> Stage:
    play_step(workspace.document, lesson, index)
    stage = Stage(workspace)
    stage.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    stage.resize(*size)
    stage.show_step(lesson, index)
    stage.show()
    for _ in range(5):
        QApplication.processEvents()
    return stage


def test_f5_presents_and_esc_restores_the_window_exactly(window, qtbot):
    window.docks["memory"].raise_()  # a layout that is not the default one
    window.docks["positions"].setFloating(True)
    qtbot.wait(50)
    before = _looks(window)
    present = window.findChild(QAction, "action_present")
    assert present.shortcut() == QKeySequence("F5")
    present.trigger()
    stage = window.presenter.stage
    assert window.presenter.active and stage.isFullScreen() and stage.isWindow()
    assert stage.screen() == window.screen()
    assert window.lessons.lesson.id == "sqrt-dk" and window.lessons.index == 0
    assert stage.shown == ("heatmap", "steps")
    assert not stage.findChildren(QToolBar) and not stage.findChildren(QMenu)
    assert stage.palette().color(stage.backgroundRole()).name() == "#ffffff"
    assert stage.theme.foreground == "#000000"  # high contrast
    QTest.keyClick(stage.panels["heatmap"].view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.presenter.active)
    assert _looks(window) == before


def test_presenting_from_focus_mode_gives_back_the_whole_layout(window, qtbot):
    """F5 while one panel is shown alone: the presentation leaves focus first, so Esc
    returns every panel (not a lone one that Focus no longer knows about)."""
    before = _looks(window)
    window.set_focus_mode(True)
    assert window.focused_panel
    window.presenter.enter()
    assert window.presenter.active and not window.focused_panel
    assert not window.focus_action.isChecked()
    window.presenter.leave()
    qtbot.wait(20)
    assert _looks(window)["docks"] == before["docks"]


def test_presenter_remote_keys_step_and_blank(window, qtbot):
    window.lessons.open("hand-worked")
    window.presenter.enter()
    stage = window.presenter.stage
    target = stage.panels["editor"]  # keys reach the presenter whichever widget has focus
    QTest.keyClick(target, Qt.Key.Key_PageDown)
    assert window.lessons.index == 1 and window.state.matrix == "scores"
    assert stage.shown == ("steps", "heatmap")
    QTest.keyClick(stage, Qt.Key.Key_PageDown)
    QTest.keyClick(stage, Qt.Key.Key_PageUp)
    assert window.lessons.index == 1
    QTest.keyClick(stage, Qt.Key.Key_B)
    assert stage.blank and stage.curtain.geometry() == stage.rect()
    QTest.keyClick(stage, Qt.Key.Key_B)
    assert not stage.blank
    QTest.keyClick(stage, Qt.Key.Key_Period)
    assert stage.blank
    QTest.keyClick(stage, Qt.Key.Key_PageDown)  # stepping shows the screen again
    assert not stage.blank and window.lessons.index == 2
    steps = stage.panels["steps"]
    assert [round(float(x), 2) for x in window.resolver.results.steps.scaled] == [
        0.71, 2.12, 2.83]  # fmt: skip
    assert steps.step_texts()[1] == ["0.71", "2.12", "2.83"]
    for _ in range(8):  # to the last step; one more goes on to the next lesson
        QTest.keyClick(stage, Qt.Key.Key_PageDown)
    assert (window.lessons.lesson.id, window.lessons.index) == ("hand-worked", 10)
    QTest.keyClick(stage, Qt.Key.Key_Escape)
    assert not window.presenter.active


def test_typing_a_dot_in_a_spin_box_is_not_a_blank(window, qtbot):
    window.lessons.open("sqrt-dk", 3)
    window.presenter.enter()
    stage = window.presenter.stage
    spin = stage.panels["controls"].findChild(QAbstractSpinBox)
    QTest.keyClick(spin, Qt.Key.Key_Period)
    assert not stage.blank
    QTest.keyClick(spin, Qt.Key.Key_PageDown)  # a remote's PageDown still steps
    assert window.lessons.index == 4
    window.presenter.leave()


def test_each_step_is_one_undo_step(window):
    count = window.undo.stack.count()
    window.lessons.open("hand-worked", 0)
    assert window.undo.stack.count() == count  # the window starts on that very scene
    window.lessons.next()
    assert window.state.matrix == "scores"
    assert window.undo.stack.count() == count + 1
    assert "Lesson: Q, K, V and the hand-worked example, step 2" in window.undo.stack.undoText()
    window.undo.stack.undo()
    assert window.state.matrix == "weights"


@pytest.mark.parametrize("size, least", [((1920, 1080), 28), ((1280, 720), 18)])
def test_numbers_are_sized_for_the_back_row(qtbot, size, least):
    from attnviz.model.lessons import lesson_by_id
    from attnviz.ui.panels import panel_ids

    lesson = lesson_by_id("hand-worked", panel_ids())
    stage = _stage_at(Workspace(), lesson, 4, size)
    qtbot.addWidget(stage)
    heatmap, steps = stage.panels["heatmap"], stage.panels["steps"]
    cell = heatmap.view._cell_texts[2]  # O is 3 × 2: row 1, column 0
    assert cell.isVisible() and cell.toPlainText() == "0.85"
    assert QFontInfo(cell.textItem.font()).pixelSize() >= least
    assert QFontInfo(steps.table.font()).pixelSize() >= least
    assert QFontInfo(steps.mix.font()).pixelSize() >= least
    assert QFontInfo(stage.caption.font()).pixelSize() >= least
    assert stage_font_px(size[1]) == round(size[1] * 26 / 1080)
    assert heatmap.view.spotlight() == ("row", (1,))


def test_the_slide_is_the_picture_the_stage_shows(qtbot):
    from attnviz.model.lessons import lesson_by_id
    from attnviz.ui.panels import panel_ids

    lesson = lesson_by_id("masks", panel_ids())
    slide = render_step(Workspace(), lesson, 3, 1920, 1080)
    assert (slide.width(), slide.height()) == (1920, 1080)
    stage = _stage_at(Workspace(), lesson, 3, (1920, 1080))
    qtbot.addWidget(stage)
    shown = stage.grab().toImage()
    a, b = _pixels(slide), _pixels(shown)
    assert np.mean(np.abs(a - b)) < 2.0  # the same widget, rendered twice
    big = render_step(Workspace(), lesson, 3, 3840, 2160)
    assert (big.width(), big.height()) == (3840, 2160)


def test_the_pointer_spotlights_a_cell_a_row_or_a_column(window, qtbot):
    window.lessons.open("hand-worked", 3)
    window.presenter.enter()
    stage = window.presenter.stage
    view = stage.panels["heatmap"].view
    assert view.spotlight() == ("row", (1,))
    assert [stage.cycle_pointer() for _ in POINTER_MODES] == ["cell", "row", "column", "off"]
    QTest.keyClick(stage, Qt.Key.Key_H)
    view.hover_cell(2, 1)
    assert view.spotlight() == ("cell", (2, 1))
    assert "pointer: cell" in stage.footer.text()
    QTest.keyClick(stage, Qt.Key.Key_H)
    view.hover_cell(0, 2)
    assert view.spotlight() == ("row", (0,))
    QTest.keyClick(stage, Qt.Key.Key_H)
    view.hover_cell(0, 2)
    assert view.spotlight() == ("column", (2,))
    view.hover_cell(-1, -1)  # the pointer leaves: the step's own highlight
    assert view.spotlight() == ("row", (1,))
    rect = view.spotlight_rect()
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 1, 3, 1)
    window.presenter.leave()


def test_help_lessons_and_the_screens_menu(window):
    window.findChild(QAction, "action_lessons").trigger()
    assert window.panels["lessons"].list.hasFocus() or window.docks["lessons"].isVisible()
    screens = window.findChild(QMenu, "menu_present_on")
    screens.aboutToShow.emit()
    assert len(screens.actions()) == len(QApplication.screens())
    assert screens.menuAction().isVisible() == (len(QApplication.screens()) > 1)
    screens.actions()[0].trigger()
    assert window.presenter.active
    assert window.presenter.stage.screen() == QApplication.screens()[0]
    window.presenter.toggle()
    assert not window.presenter.active


def test_caption_markup_is_escaped():
    assert caption_html("a <b> & **bold**\nnext") == "a &lt;b&gt; &amp; <b>bold</b><br>next"


def test_soak_presentation_with_random_events(window, qtbot):
    rng = random.Random(14)
    window.lessons.open("matrix", 0)
    window.presenter.enter()
    stage = window.presenter.stage
    keys = [Qt.Key.Key_PageDown, Qt.Key.Key_PageUp, Qt.Key.Key_B, Qt.Key.Key_H]

    def point_at_the_heatmap() -> None:
        if "heatmap" not in stage.panels:
            return
        view = stage.panels["heatmap"].view
        view.hover_cell(rng.randrange(-1, 30), rng.randrange(-1, 30))
        QTest.mouseMove(view, QPoint(rng.randrange(view.width()), rng.randrange(view.height())))

    def edit() -> None:
        n = rng.randrange(1, 12)
        window.state.update(tokens=tuple(f"w{j}" for j in range(n)), head="content",
                            d_k=rng.choice([2, 8, 64]))  # fmt: skip

    def undo_or_redo() -> None:
        if window.undo.stack.canUndo():
            window.undo.stack.undo() if rng.random() < 0.6 else window.undo.stack.redo()

    actions = [
        Action("key", lambda: QTest.keyClick(stage, rng.choice(keys))),
        Action("point", point_at_the_heatmap),
        Action("edit", edit),
        Action("undo/redo", undo_or_redo),
        switch_theme(window, rng),
        resize(stage, rng, widths=(640, 1919), heights=(400, 1079), name="resize the stage"),
        Action("step", lambda: window.lessons.go(rng.randrange(len(window.lessons.lesson)))),
    ]
    Soak(rng, actions, settle=wait_every(qtbot, 8, 5)).run(40)
    QTest.keyClick(stage, Qt.Key.Key_Escape)
    assert not window.presenter.active
