"""Presenting from a keyboard or a remote: every stepping key, the end of a lesson leading to
the next, the lesson list, keys left to a focused text field, and the key line that stays
on the stage (an exported slide has none)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit

from attnviz.model.lesson_player import LessonPlayer, neighbour
from attnviz.model.lessons import lesson_by_id, shipped_lessons
from attnviz.model.workspace import Workspace
from attnviz.ui import language
from attnviz.ui.panels import panel_ids
from attnviz.ui.presenter_keys import key_line, wants_key
from attnviz.ui.slides import drawn_texts, staged_step
from attnviz.ui.stage import STAGE_LARGE_FONTS
from attnviz.ui.text_overlap import check_texts


@pytest.fixture
def presenting(window):
    """The window presenting hand-worked at step 5 (of 11); the stage has the focus."""
    window.lessons.open("hand-worked", 4)
    assert window.presenter.enter()
    yield window
    if window.presenter.active:
        window.presenter.leave()


def _footer(stage) -> str:
    """The footer's text with its no-break spaces (where it must not wrap) as spaces."""
    return stage.footer.text().replace("\u00a0", " ")


def _press(window, key, target=None) -> None:
    QTest.keyClick(target or window.presenter.stage, key)


@pytest.mark.parametrize(
    "key, index",
    [
        (Qt.Key.Key_Right, 5),
        (Qt.Key.Key_Space, 5),
        (Qt.Key.Key_PageDown, 5),
        (Qt.Key.Key_Left, 3),
        (Qt.Key.Key_Backspace, 3),
        (Qt.Key.Key_PageUp, 3),
        (Qt.Key.Key_Home, 0),
        (Qt.Key.Key_End, 10),
    ],
)
def test_each_key_steps(presenting, key, index):
    stage = presenting.presenter.stage
    stage.set_blank(True)
    _press(presenting, key)
    assert presenting.lessons.lesson.id == "hand-worked"
    assert presenting.lessons.index == index
    assert stage.index == index and not stage.blank  # a step shows the screen again


def test_a_chord_is_not_a_step(presenting):
    QTest.keyClick(presenting.presenter.stage, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    QTest.keyClick(presenting.presenter.stage, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert presenting.lessons.index == 4


def test_the_end_of_a_lesson_leads_to_the_next_and_back(presenting):
    player, stage = presenting.lessons, presenting.presenter.stage
    ids = [x.id for x in player.lessons]
    following = ids[ids.index("hand-worked") + 1]
    _press(presenting, Qt.Key.Key_End)
    assert "next lesson" in _footer(stage)
    _press(presenting, Qt.Key.Key_Right)
    assert (player.lesson.id, player.index) == (following, 0)
    assert (stage.lesson.id, stage.index) == (following, 0)
    assert _footer(stage).startswith(player.lesson.title_in("en"))
    _press(presenting, Qt.Key.Key_Left)  # one step too far is undone by one step back
    assert (player.lesson.id, player.index) == ("hand-worked", 10)
    # The very last step of the very last lesson: forward stays, and says nothing of "next".
    player.open(ids[-1], len(player.lessons[-1]) - 1)
    assert "next" not in _footer(stage)
    _press(presenting, Qt.Key.Key_Space)
    assert (player.lesson.id, player.index) == (ids[-1], len(player.lessons[-1]) - 1)
    player.open(ids[0], 0)  # and the first step of the first lesson goes nowhere back
    _press(presenting, Qt.Key.Key_Backspace)
    assert (player.lesson.id, player.index) == (ids[0], 0)


def test_a_player_advances_across_lessons_without_a_window():
    player = LessonPlayer(Workspace())
    lessons = player.lessons
    first, second = lessons[0], lessons[1]
    assert neighbour(lessons, first, 1) is second and neighbour(lessons, first, -1) is None
    assert neighbour(lessons, lessons[-1], 1) is None
    player.open(first.id, len(first) - 1)
    assert not player.next()  # the dock's Next stays within the lesson
    assert player.advance() and (player.lesson.id, player.index) == (second.id, 0)
    assert player.retreat() and (player.lesson.id, player.index) == (first.id, len(first) - 1)


def test_a_focused_spin_box_keeps_its_keys_and_the_remote_still_steps(window):
    window.lessons.open("sqrt-dk", 3)  # the controls, with d_k's spin box
    window.presenter.enter()
    stage = window.presenter.stage
    spin = stage.panels["controls"].d_k.findChild(QAbstractSpinBox)
    spin.setFocus()
    edit = spin.findChild(QLineEdit)
    edit.setCursorPosition(0)
    QTest.keyClick(spin, Qt.Key.Key_Right)
    assert edit.cursorPosition() == 1 and window.lessons.index == 3
    QTest.keyClick(spin, Qt.Key.Key_End)
    assert edit.cursorPosition() == len(edit.text()) and window.lessons.index == 3
    QTest.keyClick(spin, Qt.Key.Key_Backspace)  # "256" → "25"
    QTest.keyClick(spin, Qt.Key.Key_Left)
    QTest.keyClick(spin, Qt.Key.Key_Home)
    QTest.keyClick(spin, Qt.Key.Key_Space)
    assert window.lessons.index == 3 and edit.text().startswith("25")
    assert window.presenter.active
    QTest.keyClick(spin, Qt.Key.Key_Escape)  # out of the field, not out of the lecture
    assert window.presenter.active and stage.focusWidget() is stage
    QTest.keyClick(stage, Qt.Key.Key_Right)
    assert window.lessons.index == 4
    QTest.keyClick(stage, Qt.Key.Key_PageUp)
    spin = stage.panels["controls"].d_k.findChild(QAbstractSpinBox)
    spin.setFocus()
    QTest.keyClick(spin, Qt.Key.Key_PageDown)  # a remote's PageDown steps from anywhere
    assert window.lessons.index == 4
    window.presenter.leave()


def test_enter_in_a_text_field_gives_the_keys_back_to_the_stage(window, qtbot):
    window.lessons.open("hand-worked", 0)  # the editor, with the sentence field
    window.presenter.enter()
    stage = window.presenter.stage
    field = stage.panels["editor"].findChild(QLineEdit, "sentence")
    assert field is not None and wants_key(field, Qt.Key.Key_Left)
    assert stage.focusWidget() is stage  # a step starts with the stage's keys
    field.setFocus()
    QTest.keyClick(field, Qt.Key.Key_Left)
    assert window.lessons.index == 0
    QTest.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: stage.focusWidget() is stage)
    QTest.keyClick(stage, Qt.Key.Key_Right)
    assert window.lessons.index == 1
    window.presenter.leave()


def test_the_lesson_list_on_the_stage(presenting):
    stage, player = presenting.presenter.stage, presenting.lessons
    menu = stage.lesson_menu
    assert not menu.isVisible()
    _press(presenting, Qt.Key.Key_L)
    assert menu.isVisible() and menu.list.count() == len(player.lessons)
    assert menu.chosen() == "hand-worked"
    stage.resize(1280, 720)  # the projector's size: every lesson in view, none cut
    QApplication.processEvents()
    assert stage.rect().contains(menu.geometry())
    assert menu.list.verticalScrollBar().maximum() == 0
    assert not check_texts(menu, kinds=("cut", "overlap"))
    QTest.keyClick(menu.list, Qt.Key.Key_Right)  # the slide under the list does not step
    assert player.index == 4
    QTest.keyClick(menu.list, Qt.Key.Key_Down)
    ids = [x.id for x in player.lessons]
    assert menu.chosen() == ids[ids.index("hand-worked") + 1]
    QTest.keyClick(menu.list, Qt.Key.Key_Return)
    assert not menu.isVisible()
    assert (player.lesson.id, player.index) == (ids[ids.index("hand-worked") + 1], 0)
    _press(presenting, Qt.Key.Key_L)
    QTest.keyClick(menu.list, Qt.Key.Key_Escape)  # closes the list, not the lecture
    assert not menu.isVisible() and presenting.presenter.active
    _press(presenting, Qt.Key.Key_L)
    QTest.keyClick(menu.list, Qt.Key.Key_Home)
    QTest.keyClick(menu.list, Qt.Key.Key_Space)
    assert (player.lesson.id, player.index) == (ids[0], 0)


def test_the_key_line_stays_on_the_stage(presenting):
    footer = _footer(presenting.presenter.stage)
    assert "Step 5 of 11" in footer
    for part in ("→/Space next", "←/Backspace back", "L lessons", "Esc leave"):
        assert part in footer, footer
    lesson = lesson_by_id("hand-worked", panel_ids())
    with staged_step(Workspace(), lesson, 4, 1280, 720, font_scale=STAGE_LARGE_FONTS) as slide:
        assert not slide.presenting
        text = _footer(slide)
        drawn = drawn_texts(slide)
        assert not slide.lesson_menu.isVisibleTo(slide)
    assert text == "Q, K, V and the hand-worked example   ·   Step 5 of 11"
    assert any("Step 5 of 11" in t for t in drawn)  # the footer is drawn…
    keys = ("→", "Space", "Esc", "PgDn", "lessons", "pointer")  # …without the keys
    assert not [t for t in drawn for key in keys if key in t.replace("\u00a0", " ")]


def test_the_key_names_follow_the_language(presenting):
    app = QApplication.instance()
    try:
        assert language.install_translations(app, "pt_BR")
        line = key_line("next")
        assert "Espaço" in line and "Space" not in line  # Qt's own name of the key
    finally:
        language.install_translations(app, "en")
    assert key_line("next").startswith("→/Space\u00a0next")
    assert key_line(None).startswith("←/Backspace\u00a0back")


def test_the_key_line_wraps_on_the_stage_rather_than_being_cut(presenting):
    stage = presenting.presenter.stage
    stage.resize(1280, 720)
    QApplication.processEvents()
    footer = stage.footer
    assert footer.wordWrap()
    assert footer.heightForWidth(footer.width()) <= footer.height() + 2


def test_shipped_lessons_have_neighbours_in_order():
    lessons = shipped_lessons(panel_ids())
    for before, after in zip(lessons, lessons[1:], strict=False):
        assert neighbour(lessons, before, 1) is after and neighbour(lessons, after, -1) is before


def test_the_tiles_keep_their_keys_once_clicked(window):
    """The tiles panel steps its tiles with ←/→ and plays with Space (its note says so):
    after a click on it, those keys are its own; before, they step the slides."""
    window.lessons.open("n-squared", 1)
    window.presenter.enter()
    stage = window.presenter.stage
    tiles = stage.panels["tiles"]
    long = window.workspace.document["long"]
    before = long.get("tile_step")
    tiles.setFocus()
    QTest.keyClick(tiles, Qt.Key.Key_Right)
    assert long.get("tile_step") == before + 1 and window.lessons.index == 1
    QTest.keyClick(tiles, Qt.Key.Key_Escape)  # not a text field: Esc leaves
    assert not window.presenter.active
    window.presenter.enter()
    stage = window.presenter.stage
    QTest.keyClick(stage, Qt.Key.Key_Right)
    assert window.lessons.index == 2
    window.presenter.leave()
