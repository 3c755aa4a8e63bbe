"""Undo and redo of every document edit, for the window's menus, toolbar and title.

The history itself is Qt-free (:class:`attnviz.model.history.History`: recorded from the
document's events, merged drags, bounded in bytes). :class:`HistoryStack` gives it the
face of a ``QUndoStack`` — the calls and signals the menus, the session controller and
the tests use — and :class:`UndoController` names the steps and builds the actions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal
from PySide6.QtGui import QAction, QKeySequence

from attnviz.model.document import Document
from attnviz.model.history import MERGE_INTERVAL, History
from attnviz.model.topic import Topic
from attnviz.model.topics import topic_classes
from attnviz.ui.widgets.binding import bind

__all__ = [
    "MERGE_INTERVAL",
    "HistoryStack",
    "UndoController",
    "change_label",
    "label_text",
]

#: The name of an undo step that changes a preset: it wins over every field it set.
_PRESET_LABEL = QT_TRANSLATE_NOOP("UndoController", "Preset")


@cache
def _labels() -> dict[tuple[str, str], str]:
    """Every field's undo label (its declaration's ``label``), by ``(topic, field)``, in
    the order that names a step changing several: the document's topics and each
    topic's fields as declared (the first found wins)."""
    return {(cls.NAME, f.name): f.label for cls in topic_classes() for f in cls.FIELDS if f.label}


def label_text(topic: str, field: str) -> str | None:
    """The untranslated undo label of ``topic.field``, or None when it has none."""
    if field == "preset_id":
        return _PRESET_LABEL
    return _labels().get((topic, field))


def change_label(fields) -> str:
    """The translated name of a change to the ``(topic, field)`` pairs ``fields`` (e.g.
    "Temperature"): a preset's, else that of the first field in the document's order."""
    fields = set(fields)
    names = {f for _t, f in fields}
    if "preset_id" in names:
        return QCoreApplication.translate("UndoController", _PRESET_LABEL)
    for key, text in _labels().items():
        if key in fields:
            return QCoreApplication.translate("UndoController", text)
    if names:
        return QCoreApplication.translate("UndoController", "Edit %1").replace(
            "%1", sorted(names)[0]
        )
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
        return step.label or change_label(step.changed_fields() or step.fields())

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
