"""A progress bar as wide as the words it shows ("Map ready in 0.02 s").

QProgressBar asks for the room of "100%", whatever its format says: with large fonts a
longer line was cut in half by the bar's edges. This one asks for its text's width and
tells its layout when the text changes.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QProgressBar


class TextProgressBar(QProgressBar):
    """A :class:`QProgressBar` whose size hint holds its whole text."""

    def setFormat(self, text: str) -> None:  # Qt naming
        """Show ``text`` (``%p`` etc. as Qt's), and ask for its room."""
        super().setFormat(text)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        # The text's own width, and room for the bar's frame and the style's margins.
        wanted = (
            self.fontMetrics().horizontalAdvance(self.text()) + 4 * self.fontMetrics().height() // 3
        )
        return QSize(max(hint.width(), wanted), hint.height())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
