"""A topic panel whose results take too long for the GUI thread (> ~50 ms).

The lazy resolver of such a topic stays pure and synchronous (exports read it); the panel
does not watch it. Instead it computes the results of the topic's current inputs itself:

- from a small cache of recent results, at once (dragging a slider back and forth);
- else on a worker thread, one job at a time: edits made while a job runs only mark the
  panel stale, and when the job ends the panel starts one for the newest inputs, so a fast
  drag costs at most two computations and a result for old inputs is never drawn;
- synchronously when the panel is a window of its own (an offscreen export or a test
  building it alone), where there is no interaction to keep alive.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Hashable

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from attnviz.model import events
from attnviz.ui.widgets.state_panel import TopicPanel
from attnviz.ui.workers import qt_runner


class BackgroundTopicPanel(TopicPanel):
    """A :class:`TopicPanel` that computes its results off the GUI thread.

    Subclasses implement :meth:`inputs` (a hashable key of everything the results depend
    on) and :meth:`job` (pure: key → results, run on a worker thread), and draw in
    :meth:`_on_results` as usual. :attr:`results` holds what is drawn.
    """

    #: Results kept for instant redraws.
    CACHE_SIZE = 16

    def __init__(self, workspace, parent=None) -> None:
        self._recent: OrderedDict = OrderedDict()
        self._running: Hashable | None = None
        self._drawn: Hashable | None = None
        self._failed = False
        self.results = None
        super().__init__(workspace, parent)
        self.busy = QLabel(self.tr("Computing…"))
        self.busy.setObjectName("busy")
        self.busy.hide()

    # --- for subclasses ----------------------------------------------------------------
    def inputs(self) -> Hashable:
        """The key of the current results (override)."""
        raise NotImplementedError

    def job(self, key: Hashable):
        """The results for ``key`` (override; pure, runs on a worker thread)."""
        raise NotImplementedError

    @property
    def computing(self) -> bool:
        """True while a worker computes results."""
        return self._running is not None

    @property
    def current(self) -> bool:
        """True when the drawn results belong to the topic's current inputs."""
        return self._drawn is not None and self._drawn == self.inputs()

    # --- shown or not: no watching of the resolver ----------------------------------------
    def set_shown(self, on: bool) -> None:
        """Start or stop looking (the dock's visibility, or show/hide when free-standing)."""
        if on == self._shown:
            return
        self._shown = on
        if not on:
            return
        if self.window() is self:
            self.request()
        else:
            # After the event loop settles: a dock shown for a moment while the window
            # arranges its tabs starts no job.
            QTimer.singleShot(0, self._request_if_shown)

    def _request_if_shown(self) -> None:
        if shiboken6.isValid(self) and self._shown:
            self.request()

    def _on_state_changed(self, names: frozenset) -> None:
        super()._on_state_changed(names)
        if names & self.state.recompute_keys() and self._shown:
            self.request()

    # --- computing ---------------------------------------------------------------------
    def request(self) -> None:
        """Bring the drawn results up to date with the topic (at once or on a worker)."""
        key = self.inputs()
        if key == self._drawn:
            return
        if key in self._recent:
            self._recent.move_to_end(key)
            self._deliver(key, self._recent[key])
            return
        if self.window() is self:
            try:
                results = self.job(key)
            except (ValueError, ArithmeticError, MemoryError) as exc:
                self._fail(exc)
                return
            self._keep(key, results)
            self._deliver(key, results)
            return
        if self._running is None:
            self._start(key)

    def _start(self, key: Hashable) -> None:
        self._running = key
        self.busy.show()
        ref = weakref.ref(self)

        def done(result, key=key) -> None:
            panel = ref()
            if panel is not None and shiboken6.isValid(panel):
                panel._on_job_done(key, result)

        qt_runner(lambda: self.job(key), done)

    def _on_job_done(self, key: Hashable, result) -> None:
        self._running = None
        self.busy.hide()
        if isinstance(result, BaseException):
            if key == self.inputs():
                self._fail(result)
            if not isinstance(result, (ValueError, ArithmeticError, MemoryError)):
                QTimer.singleShot(0, lambda error=result: events.report(error))
            return
        self._keep(key, result)
        if not self._shown:
            return
        if key == self.inputs():
            self._deliver(key, result)
        else:
            self.request()  # the topic moved on while the worker ran

    def _keep(self, key: Hashable, results) -> None:
        self._recent[key] = results
        while len(self._recent) > self.CACHE_SIZE:
            self._recent.popitem(last=False)

    def _fail(self, exc: BaseException) -> None:
        self._failed = True
        self.show_error(f"{type(exc).__name__}: {exc}")

    def _deliver(self, key: Hashable, results) -> None:
        if self._failed:
            self._failed = False
            self.show_error(None)
        self.results = results
        self._drawn = key
        self.redraw()

    def redraw(self) -> None:
        """Draw the held results again (after a theme or font change); failures are shown."""
        if self.results is None:
            return
        try:
            self._on_results(self.results)
        except Exception as exc:  # a view must not take the window down
            self.show_error(f"{type(exc).__name__}: {exc}")
            QTimer.singleShot(0, lambda error=exc: events.report(error))
