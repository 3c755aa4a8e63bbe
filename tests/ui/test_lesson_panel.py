"""The lessons dock: the list, playing a step (undoable, the step's panels in front, the
heatmap spotlit), back/next; the live language switch that lessons follow."""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from attnviz.model.lessons import LessonError, shipped_lessons
from attnviz.model.workspace import Workspace
from attnviz.ui import language
from attnviz.ui.lesson_text import caption_html
from attnviz.ui.main_window import MainWindow
from attnviz.ui.panels import panel_ids
from attnviz.ui.panels.lessons import LessonPanel
from tests.ui.soak import Action, Soak, resize, switch_language, switch_theme, wait_every


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch):
    monkeypatch.delenv(language.ENV, raising=False)
    monkeypatch.setattr(language, "system_language", lambda: "en")
    yield
    language.install_translations(QApplication.instance(), "en")


def _layout(w: MainWindow) -> list:
    """Per dock: its area, its tab group, whether it is in front, floating, and where."""
    return [
        (
            pid,
            w.dockWidgetArea(d),
            sorted(t.objectName() for t in w.tabifiedDockWidgets(d)),
            d.isVisible(),
            d.isFloating(),
            d.geometry().getRect() if d.isVisible() else (0,) * 4,
        )
        for pid, d in w.docks.items()
    ]


def _click(panel: LessonPanel, lesson_id: str) -> None:
    row = panel.lesson_ids().index(lesson_id)
    item = panel.list.item(row)
    panel.list.scrollToItem(item)
    QTest.mouseClick(
        panel.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=panel.list.visualItemRect(item).center(),
    )


def test_the_list_holds_every_lesson_in_the_documents_order(window):
    panel = window.panels["lessons"]
    assert window.docks["lessons"].objectName() == "dock-lessons"
    assert window.dockWidgetArea(window.docks["lessons"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert panel.lesson_ids() == [x.id for x in shipped_lessons(panel_ids())]
    assert panel.list.item(0).text() == "Why divide by √d_k"
    assert panel.list.item(0).toolTip().startswith("7 steps · 000")
    assert panel.heading.text() == "No lesson open" and not panel.forward.isEnabled()


def test_picking_a_lesson_plays_its_first_step(window):
    panel = window.panels["lessons"]
    window.docks["lessons"].raise_()
    count = window.undo.stack.count()
    _click(panel, "sqrt-dk")
    lesson = window.lessons.lesson
    assert lesson.id == "sqrt-dk" and window.lessons.index == 0
    assert window.state.preset_id == "lesson-sqrt-dk" and not window.state.scale
    assert panel.position.text() == "Step 1 of 7"
    assert panel.caption.text() == caption_html(lesson.steps[0].caption["en"])
    assert "0.9817" in panel.caption.text()
    assert window.undo.stack.count() == count + 1
    assert window.panels["heatmap"].view.spotlight() == ("row", (0,))
    # the lesson's precision: the preset writes three decimals, four where 0.0003 needs them
    assert window.panels["heatmap"].view.cell_texts()[0] == ["0.9817", "0.0180", "0.0003"]
    assert not panel.back.isEnabled() and panel.forward.isEnabled()
    window.undo.stack.undo()
    assert window.state.preset_id == "banco" and window.state.scale


def test_back_and_next_step_through_and_bring_the_panels_forward(window, qtbot):
    panel = window.panels["lessons"]
    window.lessons.open("kv-cache")
    assert window.docks["memory"].isVisible()  # the KV-cache tab came to the front
    window.lessons.open("backward")
    qtbot.wait(20)
    assert window.docks["gradient"].isVisible() and window.docks["heatmap"].isVisible()
    QTest.mouseClick(panel.forward, Qt.MouseButton.LeftButton)
    assert window.lessons.index == 1 and panel.position.text() == "Step 2 of 5"
    assert window.panels["gradient"].shown
    QTest.mouseClick(panel.back, Qt.MouseButton.LeftButton)
    assert window.lessons.index == 0 and not panel.back.isEnabled()
    window.lessons.go(99)
    assert window.lessons.index == 4 and not panel.forward.isEnabled()
    assert window.state.temperature == 0.01


def test_help_lessons_brings_the_dock_forward(window, qtbot):
    window.docks["editor"].raise_()
    qtbot.wait(20)
    window.findChild(QAction, "action_lessons").trigger()
    qtbot.wait(20)
    assert window.docks["lessons"].isVisible()
    assert window.findChild(QMenu, "menu_help").actions()[0].objectName() == "action_lessons"


def test_the_present_button_starts_presentation_mode(window):
    panel = window.panels["lessons"]
    window.lessons.open("blog", 3)
    assert panel.present.isVisible()
    QTest.mouseClick(panel.present, Qt.MouseButton.LeftButton)
    assert window.presenter.active and window.presenter.stage.shown == ("heatmap",)
    window.presenter.leave()


def test_a_panel_of_its_own_for_an_export(qtbot):
    panel = LessonPanel(Workspace())
    qtbot.addWidget(panel)
    assert not panel.present.isVisibleTo(panel)
    panel.player.open("masks", 1)
    assert panel.position.text() == "Step 2 of 6" and "4 next-token" in panel.step_text()


def test_a_broken_lesson_file_is_shown_not_raised(qtbot, monkeypatch):
    from attnviz.model import lesson_player

    def broken(_panels):
        raise LessonError("bad.json", 2, "unknown panel 'nope'")

    monkeypatch.setattr(lesson_player, "shipped_lessons", broken)
    panel = LessonPanel(Workspace())
    qtbot.addWidget(panel)
    panel.show()  # the lessons are read when the dock is first shown
    assert panel.list.count() == 0
    assert panel.message.text() == "bad.json, step 3: unknown panel 'nope'"


def test_the_language_switches_live_and_lessons_follow(window, qtbot):
    window.lessons.open("hand-worked", 4)
    window.docks["reach"].raise_()
    window.state.update(d_k=3)  # an edit after the step: the history must survive
    qtbot.wait(20)
    workspace, history, steps = window.workspace, window.undo.stack, window.undo.stack.count()
    layout = _layout(window)
    window.findChild(QAction, "action_language_pt_BR").trigger()
    qtbot.waitUntil(lambda: window.findChild(QMenu, "menu_file").title() == "&Arquivo")
    assert QSettings().value(language.SETTING) == "pt_BR"
    assert language.active_language() == "pt_BR"
    assert window.docks["heatmap"].windowTitle() == "Matriz de atenção"
    assert window.workspace is workspace and window.undo.stack is history
    assert history.count() == steps and window.state.d_k == 3
    after = _layout(window)
    assert [x[:5] for x in after] == [x[:5] for x in layout]  # areas, tabs, in front, floating
    for (*_, g1), (*_, g2) in zip(layout, after, strict=True):
        # Only Portuguese texts that need more room may move a splitter, a little.
        assert max(abs(a - b) for a, b in zip(g1, g2, strict=True)) <= 40
    assert window.lessons.lesson.id == "hand-worked" and window.lessons.index == 4
    panel = window.panels["lessons"]
    assert "[0,85; 0,15]" in panel.caption.text()  # the lesson's own Portuguese
    assert panel.position.text() != "" and window.panels["steps"].step_texts()[2][0] != ""
    assert "," in window.panels["heatmap"].view.cell_texts()[1][0]  # 0,85: a decimal comma
    assert len(window.findChildren(QAction, "action_undo")) == 1  # the old menus are gone
    history.undo()
    assert window.state.d_k == 2
    window.findChild(QAction, "action_language_en").trigger()
    qtbot.waitUntil(lambda: window.findChild(QMenu, "menu_file").title() == "&File")
    assert "[0.85, 0.15]" in window.panels["lessons"].caption.text()


def test_a_language_switch_while_presenting_rebuilds_the_stage(window, qtbot):
    window.lessons.open("hand-worked", 1)
    window.presenter.enter()
    language.install_translations(QApplication.instance(), "pt_BR")
    window.rebuild_ui()
    stage = window.presenter.stage
    assert stage.caption.text() == caption_html(window.lessons.lesson.steps[1].caption["pt_BR"])
    assert stage.shown == ("steps", "heatmap") and "2,12" in " ".join(
        stage.panels["steps"].step_texts()[1]
    )
    window.presenter.leave()


def test_soak_lessons_in_the_window(window, qtbot):
    rng = random.Random(1414)
    ids = window.panels["lessons"].lesson_ids()

    def forward_or_back() -> None:  # looked up each time: a language switch rebuilds the UI
        panel = window.panels["lessons"]
        (panel.forward if rng.random() < 0.6 else panel.back).click()

    def point_at_the_heatmap() -> None:
        view = window.panels["heatmap"].view
        view.hover_cell(rng.randrange(-1, 30), rng.randrange(-1, 30))
        QTest.mouseMove(view, QPoint(rng.randrange(max(view.width(), 1)),
                                     rng.randrange(max(view.height(), 1))))  # fmt: skip

    def undo_or_redo() -> None:
        if window.undo.stack.canUndo():
            window.undo.stack.undo() if rng.random() < 0.6 else window.undo.stack.redo()

    actions = [
        Action("open", lambda: window.lessons.open(rng.choice(ids), 0)),
        Action("forward/back", forward_or_back),
        Action("point", point_at_the_heatmap),
        Action("undo/redo", undo_or_redo),
        switch_theme(window, rng),
        resize(window, rng, widths=(900, 1599), heights=(600, 999)),
        switch_language(window, rng),  # the caption follows the live switch
    ]  # fmt: skip
    Soak(rng, actions, settle=wait_every(qtbot, 10, 5)).run(40)
