"""Resolvers that compute only when someone looks: a visible panel or an export.

A :class:`LazyResolver` marks itself stale when a field it reads changes. While at least
one watcher (a shown panel) holds it, it recomputes at once and emits ``resolved``;
otherwise it waits until :attr:`LazyResolver.results` is read. A hidden panel therefore
costs nothing. :meth:`LazyResolver.compute` is pure: fields in, results out.
"""

from __future__ import annotations

from attnviz.model.document import Document
from attnviz.model.events import Signal


class LazyResolver:
    """Base of the resolvers of every topic but attention.

    Subclasses set :attr:`TOPIC`, may set :attr:`READS` (other topics and the fields of
    them they depend on; None = every field) and :attr:`IGNORES` (fields of their own
    topic that change nothing, such as a preset label), and implement :meth:`compute`.
    """

    TOPIC = ""
    READS: dict[str, frozenset | None] = {}
    IGNORES: frozenset = frozenset({"preset_id"})

    resolved = Signal(object, frozenset)
    failed = Signal(str)
    #: ``watching(bool)``: someone started looking (True) or the last one stopped (False).
    watching = Signal(bool)

    def __init__(self, document: Document) -> None:
        self.document = document
        self.topic = document[self.TOPIC]
        self._results = None
        self._stale = True
        self._watchers: set = set()
        self.computations = 0
        document.changed.connect(self._on_changed)

    # --- results -----------------------------------------------------------------------
    def compute(self):
        """Results of the current fields (override; pure)."""
        raise NotImplementedError

    @property
    def results(self):
        """The current results, computed now if stale."""
        if self._stale or self._results is None:
            self._refresh()
        return self._results

    def _refresh(self) -> bool:
        try:
            self._results = self.compute()
        except (ValueError, ArithmeticError, MemoryError) as exc:
            self.failed.emit(f"{type(exc).__name__}: {exc}")
            if self._results is None:
                raise
            return False
        self.computations += 1
        self._stale = False
        return True

    # --- watching ----------------------------------------------------------------------
    def watch(self, key) -> None:
        """Keep the results current while ``key`` (a shown panel) watches.

        Nothing is emitted: whoever starts watching reads :attr:`results` (others that
        were already watching have current results, since a watched resolver is never
        stale).
        """
        was = self.watched
        self._watchers.add(key)
        if not was:
            self.watching.emit(True)

    def unwatch(self, key) -> None:
        """``key`` no longer looks: stop computing eagerly when nobody else does."""
        was = self.watched
        self._watchers.discard(key)
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
        if self._watchers and self._refresh():
            self.resolved.emit(self._results, frozenset(names))
