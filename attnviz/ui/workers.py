"""The application's one thread pool: every job that leaves the GUI thread runs here.

The resolvers' recomputes, the overview's maps and zoomed blocks, the gradient check, the
backend probe and model loading all go through :func:`run_in_pool` (as the
:data:`attnviz.model.resolve.work.Runner` of their :class:`~attnviz.model.resolve.work.LatestWork`).
Latest-wins keeps at most one job per owner in flight (plus a cancelled one ending within
a tile), so a few threads more than the cores keep a map of several seconds from holding
up the heatmap's recomputes.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from attnviz.core._parallel import cores

#: Threads of the pool: the owners that may have work out at once (attention, two lazy
#: topics, an overview map and a zoomed block, a check, a probe or a model load).
POOL_THREADS = max(6, cores())
_POOL: list[QThreadPool] = []
_RUNNING: set = set()  # the tasks in flight (PySide would otherwise collect them)


class _Signals(QObject):
    done = Signal(object)


class _Task(QRunnable):
    def __init__(self, function: Callable[[], object], done: Callable[[object], None]):
        super().__init__()
        self.function = function
        self.signals = _Signals()  # lives on the GUI thread: ``done`` runs there (queued)
        self.signals.done.connect(done)

    def run(self) -> None:
        try:
            result = self.function()
        except Exception as exc:  # handed to ``done`` instead of the result
            result = exc
        try:
            self.signals.done.emit(result)
        except RuntimeError:  # the application is quitting: nobody is left to tell
            pass
        finally:
            _RUNNING.discard(self)


def _pool() -> QThreadPool:
    if not _POOL:
        pool = QThreadPool()
        pool.setMaxThreadCount(POOL_THREADS)
        _POOL.append(pool)
    return _POOL[0]


def run_in_pool(function: Callable[[], object], done: Callable[[object], None]) -> None:
    """Run ``function`` on the pool; ``done(result or exception)`` is called on the GUI
    thread (the UI's :data:`~attnviz.model.resolve.work.Runner`)."""
    task = _Task(function, done)
    task.setAutoDelete(False)
    _RUNNING.add(task)
    _pool().start(task)


#: The runner the workspace's resolvers get.
qt_runner = run_in_pool


def wait_for_workers(timeout_ms: int = 30_000) -> bool:
    """Wait until the pool has nothing running; True when it emptied in time. Before the
    application quits: a worker that reports after its signals' owners are gone prints a
    traceback."""
    return all(pool.waitForDone(timeout_ms) for pool in _POOL)
