"""The undo history of a document, recorded from its events, bounded in bytes (no Qt).

Every change of a topic becomes a :class:`Step` holding, per topic, the before and after
values of the fields that changed — ``(topic, field, before, after)``. Selections
(browse fields) are not steps. Consecutive changes of the same fields in quick succession
(a slider drag) merge into one step, and so does everything inside :meth:`History.merging`.

Arrays a topic can regenerate (a synthetic head's Q/K/V from its seed) are not stored: the
step keeps the fields they come from instead. What remains is counted, and the oldest steps
are dropped once the history holds more than ``max_bytes``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from attnviz.model import events
from attnviz.model.document import Document
from attnviz.model.events import Signal
from attnviz.model.topic import values_equal

#: Changes of the same fields closer together than this (seconds) form one step: long
#: enough to span the pauses of a hand-held drag, short enough that two edits stay apart.
MERGE_INTERVAL = 0.6
#: Default bound of the history: a few hundred steps of 4096 × 1024 hand-typed vectors.
MAX_BYTES = 512 * 1024 * 1024


def _nbytes(values: dict) -> int:
    """The bytes the fields' values hold: arrays, and texts too (4,096 tokens of 200
    characters are a megabyte a step, as a matrix is)."""
    return sum(_size(v) for v in values.values())


def _size(value, depth: int = 0) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (str, bytes)):
        return sys.getsizeof(value)
    if isinstance(value, (tuple, list, frozenset, set)) and depth < 4:
        return sys.getsizeof(value) + sum(_size(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 4:
        return sys.getsizeof(value) + sum(_size(v, depth + 1) for v in value.values())
    return 16  # a number, a bool, None: small, but not nothing


@dataclass
class Step:
    """One undoable change: ``before[topic][field]`` and ``after[topic][field]``."""

    before: dict[str, dict]
    after: dict[str, dict]
    group: object = None
    epoch: int = 0
    time: float = 0.0
    label: str | None = None
    nbytes: int = field(default=0)

    def fields(self) -> set[tuple[str, str]]:
        """The ``(topic, field)`` pairs the step changes."""
        return {(t, f) for t, values in self.after.items() for f in values}

    def changed_fields(self) -> set[tuple[str, str]]:
        """The ``(topic, field)`` pairs whose value the step really changes (an update
        may write a field its own value again, a head index kept in range): what names
        the step."""
        return {
            (t, f)
            for t, values in self.after.items()
            for f, value in values.items()
            if not values_equal(self.before.get(t, {}).get(f), value)
        }

    def names(self) -> frozenset:
        """The field names the step changes, of every topic (for labels)."""
        return frozenset(f for values in self.after.values() for f in values)

    def merge(self, other: Step) -> None:
        """Absorb ``other``, a later step: keep the earliest before, take the latest after."""
        for topic, values in other.before.items():
            mine = self.before.setdefault(topic, {})
            for name, value in values.items():
                mine.setdefault(name, value)
        for topic, values in other.after.items():
            self.after.setdefault(topic, {}).update(values)
        self.time = other.time
        self.nbytes = sum(_nbytes(v) for v in (*self.before.values(), *self.after.values()))

    def is_noop(self) -> bool:
        """True when every field ends where it started (a drag that came back)."""
        return all(
            values_equal(self.before.get(t, {}).get(f), v)
            for t, values in self.after.items()
            for f, v in values.items()
        )


class History:
    """Records every change of ``document``; undo and redo write it back unrecorded.

    Emits :attr:`changed` after anything that alters what can be undone or redone, or
    whether the document is clean ("saved").
    """

    changed = Signal()

    def __init__(self, document: Document, *, max_bytes: int = MAX_BYTES) -> None:
        self.document = document
        self.max_bytes = max_bytes
        self.clock = time.monotonic
        self.steps: list[Step] = []
        self.index = 0
        self.clean_index: int | None = 0
        self._last = document.snapshot()
        self._applying = False
        self._group: object = None
        self._group_label: str | None = None
        self._epoch = 0
        document.changed.connect(self._on_changed, phase=events.MODEL)

    # --- recording ---------------------------------------------------------------------
    def _on_changed(self, topic_name: str, names: frozenset) -> None:
        topic = self.document[topic_name]
        before_full = self._last[topic_name]
        after_full = topic.snapshot()
        self._last[topic_name] = after_full
        if self._applying or names <= topic.browse_keys():
            return  # browsing alone is no step (with an edit, the selection goes along)
        before = _compact(topic, before_full, names)
        after = _compact(topic, after_full, names)
        step = Step(
            {topic_name: before},
            {topic_name: after},
            self._group,
            self._epoch,
            self.clock(),
            self._group_label,
            _nbytes(before) + _nbytes(after),
        )
        self._push(step)

    def _push(self, step: Step) -> None:
        del self.steps[self.index :]
        if self.clean_index is not None and self.clean_index > self.index:
            self.clean_index = None  # the saved state was on the branch just cut off
        last = self.steps[-1] if self.steps else None
        if last is not None and self._mergeable(last, step):
            last.merge(step)
            if last.is_noop():
                self.steps.pop()
                self.index -= 1
        else:
            self.steps.append(step)
            self.index += 1
        self._bound()
        self.changed.emit()

    def _mergeable(self, last: Step, step: Step) -> bool:
        if last.epoch != step.epoch or self.index != len(self.steps):
            return False
        if last.group is not None or step.group is not None:
            return last.group is step.group
        return last.fields() == step.fields() and step.time - last.time < MERGE_INTERVAL

    def _bound(self) -> None:
        while len(self.steps) > 1 and sum(s.nbytes for s in self.steps) > self.max_bytes:
            self.steps.pop(0)
            self.index -= 1
            if self.clean_index is not None:
                self.clean_index = self.clean_index - 1 if self.clean_index > 0 else None

    @contextmanager
    def merging(self, label: str | None = None) -> Iterator[None]:
        """Make every change inside the block one step, named ``label``."""
        outer = self._group, self._group_label
        self._group, self._group_label = object(), label
        try:
            yield
        finally:
            self._group, self._group_label = outer
            self._epoch += 1  # the next change starts a step of its own

    # --- moving ------------------------------------------------------------------------
    def _apply(self, values: dict[str, dict]) -> None:
        self._applying = True
        try:
            for topic_name, fields in values.items():
                self.document[topic_name].update(**fields)
        finally:
            self._applying = False
            self._epoch += 1  # never merge a new edit into a step just undone or redone
        self.changed.emit()

    def undo(self) -> None:
        """Go one step back (nothing when there is none)."""
        if self.index > 0:
            self.index -= 1
            self._apply(self.steps[self.index].before)

    def redo(self) -> None:
        """Go one step forward (nothing when there is none)."""
        if self.index < len(self.steps):
            self.index += 1
            self._apply(self.steps[self.index - 1].after)

    @property
    def can_undo(self) -> bool:
        return self.index > 0

    @property
    def can_redo(self) -> bool:
        return self.index < len(self.steps)

    @property
    def undo_step(self) -> Step | None:
        """The step :meth:`undo` would take back."""
        return self.steps[self.index - 1] if self.index > 0 else None

    @property
    def redo_step(self) -> Step | None:
        """The step :meth:`redo` would do again."""
        return self.steps[self.index] if self.index < len(self.steps) else None

    @property
    def nbytes(self) -> int:
        """Bytes of array data the history holds."""
        return sum(s.nbytes for s in self.steps)

    # --- clean state and resets --------------------------------------------------------
    def is_clean(self) -> bool:
        """True when the document is as it was last saved (or opened)."""
        return self.index == self.clean_index

    def set_clean(self) -> None:
        """Mark the current state as saved."""
        self.clean_index = self.index
        self.changed.emit()

    def clear(self) -> None:
        """Forget every step and mark the current state clean (after opening a session)."""
        self.steps.clear()
        self.index = 0
        self.clean_index = 0
        self.resync()
        self.changed.emit()

    def resync(self) -> None:
        """Re-read every topic, after changes made while the document's events were blocked."""
        self._last = self.document.snapshot()
        self._epoch += 1


def _compact(topic, full: dict, names: frozenset) -> dict:
    """The values of ``names`` in ``full``, regenerable arrays replaced by their inputs."""
    values = {n: full[n] for n in names}
    drop = topic.regenerable(full) & names
    if drop:
        for n in drop:
            del values[n]
        for n in topic.regeneration_inputs():
            values[n] = full[n]
    return values
