"""The main window: a QMainWindow whose panels are dock widgets."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow


class MainWindow(QMainWindow):
    """Top-level window of attnviz."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.setWindowTitle(self.tr("attnviz"))
        self.resize(1280, 800)
        welcome = QLabel(self.tr("attnviz — attention, live"))
        welcome.setObjectName("welcome")
        self.setCentralWidget(welcome)
