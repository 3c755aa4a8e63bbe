"""An editable, reorderable list of tokens that reports where every row came from.

Each item remembers the index it had in the state, so after any edit (rename, insert,
delete, move by button, key or drag) the list emits the new tokens together with the
origin of each one; the editor uses that to keep the Q/K/V rows attached to their tokens.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.ui.widgets.binding import blocked

_ORIGIN = Qt.ItemDataRole.UserRole


class TokenList(QWidget):
    """Tokens with Insert / Delete / Up / Down buttons, keys and drag-and-drop.

    Keys: Insert adds a token after the current one, Delete removes it, Alt+Up and
    Alt+Down move it, F2 or double-click renames it.

    Signals
    -------
    sigEdited(list, list)
        ``(tokens, origins)``: the new tokens and, for each, its previous index or None
        for a new token.
    """

    sigEdited = Signal(list, list)  # Qt naming
    sigCurrentChanged = Signal(int)  # (Qt naming): the user picked a token

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setObjectName("tokens")
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.list.setToolTip(self.tr("Double-click or F2 to rename; drag to reorder"))
        # Every structural edit (including a drag, which Qt may carry out as an insert plus
        # a removal) reaches the model; one coalesced emission follows once it has settled,
        # so the list is never rebuilt in the middle of Qt's own handling.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)
        self._edit_row: int | None = None
        model = self.list.model()
        for signal in (model.rowsInserted, model.rowsRemoved, model.rowsMoved, model.dataChanged):
            signal.connect(self._on_q_model_changed)
        self.list.installEventFilter(self)
        self.list.currentRowChanged.connect(self._on_q_current_row)
        # Two rows of two: one row of four set the list's width in large type. Signs, not
        # words ("Add", "Remove"), so the list can be as narrow as its tokens and leave
        # the width to the numbers; the tooltips and accessible names say what they do.
        buttons = QGridLayout()
        buttons.setSpacing(2)
        self.buttons = {}
        for key, text, tip, slot in (
            ("insert", "+", self.tr("Add a token after this one (Insert)"), self.insert),
            ("delete", "\u2212", self.tr("Remove this token (Delete)"), self.delete),
            ("up", self.tr("▲"), self.tr("Move this token earlier (Alt+Up)"), self.move_up),
            ("down", self.tr("▼"), self.tr("Move this token later (Alt+Down)"), self.move_down),
        ):
            button = QToolButton()
            button.setText(text)
            button.setToolTip(tip)
            button.setAccessibleName(tip)
            button.setObjectName(f"token_{key}")
            button.clicked.connect(slot)
            buttons.addWidget(button, len(self.buttons) // 2, len(self.buttons) % 2)
            self.buttons[key] = button
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.setFocusProxy(self.list)
        self._shown: list[str] = []
        self._setting = False

    # --- model → view ------------------------------------------------------------------
    def set_tokens(self, tokens) -> None:
        """Show ``tokens``; each row's origin becomes its index (no signal)."""
        current = max(self.list.currentRow(), 0)
        self._shown = list(tokens)
        # The model's signals stay on (the view needs them); the flag ignores them instead.
        self._setting = True
        try:
            self.list.clear()
            for i, tok in enumerate(tokens):
                item = QListWidgetItem(tok)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                item.setData(_ORIGIN, i)
                item.setToolTip(self.tr("Token %1: “%2”").replace("%1", str(i)).replace("%2", tok))
                self.list.addItem(item)
            with blocked(self.list):
                self.list.setCurrentRow(min(current, len(tokens) - 1))
        finally:
            self._setting = False
        self.buttons["delete"].setEnabled(len(tokens) > 1)

    def set_current(self, row: int) -> None:
        """Highlight token ``row`` (no signal)."""
        with blocked(self.list):
            self.list.setCurrentRow(row)

    def _on_q_current_row(self, row: int) -> None:
        if not self._setting and row >= 0 and not self._timer.isActive():
            self.sigCurrentChanged.emit(row)

    def tokens(self) -> list[str]:
        """The tokens as the list shows them."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def origins(self) -> list[int | None]:
        """For each row, the index it had in the state (None for a new token)."""
        return [self.list.item(i).data(_ORIGIN) for i in range(self.list.count())]

    # --- edits -------------------------------------------------------------------------
    def insert(self) -> None:
        """Add a token after the current one and start renaming it."""
        row = self.list.currentRow() + 1
        item = QListWidgetItem(self.tr("new"))
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        item.setData(_ORIGIN, None)
        with blocked(self.list):
            self.list.insertItem(row, item)
            self.list.setCurrentRow(row)
        self._edit_row = row

    def delete(self) -> None:
        """Remove the current token (the last one cannot go)."""
        row = self.list.currentRow()
        if row < 0 or self.list.count() <= 1:
            return
        with blocked(self.list):
            self.list.takeItem(row)

    def move_up(self) -> None:
        """Move the current token one place earlier."""
        self._move(-1)

    def move_down(self) -> None:
        """Move the current token one place later."""
        self._move(+1)

    def _move(self, step: int) -> None:
        row = self.list.currentRow()
        dest = row + step
        if row < 0 or not 0 <= dest < self.list.count():
            return
        with blocked(self.list):  # the current row follows the token, not the user's pick
            item = self.list.takeItem(row)
            self.list.insertItem(dest, item)
            self.list.setCurrentRow(dest)

    def flush(self) -> None:
        """Emit :attr:`sigEdited` now if an edit is pending."""
        self._timer.stop()
        tokens, origins = self.tokens(), self.origins()
        if origins == list(range(len(tokens))) and tokens == self._shown:
            return  # nothing changed (e.g. a drag dropped where it started)
        row, self._edit_row = self._edit_row, None
        self.sigEdited.emit(tokens, origins)
        if row is not None and self.list.item(row) is not None:
            self.list.setCurrentRow(row)
            self.list.editItem(self.list.item(row))

    # --- Qt events ---------------------------------------------------------------------
    def _on_q_model_changed(self, *_args) -> None:
        if not self._setting:
            self._timer.start()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.list and event.type() == event.Type.KeyPress:
            alt = event.modifiers() & Qt.KeyboardModifier.AltModifier
            if event.key() == Qt.Key.Key_Insert:
                self.insert()
                return True
            editing = self.list.state() == QAbstractItemView.State.EditingState
            if event.matches(QKeySequence.StandardKey.Delete) and not editing:
                self.delete()
                return True
            if alt and event.key() == Qt.Key.Key_Up:
                self.move_up()
                return True
            if alt and event.key() == Qt.Key.Key_Down:
                self.move_down()
                return True
        return super().eventFilter(obj, event)
