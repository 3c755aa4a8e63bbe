"""Large recomputes leave the GUI thread and come back in order."""

import numpy as np

from attnviz.core.attention import attention
from attnviz.model.resolve import ASYNC_CELLS, Resolver
from attnviz.model.resolve._display import DISPLAY_CELLS
from attnviz.model.topics.attention import AttentionState
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

    # Whichever path the size takes: dense (attend) or the one float32 pass (row blocks).
    monkeypatch.setattr("attnviz.model.resolve.attention.attend", boom)
    monkeypatch.setattr("attnviz.model.resolve.attention.RowBlockAttention", boom)
    with qtbot.waitSignal(r.failed, timeout=30000) as blocker:
        s.temperature = 2.0
    assert "MemoryError" in blocker.args[0] and not r.pending
    assert r.results.attention is before


def test_the_window_shows_work_in_progress_and_ends_on_the_result(qtbot, make_window):
    w = make_window(size=None, shown=False)
    n = int(ASYNC_CELLS**0.5) + 8
    with qtbot.waitSignal(w.resolver.busy, timeout=60000, check_params_cb=lambda b: b is False):
        w.state.update(tokens=tuple(f"t{i}" for i in range(n)), head="content", d_k=8)
    assert not w.busy.isVisible()
    view = w.panels["heatmap"].view
    # More rows than a screen shows: drawn from a grid of block means over the n × n matrix.
    assert view.image.image.shape == (DISPLAY_CELLS, DISPLAY_CELLS) and view._extent == (n, n)
    rect = view.image.mapRectToParent(view.image.boundingRect())
    assert (rect.width(), rect.height()) == (n, n)


def test_busy_indicator_appears_only_for_lasting_work(qtbot):
    from PySide6.QtWidgets import QStatusBar

    from attnviz.ui.busy import SHOW_AFTER_MS, BusyIndicator

    r = Resolver(AttentionState())
    bar = QStatusBar()
    qtbot.addWidget(bar)
    ind = BusyIndicator(r, bar)
    bar.addPermanentWidget(ind)
    bar.show()
    r.busy.emit(True)
    assert not ind.isVisible()
    qtbot.wait(SHOW_AFTER_MS + 100)
    assert ind.isVisible()
    r.busy.emit(False)
    assert not ind.isVisible()
    r.failed.emit("MemoryError: no room")
    assert "no room" in bar.currentMessage()
