"""Large recomputes leave the GUI thread and come back in order."""

import numpy as np

from attnviz.core.attention import attention
from attnviz.model.resolve import ASYNC_CELLS, Resolver
from attnviz.model.state import AttentionState
from attnviz.ui.workers import qt_runner


def _big_state():
    n = int(ASYNC_CELLS**0.5) + 8
    return AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="decay", d_k=8)


def test_worker_result_arrives_on_the_gui_thread_and_matches_the_core(qtbot):
    s = _big_state()
    r = Resolver(s, runner=qt_runner)
    with qtbot.waitSignal(r.busy, timeout=30000, check_params_cb=lambda b: b is False):
        s.update(temperature=2.5, causal=True)
    assert not r.pending
    from attnviz.model.resolve import build_mask

    ref = attention(s.q, s.k, s.v, mask=build_mask(s), temperature=2.5)
    np.testing.assert_array_equal(r.results.attention.weights, ref.weights)


def test_a_burst_of_edits_ends_on_the_last_one(qtbot):
    s = _big_state()
    r = Resolver(s, runner=qt_runner)
    for t in (1.5, 2.0, 2.5, 3.0):
        s.temperature = t
    qtbot.waitUntil(lambda: not r.pending, timeout=60000)
    ref = attention(s.q, s.k, s.v, temperature=3.0)
    np.testing.assert_array_equal(r.results.attention.weights, ref.weights)


def test_a_failing_job_reports_and_keeps_the_last_results(qtbot, monkeypatch):
    s = _big_state()
    r = Resolver(s, runner=qt_runner)
    before = r.results.attention

    def boom(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr("attnviz.model.resolve.attention_from_scores", boom)
    with qtbot.waitSignal(r.failed, timeout=30000) as blocker:
        s.temperature = 2.0
    assert "MemoryError" in blocker.args[0] and not r.pending
    assert r.results.attention is before
