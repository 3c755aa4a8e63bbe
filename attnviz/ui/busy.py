"""A status-bar indicator for recomputes running off the GUI thread."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QStatusBar, QWidget

from attnviz.model.resolve import Resolver
from attnviz.ui.widgets.binding import bind

# Shown only when work lasts longer than this (ms): quick jobs should not flicker.
SHOW_AFTER_MS = 150


class BusyIndicator(QWidget):
    """ "Computing…" with a running bar while the resolver works; its errors in the status bar.

    The interface stays usable meanwhile: the last matrix stays on screen, and a newer edit
    simply supersedes the job in flight (its result is dropped), so no cancel is needed.
    """

    def __init__(self, resolver: Resolver, status: QStatusBar, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("busy_indicator")
        self._status = status
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(self.tr("Computing…"))
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)  # no measurable progress: a running bar
        self.bar.setMaximumWidth(120)
        self.bar.setTextVisible(False)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.setToolTip(self.tr("The matrix is being recomputed; the last one stays shown."))
        self.hide()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.show)
        bind(self, resolver.busy, self._on_busy_changed)
        bind(self, resolver.failed, self._on_failed)

    def _on_busy_changed(self, busy: bool) -> None:
        if busy:
            self._timer.start(SHOW_AFTER_MS)
        else:
            self._timer.stop()
            self.hide()

    def _on_failed(self, message: str) -> None:
        self._status.showMessage(self.tr("Could not recompute: %1").replace("%1", message), 10000)
