"""The layers panel on a real hybrid: its Gated DeltaNet rows drawn as their proven mixing
matrices (signed, each layer on its own scale, named by kind in the hover), picked with a
click or the arrow keys; rollout run through them on a worker and said so; a soak of random
events while the matrices are on their way."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

pytest.importorskip("transformers")
from attnviz.model import layer_mixing
from attnviz.model.layer_analysis import model_rollout
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.layers import LayersPanel
from attnviz.ui.workers import wait_for_workers
from tests.core.test_hf_families_2026 import TEXT
from tests.ui.soak import Action, Soak

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def qwen3_next(qwen3_next_folder):
    return qwen3_next_folder


@pytest.fixture
def panel(qtbot, qwen3_next):
    layer_mixing.clear()
    ws = Workspace()
    ws.state.update(head="model", model_path=qwen3_next, model_text=TEXT)
    widget = LayersPanel(ws)
    qtbot.addWidget(widget)
    widget.resize(1000, 700)
    widget.show()
    qtbot.waitUntil(lambda: widget.grid.mixing_heads(0).stop > 0, timeout=60_000)
    return widget


def test_gated_deltanet_rows_are_their_mixing_matrices(panel, qtbot):
    ws, grid = panel.workspace, panel.grid
    want = layer_mixing.model_mixing(ws.state.model_path, TEXT)
    assert list(grid.mixing_heads(0)) == list(range(want[0].heads))
    assert not grid.mixing_heads(1)  # a softmax layer: its weights
    assert "Gated DeltaNet" in panel.caption.text() and "mixing matrices M" in panel.caption.text()
    # A tile's hover is M's value, named by kind, with its layer's scale.
    said = []
    grid.sigHovered.connect(said.append)
    rect = grid.tile_rect(2, 1)
    n = len(ws.state.tokens)
    q, k = 5, 3
    at = QPoint(
        int(rect.left() + (k + 0.5) / n * rect.width()),
        int(rect.top() + (q + 0.5) / n * rect.height()),
    )
    grid.hover_at(at.toPointF())
    m = want[2].matrices[1]
    assert f"M = {m[q, k]:.3g}"[:8] in said[-1] or "M = " in said[-1]
    assert "Gated DeltaNet" in said[-1] and "softmax" not in said[-1]
    assert grid._mixing_value(2, 1, q, k) == m[q, k]
    # Its colour is M on the layer's own signed scale: 0 in the middle of the map.
    assert grid._mixing_unit(want[2], 0.0) == pytest.approx(0.5)
    assert grid._mixing_unit(want[2], want[2].scale) == pytest.approx(1.0)
    # A click picks the Gated DeltaNet head for the other panels.
    QTest.mouseClick(grid, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert (ws.state.layer, ws.state.model_head) == (2, 1)
    QTest.keyClick(grid, Qt.Key.Key_Up)  # onto the softmax layer above
    assert ws.state.layer == 1
    QTest.keyClick(grid, Qt.Key.Key_Up)
    assert ws.state.layer == 0 and ws.state.model_head in grid.mixing_heads(0)


def test_rollout_of_a_hybrid_runs_through_its_matrices_and_says_so(panel, qtbot):
    ws = panel.workspace
    ws.document["display"].update(layers_view="rollout")
    qtbot.waitUntil(lambda: panel.rollout_view.flow.size > 0, timeout=60_000)
    want = model_rollout(ws.state.capture(), ws.state.model_path, TEXT)
    np.testing.assert_allclose(panel.rollout_view.flow, want)
    note = panel.views_note.text()
    assert "0 (Gated DeltaNet), 2 (Gated DeltaNet)" in note and "|M|" in note


def test_soak_random_events_while_the_matrices_come(panel, qtbot):
    rng = random.Random("layers-mixing")
    ws = panel.workspace
    s, display = ws.state, ws.document["display"]
    texts = [TEXT, "the bank of the river", "a b c d e f g h"]

    def rest(_step: int) -> None:  # the mouse resting anywhere on the view shown
        widget = panel.views.currentWidget()
        x, y = rng.randrange(max(widget.width(), 1)), rng.randrange(max(widget.height(), 1))
        QTest.mouseMove(widget, QPoint(x, y))
        if rng.random() < 0.2:
            QTest.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
        if rng.random() < 0.2:
            QTest.keyClick(panel.grid, rng.choice([Qt.Key.Key_Up, Qt.Key.Key_Left]))

    actions = [
        Action("view", lambda: display.update(layers_view=rng.choice(
            ["weights", "rollout", "weights"])), weight=2),
        Action("sentence", lambda: s.update(model_text=rng.choice(texts)), weight=2),
        Action("head", lambda: s.update(layer=rng.randrange(4), model_head=rng.randrange(2))),
        Action("link", lambda: s.update(selected_cell=(rng.randrange(s.n), rng.randrange(s.n)))),
        Action("resize", lambda: panel.resize(rng.choice([500, 1000]), rng.choice([400, 700]))),
    ]  # fmt: skip
    Soak(rng, actions, after=rest, settle=lambda _step: qtbot.wait(5)).run(25)
    wait_for_workers()
    qtbot.wait(20)
    # Whatever happened, the rows drawn as M are the proven matrices of the sentence shown.
    qtbot.waitUntil(lambda: not panel._mixing_work.pending, timeout=60_000)
    want = layer_mixing.model_mixing(s.model_path, s.model_text)
    np.testing.assert_allclose(panel.grid.mixing[0].matrices, want[0].matrices)
    assert len(panel.grid.tokens) == want[0].matrices.shape[-1]


def test_heads_by_type_scores_the_gated_deltanet_heads_on_m_and_says_so(panel, qtbot):
    from attnviz.model.layer_analysis import model_head_types

    ws = panel.workspace
    ws.document["display"].update(layers_view="head_types")
    grid = panel.types_grid
    qtbot.waitUntil(lambda: grid.scores.shape[0] == 4, timeout=60_000)
    want = model_head_types(ws.state.model_path, TEXT)
    np.testing.assert_array_equal(grid.scores, want.scores)
    assert grid.tile_at(grid.tile_rect(0, 1).center()) == (0, 1)  # a head, not a band
    assert "Gated DeltaNet: scored on |M|" in grid.hover_text(0, 1)
    assert "scored on |M|" not in grid.hover_text(1, 1)  # a softmax head: its weights
    assert "layers 0, 2 that are not softmax attention" in panel.views_note.text()


def test_a_pooled_tiles_hover_reads_the_cell_its_token_falls_in(qtbot):
    """Past 512 tokens a tile's cells stand for blocks cut as block_extreme cuts them: the
    hover of token t reads the cell whose block holds t (at every block's edge too)."""
    from attnviz.core.block_pool import block_extreme
    from attnviz.model.layer_mixing import LayerMixing
    from attnviz.ui.widgets.layer_grid import LayerGrid

    n = 700
    m = np.arange(n * n, dtype=np.float64).reshape(n, n)
    pooled = block_extreme(m)[None]
    grid = LayerGrid()
    qtbot.addWidget(grid)
    grid.set_data([None], [f"t{i}" for i in range(n)], (0, 0), kinds=("Gated DeltaNet",))
    grid.set_mixing([LayerMixing(0, "Gated DeltaNet", 0, 1, pooled, True, float(m.max()))])
    edges = np.linspace(0, n, 65).astype(int)
    for i in (0, 1, 30, 63):
        for t in (edges[i], edges[i + 1] - 1):  # both ends of block i
            assert grid._mixing_value(0, 0, int(t), int(t)) == pooled[0, i, i]
