"""The one way attnviz runs work off the caller's thread: latest wins, with cache and cancel.

Every resolver whose results take too long for the GUI thread, and every long job a panel
starts (an overview map, a finite-difference check), hands its work to a
:class:`LatestWork`. A job is ``job(progress, cancel)``: pure, it reports ``progress(fraction)``
from wherever it runs and polls ``cancel`` (a :class:`threading.Event`) between tiles. Each
request carries a hashable ``key`` of the inputs it depends on; the answers that reach
``on_done`` are only ever those of the newest request, so a result for old inputs is never
shown. A runner (:data:`Runner`; the UI passes its one thread pool) runs jobs elsewhere and
calls back on the caller's thread; without one, a job runs at once where it is asked for.

Two ways to treat a request made while a job runs, chosen per owner:

- ``replace="wait"``: the running job goes on; when it answers (to ``on_stale``, which may
  keep what is reusable of it) the newest request starts. A fast drag costs at most two
  computations, and nothing is thrown away half done (the heatmap, the lazy topics);
- ``replace="cancel"``: the running job is told to stop (it ends within a tile) and the
  newest starts at once (a map of several seconds the user has just asked to redo).

Qt-free: the pool, its threads and the progress bar's timer are the UI's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from attnviz.core.work import Cancelled

#: ``runner(job, done)`` runs ``job()`` elsewhere and later calls ``done(result)`` (or
#: ``done(exception)``) on the thread that owns the work (the UI passes its thread pool).
Runner = Callable[[Callable[[], object], Callable[[object], None]], None]
#: ``job(progress, cancel)`` → result.
Job = Callable[[Callable[[float], None], threading.Event], object]

REPLACE = ("wait", "cancel")


class _Request:
    """One request: its key, job, generation, progress box and cancel flag."""

    __slots__ = ("cancel", "generation", "job", "key", "progress")

    def __init__(self, key: Hashable, job: Job | None, generation: int) -> None:
        self.key, self.job, self.generation = key, job, generation
        self.cancel = threading.Event()
        self.progress = 0.0

    def run(self):
        def progress(fraction: float) -> None:
            self.progress = fraction  # a float store: safe from the worker thread

        return self.job(progress, self.cancel)


class LatestWork:
    """Runs one owner's jobs, one at a time (or the newest alone), the latest request wins.

    Parameters
    ----------
    on_done : callable(key, result)
        The newest request's answer (a result, or the exception its job raised), on the
        owner's thread. Never called for a request that a newer one or :meth:`cancel`
        replaced.
    runner : Runner, optional
        Where jobs run; None runs each at once on the caller's thread.
    on_stale : callable(key, result), optional
        The answer of a request that a newer one replaced while it ran (``replace="wait"``):
        for keeping what is reusable of it. The newest request starts right after.
    cache_size : int
        Answers kept by key; a request for a kept key is answered at once, without a job.
    replace : "wait" or "cancel"
        What a request does to a job already running (see the module's docstring).
    make_job : callable(key) → job, optional
        Builds the job of a request made without one, on the owner's thread when the job
        starts: a request that waited behind another then reads what that one left (the
        attention resolver reuses q kᵀ of a stale answer).
    """

    def __init__(
        self,
        on_done: Callable[[Hashable, object], None],
        runner: Runner | None = None,
        *,
        on_stale: Callable[[Hashable, object], None] | None = None,
        cache_size: int = 0,
        replace: str = "wait",
        make_job: Callable[[Hashable], Job] | None = None,
    ) -> None:
        if replace not in REPLACE:
            raise ValueError(f"replace must be one of {REPLACE}, got {replace!r}")
        self.on_done, self.on_stale, self.runner = on_done, on_stale, runner
        self.cache_size, self.replace, self.make_job = cache_size, replace, make_job
        self.generation = 0
        self._cache: OrderedDict = OrderedDict()
        self._wanted: _Request | None = None  # the newest request, until it is answered
        self._running: _Request | None = None  # the job out on the runner (replace="wait")

    # --- state -------------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        """True while the newest request has not been answered."""
        return self._wanted is not None

    @property
    def progress(self) -> float:
        """How far the newest request's job has come (0 before it starts)."""
        return self._wanted.progress if self._wanted is not None else 1.0

    @property
    def wanted_key(self) -> Hashable | None:
        """The key of the request being worked on (None when none is)."""
        return self._wanted.key if self._wanted is not None else None

    def cached(self, key: Hashable, default=None):
        """The kept answer of ``key`` (it becomes the most recent), else ``default``."""
        if key not in self._cache:
            return default
        self._cache.move_to_end(key)
        return self._cache[key]

    def keep(self, key: Hashable, result) -> None:
        """Keep ``result`` as the answer of ``key`` (results computed elsewhere, too)."""
        if self.cache_size <= 0:
            return
        self._cache[key] = result
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    # --- requests ----------------------------------------------------------------------
    def request(self, key: Hashable, job: Job | None = None, *, now: bool = False) -> bool:
        """Ask for ``job``'s answer to ``key`` (None: ``make_job(key)``'s, built when it
        starts); True when it was answered at once (from the cache, with no runner, or
        ``now``: here, whatever the runner), False when it runs elsewhere."""
        self.generation += 1
        if key in self._cache:
            self._drop_wanted()
            self.on_done(key, self.cached(key))
            return True
        wanted = _Request(key, job, self.generation)
        if now or self.runner is None:
            self._drop_wanted()
            self._prepare(wanted)
            self._answer(wanted, _call(wanted))
            return True
        if self.replace == "cancel":
            self._drop_wanted()
            self._wanted = wanted
            self._dispatch(wanted)
            return False
        self._wanted = wanted
        if self._running is None:  # else the running job's answer starts this one
            self._dispatch(wanted)
        return False

    def cancel(self) -> bool:
        """Forget the newest request (its answer will not be delivered) and tell its job
        to stop; True when there was one."""
        self.generation += 1
        return self._drop_wanted()

    def _drop_wanted(self) -> bool:
        wanted, self._wanted = self._wanted, None
        if wanted is None:
            return False
        wanted.cancel.set()
        return True

    def _prepare(self, request: _Request) -> None:
        if request.job is None:
            request.job = self.make_job(request.key)

    def _dispatch(self, request: _Request) -> None:
        self._prepare(request)
        if self.replace == "wait":
            self._running = request
        self.runner(request.run, lambda result: self._on_answer(request, result))

    def _on_answer(self, request: _Request, result) -> None:
        if self._running is request:
            self._running = None
        if request is self._wanted:
            self._answer(request, result)
            return
        if self.replace == "wait":
            if self.on_stale is not None and not isinstance(result, BaseException):
                self.on_stale(request.key, result)
            if self._wanted is not None and self._running is None:
                self._dispatch(self._wanted)  # the newest request, waiting for this one

    def _answer(self, request: _Request, result) -> None:
        self._wanted = None
        if not isinstance(result, BaseException):
            self.keep(request.key, result)
        elif isinstance(result, Cancelled) and request.cancel.is_set():
            return  # stopped on purpose: whoever stopped it knows
        self.on_done(request.key, result)


def _call(request: _Request):
    """``request``'s answer here and now: its result, or the exception it raised."""
    try:
        return request.run()
    except Exception as exc:  # answered like a worker's failure
        return exc
