"""LatestWork: latest wins, the cache, cancel, progress and stale answers, with a runner
that runs nothing until the test says so (so every interleaving is the test's choice)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.work import Cancelled
from attnviz.model.resolve.work import LatestWork


class HeldRunner:
    """Keeps every job; :meth:`finish` runs one and calls back, as a pool would later."""

    def __init__(self):
        self.jobs: list = []

    def __call__(self, job, done):
        self.jobs.append((job, done))

    def finish(self, index: int = 0):
        job, done = self.jobs.pop(index)
        try:
            result = job()
        except Exception as exc:
            result = exc
        done(result)


def square(x):
    def job(progress, cancel):
        progress(0.5)
        if cancel.is_set():
            raise Cancelled("stopped")
        return x * x

    return job


def test_without_a_runner_a_request_is_answered_at_once():
    answers = []
    work = LatestWork(lambda k, r: answers.append((k, r)))
    assert work.request(3, square(3)) and answers == [(3, 9)] and not work.pending


def test_wait_mode_runs_one_job_and_then_only_the_newest():
    runner, answers, stale = HeldRunner(), [], []
    work = LatestWork(
        lambda k, r: answers.append((k, r)), runner, on_stale=lambda k, r: stale.append((k, r))
    )
    for x in (1, 2, 3, 4):
        assert not work.request(x, square(x))
    assert len(runner.jobs) == 1 and work.pending and work.wanted_key == 4
    runner.finish()  # the first job's answer is stale: kept aside, and the newest starts
    assert stale == [(1, 1)] and answers == [] and len(runner.jobs) == 1
    runner.finish()
    assert answers == [(4, 16)] and not work.pending and runner.jobs == []


def test_cancel_mode_stops_the_running_job_and_starts_the_newest_at_once():
    runner, answers = HeldRunner(), []
    work = LatestWork(lambda k, r: answers.append((k, r)), runner, replace="cancel")
    work.request(1, square(1))
    work.request(2, square(2))
    assert len(runner.jobs) == 2
    runner.finish(0)  # the first was told to stop; its answer is dropped
    assert answers == []
    runner.finish(0)
    assert answers == [(2, 4)]


def test_cancel_forgets_the_newest_request_and_its_job_stops():
    runner, answers = HeldRunner(), []
    work = LatestWork(lambda k, r: answers.append((k, r)), runner, replace="cancel")
    work.request(5, square(5))
    assert work.cancel() and not work.pending and not work.cancel()
    runner.finish()
    assert answers == []


def test_the_cache_answers_a_kept_key_without_a_job_and_drops_the_oldest():
    runner, answers = HeldRunner(), []
    work = LatestWork(lambda k, r: answers.append((k, r)), runner, cache_size=2)
    for x in (1, 2, 3):
        work.request(x, square(x))
        runner.finish()
    assert answers == [(1, 1), (2, 4), (3, 9)]
    assert work.request(2, square(2)) and answers[-1] == (2, 4) and runner.jobs == []
    assert work.cached(1) is None  # the oldest went when the third came
    assert not work.request(1, square(1))


def test_a_failure_reaches_on_done_and_is_not_kept():
    runner, answers = HeldRunner(), []
    work = LatestWork(lambda k, r: answers.append((k, r)), runner, cache_size=4)

    def fail(progress, cancel):
        raise ValueError("no")

    work.request("a", fail)
    runner.finish()
    assert isinstance(answers[0][1], ValueError) and work.cached("a") is None


def test_progress_is_the_newest_jobs():
    runner = HeldRunner()
    work = LatestWork(lambda k, r: None, runner, replace="cancel")
    seen = threading.Event()

    def job(progress, cancel):
        progress(0.25)
        seen.set()
        return 0

    work.request(1, job)
    assert work.progress == 0.0
    job_, done = runner.jobs[0]
    result = job_()
    assert seen.is_set() and work.progress == 0.25
    done(result)
    assert not work.pending and work.progress == 1.0


def test_now_runs_here_whatever_the_runner():
    runner, answers = HeldRunner(), []
    work = LatestWork(lambda k, r: answers.append((k, r)), runner)
    assert work.request(7, square(7), now=True) and answers == [(7, 49)] and not runner.jobs


def test_an_unknown_replace_is_refused():
    with pytest.raises(ValueError, match="replace"):
        LatestWork(lambda k, r: None, replace="queue")


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["wait", "cancel"]),
    st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=1, max_size=30),
)
def test_any_interleaving_answers_only_the_newest_request(replace, events):
    """Requests and finishes in any order: every answer is the newest request's at the time
    it arrives, and once everything has run the last request has been answered."""
    runner, answers = HeldRunner(), []
    newest = []
    work = LatestWork(lambda k, r: answers.append((k, r, newest[-1])), runner, replace=replace)
    for is_request, x in events:
        if is_request or not runner.jobs:
            newest.append(x)
            work.request(x, square(x))
        else:
            runner.finish(x % len(runner.jobs))
    while runner.jobs:
        runner.finish()
    assert all(k == latest and r == k * k for k, r, latest in answers)
    assert answers and answers[-1][0] == newest[-1] and not work.pending


# --- a background lazy resolver (reach) on a held runner ------------------------------------


def test_a_background_resolver_computes_on_the_runner_while_watched_and_only_the_newest():
    from attnviz.model.resolve.reach import compute_reach
    from attnviz.model.workspace import Workspace

    runner = HeldRunner()
    ws = Workspace(runner=runner)
    resolver = ws.resolver_for("reach")
    busy, drawn = [], []
    resolver.busy.connect(busy.append)
    resolver.resolved.connect(lambda res, _names: drawn.append(res.length))
    resolver.watch("panel")
    resolver.request()
    assert busy == [True] and len(runner.jobs) == 1 and not resolver.current
    for length in (40, 50, 60):  # a drag while the first job runs
        ws.document.set_field("reach.length", length)
    runner.finish()  # the first answer is stale: the newest starts
    assert drawn == [] and len(runner.jobs) == 1
    runner.finish()
    assert drawn == [60] and busy == [True, False] and resolver.current
    np.testing.assert_array_equal(
        resolver.results.curves["rnn"], compute_reach(60, 0, 1.0, 0.0).curves["rnn"]
    )
    ws.document.set_field("reach.length", 256)  # not kept: its first answer came stale
    runner.finish()
    ws.document.set_field("reach.length", 60)  # kept: answered at once, no job
    assert runner.jobs == [] and drawn == [60, 256, 60]


def test_a_background_resolver_read_by_an_export_computes_at_once():
    from attnviz.model.workspace import Workspace

    runner = HeldRunner()
    ws = Workspace(runner=runner)
    ws.document.set_field("reach.length", 33)
    assert ws.resolver_for("reach").results.length == 33 and runner.jobs == []


def test_a_background_resolvers_failure_is_one_line_and_the_defect_is_reported(monkeypatch):
    from attnviz.model import events
    from attnviz.model.workspace import Workspace

    runner, reported, failed = HeldRunner(), [], []
    monkeypatch.setattr(events, "_handler", reported.append)
    ws = Workspace(runner=runner)
    resolver = ws.resolver_for("reach")
    resolver.failed.connect(failed.append)
    resolver.watch("panel")
    monkeypatch.setattr(type(resolver), "compute_key", lambda self, key: 1 / 0)
    resolver.request()
    runner.finish()
    assert failed == ["ZeroDivisionError: division by zero"] and reported == []
    monkeypatch.setattr(type(resolver), "compute_key", lambda self, key: None.length)
    ws.document.set_field("reach.length", 20)
    runner.finish()
    assert failed[-1].startswith("AttributeError") and isinstance(reported[0], AttributeError)
