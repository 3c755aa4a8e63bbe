"""A wrapping row of checkable tokens: which tokens are padding, or any per-token flag."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem

from attnviz.ui.widgets.binding import blocked


class TokenChecklist(QListWidget):
    """Tokens as checkable chips that wrap across lines.

    Signals
    -------
    sigFlagsEdited(tuple)
        The checked state of every token, emitted when the user toggles one.
    """

    sigFlagsEdited = Signal(tuple)  # Qt naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setSpacing(2)
        self.setUniformItemSizes(False)
        self.itemChanged.connect(self._on_q_item_changed)

    def set_tokens(self, tokens, checked) -> None:
        """Show ``tokens`` with the given checked flags (no signal)."""
        with blocked(self):
            if self.count() != len(tokens):
                self.clear()
                for _ in tokens:
                    item = QListWidgetItem()
                    item.setFlags(
                        Qt.ItemFlag.ItemIsUserCheckable
                        | Qt.ItemFlag.ItemIsEnabled
                        | Qt.ItemFlag.ItemIsSelectable
                    )
                    self.addItem(item)
            for i, (tok, on) in enumerate(zip(tokens, checked, strict=True)):
                item = self.item(i)
                item.setText(f"{i}: {tok}")
                item.setToolTip(self.tr("Token %1 “%2”").replace("%1", str(i)).replace("%2", tok))
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
                self._style(item)
        self.updateGeometry()

    def flags(self) -> tuple[bool, ...]:
        """The checked state of every token."""
        return tuple(
            self.item(i).checkState() == Qt.CheckState.Checked for i in range(self.count())
        )

    def sizeHint(self) -> QSize:
        # Tall enough for about two lines of chips; the rest scrolls.
        hint = super().sizeHint()
        line = self.fontMetrics().height() + 12
        return QSize(hint.width(), 2 * line + 8)

    def keyPressEvent(self, event) -> None:
        # Space toggles the current chip, the usual keyboard access to a checkbox.
        if event.key() == Qt.Key.Key_Space and self.currentItem() is not None:
            item = self.currentItem()
            on = item.checkState() == Qt.CheckState.Checked
            item.setCheckState(Qt.CheckState.Unchecked if on else Qt.CheckState.Checked)
            return
        super().keyPressEvent(event)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            # Item fonts are set one by one (for the strike-out): follow large-font mode.
            with blocked(self):
                for i in range(self.count()):
                    self._style(self.item(i))
            self.updateGeometry()

    def _style(self, item: QListWidgetItem) -> None:
        # A checked chip is hatched and struck through, visible on any palette even where
        # the style draws a low-contrast check box.
        on = item.checkState() == Qt.CheckState.Checked
        font = QFont(self.font())
        font.setStrikeOut(on)
        item.setFont(font)
        color = self.palette().color(QPalette.ColorRole.Highlight)
        item.setBackground(QBrush(color, Qt.BrushStyle.BDiagPattern) if on else QBrush())

    def _on_q_item_changed(self, item) -> None:
        with blocked(self):
            self._style(item)
        self.sigFlagsEdited.emit(self.flags())
