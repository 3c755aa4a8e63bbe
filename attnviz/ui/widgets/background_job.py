"""One long computation at a time, off the GUI thread, with progress and cancel.

A panel gives :meth:`BackgroundJob.start` a pure function ``job(progress, cancel)``; it runs
through a :class:`~attnviz.model.resolve.work.LatestWork` (``replace="cancel"``) on the
application's one pool (:mod:`attnviz.ui.workers`). ``progress(fraction)`` is kept and
polled by a timer on the GUI thread (so the job never touches Qt), and ``cancel`` is a
:class:`threading.Event` the job polls between tiles. Starting a new job or cancelling
drops the old one's result, so a late answer never overwrites a newer request; cancelling
reports at once, without waiting for the thread to notice.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from shiboken6 import isValid

from attnviz.core.work import Cancelled
from attnviz.model.resolve.work import LatestWork
from attnviz.ui.workers import run_in_pool

#: How often the progress bar follows the job.
POLL_MS = 50


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
        self.work = LatestWork(self._on_answer, self._run, replace="cancel")
        self._reported = -1.0
        self._now = False  # answering run_now: no progress to report
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self._on_q_poll)

    @property
    def running(self) -> bool:
        """True while the latest job has not answered."""
        return self.work.pending

    def start(self, job: Callable) -> None:
        """Run ``job(progress, cancel)`` instead of whatever runs now."""
        self._reported = -1.0
        self.timer.start()
        self.sigProgress.emit(0.0)
        if self.work.request(self.work.generation + 1, job):
            self.timer.stop()

    def run_now(self, job: Callable) -> None:
        """Run ``job`` here and report at once (offscreen exports and scripts)."""
        self.timer.stop()
        self._now = True
        try:
            self.work.request(self.work.generation + 1, job, now=True)
        finally:
            self._now = False

    def cancel(self) -> None:
        """Stop the job (it ends within a tile) and report :class:`Cancelled` now."""
        if self.work.cancel():
            self.timer.stop()
            self.sigFailed.emit(Cancelled("cancelled"))

    def _run(self, function, done) -> None:
        # The answer may come after the panel that owns this job is gone.
        run_in_pool(function, lambda result: isValid(self) and done(result))

    def _on_answer(self, _key, result) -> None:
        self.timer.stop()
        if isinstance(result, BaseException):
            self.sigFailed.emit(result)
        else:
            if not self._now:
                self.sigProgress.emit(1.0)
            self.sigFinished.emit(result)

    def _on_q_poll(self) -> None:
        value = self.work.progress
        if self.work.pending and value != self._reported:
            self._reported = value
            self.sigProgress.emit(value)
