"""Undo and redo of every document edit, for the window's menus, toolbar and title.

The history itself is Qt-free (:class:`attnviz.model.history.History`: recorded from the
document's events, merged drags, bounded in bytes). :class:`HistoryStack` gives it the
face of a ``QUndoStack`` — the calls and signals the menus, the session controller and
the tests use — and :class:`UndoController` names the steps and builds the actions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction, QKeySequence

from attnviz.model.document import Document
from attnviz.model.history import MERGE_INTERVAL, History
from attnviz.model.topic import Topic
from attnviz.ui.widgets.binding import bind

__all__ = [
    "MERGE_INTERVAL",
    "HistoryStack",
    "UndoController",
    "change_label",
    "register_labels",
]

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
    ("stretch_weights", QT_TRANSLATE_NOOP("UndoController", "Levels of A")),
    ("grad_source", QT_TRANSLATE_NOOP("UndoController", "Upstream gradient")),
    ("grad_seed", QT_TRANSLATE_NOOP("UndoController", "Gradient seed")),
    ("grad_dim", QT_TRANSLATE_NOOP("UndoController", "Gradient component")),
    ("rope", QT_TRANSLATE_NOOP("UndoController", "RoPE on the heatmap")),
    ("rope_type", QT_TRANSLATE_NOOP("UndoController", "RoPE scaling")),
    ("head_dim", QT_TRANSLATE_NOOP("UndoController", "Head width")),
    ("base", QT_TRANSLATE_NOOP("UndoController", "RoPE base")),
    ("factor", QT_TRANSLATE_NOOP("UndoController", "Scaling factor")),
    ("original_context", QT_TRANSLATE_NOOP("UndoController", "Original context")),
    ("position", QT_TRANSLATE_NOOP("UndoController", "Query position")),
    ("key_position", QT_TRANSLATE_NOOP("UndoController", "Key position")),
    ("offset", QT_TRANSLATE_NOOP("UndoController", "Position offset")),
)


def register_labels(*pairs: tuple[str, str]) -> None:
    """Add ``(field, QT_TRANSLATE_NOOP("UndoController", text))`` names of undo steps.

    A panel module calls this for the fields of its topic, so adding a panel needs no edit
    here; the first registered name of a field wins.
    """
    global _LABELS
    known = {f for f, _t in _LABELS}
    _LABELS = _LABELS + tuple(p for p in pairs if p[0] not in known)


def change_label(names) -> str:
    """The translated name of a change to the fields ``names`` (e.g. "Temperature")."""
    for field, text in _LABELS:
        if field in names:
            return QCoreApplication.translate("UndoController", text)
    names = sorted(names)
    if names:
        return QCoreApplication.translate("UndoController", "Edit %1").replace("%1", names[0])
    return QCoreApplication.translate("UndoController", "Edit")


class HistoryStack(QObject):
    """A :class:`History` with the calls and signals of a ``QUndoStack``."""

    cleanChanged = Signal(bool)
    indexChanged = Signal(int)
    canUndoChanged = Signal(bool)
    canRedoChanged = Signal(bool)
    undoTextChanged = Signal(str)
    redoTextChanged = Signal(str)

    def __init__(self, history: History, labeller, parent=None) -> None:
        super().__init__(parent)
        self.history = history
        self._label = labeller
        self._seen = self._status()
        bind(self, history.changed, self._on_history_changed)

    def _status(self) -> tuple:
        return (
            self.isClean(),
            self.index(),
            self.canUndo(),
            self.canRedo(),
            self.undoText(),
            self.redoText(),
        )

    def _on_history_changed(self) -> None:
        now = self._status()
        signals = (
            self.cleanChanged,
            self.indexChanged,
            self.canUndoChanged,
            self.canRedoChanged,
            self.undoTextChanged,
            self.redoTextChanged,
        )
        old, self._seen = self._seen, now
        for signal, before, after in zip(signals, old, now, strict=True):
            if before != after:
                signal.emit(after)

    def count(self) -> int:
        return len(self.history.steps)

    def index(self) -> int:
        return self.history.index

    def canUndo(self) -> bool:
        return self.history.can_undo

    def canRedo(self) -> bool:
        return self.history.can_redo

    def undoText(self) -> str:
        step = self.history.undo_step
        return self._label(step) if step is not None else ""

    def redoText(self) -> str:
        step = self.history.redo_step
        return self._label(step) if step is not None else ""

    def undo(self) -> None:
        self.history.undo()

    def redo(self) -> None:
        self.history.redo()

    def isClean(self) -> bool:
        return self.history.is_clean()

    def setClean(self) -> None:
        self.history.set_clean()

    def clear(self) -> None:
        self.history.clear()


class UndoController(QObject):
    """Records every change of a document and offers undo/redo actions.

    Parameters
    ----------
    document : Document or Topic
        What to record; a lone topic (the attention state) gets a document of its own.
    parent : QObject, optional
        Qt parent.

    Attributes
    ----------
    history : History
        The Qt-free history.
    stack : HistoryStack
        The history as the menus and the session controller see it.
    """

    def __init__(self, document, parent=None) -> None:
        super().__init__(parent)
        if isinstance(document, Topic):
            document = Document(**{document.NAME: document})
        self.document = document
        self.history = History(document)
        self.stack = HistoryStack(self.history, self.label_for, self)

    @property
    def clock(self):
        """Returns seconds; replaceable in tests so merging never depends on real time."""
        return self.history.clock

    @clock.setter
    def clock(self, value) -> None:
        self.history.clock = value

    def label_for(self, step) -> str:
        """The text of ``step`` (its :meth:`merging` label if it has one)."""
        return step.label or change_label(step.names())

    @contextmanager
    def merging(self, label: str | None = None) -> Iterator[None]:
        """Make every change inside the block one undo step, named ``label``.

        Use around a drag (press … release) or a compound edit such as opening a session.
        """
        with self.history.merging(label):
            yield

    def clear(self) -> None:
        """Forget the history (e.g. after opening a session) and mark the state clean."""
        self.history.clear()

    def resync(self) -> None:
        """Re-read every field, after changes made with the document's events blocked."""
        self.history.resync()

    def _action(self, parent, text: str, enabled, changed, label, triggered) -> QAction:
        action = QAction(text, parent)

        def refresh(*_args) -> None:
            step_text = label()
            action.setText(f"{text} {step_text}".strip())
            action.setEnabled(enabled())

        changed.connect(refresh)
        action.triggered.connect(lambda _checked=False: triggered())
        refresh()
        return action

    def create_undo_action(self, parent) -> QAction:
        """An "Undo <change>" action with the platform's undo shortcut."""
        s = self.stack
        action = self._action(
            parent, self.tr("Undo"), s.canUndo, s.undoTextChanged, s.undoText, s.undo
        )
        s.canUndoChanged.connect(action.setEnabled)
        action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
        action.setObjectName("action_undo")
        return action

    def create_redo_action(self, parent) -> QAction:
        """A "Redo <change>" action with the platform's redo shortcut."""
        s = self.stack
        action = self._action(
            parent, self.tr("Redo"), s.canRedo, s.redoTextChanged, s.redoText, s.redo
        )
        s.canRedoChanged.connect(action.setEnabled)
        action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
        action.setObjectName("action_redo")
        return action
