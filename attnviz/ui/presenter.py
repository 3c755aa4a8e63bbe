"""Presentation mode (F5): a lesson, step by step, full screen, for the back row of a hall.

- :class:`~attnviz.model.lesson_player.LessonPlayer` (Qt-free) knows which lesson and step
  is shown; playing a step restores that step's scene in the document as one undo step.
- :class:`~attnviz.ui.stage.Stage` draws a step (caption, the step's panels, a footer).
- :class:`Presenter` shows a stage full screen on the chosen screen, in a window of its own,
  so the main window (its docks, geometry, theme, fonts, toolbars and menus) is never touched
  and is exactly as it was after Esc. Keys come from the keyboard or a presenter remote
  (:mod:`attnviz.ui.presenter_keys`): PageDown, → or Space step forward (past a lesson's
  last step, to the next lesson), PageUp, ← or Backspace back, Home and End go to the
  lesson's first and last step, L lists the lessons, B or . black the screen, H cycles the
  pointer's spotlight (cell, row, column, off), Esc leaves. A focused text field or spin
  box keeps the keys it types and moves its cursor with; Esc or Enter there gives the keys
  back to the stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget

from attnviz.ui.presenter_keys import (
    BLANK_KEYS,
    CHORD,
    COMMIT_KEYS,
    FIRST_KEYS,
    LAST_KEYS,
    LEAVE_KEYS,
    LESSON_LIST_KEYS,
    NEXT_KEYS,
    POINTER_KEYS,
    PREVIOUS_KEYS,
    REMOTE_KEYS,
    takes_text,
    wants_key,
)
from attnviz.ui.widgets.binding import bind

if TYPE_CHECKING:
    from attnviz.ui.stage import Stage

#: Keys that move the choice in the stage's lesson list (the list's own).
_LIST_MOVES = (
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_PageUp,
    Qt.Key.Key_PageDown,
    Qt.Key.Key_Home,
    Qt.Key.Key_End,
)


class Presenter(QObject):
    """Enters and leaves presentation mode for a main window.

    Signals
    -------
    sigActiveChanged(bool)
    """

    sigActiveChanged = Signal(bool)  # Qt naming

    def __init__(self, window, player) -> None:
        super().__init__(window)
        self.window = window
        self.player = player
        self.stage: Stage | None = None
        self._saved: dict = {}
        bind(self, player.sigStepChanged, self._on_step)

    @property
    def active(self) -> bool:
        """True while presenting."""
        return self.stage is not None

    def enter(self, screen=None) -> bool:
        """Present the open lesson (the first one when none is open) full screen on
        ``screen`` (the window's own by default). False when nothing can be shown."""
        if self.active:
            return True
        w = self.window
        if getattr(w, "focused_panel", False):
            w.set_focus_mode(False)  # Esc then gives back the whole layout, not one panel
        self._saved = {"state": w.saveState(), "geometry": w.saveGeometry()}
        # The stage (and what it draws with) is imported when first presented: the window's
        # start-up never needs it.
        from attnviz.ui.stage import STAGE_LARGE_FONTS, Stage

        # Large Fonts carry over to the hall's screen (whose type is large already).
        scale = STAGE_LARGE_FONTS if w.themes.large_fonts else 1.0
        stage = Stage(
            w.workspace, dark=w.themes.theme.dark, font_scale=scale, presenting=True, parent=w
        )
        stage.lesson_menu.sigChosen.connect(self._on_lesson_chosen)
        stage.setWindowFlag(Qt.WindowType.Window)
        stage.setWindowTitle(QCoreApplication.translate("Presentation", "attnviz presentation"))
        screen = screen or w.screen()
        stage.setGeometry(screen.geometry())
        # Active from here on: the window leaves its docks alone while the stage shows steps.
        self.stage = stage
        from attnviz.model.lessons import LessonError  # the lessons are read from here on

        try:
            ready = self.player.lesson is not None or bool(
                self.player.lessons and self.player.open(self.player.lessons[0].id)
            )
        except LessonError as exc:  # a broken lesson file: say so, present nothing
            self.player.sigFailed.emit(str(exc))
            ready = False
        if not ready:
            self.stage = None
            shiboken6.delete(stage)
            return False
        stage.lessons = self.player.lessons
        stage.show_step(self.player.lesson, self.player.index)
        stage.showFullScreen()
        if stage.windowHandle() is not None:
            stage.windowHandle().setScreen(screen)
        stage.activateWindow()
        stage.setFocus()  # not the first text field of the step: the arrows step
        QApplication.instance().installEventFilter(self)
        self.sigActiveChanged.emit(True)
        return True

    def leave(self) -> None:
        """Close the stage; the main window is as it was."""
        stage, self.stage = self.stage, None
        if stage is None:
            return
        QApplication.instance().removeEventFilter(self)
        stage.hide()
        stage.deleteLater()
        w = self.window
        if w.saveState() != self._saved.get("state"):
            w.restoreState(self._saved["state"])
        w.activateWindow()
        self.sigActiveChanged.emit(False)

    def toggle(self) -> None:
        """Enter or leave (View → Presentation, F5)."""
        self.leave() if self.active else self.enter()

    def retranslate(self) -> None:
        """Build the stage's panels again in the language running now."""
        if self.stage is None:
            return
        stage = self.stage
        for panel in stage.panels.values():
            panel.hide()
            panel.deleteLater()
        stage.panels.clear()
        stage.shown = ()
        stage.show_step(self.player.lesson, self.player.index)

    def _on_step(self, lesson, index: int) -> None:
        if self.stage is not None and lesson is not None:
            self.stage.show_step(lesson, index)

    def _on_lesson_chosen(self, lesson_id: str) -> None:
        if self.stage is None:
            return
        self.stage.show_lessons(False)
        if self.player.lesson is None or self.player.lesson.id != lesson_id:
            self.player.open(lesson_id)

    # --- keys ----------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        stage = self.stage
        if (
            stage is None
            or event.type() != QEvent.Type.KeyPress
            or not isinstance(obj, QWidget)
            or not shiboken6.isValid(stage)
            or obj.window() is not stage
        ):
            return False
        return self.key(event.key(), obj, event.text(), event.modifiers())

    def key(
        self, key, target=None, text: str = "", modifiers=Qt.KeyboardModifier.NoModifier
    ) -> bool:
        """Act on a presenter key pressed in ``target``; True when it was one (and is used
        up). ``text`` is what the key types, for the widget that may keep it."""
        stage = self.stage
        if stage.lesson_menu.isVisible():
            return self._list_key(key)
        if key in LEAVE_KEYS:
            if takes_text(target):
                stage.setFocus()  # out of the text field first: the arrows step again
            else:
                self.leave()
            return True
        if key in COMMIT_KEYS and takes_text(target):
            QTimer.singleShot(0, self._focus_stage)  # after the field has taken its Enter
            return False
        if key not in REMOTE_KEYS and (modifiers & CHORD or wants_key(target, key, text)):
            return False
        return self._act(key)

    def _act(self, key) -> bool:
        stage, player = self.stage, self.player
        stepping = (*NEXT_KEYS, *PREVIOUS_KEYS, *FIRST_KEYS, *LAST_KEYS)
        if key in stepping:
            stage.set_blank(False)
        if key in NEXT_KEYS:
            player.advance()
        elif key in PREVIOUS_KEYS:
            player.retreat()
        elif key in FIRST_KEYS:
            player.go(0)
        elif key in LAST_KEYS:
            player.go(len(player.lesson) - 1 if player.lesson is not None else 0)
        elif key in BLANK_KEYS:
            stage.set_blank(not stage.blank)
        elif key in POINTER_KEYS:
            stage.cycle_pointer()
        elif key in LESSON_LIST_KEYS:
            stage.set_blank(False)
            stage.show_lessons(True)
        else:
            return False
        return True

    def _list_key(self, key) -> bool:
        """Keys while the lesson list shows: it moves its own choice; Enter or Space
        presents the chosen lesson, Esc or L closes the list."""
        menu = self.stage.lesson_menu
        if key in _LIST_MOVES:
            return False
        if key in (*COMMIT_KEYS, Qt.Key.Key_Space):
            menu.choose()
        elif key in (*LEAVE_KEYS, *LESSON_LIST_KEYS):
            self.stage.show_lessons(False)
        return True  # nothing else reaches the slide under the list

    def _focus_stage(self) -> None:
        if self.stage is not None and shiboken6.isValid(self.stage):
            self.stage.setFocus()
