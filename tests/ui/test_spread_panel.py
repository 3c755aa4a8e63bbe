"""The spread panel: σ of q·k against d_k follows √d_k (the chapter's Var(q·k) = d_k),
divided by √d_k it stays near 1, and the head shown is marked with the spread of its own
q·kᵀ under its mask — dense and by row blocks; hover, export, and a soak in the window."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.model.panel_data import panel_data
from attnviz.model.resolve import spread as spread_model
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.panels.spread import SpreadPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, switch_theme, undo
from tests.ui.workspaces import workspace_of


@pytest.fixture
def panel(qtbot, workspace):
    p = SpreadPanel(workspace)
    qtbot.addWidget(p)
    p.apply_theme(theme_named("light"))
    p.resize(700, 460)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_the_measured_spread_is_root_d_k_and_one_when_divided(workspace):
    data = panel_data(workspace, "spread", "spread")
    d, sigma, root, scaled = data.values.T
    assert list(d) == [2**i for i in range(11)]  # banco's d_k = 2 is on the grid already
    np.testing.assert_array_equal(root, np.sqrt(d))
    # 4,096 pairs per width: within 3 standard errors of 1/√8192 (1.1 %) of the law.
    np.testing.assert_allclose(sigma, root, rtol=0.035)
    np.testing.assert_allclose(scaled, 1.0, rtol=0.035)
    np.testing.assert_array_equal(scaled, sigma / root)
    assert data.columns[1] == "σ(q·k) measured" and data.rows[-1] == "1024"
    # The figure is the same in every session: a fixed sample.
    spread_model.measured_spread.cache_clear()
    again = panel_data(workspace, "spread", "spread").values
    np.testing.assert_array_equal(again, data.values)


def test_a_width_off_the_grid_joins_it(workspace):
    workspace.state.update(d_k=100)
    d = panel_data(workspace, "spread", "spread").values[:, 0]
    assert 100 in d and list(d) == sorted(d)


def test_the_head_is_its_own_scores_spread_under_its_mask(workspace):
    state = workspace.state
    state.update(tokens=("a", "b", "c", "d", "e"), head="content", d_k=8, causal=True)
    res = workspace.resolver.results
    raw = res.q @ res.k.T
    allowed = masks.causal_mask(5)
    head = panel_data(workspace, "spread", "head").values[0]
    assert head[0] == 8
    assert head[1] == pytest.approx(float(np.std(raw[allowed])), rel=1e-12)
    assert head[2] == pytest.approx(float(np.std(raw[allowed] / math.sqrt(8))), rel=1e-12)
    state.update(scale=False)
    head = panel_data(workspace, "spread", "head").values[0]
    assert head[2] == pytest.approx(head[1], rel=1e-12)


def test_a_long_sentence_by_row_blocks_gives_the_dense_spread(monkeypatch):
    from attnviz.model.resolve import attention as resolve_attention

    def make():
        return AttentionState(
            tokens=tuple(f"t{i}" for i in range(1200)), head="content", d_k=8, causal=True
        )

    dense = panel_data(workspace_of(make()), "spread", "head").values[0]
    monkeypatch.setattr(resolve_attention, "DENSE_LIMIT", 1000)
    long = workspace_of(make())
    assert hasattr(long.resolver.results.attention, "raw_spread")
    head = panel_data(long, "spread", "head").values[0]
    np.testing.assert_allclose(head[1], dense[1], rtol=1e-9)
    np.testing.assert_allclose(head[2], dense[2], rtol=1e-5)  # gathered in float32


def test_the_plot_marks_the_head_and_the_summary_says_it(panel, state):
    state.update(d_k=64)
    table = panel.table
    assert panel.raw.yData.tolist() == table[:, 1].tolist()  # (getData: its log10)
    xs, ys = panel.mark.getData()
    assert xs[0] == pytest.approx(math.log10(64))
    assert 10 ** ys[0] == pytest.approx(panel.head[1], rel=1e-12)
    at = table[table[:, 0] == 64][0]
    text = panel.summary.text()
    assert text.startswith(f"At d_k = 64, random q·k spread σ = {at[1]:.2f} (√d_k = 8.00)")


def test_the_hover_names_the_nearest_width(panel):
    from PySide6.QtCore import QPointF

    said = []
    panel.sigHoverText.connect(said.append)
    vb = panel.plot.getPlotItem().vb
    panel._on_q_mouse(vb.mapViewToScene(QPointF(math.log10(250), 0.5)))
    row = panel.table[panel.table[:, 0] == 256][0]
    assert said[-1] == (
        f"d_k = 256: σ(q·k) = {row[1]:.4f} measured, √d_k = 16.0000; divided by √d_k: {row[3]:.4f}"
    )


def test_every_key_masked_leaves_no_head_point(panel, state):
    state.update(padding=(False, False, False))
    assert math.isnan(panel.head[1]) and len(panel.mark.getData()[0]) == 0


def test_soak_of_the_spread_panel_in_the_window(qtbot, make_window):
    rng = random.Random("spread-soak")
    window = make_window()
    window.docks["spread"].show()
    window.docks["spread"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "spread"))
    panel = window.panels["spread"]
    state = window.workspace.state

    def new_sentence():
        n = rng.choice((1, 2, 3, 7, 30))
        state.update(tokens=tuple(rng.choice("abcdefg") for _ in range(n)))

    def rest():
        plot = panel.plot
        send_mouse_move(
            plot.viewport(), rng.uniform(0, plot.width()), rng.uniform(0, plot.height())
        )

    Soak(
        rng,
        [
            Action("sentence", new_sentence, 0.2),
            Action("d_k", lambda: state.update(d_k=rng.choice((1, 3, 64, 100, 1024))), 0.2),
            Action("scale", lambda: state.update(scale=rng.random() < 0.5), 0.1),
            Action(
                "padding",
                lambda: state.update(padding=tuple(rng.random() < 0.7 for _ in range(state.n))),
                0.1,
            ),
            Action("rest", rest, 0.2),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.04),
            switch_theme(window, rng, 0.03),
        ],
        after=lambda _step: rest(),
        settle=lambda _step: qtbot.wait(2),
    ).run(40)
    head = panel_data(window.workspace, "spread", "head").values[0]
    assert head[0] == state.d_k
    np.testing.assert_array_equal(panel.head[1:], head[1:])
