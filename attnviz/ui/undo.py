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

# The name an undo step gets, by the most telling field it changed (the first in this
# order wins), keyed by topic and field: the same name in two topics may mean two things
# (the attention head's type, the overview's head). "*": the field of every topic.
_LABELS: dict[tuple[str, str], str] = {
    ("*", "preset_id"): QT_TRANSLATE_NOOP("UndoController", "Preset"),
    ("attention", "tokens"): QT_TRANSLATE_NOOP("UndoController", "Tokens"),
    ("attention", "head"): QT_TRANSLATE_NOOP("UndoController", "Head type"),
    ("attention", "seed"): QT_TRANSLATE_NOOP("UndoController", "Seed"),
    ("attention", "d_k"): QT_TRANSLATE_NOOP("UndoController", "d_k"),
    ("attention", "q"): QT_TRANSLATE_NOOP("UndoController", "Query vectors"),
    ("attention", "k"): QT_TRANSLATE_NOOP("UndoController", "Key vectors"),
    ("attention", "v"): QT_TRANSLATE_NOOP("UndoController", "Value vectors"),
    ("attention", "scale"): QT_TRANSLATE_NOOP("UndoController", "√d_k scaling"),
    ("attention", "temperature"): QT_TRANSLATE_NOOP("UndoController", "Temperature"),
    ("attention", "causal"): QT_TRANSLATE_NOOP("UndoController", "Causal mask"),
    ("attention", "padding"): QT_TRANSLATE_NOOP("UndoController", "Padding mask"),
    ("attention", "segments"): QT_TRANSLATE_NOOP("UndoController", "Document segments"),
    ("attention", "window"): QT_TRANSLATE_NOOP("UndoController", "Sliding window"),
    ("attention", "window_causal"): QT_TRANSLATE_NOOP("UndoController", "Window direction"),
    ("attention", "selected_query"): QT_TRANSLATE_NOOP("UndoController", "Selected query"),
    ("attention", "selected_cell"): QT_TRANSLATE_NOOP("UndoController", "Selected cell"),
    ("attention", "matrix"): QT_TRANSLATE_NOOP("UndoController", "Matrix"),
    ("attention", "colormap"): QT_TRANSLATE_NOOP("UndoController", "Colormap"),
    ("attention", "levels_auto"): QT_TRANSLATE_NOOP("UndoController", "Automatic levels"),
    ("attention", "levels"): QT_TRANSLATE_NOOP("UndoController", "Levels"),
    ("attention", "value_labels"): QT_TRANSLATE_NOOP("UndoController", "Value labels"),
    ("attention", "backend"): QT_TRANSLATE_NOOP("UndoController", "Backend"),
    ("attention", "stretch_weights"): QT_TRANSLATE_NOOP("UndoController", "Levels of A"),
    ("attention", "grad_source"): QT_TRANSLATE_NOOP("UndoController", "Upstream gradient"),
    ("attention", "grad_seed"): QT_TRANSLATE_NOOP("UndoController", "Gradient seed"),
    ("attention", "grad_dim"): QT_TRANSLATE_NOOP("UndoController", "Gradient component"),
    ("attention", "rope"): QT_TRANSLATE_NOOP("UndoController", "RoPE on the heatmap"),
    ("positions", "rope_type"): QT_TRANSLATE_NOOP("UndoController", "RoPE scaling"),
    ("positions", "head_dim"): QT_TRANSLATE_NOOP("UndoController", "Head width"),
    ("positions", "base"): QT_TRANSLATE_NOOP("UndoController", "RoPE base"),
    ("positions", "factor"): QT_TRANSLATE_NOOP("UndoController", "Scaling factor"),
    ("positions", "original_context"): QT_TRANSLATE_NOOP("UndoController", "Original context"),
    ("positions", "position"): QT_TRANSLATE_NOOP("UndoController", "Query position"),
    ("positions", "key_position"): QT_TRANSLATE_NOOP("UndoController", "Key position"),
    ("positions", "offset"): QT_TRANSLATE_NOOP("UndoController", "Position offset"),
    ("attention", "softcap"): QT_TRANSLATE_NOOP("UndoController", "Logit soft-cap"),
    ("attention", "alibi"): QT_TRANSLATE_NOOP("UndoController", "ALiBi"),
    ("attention", "sink"): QT_TRANSLATE_NOOP("UndoController", "Attention sink"),
    ("attention", "sink_logit"): QT_TRANSLATE_NOOP("UndoController", "Sink logit"),
    ("attention", "rope_dims"): QT_TRANSLATE_NOOP("UndoController", "Rotated dimensions"),
    ("attention", "d_output"): QT_TRANSLATE_NOOP("UndoController", "Upstream gradient values"),
    ("positions", "low_freq_factor"): QT_TRANSLATE_NOOP("UndoController", "Low-frequency factor"),
    ("positions", "high_freq_factor"): QT_TRANSLATE_NOOP("UndoController", "High-frequency factor"),
    ("positions", "beta_fast"): QT_TRANSLATE_NOOP("UndoController", "YaRN β fast"),
    ("positions", "beta_slow"): QT_TRANSLATE_NOOP("UndoController", "YaRN β slow"),
    ("positions", "alibi_slope"): QT_TRANSLATE_NOOP("UndoController", "ALiBi slope"),
    ("display", "decimals"): QT_TRANSLATE_NOOP("UndoController", "Decimals"),
}


def register_labels(topic: str, *pairs: tuple[str, str]) -> None:
    """Add ``(field, QT_TRANSLATE_NOOP("UndoController", text))`` names of the undo steps
    of ``topic``'s fields.

    A panel module calls this for the fields of its topic, so adding a panel needs no edit
    here. A field named twice for one topic is a mistake, refused.
    """
    for field, text in pairs:
        if (topic, field) in _LABELS:
            raise ValueError(f"the undo label of {topic}.{field} is registered twice")
        _LABELS[(topic, field)] = text


def label_text(topic: str, field: str) -> str | None:
    """The untranslated undo label of ``topic.field``, or None when it has none."""
    return _LABELS.get((topic, field), _LABELS.get(("*", field)))


def change_label(fields) -> str:
    """The translated name of a change to the ``(topic, field)`` pairs ``fields`` (e.g.
    "Temperature")."""
    fields = set(fields)
    names = {f for _t, f in fields}
    for (topic, field), text in _LABELS.items():
        if (topic, field) in fields or (topic == "*" and field in names):
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
        return step.label or change_label(step.fields())

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
