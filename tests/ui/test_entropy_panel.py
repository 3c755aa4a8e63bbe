"""The entropy panel: each row's entropy against -Σ a ln a, its bound against the mask,
hover values, a long sentence by row blocks, and a soak in the window."""

from __future__ import annotations

import random

import numpy as np
import pytest

from attnviz.model.panel_data import panel_data
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.panels.entropy import NAMED_ROWS, EntropyPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, switch_theme, undo
from tests.ui.workspaces import workspace_of


def _oracle(weights: np.ndarray) -> np.ndarray:
    """-Σ a ln a of each row (0 ln 0 = 0), in float64."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(weights > 0, weights * np.log(weights), 0.0).sum(axis=1)


@pytest.fixture
def panel(qtbot, workspace):
    p = EntropyPanel(workspace)
    qtbot.addWidget(p)
    p.apply_theme(theme_named("light"))
    p.resize(700, 460)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_the_bars_are_the_rows_entropies_and_follow_every_change(panel, state, resolver):
    np.testing.assert_allclose(
        panel.bars.opts["height"], _oracle(resolver.results.attention.weights), rtol=1e-12
    )
    # banco: no mask, every row may see the three keys.
    np.testing.assert_allclose(panel.bounds.getData()[1], np.log([3, 3, 3]), rtol=1e-15)
    state.update(padding=(True, False, True), temperature=0.5)
    np.testing.assert_allclose(
        panel.bars.opts["height"], _oracle(resolver.results.attention.weights), rtol=1e-12
    )
    np.testing.assert_allclose(panel.bounds.getData()[1], np.log([2, 2, 2]), rtol=1e-15)
    state.update(tokens=("a", "b", "c", "d"), padding=(True, True, True, True), causal=True)
    assert panel.bars.opts["height"].shape == (4,)
    np.testing.assert_allclose(panel.bounds.getData()[1], np.log([1, 2, 3, 4]), rtol=1e-15)
    assert "4 rows" in panel.summary.text() and "1.386" in panel.summary.text()


def test_a_row_that_sees_no_key_has_zero_and_zero(workspace):
    workspace.state.update(padding=(False, False, False))
    data = panel_data(workspace, "entropy", "entropy")
    np.testing.assert_array_equal(data.values, np.zeros((3, 2)))


def test_the_hover_says_the_rows_exact_values(panel, resolver):
    from PySide6.QtCore import QPointF

    said = []
    panel.sigHoverText.connect(said.append)
    vb = panel.plot.getPlotItem().vb
    panel._on_q_mouse(vb.mapViewToScene(QPointF(1.1, 0.2)))  # over the bar of row 1
    e = _oracle(resolver.results.attention.weights)[1]
    want = f"“banco”: entropy {e:.4f} nats, at most {np.log(3):.4f} (ln of the keys it sees)"
    assert said[-1] == want and panel.hover.text() == want
    panel._on_q_mouse(vb.mapViewToScene(QPointF(7.0, 0.2)))  # beyond the last row
    assert said[-1] == "" and panel.hover.text().strip() == ""


def test_many_rows_are_numbered_not_named(panel, state):
    state.update(tokens=tuple(f"t{i}" for i in range(NAMED_ROWS + 1)))
    assert panel.plot.getAxis("bottom")._tickLevels is None
    state.update(tokens=tuple(f"t{i}" for i in range(NAMED_ROWS)))
    assert len(panel.plot.getAxis("bottom")._tickLevels[0]) == NAMED_ROWS


def test_a_long_sentence_by_row_blocks_gives_the_dense_entropies(monkeypatch):
    from attnviz.model.resolve import Resolver
    from attnviz.model.resolve import attention as resolve_attention

    def make():
        return AttentionState(
            tokens=tuple(f"t{i}" for i in range(1200)), head="content", d_k=8, causal=True
        )

    dense = Resolver(make()).results.attention.weights
    monkeypatch.setattr(resolve_attention, "DENSE_LIMIT", 1000)
    workspace = workspace_of(make())
    data = panel_data(workspace, "entropy", "entropy")
    # The row-block pass works in float32: entropies agree to its precision.
    np.testing.assert_allclose(data.values[:, 0], _oracle(dense), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(data.values[:, 1], np.log(np.arange(1, 1201)), rtol=1e-15)


def test_soak_of_the_entropy_panel_in_the_window(qtbot, make_window):
    rng = random.Random("entropy-soak")
    window = make_window()
    window.docks["entropy"].show()
    window.docks["entropy"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "entropy"))
    panel = window.panels["entropy"]
    state = window.workspace.state

    def new_sentence():
        n = rng.choice((1, 2, 3, 7, 30, 31))
        state.update(tokens=tuple(rng.choice("abcdefg") * rng.randint(1, 3) for _ in range(n)))

    def masks():
        n = state.n
        state.update(
            causal=rng.random() < 0.5,
            padding=tuple(rng.random() < 0.8 for _ in range(n)),
            window=rng.choice((0, 0, 1, 2)),
        )

    def rest():
        plot = panel.plot
        send_mouse_move(
            plot.viewport(), rng.uniform(0, plot.width()), rng.uniform(0, plot.height())
        )

    Soak(
        rng,
        [
            Action("sentence", new_sentence, 0.25),
            Action("masks", masks, 0.2),
            Action("temperature", lambda: state.update(temperature=rng.uniform(0.1, 4.0)), 0.15),
            Action("rest", rest, 0.2),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.04),
            switch_theme(window, rng, 0.03),
        ],
        after=lambda _step: rest(),
        settle=lambda _step: qtbot.wait(2),
    ).run(50)
    # Whatever happened, the bars are the current rows' entropies.
    np.testing.assert_allclose(
        panel.bars.opts["height"],
        _oracle(window.workspace.resolver.results.attention.weights),
        rtol=1e-9,
        atol=1e-12,
    )
