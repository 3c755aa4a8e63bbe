"""Run the resolver's large recomputes on a worker thread (superqt's thread-pool workers)."""

from __future__ import annotations

from collections.abc import Callable

from superqt.utils import create_worker


def qt_runner(job: Callable[[], object], done: Callable[[object], None]) -> None:
    """Run ``job`` on Qt's global thread pool; call ``done`` on the GUI thread with its result.

    ``done`` receives the exception instead when the job raised, so the caller can leave
    its busy state and say what went wrong (a runner of :class:`attnviz.model.resolve.Resolver`).
    """
    # The worker's signals live on the GUI thread, so these slots run there (queued). Errors
    # go to ``done`` too: superqt would otherwise re-raise them inside the event loop.
    worker = create_worker(job, _start_thread=False, _connect={"returned": done, "errored": done})
    worker.start()
