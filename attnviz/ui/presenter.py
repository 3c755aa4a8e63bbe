"""Presentation mode (F5): a lesson, step by step, full screen, for the back row of a hall.

- :class:`~attnviz.model.lesson_player.LessonPlayer` (Qt-free) knows which lesson and step
  is shown; playing a step restores that step's scene in the document as one undo step.
- :class:`~attnviz.ui.stage.Stage` draws a step (caption, the step's panels, a footer).
- :class:`Presenter` shows a stage full screen on the chosen screen, in a window of its own,
  so the main window (its docks, geometry, theme, fonts, toolbars and menus) is never touched
  and is exactly as it was after Esc. Keys come from the keyboard or a presenter remote:
  PageDown/PageUp step, B or . black the screen, H cycles the pointer's spotlight (cell, row,
  column, off), Esc leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from attnviz.ui.widgets.binding import bind

if TYPE_CHECKING:
    from attnviz.ui.stage import Stage

NEXT_KEYS = (Qt.Key.Key_PageDown,)
PREVIOUS_KEYS = (Qt.Key.Key_PageUp,)
BLANK_KEYS = (Qt.Key.Key_B, Qt.Key.Key_Period)


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
        stage = Stage(w.workspace, dark=w.themes.theme.dark, font_scale=scale, parent=w)
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
        stage.show_step(self.player.lesson, self.player.index)
        stage.showFullScreen()
        if stage.windowHandle() is not None:
            stage.windowHandle().setScreen(screen)
        stage.activateWindow()
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
        return self.key(event.key(), obj)

    def key(self, key, target=None) -> bool:
        """Act on a presenter key; True when it was one."""
        stage = self.stage
        typing = isinstance(target, (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit))
        if key == Qt.Key.Key_Escape:
            self.leave()
        elif key in NEXT_KEYS:
            stage.set_blank(False)
            self.player.next()
        elif key in PREVIOUS_KEYS:
            stage.set_blank(False)
            self.player.previous()
        elif key in BLANK_KEYS and not typing:
            stage.set_blank(not stage.blank)
        elif key == Qt.Key.Key_H and not typing:
            stage.cycle_pointer()
        else:
            return False
        return True
