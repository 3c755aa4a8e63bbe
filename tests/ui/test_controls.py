"""Every control of the controls panel reaches the state, and the state reaches it back."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from attnviz.model.topics.attention import MATRICES
from attnviz.ui.panels.controls import ControlsPanel


@pytest.fixture
def panel(qtbot, workspace):
    p = ControlsPanel(workspace)
    qtbot.addWidget(p)
    p.show()
    return p


def test_identity():
    assert ControlsPanel.PANEL_ID == "controls" and ControlsPanel.title() == "Controls"


def test_view_shows_the_state(panel, state):
    assert panel.scale.isChecked() and panel.temperature.value() == 1.0
    assert panel.matrix.checkedId() == MATRICES.index("weights")
    state.update(scale=False, temperature=0.5, matrix="scores", colormap="diverging")
    assert not panel.scale.isChecked()
    assert panel.temperature.value() == 0.5
    assert panel.matrix.checkedId() == MATRICES.index("scores")
    assert panel.colormap.currentData() == "diverging"


def test_scale_checkbox_by_keyboard(qtbot, panel, state):
    panel.scale.setFocus()
    qtbot.keyClick(panel.scale, Qt.Key.Key_Space)
    assert state.scale is False


def test_temperature_exact_entry(panel, state):
    panel.temperature.spin.setValue(2.5)
    assert state.temperature == 2.5
    assert panel.temperature.slider.value() == panel.temperature.to_position(2.5)


def test_temperature_slider_drag_is_throttled_to_the_latest_value(qtbot, panel, state):
    written = []
    state.changed.connect(lambda names: written.append(state.temperature))
    positions = range(200, 320, 3)
    for p in positions:
        panel.temperature.slider.setValue(p)
    assert written, "the first move is written at once (leading edge)"
    last = panel.temperature.to_value(positions[-1])
    qtbot.waitUntil(lambda: state.temperature == last)
    assert written[-1] == last
    assert len(written) <= len(positions)


def test_matrix_colormap_and_levels(qtbot, panel, state):
    panel.matrix.button(MATRICES.index("output")).click()
    assert state.matrix == "output"
    panel.colormap.setCurrentIndex(panel.colormap.findData("cividis"))
    panel.colormap.activated.emit(panel.colormap.currentIndex())
    assert state.colormap == "cividis"
    state.matrix = "weights"
    panel.levels_auto.setChecked(False)
    assert state.levels_auto is False
    # Fixed where the automatic levels were: 0 to 1 for the weights (probabilities) ...
    assert state.levels == (0.0, 1.0)
    state.update(levels_auto=True, stretch_weights=True)
    panel.levels_auto.setChecked(False)
    lo, hi = state.levels  # ... or, stretched, the weights' own range
    weights = resolver_weights(panel)
    assert lo == pytest.approx(weights.min()) and hi == pytest.approx(weights.max())
    assert panel.level_low.isEnabled()
    panel.level_high.setValue(0.9)
    qtbot.waitUntil(lambda: state.levels[1] == 0.9)


def resolver_weights(panel):
    return panel.resolver.results.attention.weights


def test_rejected_levels_show_a_message_and_revert(qtbot, panel, state):
    state.update(levels_auto=False, levels=(0.0, 1.0))
    panel.level_high.setValue(-1.0)  # high below low
    qtbot.waitUntil(lambda: panel.message.isVisible())
    assert "low < high" in panel.message.text()
    assert state.levels == (0.0, 1.0)
    assert panel.level_high.value() == 1.0  # reverted to the state's value
    assert panel.level_high.property("attnvizInvalid") is True
    panel.level_high.setValue(0.5)
    qtbot.waitUntil(lambda: state.levels == (0.0, 0.5))
    assert not panel.message.isVisible()


def test_causal_mask(panel, state):
    panel.masks.causal.setChecked(True)
    assert state.causal is True
    state.causal = False
    assert not panel.masks.causal.isChecked()


def test_padding_mask(qtbot, panel, state):
    chips = panel.masks.padding
    assert chips.count() == 3
    chips.item(2).setCheckState(Qt.CheckState.Checked)
    assert state.padding == (True, True, False)
    chips.setCurrentRow(0)
    qtbot.keyClick(chips, Qt.Key.Key_Space)
    assert state.padding == (False, True, False)
    state.padding = (True, True, True)
    assert chips.flags() == (False, False, False)


def test_document_segments(qtbot, panel, state):
    edit = panel.masks.segments
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "0 0 1")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert state.segments == (0, 0, 1)
    edit.selectAll()
    qtbot.keyClicks(edit, "0 1")  # one id short
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert state.segments == (0, 0, 1)
    assert "2 document ids for 3 tokens" in panel.message.text()
    state.update(segments=(0, 0, 0), selected_query=0)
    assert edit.text() == "0 0 0"
    split = next(
        b for b in panel.masks.findChildren(QPushButton) if b.text() == "Split after query"
    )
    split.click()
    assert state.segments == (0, 1, 1)


def test_sliding_window(panel, state):
    panel.masks.window.setValue(2)
    assert state.window == 2 and state.window_causal is True
    panel.masks.window_symmetric.setChecked(True)
    assert state.window_causal is False
    state.update(window=0, window_causal=True)
    assert panel.masks.window.text() == "off" and not panel.masks.window_symmetric.isChecked()


def test_mask_list_follows_the_tokens(panel, state):
    state.tokens = ("o", "gato", "subiu", "no", "telhado")
    assert panel.masks.padding.count() == 5
    assert panel.masks.segments.text() == "0 0 0 0 0"


def test_score_terms_reach_the_state_and_back(panel, state):
    assert panel.softcap.value() == 0.0 and panel.softcap.text() == "off"
    panel.softcap.setValue(30.0)
    panel.alibi.setValue(0.5)
    panel.sink.setChecked(True)
    panel.sink_logit.setValue(-1.5)
    panel.rope_dims.setValue(2)
    assert (state.softcap, state.alibi, state.sink, state.sink_logit, state.rope_dims) == (
        30.0,
        0.5,
        True,
        -1.5,
        2,
    )
    state.update(softcap=0.0, alibi=0.125, sink=False)
    assert panel.softcap.value() == 0.0 and panel.alibi.value() == 0.125
    assert not panel.sink.isChecked()
    # The spread of capped, biased scores is measured as they are, not rescaled.
    import numpy as np

    state.update(softcap=0.5)
    res = panel.resolver.results
    allowed = res.mask
    shown = res.attention.scores if allowed is None else res.attention.scores[allowed]
    assert panel.spread_value() == pytest.approx(float(np.std(shown)))


def test_temperature_tuning_reaches_the_state_and_back(panel, state):
    assert panel.tuning.text() == "off" and panel.tuning_floor.value() == 8192
    panel.tuning.setValue(0.25)
    panel.tuning_floor.setValue(2)
    assert (state.tuning, state.tuning_floor) == (0.25, 2)
    state.update(tuning=0.0, tuning_floor=4096)
    assert panel.tuning.value() == 0.0 and panel.tuning_floor.value() == 4096
    # The slide of the score terms shows the group that holds the tuning.
    panel.focus_fields((), step=("tuning",))
    assert panel.terms_box.isVisibleTo(panel) and not panel.view_box.isVisibleTo(panel)


def test_the_softmax_group_reaches_the_state_and_back(panel, state):
    assert not panel.steps_exp.isChecked() and panel.softmax_dtype.currentText() == "float64"
    panel.steps_exp.setChecked(True)
    panel.naive_softmax.setChecked(True)
    panel.softmax_dtype.setCurrentIndex(2)
    panel.softmax_dtype.activated.emit(2)
    assert (state.steps_exp, state.naive_softmax, state.softmax_dtype) == (True, True, "float16")
    state.update(naive_softmax=False, softmax_dtype="float32")
    assert not panel.naive_softmax.isChecked() and panel.softmax_dtype.currentText() == "float32"
    panel.focus_fields((), step=("naive_softmax",))
    assert panel.softmax_box.isVisibleTo(panel) and not panel.terms_box.isVisibleTo(panel)
