"""A line that says a docked panel has less room than it needs, with Focus on Panel.

A panel in a tab group at 1280×720 may get a third of the window: its content then scrolls,
and what a lecturer projects is cut. Rather than leave it so, :class:`RoomNote` watches the
panel's scroll area and, while the content is wider than the room (or a good deal taller),
says so in one line with a button that shows the panel alone (View → Focus on Panel).
Panels outside a dock (an export, a slide) never show it.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QScrollArea, QToolButton, QWidget

# Hidden content worth a word: any width, or a third of the height shown.
TALL_SHARE = 1 / 3


class RoomNote(QWidget):
    """The note for ``panel``'s scroll area ``area`` (hidden while everything fits)."""

    def __init__(self, panel: QWidget, area: QScrollArea) -> None:
        super().__init__(panel)
        self.setObjectName("room_note")
        self.panel, self.area = panel, area
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 4, 2)
        self.text = QLabel(
            QCoreApplication.translate("RoomNote", "This panel needs more room than it has here.")
        )
        self.text.setWordWrap(True)
        self.button = QToolButton()
        self.button.setObjectName("room_focus")
        self.button.setText(QCoreApplication.translate("RoomNote", "Focus on Panel"))
        self.button.setToolTip(
            QCoreApplication.translate(
                "RoomNote", "Show this panel alone in the window (Ctrl+Shift+F)"
            )
        )
        self.button.clicked.connect(self._on_q_focus)
        row.addWidget(self.text, 1)
        row.addWidget(self.button)
        self.hide()
        for bar in (area.horizontalScrollBar(), area.verticalScrollBar()):
            bar.rangeChanged.connect(lambda *_: QTimer.singleShot(0, self, self.update_shown))

    def cramped(self) -> bool:
        """True while the content is wider than the room, or a third taller."""
        wide = self.area.horizontalScrollBar().maximum() > 0
        tall = self.area.verticalScrollBar().maximum() > TALL_SHARE * self.area.viewport().height()
        return wide or tall

    def update_shown(self) -> None:
        """Show the note while the panel is docked and cramped."""
        docked = isinstance(self.panel.parentWidget(), QDockWidget)
        window = self.panel.window()
        focused = bool(getattr(window, "focused_panel", False))
        self.setVisible(docked and not focused and self.cramped())

    def _on_q_focus(self) -> None:
        window = self.panel.window()
        dock = self.panel.parentWidget()
        if isinstance(dock, QDockWidget):
            dock.raise_()
        self.panel.setFocus()
        self.area.setFocus()
        setter = getattr(window, "set_focus_mode", None)
        if setter is not None:
            setter(True)
            self.update_shown()
