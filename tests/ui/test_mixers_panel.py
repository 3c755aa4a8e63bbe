"""The mixers panel: the drawn M is the core's, each kind's settings, hover, the curves and
crossing marks, and a soak of random edits in the window."""

from __future__ import annotations

import contextlib
import random

import numpy as np
import pytest

from attnviz.core.mixers import KINDS, MixerParams, mixing_matrix, synthetic_qkv
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.mixers import RECALL_KINDS, SETTING_NAMES, SETTINGS, MixersPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import (
    Action,
    Soak,
    resize,
    send_mouse_move,
    switch_large_fonts,
    switch_theme,
    undo_or_redo,
    unwind,
)


@pytest.fixture
def panel(qtbot):
    panel = MixersPanel(Workspace())
    qtbot.addWidget(panel)
    panel.apply_theme(theme_named("light"))
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _choose(panel, name: str, value) -> None:
    box = panel.controls[name]
    box.setCurrentIndex(box.findData(value))
    box.activated.emit(box.currentIndex())


def test_the_matrix_drawn_is_the_cores_for_each_kind(panel):
    q, k, _v = synthetic_qkv(24, 16, 0)
    computed = panel.resolver.computations
    for kind in KINDS:
        _choose(panel, "kind", kind)
        assert panel.state.kind == kind
        np.testing.assert_array_equal(panel.matrix.values(), mixing_matrix(kind, q, k))
        assert panel.matrix.title().startswith("M of ")
        for name in SETTING_NAMES:  # only the kind's own settings can be edited
            assert panel.controls[name].isEnabled() == (name in SETTINGS.get(kind, ()))
    assert panel.resolver.computations == computed  # a kind is drawn, never recomputed


def test_a_setting_edited_in_its_control_reaches_the_matrix(panel):
    _choose(panel, "kind", "gated_deltanet")
    panel.controls["alpha"].setValue(0.5)
    panel.controls["n"].setValue(9)
    assert panel.state.alpha == 0.5 and panel.state.n == 9
    q, k, _v = synthetic_qkv(9, 16, 0)
    expected = mixing_matrix("gated_deltanet", q, k, MixerParams(alpha=0.5))
    np.testing.assert_array_equal(panel.matrix.values(), expected)
    _choose(panel, "kind", "window")
    panel.controls["window"].setValue(3)
    m = panel.matrix.values()
    assert (np.count_nonzero(m, axis=1) == [1, 2, 3, 3, 3, 3, 3, 3, 3]).all()
    assert "53 % of the causal pairs kept" in panel.summary.text()  # 24 of 45


def test_softmax_drawn_alone_keeps_its_cost_curves(panel):
    _choose(panel, "kind", "softmax")
    shown = [c for c in panel.cost_curves if c.isVisible()]
    assert len(shown) == 2  # its FLOPs and bytes, not a second copy of each (nor none)
    np.testing.assert_array_equal(
        shown[0].getOriginalDataset()[1], panel.results.flops["softmax"][:-1]
    )
    legend = panel.costs_legend.text().replace("&nbsp;", " ")
    assert "softmax: FLOPs" in legend and "softmax: bytes" in legend


def test_summary_table_and_crossings_say_the_results_numbers(panel):
    _choose(panel, "kind", "linear")
    res = panel.results
    flops_at, bytes_at = res.crossings["linear"]
    assert flops_at == 34 and bytes_at == 34  # elu+1 normalised, d = 16
    assert "Cheaper than softmax from n = 34 tokens in FLOPs, 34 in bytes" in panel.summary.text()
    assert "softmax's KV cache: 768" in panel.summary.text()
    legend = panel.costs_legend.text().replace("&nbsp;", " ")
    assert "softmax: FLOPs" in legend and "linear: bytes" in legend
    assert "linear" in panel.recall_legend.text() and "DeltaNet" in panel.recall_legend.text()
    xs, _ys = panel.crossing_marks.getData()  # the log axis holds log10 n
    assert list(xs) == pytest.approx([np.log10(34)] * 2)
    table = panel.table.text()
    assert "<b>" not in table and "font-weight:bold'><td>linear" in table.replace("&nbsp;", "")
    for i, kind in enumerate(RECALL_KINDS):
        x, y = panel.recall_curves[kind].getOriginalDataset()
        np.testing.assert_array_equal(y, res.recall[kind])
        np.testing.assert_array_equal(x, [1, 2, 4, 8, 16, 32, 64])
        assert i == RECALL_KINDS.index(kind)
    assert res.recall["softmax"].min() == 1.0


def test_hover_names_the_cell(panel):
    _choose(panel, "kind", "deltanet")
    panel._on_cell(5, 2)
    value = panel.results.matrices["deltanet"][5, 2]
    assert panel.hover.text().startswith("M[5, 2] = ")
    assert f"{value:.4f}"[:5] in panel.hover.text().replace("−", "-")
    panel._on_cell(-1, -1)
    assert panel.hover.text() == " "


def test_a_refused_value_is_one_line_on_the_panel(panel):
    assert not panel._write(panel.controls["decay"], decay=2.0)
    assert panel.message.text() == "decay must be between 0 and 1, got 2.0"
    assert panel.state.decay == 0.9


# --- soak ---------------------------------------------------------------------------------


def _edit(rng: random.Random, doc) -> None:
    edits = [
        ("mixers.kind", rng.choice(KINDS)),
        ("mixers.n", rng.choice([2, 3, 17, 64, 256])),
        ("mixers.d", rng.choice([1, 2, 16, 64])),
        ("mixers.seed", rng.randrange(5)),
        ("mixers.window", rng.choice([1, 3, 4096])),
        ("mixers.top_k", rng.choice([1, 5, 300])),
        ("mixers.stride", rng.choice([1, 2, 7])),
        ("mixers.feature_map", rng.choice(["elu1", "relu", "identity"])),
        ("mixers.normalised", rng.choice([True, False])),
        ("mixers.decay", rng.choice([0.0, 0.5, 1.0])),
        ("mixers.beta", rng.choice([0.0, 1.0])),
        ("mixers.alpha", rng.choice([0.0, 0.9])),
        ("mixers.recall_pairs", rng.choice([1, 7, 32])),
        ("mixers.n", "many"),
        ("mixers.decay", 1e400),
    ]
    path, value = rng.choice(edits)
    with contextlib.suppress(ValueError):  # refused values are part of the soak
        doc.set_field(path, value)


def test_soak_of_the_mixers_panel(qtbot, make_window):
    rng = random.Random(41)
    window = make_window(front="mixers")
    doc = window.workspace.document
    panel = window.panels["mixers"]

    def hover(_step):
        for view in (panel.matrix, panel.costs.viewport(), panel.recall.viewport()):
            send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

    actions = [
        Action("edit", lambda: _edit(rng, doc), 0.6),
        undo_or_redo(window, rng, 0.15),
        resize(window, rng, widths=(900, 1280, 1600), heights=(600, 720, 1000), weight=0.1),
        switch_theme(window, rng, 0.05),
        switch_large_fonts(window, rng, 0.03),
        Action("rest", lambda: None, 0.07),
    ]
    Soak(rng, actions, after=hover, settle=lambda _step: qtbot.wait(5)).run(40)
    unwind(window)
    qtbot.waitUntil(lambda: panel.current, timeout=30_000)
    assert doc.mixers.kind == "softmax" and panel.results.n == 24
    q, k, _v = synthetic_qkv(24, 16, 0)
    np.testing.assert_array_equal(panel.matrix.values(), mixing_matrix("softmax", q, k))


# --- decode and depth pages ---------------------------------------------------------------


def test_the_decode_page_shows_the_cores_step(panel, qtbot):
    from attnviz.core.decode_step import recurrent_state, ring_slots

    panel.tabs.setCurrentIndex(1)
    assert panel.state.view == "decode"
    panel.step_spin.setValue(10)
    panel.controls["window"].setValue(4)
    _choose(panel, "kind", "deltanet")
    qtbot.waitUntil(lambda: panel.current, timeout=30_000)  # the window: recomputed
    view = panel.decode_view
    assert view.t == 10 and view.n == 24
    assert view.ring.tolist() == ring_slots(10, 4).tolist() == [9, 10, 7, 8]
    q, k, v = synthetic_qkv(24, 16, 0)
    weights = mixing_matrix("softmax", q, k)[9, :10]
    np.testing.assert_allclose(view.cache, weights)
    np.testing.assert_allclose(view.state, recurrent_state("deltanet", k, v, 10))
    table = panel.decode_table.text()
    # softmax at t = 10, d = 16: 4·16·10 FLOPs, 10·2·16·4 read + 2·16·4 written.
    assert "<td>softmax&nbsp;&nbsp;</td><td>640&nbsp;&nbsp;</td><td>1408&nbsp;" in table
    assert "2.46 kB" not in panel.decode_summary.text()
    assert "1.28 kB of cache" in panel.decode_summary.text()  # 10 keys and values, float32
    panel.decode_view.grab()  # paints without raising


def test_the_step_buttons_stay_within_the_tokens(panel):
    from PySide6.QtWidgets import QToolButton

    panel.step_spin.setValue(24)
    more = panel.findChild(QToolButton, "decode_ahead")
    less = panel.findChild(QToolButton, "decode_back")
    more.click()
    assert panel.state.decode_step == 24  # n = 24: no token 25
    less.click()
    assert panel.state.decode_step == 23 and panel.step_slider.value() == 23
    panel.controls["n"].setValue(9)  # the stepper follows n
    assert panel.step_spin.maximum() == 9 and panel.decode_view.t == 9


def test_the_depth_page_draws_the_composed_masks(panel):
    panel.state.update(view="depth", depth=3, window=8, decode_step=24)
    assert panel.tabs.currentIndex() == 2
    reached = panel.reach_view.reached
    assert reached.shape == (4, 24)
    # (8 − 1)·3 = 21 tokens back from 24: positions 3 … 24 after three layers.
    assert np.flatnonzero(reached[3]).tolist() == list(range(2, 24))
    assert "= 21 tokens, to position 3" in panel.depth_summary.text()
    panel.state.update(depth=4)  # 28 > 23: the first token is reached
    assert reached is not panel.reach_view.reached and panel.reach_view.reached[4].all()
    assert "The first token is reached" in panel.depth_summary.text()
    panel.reach_view.grab()


def test_soak_of_the_decode_and_depth_pages(qtbot, make_window):
    """Random pages, steps, depths, windows and lengths, undo, resizes and fonts: the pages
    always show the token min(decode_step, n) and the reach of the fields' window."""
    from attnviz.core.receptive_field import receptive_field

    rng = random.Random(4103)
    window = make_window(front="mixers")
    doc = window.workspace.document
    panel = window.panels["mixers"]
    edits = (
        ("mixers.view", ("matrix", "decode", "depth")), ("mixers.decode_step", (1, 5, 256)),
        ("mixers.depth", (1, 7, 64)), ("mixers.window", (1, 3, 4096)), ("mixers.n", (2, 40)),
        ("mixers.kind", ("softmax", "linear", "gated_deltanet")), ("mixers.depth", ("deep",)),
    )  # fmt: skip

    def edit():
        path, values = rng.choice(edits)
        with contextlib.suppress(ValueError):
            doc.set_field(path, rng.choice(values))

    def check(_step):
        qtbot.wait(3)
        v = doc.mixers.snapshot()
        t = min(v["decode_step"], v["n"])
        assert panel.tabs.currentIndex() == ("matrix", "decode", "depth").index(v["view"])
        assert panel.decode_view.t == t and panel.step_spin.value() == t
        expected = receptive_field(t, v["window"], v["depth"])
        np.testing.assert_array_equal(panel.reach_view.reached, expected)
        send_mouse_move(panel.decode_view, rng.uniform(0, 200), rng.uniform(0, 200))

    actions = [
        Action("edit", edit, 0.7),
        undo_or_redo(window, rng, 0.15),
        resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.08),
        switch_large_fonts(window, rng, 0.04),
        switch_theme(window, rng, 0.03),
    ]
    Soak(rng, actions, after=check).run(40)
    unwind(window)
    assert doc.mixers.view == "matrix" and doc.mixers.decode_step == 12
