"""superqt's ``qthrottled``, made the first time it is called.

A panel shown at start-up throttles what a drag writes (an arrow, an embedding), but
nothing is dragged before the window is up; importing superqt costs about as much as
building a panel, so the throttle, and the import, wait for the first call.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

#: How often a drag writes its field at most: about one screen frame, so that each step
#: repaints before the next is written. The one rate of every slider and drag in the app.
THROTTLE_MS = 16


class LazyThrottled:
    """``qthrottled(func, timeout=timeout, parent=parent)`` once first called.

    Parameters
    ----------
    func : callable
        What to call, at most once per ``timeout`` ms (the last arguments win).
    timeout : int
        Milliseconds.
    parent : QObject
        The throttle's owner (its timer goes with it).
    """

    def __init__(self, func: Callable, *, timeout: int, parent: QObject) -> None:
        self._func = func
        self._timeout = timeout
        self._parent = parent
        self._throttled = None

    def __call__(self, *args, **kwargs):
        if self._throttled is None:
            from superqt.utils import qthrottled

            self._throttled = qthrottled(self._func, timeout=self._timeout, parent=self._parent)
        return self._throttled(*args, **kwargs)

    def flush(self) -> None:
        """Make the pending call now (nothing is pending before the first call)."""
        if self._throttled is not None:
            self._throttled.flush()

    def cancel(self) -> None:
        """Drop the pending call."""
        if self._throttled is not None:
            self._throttled.cancel()
