"""Qt-free events whose listeners are isolated from each other.

A topic's ``changed`` and a resolver's ``resolved`` reach the undo history, the resolvers
and every panel. If one listener raised in the middle of an emission (a view's hover
lookup on a matrix that just shrank, say), a plain signal would skip every listener after
it: the undo history would miss the change and later edits would fail. Here every live
listener is called whatever the others do; the errors are handed to :func:`report` once
all have run. By default :func:`report` re-raises the first one (tests see it); the
application installs a handler that logs it and keeps going.

Listeners run in two phases, whatever order they connected in: first the ``MODEL`` phase
(the document's forwarding, the undo history, the resolvers), then the ``VIEW`` phase (the
default: panels, labels, timers). A panel that reads a resolver's results while it
handles a change therefore always reads results that already follow that change.

The API is the small part of psygnal's that the model uses: a :class:`Signal` declared on
a class gives each instance an :class:`Emitter` with ``connect``, ``disconnect``,
``blocked`` and ``emit``. Bound methods are held weakly, so a listener that is garbage
collected simply stops receiving.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager

ErrorHandler = Callable[[BaseException], None]

#: The phases of an emission, in the order they run.
MODEL, VIEW = 0, 1
PHASES = (MODEL, VIEW)


def _raise(exc: BaseException) -> None:
    raise exc


_handler: ErrorHandler = _raise


def set_error_handler(handler: ErrorHandler | None) -> ErrorHandler:
    """Install ``handler`` for listener errors (None: re-raise); return the previous one."""
    global _handler
    previous = _handler
    _handler = handler or _raise
    return previous


def report(exc: BaseException) -> None:
    """Hand a listener's exception to the installed error handler."""
    _handler(exc)


class _Slot:
    """One connection: a function held strongly or a bound method held weakly."""

    __slots__ = ("key", "phase", "_ref", "_func")

    def __init__(self, callback: Callable, phase: int = VIEW) -> None:
        self.phase = phase
        if hasattr(callback, "__self__") and hasattr(callback, "__func__"):
            self._ref = weakref.WeakMethod(callback)
            self._func = None
            self.key = (id(callback.__self__), callback.__func__)
        else:
            self._ref = None
            self._func = callback
            self.key = (None, callback)

    def target(self) -> Callable | None:
        """The callable, or None when its object is gone."""
        return self._func if self._ref is None else self._ref()


class Emitter:
    """The per-instance side of a :class:`Signal`."""

    __slots__ = ("_slots", "_blocked", "_running", "_count", "__weakref__")

    def __init__(self) -> None:
        self._slots: list[_Slot] = []
        self._blocked = 0
        self._running: list[int] = []  # the emissions under way, innermost last
        self._count = 0

    @property
    def emission(self) -> int | None:
        """A number for the emission whose listeners are running now (the innermost, when
        a listener emitted again), or None between emissions. A listener that keeps it
        can tell, when something else calls it later, whether this emission has already
        reached it."""
        return self._running[-1] if self._running else None

    def connect(self, callback: Callable, *, phase: int = VIEW) -> Callable:
        """Call ``callback(*args)`` on every emission, in ``phase`` (:data:`MODEL`
        listeners all run before any :data:`VIEW` one); returns ``callback``."""
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
        slot = _Slot(callback, phase)
        if all(s.key != slot.key for s in self._slots):
            # Kept sorted by phase, in connection order within one (a stable insert).
            at = sum(1 for s in self._slots if s.phase <= phase)
            self._slots.insert(at, slot)
        return callback

    def disconnect(self, callback: Callable, *, missing_ok: bool = True) -> None:
        """Stop calling ``callback``; a callback that is not connected is ignored."""
        key = _Slot(callback).key
        kept = [s for s in self._slots if s.key != key]
        if len(kept) == len(self._slots) and not missing_ok:
            raise ValueError(f"{callback!r} is not connected")
        self._slots = kept

    def __len__(self) -> int:
        return sum(1 for s in self._slots if s.target() is not None)

    @contextmanager
    def blocked(self) -> Iterator[None]:
        """Emit nothing inside the block."""
        self._blocked += 1
        try:
            yield
        finally:
            self._blocked -= 1

    def emit(self, *args, phase: int | None = None) -> None:
        """Call every live listener with ``args`` (only those of ``phase`` when given),
        the :data:`MODEL` phase first; errors are reported after all have run."""
        if self._blocked:
            return
        errors = []
        dead = False
        self._count += 1
        self._running.append(self._count)
        try:
            for slot in list(self._slots):
                if phase is not None and slot.phase != phase:
                    continue
                target = slot.target()
                if target is None:
                    dead = True
                    continue
                try:
                    target(*args)
                except Exception as exc:  # isolate listeners; reported below
                    errors.append(exc)
        finally:
            self._running.pop()
        if dead:
            self._slots = [s for s in self._slots if s.target() is not None]
        for exc in errors:
            report(exc)


class Signal:
    """Declare an event on a class: ``changed = Signal()``; each instance gets an Emitter."""

    def __init__(self, *_types) -> None:
        self._name = ""

    def __set_name__(self, owner, name: str) -> None:
        self._name = f"_event_{name}"

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        emitter = instance.__dict__.get(self._name)
        if emitter is None:
            emitter = Emitter()
            instance.__dict__[self._name] = emitter
        return emitter
