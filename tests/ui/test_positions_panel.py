"""The positions panel: the dial follows the topic, controls write it, exports work."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from attnviz.core.rope import rope_frequencies


@pytest.fixture
def window(make_window):
    """The projector's window with the positions panel in front."""
    return make_window(front="positions")


def test_the_dial_shows_each_pair_turned_by_m_theta(window, qtbot):
    panel = window.panels["positions"]
    window.document.positions.update(position=3, key_position=1)
    q_angles, k_angles = panel.dial.hand_angles()
    theta = rope_frequencies(8, 10000.0)
    np.testing.assert_allclose(q_angles, np.mod(3 * theta, 2 * math.pi), rtol=1e-12)
    np.testing.assert_allclose(k_angles, np.mod(1 * theta, 2 * math.pi), rtol=1e-12)


def test_the_position_slider_and_the_keys_move_m(window, qtbot):
    panel, topic = window.panels["positions"], window.document.positions
    now = [0.0]
    window.undo.clock = lambda: now[0]
    panel.position.spin.setValue(42)
    assert topic.position == 42
    now[0] = 10.0  # a separate edit, not part of the same drag
    panel.dial.setFocus()
    qtbot.keyClick(panel.dial, Qt.Key.Key_Right)
    assert topic.position == 43
    window.undo.stack.undo()
    assert topic.position == 42


def test_play_advances_the_query_position(window, qtbot):
    panel, topic = window.panels["positions"], window.document.positions
    start = topic.position
    panel.play.setChecked(True)
    qtbot.waitUntil(lambda: topic.position >= start + 2, timeout=3000)
    panel.play.setChecked(False)
    assert window.undo.stack.count() >= 1  # the frames merge into few steps


def test_switching_the_scaling_changes_which_pairs_move(window):
    panel, topic = window.panels["positions"], window.document.positions
    index = panel.preset.findData("rope-llama3.1")
    panel.preset.setCurrentIndex(index)
    panel.preset.activated.emit(index)
    assert (topic.head_dim, topic.rope_type, topic.factor) == (128, "llama3", 8.0)
    text = panel.summary.text()
    assert "29" in text and "6" in text and "65,536" in text
    for kind in ("linear", "ntk", "yarn", "default"):
        i = panel.rope_type.findData(kind)
        panel.rope_type.setCurrentIndex(i)
        panel.rope_type.activated.emit(i)
        assert topic.rope_type == kind
    assert not panel.factor.isEnabled()  # plain RoPE has no factor


def test_a_bad_value_is_refused_with_a_message(window):
    panel, topic = window.panels["positions"], window.document.positions
    panel.head_dim.setValue(9)
    assert topic.head_dim == 8
    assert "even" in panel.message.text()


def test_hidden_panel_computes_nothing(window):
    resolver = window.workspace.resolver_for("positions")
    window.docks["heatmap"].raise_()  # positions is now a hidden tab
    before = resolver.computations
    for m in range(20):
        window.document.positions.position = 100 + m
    assert resolver.computations == before
    window.docks["positions"].raise_()
    assert resolver.computations == before + 1


@pytest.mark.parametrize(
    ("matrix", "ext", "shape"), [("frequencies", "csv", (64, 1)), ("relative", "npy", (64, 64))]
)
def test_cli_exports_the_positions_data(tmp_path, matrix, ext, shape):
    out = tmp_path / f"p.{ext}"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--preset",
            "rope-llama3.1",
            "--panel",
            "positions",
            "--matrix",
            matrix,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    if ext == "npy":
        assert np.load(out).shape == shape
    else:
        rows = out.read_text().splitlines()
        assert len(rows) == shape[0] + 1 and rows[1].startswith("pair 0,1.0")


def test_cli_exports_the_panel_picture_at_the_exact_size(tmp_path):
    from PySide6.QtGui import QImage

    out = tmp_path / "p.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--preset",
            "rope-yarn-qwen2.5",
            "--panel",
            "positions",
            "--width",
            "1280",
            "--height",
            "720",
            "--theme",
            "dark",
            "--set",
            "positions.position=2000",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 720)


def test_rope_switch_and_the_word_order_swap_on_cachorro(window):
    window.apply_preset("cachorro")
    editor, controls = window.panels["editor"], window.panels["controls"]
    state = window.state
    before = window.resolver.results.attention.weights.copy()
    button = editor.experiment_box.findChild(QPushButton, "experiment_swap_order")
    button.click()
    assert state.tokens == ("homem", "morde", "cachorro")
    perm = [2, 1, 0]
    np.testing.assert_allclose(
        window.resolver.results.attention.weights, before[np.ix_(perm, perm)], atol=1e-15
    )
    controls.rope.setChecked(True)
    assert state.rope is True
    assert "RoPE" in window.panels["heatmap"].caption.text()
    rotated = window.resolver.results.attention.weights.copy()
    button.click()  # back to "cachorro morde homem", still with RoPE
    assert state.tokens == ("cachorro", "morde", "homem")
    swapped_back = window.resolver.results.attention.weights[np.ix_(perm, perm)]
    assert np.abs(swapped_back - rotated).max() > 1e-3
    state.update(d_k=7)
    assert "odd" in window.panels["heatmap"].caption.text()


def test_alibi_is_drawn_beside_rope_from_its_preset(window):
    panel = window.panels["positions"]
    assert panel.alibi_curve.getData()[0] is None or len(panel.alibi_curve.getData()[0]) == 0
    panel.preset.setCurrentIndex(panel.preset.findData("alibi-vs-rope"))
    panel._on_q_preset(panel.preset.currentIndex())
    assert panel.alibi_slope.value() == 0.125
    x, y = panel.alibi_curve.getData()
    np.testing.assert_allclose(y, 8.0 - 0.125 * np.abs(x))  # q·k = 8 at m = n, then down
    # Another preset takes ALiBi away again: each preset sets the slope.
    panel._on_q_preset(panel.preset.findData("rope-clock"))
    assert panel.alibi_slope.value() == 0.0 and len(panel.alibi_curve.getData()[0] or []) == 0
    panel.alibi_slope.setValue(0.5)
    assert window.document["positions"].alibi_slope == 0.5
