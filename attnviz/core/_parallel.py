"""Threads for the overview: work items on every core, with cancel and progress.

numpy runs its elementwise passes on one thread and its matrix products on BLAS threads
that meet at every call; an overview that keeps both cores busy instead runs several
threads of its own (numpy releases the GIL in both), each doing whole tiles, with the BLAS
made single-threaded meanwhile (:func:`serial_blas`, through threadpoolctl). Only the
standard library is imported at the top.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading

from attnviz.core.work import Cancelled


def cores() -> int:
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class Runner:
    """Work items on several threads (the caller is one), with cancel and progress.

    ``cancel`` and ``progress`` are called on the calling thread only, between its tiles and
    while it waits for the others, so they need not be thread-safe (a Qt worker's flag and
    signal, say); the other threads watch a private stop event and end within one tile.
    """

    def __init__(self, total: float, cancel=None, progress=None):
        self.total, self.cancel, self.progress = max(total, 1.0), cancel, progress
        self.watched = cancel is not None or progress is not None
        # ``done`` is the caller's alone; the other threads hand their finished work over
        # through ``finished``, which the caller drains between tiles and while it waits.
        self.done, self.reported = 0.0, -1.0
        self.finished: queue.SimpleQueue[float] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.caller = threading.get_ident()

    def check(self) -> None:
        """Between tiles: raise :class:`Cancelled` when stopped; report progress."""
        if threading.get_ident() == self.caller:
            self._drain()
            if self.cancel is not None and self.cancel():
                self.stop.set()
            else:
                self._report()
        if self.stop.is_set():
            raise Cancelled("the overview was cancelled")

    def advance(self, amount: float) -> None:
        """Count ``amount`` of the total as done (from any of the threads)."""
        if threading.get_ident() == self.caller:
            self.done += amount
        else:
            self.finished.put(amount)

    def _report(self) -> None:
        if self.progress is not None and self.done != self.reported:
            self.reported = self.done
            self.progress(min(self.done / self.total, 1.0))

    def _drain(self, wait: float = 0.0) -> None:
        """Count and report, one by one, the items the other threads finished; with
        ``wait``, wait that long for the first. One report per item, however late the
        caller comes to them (a busy machine may run the others far ahead of it)."""
        try:
            amount = self.finished.get(timeout=wait) if wait else self.finished.get_nowait()
            while True:
                self.done += amount
                self._report()
                amount = self.finished.get_nowait()
        except queue.Empty:
            pass

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(1.0)

    def run(self, items, work, workers: int) -> None:
        """Call ``work(*item, check, scratch)`` for each ``(weight, *item)`` of ``items``,
        heaviest first; ``scratch`` is a dict of the thread's own, for buffers."""
        pending = iter(sorted(items, key=lambda it: -it[0]))
        errors: list[BaseException] = []

        def take():
            with self.lock:
                return next(pending, None)

        def loop(item):
            scratch: dict = {}
            while item is not None and not self.stop.is_set():
                work(*item[1:], self.check, scratch)
                self.advance(item[0])
                item = take()

        def helper():
            try:
                loop(take())
            except BaseException as exc:  # re-raised on the calling thread
                if not isinstance(exc, Cancelled):
                    errors.append(exc)
                    self.stop.set()

        # The caller takes its first item before the others start, so that it always works
        # (and reports) between tiles, however quickly the others would empty a short list.
        first = take()
        threads = [threading.Thread(target=helper, daemon=True) for _ in range(workers - 1)]
        for t in threads:
            t.start()
        try:
            loop(first)
            for t in threads:
                while t.is_alive():
                    self._drain(wait=0.01)  # each item the others finish is reported
                    self.check()
                t.join()
            self._drain()
        except BaseException:
            self.stop.set()
            for t in threads:
                t.join()
            if errors:
                raise errors[0] from None
            raise
        if errors:
            raise errors[0]


_blas_lock = threading.Lock()
_blas = {"calls": None, "users": 0, "saved": 0}


def _find_openblas():
    """``(get_num_threads, set_num_threads)`` of numpy's BLAS (through threadpoolctl, which
    finds the library loaded and its symbols on every platform), or () when it has none
    that takes a thread count."""
    import numpy  # noqa: F401  (its BLAS must be loaded for threadpoolctl to see it)
    from threadpoolctl import ThreadpoolController  # lazy: only an overview needs it

    found = ThreadpoolController().select(user_api="blas").lib_controllers
    # numpy's own copy first (scipy or torch may have loaded another).
    found = sorted(found, key=lambda lib: "numpy" not in (lib.filepath or ""))
    if not found:
        return ()
    lib = found[0]
    return (lambda: lib.get_num_threads()), lib.set_num_threads


@contextlib.contextmanager
def serial_blas():
    """Run numpy's OpenBLAS on one thread meanwhile; yield the thread count it had (0: no
    OpenBLAS found, nothing changed).

    Each overview worker is then one core's worth of products and elementwise passes: BLAS
    threads of its own would contend with the other workers, and wait for the slowest of
    them at every call. The setting is process-wide, so it is counted across concurrent
    overviews and restored by the last one.
    """
    with _blas_lock:
        if _blas["calls"] is None:
            _blas["calls"] = _find_openblas()
        if not _blas["calls"]:
            threads = 0
        else:
            get, put = _blas["calls"]
            if _blas["users"] == 0:
                _blas["saved"] = get()
                put(1)
            _blas["users"] += 1
            threads = _blas["saved"]
    try:
        yield threads
    finally:
        if threads:
            with _blas_lock:
                _blas["users"] -= 1
                if _blas["users"] == 0:
                    _blas["calls"][1](_blas["saved"])
