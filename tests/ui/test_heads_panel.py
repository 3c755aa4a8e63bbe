"""The heads panel and the projection editor: grid, grouping, tables, exports, undo, soak."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.workspace import Workspace
from attnviz.ui.export import ExportSpec
from attnviz.ui.panel_export import export_panel
from attnviz.ui.panels.heads import HeadsPanel
from attnviz.ui.theme import LIGHT
from attnviz.ui.undo import UndoController
from attnviz.ui.widgets.projection_editor import ProjectionEditor
from tests.ui.soak import Action, Soak, resize, switch_theme, undo_or_redo


class _Bench:
    """A heads panel on its own workspace, with undo: what the window gives it, cheaply."""

    def __init__(self, qtbot):
        self.workspace = Workspace()
        self.state = self.workspace.state
        self.resolver = self.workspace.resolver
        self.undo = UndoController(self.workspace.document)
        self.state.update(**preset_state_values(load_preset("heads")))
        self.panel = HeadsPanel(self.workspace)
        qtbot.addWidget(self.panel)
        self.panel.apply_theme(LIGHT)
        self.panel.resize(820, 440)
        self.panel.show()
        qtbot.waitExposed(self.panel)
        self.panels = {"heads": self.panel}


@pytest.fixture
def bench(qtbot):
    return _Bench(qtbot)


@pytest.fixture
def window(make_window, qtbot):
    """The projector's window on the heads preset, the heads panel in front and drawn."""
    w = make_window(values={"attention": preset_state_values(load_preset("heads"))}, front="heads")
    qtbot.waitUntil(lambda: w.panels["heads"].grid.isVisible())
    return w


def _center(rect) -> QPoint:
    return rect.center().toPoint()


def test_the_grid_shows_every_head_framed_by_kv_head(window, qtbot):
    panel = window.panels["heads"]
    grid = panel.grid
    res = panel.resolver.results
    assert grid.weights.shape == (8, 12, 12) and len(grid._frames) == 2
    assert grid.groups == ((0, 1, 2, 3), (4, 5, 6, 7))
    # Heads of one KV head sit inside its frame.
    for g, heads in enumerate(grid.groups):
        for head in heads:
            assert grid._frames[g].contains(grid.tile_rect(head))
    qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=_center(grid.tile_rect(6)))
    assert window.state.head_index == 6 and grid.selected == 6
    np.testing.assert_array_equal(window.resolver.results.attention.weights, res.weights[6])
    assert window.undo.stack.undoText() == "Head shown"
    grid.setFocus()
    qtbot.keyClick(grid, Qt.Key.Key_Right)
    assert window.state.head_index == 7


def test_one_kv_head_frames_all_heads_and_shrinks_the_cache(bench):
    panel = bench.panels["heads"]
    assert panel.kind.text() == "GQA: 4 query heads per KV head"
    panel.n_kv.setCurrentIndex(panel.n_kv.findData(1))
    panel.n_kv.activated.emit(panel.n_kv.currentIndex())
    assert bench.state.n_kv_heads == 1
    assert len(panel.grid._frames) == 1 and panel.grid.groups == (tuple(range(8)),)
    assert panel.kind.text() == "MQA: all 8 query heads share one KV head"
    assert "KV cache: 16 numbers per token, not 128 (÷8)." in panel.summary.text()
    assert [panel.n_kv.itemData(i) for i in range(panel.n_kv.count())] == [1, 2, 4, 8]
    bench.undo.stack.undo()
    assert bench.state.n_kv_heads == 2 and len(panel.grid._frames) == 2


def test_the_tables_show_the_live_shapes_and_equal_flops(bench):
    panel = bench.panels["heads"]
    res = panel.resolver.results
    table = panel.shapes
    assert table.rowCount() == len(res.shapes) == 13
    for i, row in enumerate(res.shapes):
        assert table.item(i, 2).text() == " × ".join(map(str, res.array(row.key).shape))
    assert table.item(0, 2).text() == "12 × 64" and table.item(1, 2).text() == "64 × 64"
    flops = panel.flops
    total = next(i for i in range(flops.rowCount()) if flops.item(i, 0).text() == "FLOPs in all")
    assert flops.item(total, 1).text() == flops.item(total, 2).text() == "430,080"
    assert flops.item(total, 3).text() == "282,624"
    assert flops.horizontalHeaderItem(1).text() == "1 × 64"
    assert flops.horizontalHeaderItem(2).text() == "8 × 8"
    assert "430,080 FLOPs either way" in panel.summary.text()


def test_the_controls_write_the_layout_and_refuse_what_does_not_fit(bench):
    panel = bench.panels["heads"]
    panel.n_heads.setValue(4)
    assert (bench.state.n_heads, bench.state.d_k) == (4, 16)
    assert panel.d_head.value() == 16 and panel.grid.weights.shape[0] == 4
    panel.d_head.setValue(1024)  # 4 × 1024 is wider than any W the app draws
    assert "wider than" in panel.message.text() and bench.state.d_k == 16
    assert panel.d_head.value() == 16


def test_a_one_head_source_offers_the_projections(bench):
    panel = bench.panels["heads"]
    bench.state.update(**preset_state_values(load_preset("banco")))
    assert panel.use.isVisible() and not panel.n_heads.isEnabled()
    assert panel.grid.weights.shape == (1, 3, 3)
    np.testing.assert_array_equal(panel.grid.weights[0], bench.resolver.results.attention.weights)
    panel.use.click()
    assert bench.state.head == "projections" and not panel.use.isVisible()
    assert panel.grid.weights.shape == (4, 3, 3)  # the default layout: 4 heads, 2 KV heads


def test_hover_reports_the_exact_value(bench, qtbot):
    grid = bench.panels["heads"].grid
    rect = grid.tile_rect(2)
    n = 12
    pos = QPoint(
        int(rect.left() + rect.width() * 3.5 / n), int(rect.top() + rect.height() * 1.5 / n)
    )
    seen = []
    grid.sigHovered.connect(seen.append)
    qtbot.mouseMove(grid, pos)
    w = bench.panels["heads"].resolver.results.weights[2, 1, 3]
    assert seen and seen[-1] == f"head 2 · “banco” → key “praça”: A = {w:.3f}"
    assert grid.toolTip() == seen[-1]


def test_hidden_panel_computes_nothing(bench):
    resolver = bench.workspace.resolver_for("heads")
    bench.panel.hide()
    before = resolver.computations
    for t in range(5):
        bench.state.update(temperature=1.0 + 0.1 * t)
    assert resolver.computations == before
    bench.panel.show()
    assert resolver.computations == before + 1


def test_the_projection_editor_types_drags_and_reseeds(bench, qtbot):
    editor = ProjectionEditor(bench.state)
    qtbot.addWidget(editor)
    editor.show()
    model = editor.models["x"]
    assert model.rowCount() == 12 and model.columnCount() == 64
    model.setData(model.index(1, 0), 2.5)
    assert bench.state.x[1, 0] == 2.5 and bench.state.w_q is None
    assert bench.undo.stack.undoText() == "Embeddings X"
    assert "typed: X" in editor.status.text()
    editor.tabs.setCurrentIndex(1)
    assert editor.models["w_q"].columnCount() == 64
    assert editor.models["w_q"].headerData(9, Qt.Orientation.Horizontal) == "h1·2"
    editor.tabs.setCurrentIndex(0)
    editor.reseed.click()
    assert bench.state.x is None
    bench.state.update(**preset_state_values(load_preset("heads-2d")))
    assert editor.plot.isVisible() and len(editor.plot.heads) == 5
    editor.plot.sigDragged.emit(2, 1.0, -0.5)
    qtbot.waitUntil(lambda: bench.state.x[2, 1] == -0.5)
    np.testing.assert_array_equal(bench.state.x[2], [1.0, -0.5])
    np.testing.assert_array_equal(bench.state.k[2], [1.0, -0.5])  # W_K = I in this preset
    editor.models["x"].setData(editor.models["x"].index(0, 0), 2e6)  # beyond any activation
    assert "larger than" in editor.message.text()
    editor.toggle.setChecked(False)
    assert editor.body.isHidden()


def test_exports_draw_the_grid_at_the_exact_size(bench, tmp_path):
    spec = ExportSpec(1280, 720, "dark", False, None, None)
    png = export_panel(bench.workspace, "heads", tmp_path / "h.png", spec)
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1280, 720)
    svg = export_panel(bench.workspace, "heads", tmp_path / "h.svg", spec)
    assert "<svg" in svg.read_text()[:2000]


def test_cli_exports_the_heads_data(tmp_path):
    npy = tmp_path / "w.npy"
    base = [sys.executable, "-m", "attnviz", "export", "--preset", "heads", "--panel", "heads"]
    r = subprocess.run(
        [*base, "--matrix", "weights", "--set", "attention.n_kv_heads=1", "--out", str(npy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    w = np.load(npy)
    assert w.shape == (8, 12, 12)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, atol=1e-12)
    r = subprocess.run(
        [*base, "--matrix", "weights", "--out", str(tmp_path / "w.csv")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and ".npy" in r.stderr


def test_soak_random_edits_hover_undo_resize_and_themes(window, qtbot):
    rng = random.Random(12)
    panel = window.panels["heads"]
    editor = ProjectionEditor(window.state)
    qtbot.addWidget(editor)
    editor.show()
    words = ["o", "banco", "da", "praça", "fica", "perto", "dinheiro", "guardo"]
    s = window.state

    def new_x() -> None:
        x = s.projections()["x"].copy()
        rows = rng.choice([x.shape[0], x.shape[0] + 1])  # sometimes the wrong shape
        s.update(x=np.resize(x, (rows, x.shape[1])) + rng.random())

    def after(step: int) -> None:  # the mouse on a head while the grid changes shape
        grid = panel.grid
        if grid._tiles:
            rect = grid.tile_rect(rng.randrange(len(grid._tiles)))
            qtbot.mouseMove(grid, QPoint(int(rect.center().x()), int(rect.center().y())))
        if step % 20 == 0:
            qtbot.mouseClick(grid, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
            editor.tabs.setCurrentIndex(rng.randrange(5))

    def rarely(step: int) -> bool:  # resizes and theme switches restyle every panel: fewer
        return step % 8 == 0

    actions = [
        Action("tokens", lambda: s.update(tokens=tuple(rng.choice(words)
                                                       for _ in range(rng.randint(1, 14))))),
        Action("n_heads", lambda: s.update(n_heads=rng.choice([1, 2, 3, 4, 6, 8, 12]))),
        Action("n_kv_heads", lambda: s.update(n_kv_heads=rng.choice([1, 2, 3, 4]))),
        Action("d_model", lambda: s.update(d_model=rng.choice([2, 4, 8, 16, 64]))),
        Action("head_index", lambda: s.update(head_index=rng.randrange(8))),
        Action("x", new_x),
        Action("head", lambda: s.update(head=rng.choice(["projections", "projections",
                                                         "content", "manual"]))),
        Action("causal, rope", lambda: s.update(causal=rng.random() < 0.5,
                                                rope=rng.random() < 0.3)),
        undo_or_redo(window, rng),
        resize(window, rng, widths=(1280, 900, 1400), heights=(720,), when=rarely),
        switch_theme(window, rng, when=rarely),
    ]  # fmt: skip
    Soak(rng, actions, after=after, settle=lambda _step: qtbot.wait(1)).run(60)
    if s.head == "projections" and panel.resolver.results.weights is not None:
        i = s.head_index
        np.testing.assert_array_equal(
            panel.resolver.results.weights[i], window.resolver.results.attention.weights
        )
