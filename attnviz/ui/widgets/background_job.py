"""One long computation at a time, off the GUI thread, with progress and cancel.

A panel gives :meth:`BackgroundJob.start` a pure function ``job(progress, cancel)``; it runs
on a thread pool of its own (:func:`run_in_pool`: a map of several seconds must not hold
one of the two threads of Qt's global pool, which the heatmap's recomputes need),
``progress(fraction)`` is kept and polled by a timer on the GUI thread (so the job never
touches Qt), and ``cancel`` is a :class:`threading.Event` the job polls between tiles.
Starting a new job or cancelling drops the old one's result (a generation counter), so a
late answer never overwrites a newer request; cancelling reports at once, without waiting
for the thread to notice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal
from shiboken6 import isValid

from attnviz.core.work import Cancelled

#: How often the progress bar follows the job.
POLL_MS = 50
#: Threads of the long-computation pool: a map, a zoomed block and the backend probe.
POOL_THREADS = 3
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


def run_in_pool(function: Callable[[], object], done: Callable[[object], None]) -> None:
    """Run ``function`` on the long-computation pool; ``done(result or exception)`` is
    called on the GUI thread."""
    if not _POOL:
        pool = QThreadPool()
        pool.setMaxThreadCount(POOL_THREADS)
        _POOL.append(pool)
    task = _Task(function, done)
    task.setAutoDelete(False)
    _RUNNING.add(task)
    _POOL[0].start(task)


def wait_for_workers(timeout_ms: int = 30_000) -> bool:
    """Wait until the long-computation pool and Qt's global pool (superqt's workers) have
    nothing running; True when both emptied in time. Before the application quits: a
    worker that reports after its signals' owners are gone prints a traceback."""
    pools = [*_POOL, QThreadPool.globalInstance()]
    return all(pool.waitForDone(timeout_ms) for pool in pools)


class BackgroundJob(QObject):
    """Runs ``job(progress, cancel)`` on a worker; reports on the GUI thread.

    Signals
    -------
    sigProgress(fraction)
        While the job runs, every :data:`POLL_MS` when it advanced.
    sigFinished(result)
        The job returned (only the latest job's result is reported).
    sigFailed(exception)
        The job raised, or was cancelled (:class:`attnviz.core.tiled.Cancelled`).
    """

    sigProgress = Signal(float)
    sigFinished = Signal(object)
    sigFailed = Signal(object)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._generation = 0
        self._flag: threading.Event | None = None
        self._progress = [0.0]
        self._reported = -1.0
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._on_q_poll)

    @property
    def running(self) -> bool:
        """True while the latest job has not answered."""
        return self._flag is not None

    def start(self, job: Callable) -> None:
        """Run ``job(progress, cancel)`` instead of whatever runs now."""
        self._drop()
        self._generation += 1
        generation, flag, box = self._generation, threading.Event(), [0.0]
        self._flag, self._progress, self._reported = flag, box, -1.0

        def progress(fraction: float) -> None:
            box[0] = fraction  # a float store: safe from the worker thread

        def work():
            return job(progress, flag)

        def done(result) -> None:
            if isValid(self) and generation == self._generation:
                self._finish(result)

        self.timer.start()
        self.sigProgress.emit(0.0)
        run_in_pool(work, done)

    def run_now(self, job: Callable) -> None:
        """Run ``job`` here and report at once (offscreen exports and scripts)."""
        self._drop()
        self._generation += 1
        try:
            result = job(lambda _f: None, threading.Event())
        except Exception as exc:  # reported like a worker's failure
            self.sigFailed.emit(exc)
            return
        self.sigFinished.emit(result)

    def cancel(self) -> None:
        """Stop the job (it ends within a tile) and report :class:`Cancelled` now."""
        if self._flag is None:
            return
        self._drop()
        self._generation += 1
        self.sigFailed.emit(Cancelled("cancelled"))

    def _drop(self) -> None:
        if self._flag is not None:
            self._flag.set()
        self._flag = None
        self.timer.stop()

    def _finish(self, result) -> None:
        self._flag = None
        self.timer.stop()
        if isinstance(result, BaseException):
            self.sigFailed.emit(result)
        else:
            self.sigProgress.emit(1.0)
            self.sigFinished.emit(result)

    def _on_q_poll(self) -> None:
        value = self._progress[0]
        if value != self._reported:
            self._reported = value
            self.sigProgress.emit(value)
