"""Undo and redo of every state edit, recorded automatically from the state's events.

Controls only write the state; :class:`UndoController` listens to
``AttentionState.changed``, keeps the last known value of every field and pushes one
:class:`StateCommand` per change holding the before/after values of the fields that
changed. Consecutive changes of the same fields in quick succession (a slider drag) merge
into one step, and so does everything written inside :meth:`UndoController.merging`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack

from attnviz.model.state import FIELD_NAMES, AttentionState, values_equal
from attnviz.ui.widgets.binding import bind

#: Changes of the same fields closer together than this (seconds) form one undo step:
#: long enough to span the pauses of a hand-held drag, short enough that two deliberate
#: edits stay apart.
MERGE_INTERVAL = 0.6

_MERGE_ID = 0x41545456  # any constant other than -1 lets Qt try mergeWith

#: Browsing (picking a query or a cell) is not an edit: it is neither an undo step nor a
#: reason to ask "save changes?" on quit.
SELECTION_FIELDS = frozenset({"selected_query", "selected_cell"})

# The name an undo step gets, by the most telling field it changed (first match wins).
_LABELS = (
    ("preset_id", QT_TRANSLATE_NOOP("UndoController", "Preset")),
    ("tokens", QT_TRANSLATE_NOOP("UndoController", "Tokens")),
    ("head", QT_TRANSLATE_NOOP("UndoController", "Head type")),
    ("seed", QT_TRANSLATE_NOOP("UndoController", "Seed")),
    ("d_k", QT_TRANSLATE_NOOP("UndoController", "d_k")),
    ("q", QT_TRANSLATE_NOOP("UndoController", "Query vectors")),
    ("k", QT_TRANSLATE_NOOP("UndoController", "Key vectors")),
    ("v", QT_TRANSLATE_NOOP("UndoController", "Value vectors")),
    ("scale", QT_TRANSLATE_NOOP("UndoController", "√d_k scaling")),
    ("temperature", QT_TRANSLATE_NOOP("UndoController", "Temperature")),
    ("causal", QT_TRANSLATE_NOOP("UndoController", "Causal mask")),
    ("padding", QT_TRANSLATE_NOOP("UndoController", "Padding mask")),
    ("segments", QT_TRANSLATE_NOOP("UndoController", "Document segments")),
    ("window", QT_TRANSLATE_NOOP("UndoController", "Sliding window")),
    ("window_causal", QT_TRANSLATE_NOOP("UndoController", "Window direction")),
    ("selected_query", QT_TRANSLATE_NOOP("UndoController", "Selected query")),
    ("selected_cell", QT_TRANSLATE_NOOP("UndoController", "Selected cell")),
    ("matrix", QT_TRANSLATE_NOOP("UndoController", "Matrix")),
    ("colormap", QT_TRANSLATE_NOOP("UndoController", "Colormap")),
    ("levels_auto", QT_TRANSLATE_NOOP("UndoController", "Automatic levels")),
    ("levels", QT_TRANSLATE_NOOP("UndoController", "Levels")),
    ("value_labels", QT_TRANSLATE_NOOP("UndoController", "Value labels")),
    ("backend", QT_TRANSLATE_NOOP("UndoController", "Backend")),
)


def change_label(names) -> str:
    """The translated name of a change to the fields ``names`` (e.g. "Temperature")."""
    for field, text in _LABELS:
        if field in names:
            return QCoreApplication.translate("UndoController", text)
    return QCoreApplication.translate("UndoController", "Edit")


def _copy(value):
    # Arrays are copied so an in-place edit elsewhere can never rewrite history.
    return value.copy() if isinstance(value, np.ndarray) else copy.deepcopy(value)


class StateCommand(QUndoCommand):
    """One undoable change: the before and after values of the fields it touched."""

    def __init__(self, controller: UndoController, before: dict, after: dict, group) -> None:
        super().__init__(controller.label_for(before))
        self._controller = controller
        self.before = before
        self.after = after
        self.group = group
        self.epoch = controller._epoch
        self.time = controller.clock()
        self._pushed = False

    def id(self) -> int:
        return _MERGE_ID

    def mergeWith(self, other) -> bool:
        if not isinstance(other, StateCommand) or other.epoch != self.epoch:
            return False
        if self.group is not None or other.group is not None:
            same = other.group is self.group
        else:
            same = set(other.after) == set(self.after) and (other.time - self.time < MERGE_INTERVAL)
        if not same:
            return False
        for name, value in other.before.items():
            self.before.setdefault(name, value)
        self.after.update(other.after)
        self.time = other.time
        if all(values_equal(self.before[n], self.after[n]) for n in self.after):
            # A drag that came back to where it started is no step at all.
            self.setObsolete(True)
        return True

    def redo(self) -> None:
        if not self._pushed:
            # QUndoStack.push calls redo(); the change has already happened.
            self._pushed = True
            return
        self._controller._apply(self.after)

    def undo(self) -> None:
        self._controller._apply(self.before)


class UndoController(QObject):
    """Records every change of ``state`` on a :class:`QUndoStack`.

    Parameters
    ----------
    state : AttentionState
        The state to watch; undo and redo write it back without being recorded.
    parent : QObject, optional
        Qt parent.

    Attributes
    ----------
    stack : QUndoStack
        The undo history; its clean state is "saved" for the session controller.
    clock : callable
        Returns seconds; replaceable in tests so merging never depends on real time.
    """

    def __init__(self, state: AttentionState, parent=None) -> None:
        super().__init__(parent)
        self.state = state
        self.stack = QUndoStack(self)
        self.clock = time.monotonic
        self._last = {name: _copy(getattr(state, name)) for name in FIELD_NAMES}
        self._applying = False
        self._group = None
        self._group_label = None
        self._epoch = 0
        bind(self, state.changed, self._on_state_changed)
        # Qt deletes the stack after this object's ``destroyed``: silence it first, so its
        # last cleanChanged never reaches a window that is itself half destroyed.
        stack = self.stack
        self.destroyed.connect(lambda *_: stack.blockSignals(True))

    # --- recording ---------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        after = {n: _copy(getattr(self.state, n)) for n in names}
        before = {n: self._last[n] for n in names}
        self._last.update({n: _copy(v) for n, v in after.items()})
        if self._applying or names <= SELECTION_FIELDS:
            return
        self.stack.push(StateCommand(self, before, after, self._group))

    def label_for(self, values: dict) -> str:
        """The text of a step changing ``values`` (the :meth:`merging` label if one is set)."""
        return self._group_label or change_label(values)

    @contextmanager
    def merging(self, label: str | None = None) -> Iterator[None]:
        """Make every state change inside the block one undo step, named ``label``.

        Use around a drag (press … release) or a compound edit such as opening a session.
        """
        outer = self._group, self._group_label
        self._group, self._group_label = object(), label
        try:
            yield
        finally:
            self._group, self._group_label = outer
            self._epoch += 1  # the next change starts a step of its own

    def _apply(self, values: dict) -> None:
        self._applying = True
        try:
            self.state.update(**{n: _copy(v) for n, v in values.items()})
        finally:
            self._applying = False
            self._epoch += 1  # never merge a new edit into a step just undone or redone

    # --- public ------------------------------------------------------------------------
    def clear(self) -> None:
        """Forget the history (e.g. after opening a session) and mark the state clean."""
        self.stack.clear()
        self.resync()
        self.stack.setClean()

    def resync(self) -> None:
        """Re-read every field, after changes made with the state's signal blocked."""
        self._last = {name: _copy(getattr(self.state, name)) for name in FIELD_NAMES}
        self._epoch += 1

    def create_undo_action(self, parent) -> QAction:
        """An "Undo <change>" action with the platform's undo shortcut."""
        action = self.stack.createUndoAction(parent, self.tr("Undo"))
        action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
        action.setObjectName("action_undo")
        return action

    def create_redo_action(self, parent) -> QAction:
        """A "Redo <change>" action with the platform's redo shortcut."""
        action = self.stack.createRedoAction(parent, self.tr("Redo"))
        action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
        action.setObjectName("action_redo")
        return action
