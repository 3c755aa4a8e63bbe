"""Resolvers that compute only when someone looks: a visible panel or an export.

A :class:`LazyResolver` marks itself stale when a field it reads changes. While at least
one watcher (a shown panel) holds it, it recomputes at once and emits ``resolved``;
otherwise it waits until :attr:`LazyResolver.results` is read. A hidden panel therefore
costs nothing. :meth:`LazyResolver.compute` is pure: fields in, results out.

A resolver whose results take too long for the GUI thread (> ~50 ms: the reach curves, the
embedding batch) sets :attr:`LazyResolver.BACKGROUND` and computes from a hashable
:meth:`~LazyResolver.key` of its inputs. While watched, it hands the work to a
:class:`~attnviz.model.resolve.work.LatestWork` on the workspace's runner (latest wins, one
cache of :attr:`~LazyResolver.CACHE_SIZE` results) and emits ``busy`` around it; an
export, or a watcher that asks for it (a panel that is a window of its own), computes at
once. Panels only receive what it emits.
"""

from __future__ import annotations

from collections.abc import Hashable

from attnviz.model import events
from attnviz.model.document import Document
from attnviz.model.events import Signal
from attnviz.model.resolve.result_names import RESULTS
from attnviz.model.resolve.work import LatestWork, Runner

#: What a computation may fail with for a value it was given (shown, not a crash).
EXPECTED_ERRORS = (ValueError, ArithmeticError, MemoryError)


class LazyResolver:
    """Base of the resolvers of every topic but attention.

    Subclasses set :attr:`TOPIC`, may set :attr:`READS` (other topics and the fields of
    them they depend on; None = every field) and :attr:`IGNORES` (fields of their own
    topic that change nothing, such as a preset label), and implement :meth:`compute`.
    """

    TOPIC = ""
    READS: dict[str, frozenset | None] = {}
    IGNORES: frozenset = frozenset({"preset_id"})
    #: Compute off the caller's thread while watched (set with :meth:`key` and
    #: :meth:`compute_key`), keeping this many recent results.
    BACKGROUND = False
    CACHE_SIZE = 16
    #: False: computes only while watched (the attention resolver is always on).
    EAGER = False
    #: What ``resolved`` says is new: the results, as a whole.
    RESULT_NAMES = frozenset({RESULTS})

    resolved = Signal(object, frozenset)
    failed = Signal(str)
    #: ``watching(bool)``: someone started looking (True) or the last one stopped (False).
    watching = Signal(bool)
    #: ``busy(bool)``: a background computation started (True) or answered (False).
    busy = Signal(bool)

    def __init__(self, document: Document, runner: Runner | None = None) -> None:
        self.document = document
        self.topic = document[self.TOPIC]
        self._results = None
        self._stale = True
        self._watchers: dict = {}  # watcher → it wants results at once (no runner)
        self.computations = 0
        #: The key of the results last emitted (BACKGROUND).
        self.latest_key: Hashable | None = None
        self._busy = False
        self.work = LatestWork(
            self._on_answer,
            runner if self.BACKGROUND else None,
            cache_size=self.CACHE_SIZE if self.BACKGROUND else 0,
            make_job=lambda key: lambda _progress, _cancel: self.compute_key(key),
        )
        document.changed.connect(self._on_changed, phase=events.MODEL)

    # --- results -----------------------------------------------------------------------
    def compute(self):
        """Results of the current fields (override; pure)."""
        raise NotImplementedError

    def key(self) -> Hashable:
        """A hashable key of every input of the results (override with BACKGROUND)."""
        raise NotImplementedError

    def compute_key(self, key: Hashable):
        """Results of the inputs ``key`` holds (override with BACKGROUND; pure, may run on
        a worker thread)."""
        raise NotImplementedError

    @property
    def results(self):
        """The current results, computed now if stale."""
        if self.BACKGROUND:
            key = self.key()
            results = self.work.cached(key)
            if results is None:
                results = self.compute_key(key)
                self.work.keep(key, results)
                self.computations += 1
            return results
        if self._stale or self._results is None:
            self._refresh()
        return self._results

    @property
    def current(self) -> bool:
        """True when the results last emitted belong to the current inputs (BACKGROUND)."""
        return self.latest_key is not None and self.latest_key == self.key()

    @property
    def computing(self) -> bool:
        """True while a background computation for the current inputs runs."""
        return self.work.pending

    def request(self, *, now: bool = False) -> None:
        """Bring the emitted results up to date with the inputs (BACKGROUND): from the
        cache at once, else on the runner (``now``: here) — ``resolved`` follows."""
        key = self.key()
        if key == self.latest_key and not self.work.pending:
            return
        if not self.work.request(key, now=now) and not self._busy:
            self._busy = True
            self.busy.emit(True)

    def _on_answer(self, key: Hashable, result) -> None:
        if self._busy:
            self._busy = False
            self.busy.emit(False)
        if isinstance(result, BaseException):
            self.failed.emit(f"{type(result).__name__}: {result}")
            if not isinstance(result, EXPECTED_ERRORS):
                events.report(result)  # a defect, not a value: the crash log hears of it
            return
        self.computations += 1
        self.latest_key = key
        self.resolved.emit(result, self.RESULT_NAMES)

    def _refresh(self) -> bool:
        try:
            self._results = self.compute()
        except EXPECTED_ERRORS as exc:
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            if self._results is None:
                raise
            return False
        self.computations += 1
        self._stale = False
        return True

    # --- watching ----------------------------------------------------------------------
    def watch(self, key, *, now: bool = False) -> None:
        """Keep the results current while ``key`` (a shown panel) watches; ``now``: it
        wants them computed at once, never on the runner (BACKGROUND).

        Nothing is emitted: whoever starts watching reads :attr:`results` (others that
        were already watching have current results, since a watched resolver is never
        stale), or, with BACKGROUND, calls :meth:`request`.
        """
        was = self.watched
        self._watchers[key] = now
        if not was:
            self.watching.emit(True)

    def unwatch(self, key) -> None:
        """``key`` no longer looks: stop computing eagerly when nobody else does."""
        was = self.watched
        self._watchers.pop(key, None)
        if was and not self.watched:
            self.watching.emit(False)

    @property
    def watched(self) -> bool:
        """True while at least one watcher holds the resolver."""
        return bool(self._watchers)

    def _relevant(self, topic: str, names: frozenset) -> bool:
        if topic == self.TOPIC:
            return bool(names - self.IGNORES - self.topic.browse_keys()) or bool(
                names & self.topic.browse_keys() and self.reads_browse()
            )
        if topic in self.READS:
            wanted = self.READS[topic]
            return wanted is None or bool(names & wanted)
        return False

    def reads_browse(self) -> bool:
        """True when selections of the own topic change the results (override)."""
        return True

    def _on_changed(self, topic: str, names: frozenset) -> None:
        if not self._relevant(topic, names):
            return
        self._stale = True
        if self.BACKGROUND:
            if self._watchers:
                self.request(now=any(self._watchers.values()))
            return
        if self._watchers and self._refresh():
            self.resolved.emit(self._results, self.RESULT_NAMES)
