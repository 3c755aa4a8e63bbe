"""Undo/redo of state edits: exact restoration, merged drags, labels, no re-recording."""

import numpy as np
import pytest
from PySide6.QtGui import QKeySequence

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.ui.undo import UndoController


class FakeClock:
    """Seconds that only move when the test says so: merging never depends on real time."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def undo(qapp, state):
    controller = UndoController(state)
    controller.clock = FakeClock()
    return controller


def assert_same(a: dict, b: dict):
    assert a.keys() == b.keys()
    for name in a:
        if isinstance(a[name], np.ndarray):
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
            assert a[name].shape == b[name].shape
        else:
            assert a[name] == b[name], name


def test_every_change_is_recorded_and_undo_redo_restore_exactly(state, undo):
    snapshots = [state.snapshot()]
    edits = [
        {"temperature": 2.5},
        {"causal": True},
        {"tokens": ("a", "b", "c", "d")},
        {"d_k": 5},
        {"head": "content", "seed": 3},
        {"window": 2, "window_causal": False},
        {"colormap": "cividis"},
    ]
    for edit in edits:
        undo.clock.now += 10
        state.update(**edit)
        snapshots.append(state.snapshot())
    assert undo.stack.count() == len(edits)
    for expected in reversed(snapshots[:-1]):
        undo.stack.undo()
        assert_same(state.snapshot(), expected)
    assert not undo.stack.canUndo()
    for expected in snapshots[1:]:
        undo.stack.redo()
        assert_same(state.snapshot(), expected)
    # Undo and redo themselves were not recorded as new steps.
    assert undo.stack.count() == len(edits)


def test_a_preset_load_is_one_step(state, undo):
    before = state.snapshot()
    state.update(**preset_state_values(load_preset("gato")))
    assert undo.stack.count() == 1
    undo.stack.undo()
    assert_same(state.snapshot(), before)


def test_slider_drag_merges_into_one_step(state, undo):
    before = state.snapshot()
    for t in np.linspace(1.1, 3.0, 40):  # 40 writes, 16 ms apart, as a throttled drag gives
        undo.clock.now += 0.016
        state.temperature = float(t)
    assert undo.stack.count() == 1
    assert undo.stack.undoText() == "Temperature"
    undo.stack.undo()
    assert_same(state.snapshot(), before)
    undo.stack.redo()
    assert state.temperature == 3.0


def test_separate_edits_and_other_fields_do_not_merge(state, undo):
    state.temperature = 2.0
    undo.clock.now += 5  # a pause: a new gesture
    state.temperature = 3.0
    undo.clock.now += 0.01
    state.scale = False  # another field, however quick
    assert undo.stack.count() == 3


def test_merging_context_makes_one_named_step(state, undo):
    with undo.merging("Drag query"):
        for x in range(5):
            undo.clock.now += 10  # even slow moves inside the block merge
            q = state.q.copy()
            q[1] = (x, 1)
            state.q = q
            state.causal = bool(x % 2)
    assert undo.stack.count() == 1
    assert undo.stack.undoText() == "Drag query"
    state.temperature = 4.0
    assert undo.stack.count() == 2


def test_drag_back_to_start_leaves_no_step(state, undo):
    state.temperature = 2.0
    undo.clock.now += 0.01
    state.temperature = 1.0
    assert undo.stack.count() == 0


def test_no_merge_into_a_step_after_undo(state, undo):
    state.temperature = 2.0
    undo.clock.now += 10
    state.temperature = 3.0
    undo.stack.undo()
    state.temperature = 5.0  # quick, same field, but a new decision after undo
    assert undo.stack.count() == 2
    undo.stack.undo()
    assert state.temperature == 2.0


def test_actions_have_standard_shortcuts_and_name_the_change(state, undo):
    undo_action = undo.create_undo_action(None)
    redo_action = undo.create_redo_action(None)
    assert undo_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Undo)
    assert QKeySequence(QKeySequence.StandardKey.Redo) in redo_action.shortcuts()
    assert not undo_action.isEnabled()
    state.temperature = 2.0
    assert undo_action.isEnabled() and undo_action.text() == "Undo Temperature"
    undo.stack.undo()
    assert redo_action.text() == "Redo Temperature"


def test_clear_forgets_history_and_marks_clean(state, undo):
    state.causal = True
    assert not undo.stack.isClean()
    undo.clear()
    assert undo.stack.count() == 0 and undo.stack.isClean()
    state.causal = False
    undo.stack.undo()
    assert state.causal is True


def test_history_holds_copies_not_live_arrays(state, undo):
    q0 = state.q.copy()
    q = state.q.copy()
    q[0, 0] = 9
    state.q = q
    q[0, 0] = -9  # the caller mutates its own array afterwards
    undo.stack.undo()
    np.testing.assert_array_equal(state.q, q0)
    undo.stack.redo()
    assert state.q[0, 0] == 9


def test_selection_alone_is_not_an_undo_step(qtbot):
    from attnviz.model.topics.attention import AttentionState
    from attnviz.ui.undo import UndoController

    state = AttentionState()
    undo = UndoController(state)
    state.selected_query = 0
    state.selected_cell = (1, 2)
    assert undo.stack.count() == 0 and undo.stack.isClean()
    state.temperature = 2.0
    assert undo.stack.count() == 1
    undo.stack.undo()
    assert state.temperature == 1.0 and state.selected_cell == (1, 2)


def test_every_field_of_every_topic_has_an_undo_label_of_its_own_topic():
    """Labels are keyed by topic and field: a field two topics share gets each topic's own
    name (the overview's head is not the attention head's type), and none is missing."""
    from attnviz.model.document import Document
    from attnviz.ui.undo import change_label, label_text

    document = Document()
    missing = [
        f"{t}.{f}" for t in document.topics for f in document[t].field_names()
        if label_text(t, f) is None
    ]  # fmt: skip
    assert missing == []
    assert change_label({("attention", "head")}) == "Head type"
    assert change_label({("long", "head")}) == "Head"
    assert change_label({("embedding", "d_model")}) == "Table width"
    assert change_label({("attention", "d_model")}) == "Model width d_model"
    assert change_label({("reach", "preset_id"), ("reach", "seed")}) == "Preset"
    assert change_label(set()) == "Edit"


def test_a_field_changed_before_its_panel_is_built_has_its_own_label():
    """The labels are the fields' own (declared beside them), not registered by the panel
    modules: a session or a script that changes reach.length in a window whose reach
    panel was never opened still gets "Sequence length", not "Edit length"."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import sys
        from attnviz.ui.undo import change_label
        print(change_label({("reach", "length")}), change_label({("long", "block_q")}))
        print(sorted(m for m in sys.modules if m.startswith("attnviz.ui.panels.")))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["Sequence length Query tile size", "[]"]
