"""Issue 8 regressions in the window: a resting mouse, a refused file, a killed save."""

from __future__ import annotations

import json
import os
import time

import numpy as np


def test_mouse_resting_on_the_heatmap_while_the_matrix_shrinks(window):
    state, view = window.state, window.panels["heatmap"].view
    state.update(tokens=("a", "b", "c", "d", "e", "f"))
    view.hover_cell(5, 5)  # the mouse rests on the last cell
    assert "f" in window.hover_label.text()
    state.update(tokens=("a", "b"))  # the row under the mouse disappears
    window.undo.stack.undo()  # back to six tokens
    window.undo.stack.undo()  # back to three
    state.update(matrix="output")  # O has two columns: column 5 is gone too
    view.hover_cell(2, 1)
    state.update(tokens=("x",))
    assert state.n == 1
    # every listener saw every change: the history holds the two edits after the undos (the
    # undone branch is cut), the heatmap the last shape
    assert window.undo.stack.count() == 2
    assert window.panels["heatmap"].view._values.shape[0] == 1
    window.undo.stack.undo()
    assert state.tokens == ("sentei", "banco", "praça")


def test_a_refused_session_leaves_window_state_and_history_alone(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(window.session, "_show_error", lambda title, text: shown.append(text))
    window.state.update(temperature=2.0)
    window.document.positions.update(head_dim=16)
    count, snap = window.undo.stack.count(), window.document.snapshot()
    bad = tmp_path / "bad.attnviz"
    bad.write_text(
        json.dumps(
            {"format_version": 2, "topics": {"attention": {"d_k": 4}, "positions": {"base": 1e400}}}
        ).replace("Infinity", "1e400")
    )
    assert window.session.open_path(bad) is False
    assert shown and "\n" not in shown[0]
    assert window.undo.stack.count() == count and window.isWindowModified()
    for name, values in snap.items():
        for key, value in values.items():
            got = window.document[name].get(key)
            assert np.array_equal(got, value) if isinstance(value, np.ndarray) else got == value


def test_a_killed_save_leaves_nothing_behind_on_the_next_start(make_window, tmp_path):
    first = make_window(size=None, shown=False)
    saved = tmp_path / "lesson.attnviz"
    assert first.session.save_to(saved)
    stale = tmp_path / ".attnviz-k1ll3d.tmp"
    stale.write_text("half a session")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    fresh = tmp_path / ".attnviz-saving-now.tmp"
    fresh.write_text("another window is saving")
    first.close()
    make_window(size=None, shown=False)  # a new start: the recent folder is swept
    assert not stale.exists() and fresh.exists() and saved.exists()
