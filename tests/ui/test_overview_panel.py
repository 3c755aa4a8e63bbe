"""The overview panel: the map on a worker, zoom to exact cells, cancel, the backend selector,
the memory refusal, the export, and a soak of random events over both long panels."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QLabel

from attnviz.core import memory_guard
from attnviz.model.resolve import long as long_model
from attnviz.ui import workers
from attnviz.ui.export import ExportSpec
from attnviz.ui.panel_export import render_panel_image
from attnviz.ui.widgets.numbers import exact
from attnviz.ui.widgets.token_map import TEXT_CELLS, cell_text
from tests.ui.soak import Action, Soak, redo, send_mouse_move, undo

WAIT = 60_000


@pytest.fixture
def window(make_window, qtbot):
    """The projector's window on a 2,048-token overview, the overview panel in front."""
    w = make_window(values={"long": {"n": 2048, "bins": 64}}, front="overview")
    yield w
    w.docks["overview"].hide()  # cancels a job still running
    _idle(qtbot)


def _idle(qtbot) -> None:
    """Wait until the long-computation pool has nothing left to do."""
    if workers._POOL:
        qtbot.waitUntil(lambda: workers._POOL[0].activeThreadCount() == 0, timeout=WAIT)


def _map_ready(qtbot, panel) -> None:
    key = long_model.overview_key(panel.state.snapshot())
    qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.key == key, timeout=WAIT)


def test_the_map_is_computed_off_the_gui_thread_and_drawn(window, qtbot):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    ov = panel.overview
    want = long_model.run_overview(panel.state.snapshot())
    assert np.array_equal(ov.map, want.map) and np.array_equal(panel.view.coarse.values, ov.map)
    assert panel.progress.value() == 1000 and not panel.resolver.map_running
    assert window.panels["overview"].resolver.cached_overview() is ov
    status = window.statusBar().findChild(QLabel, "overview_status")
    assert "NumPy" in status.text() and "2,048" in status.text()
    assert panel.view.n == 2048 and panel.view.window() == (0, 2048, 0, 2048)


def test_zoom_down_to_exact_cells_with_their_values(window, qtbot):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    window.document.long.update(rows=(100, 110), cols=(95, 105))
    qtbot.waitUntil(lambda: panel.view.detail.exact, timeout=WAIT)
    want = long_model.exact_block(panel.overview, 100, 110, 95, 105)
    assert np.array_equal(panel.view.detail.values, want)
    assert panel.view.window() == (100, 110, 95, 105)
    texts = panel.view.cell_texts()
    assert len(texts) == 100 and TEXT_CELLS >= 10
    assert sorted(texts) == sorted(cell_text(float(v)) for v in want.ravel())
    panel.view.hover(104, 96)
    assert exact(float(want[4, 1])) in panel.hover.text()
    assert "104" in panel.hover.text() and "96" in panel.hover.text()


def test_a_larger_window_is_mapped_again_from_its_exact_weights(window, qtbot):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    window.document.long.update(rows=(0, 1500), cols=(300, 2048))
    qtbot.waitUntil(lambda: panel.view.detail.values is not None, timeout=WAIT)
    assert not panel.view.detail.exact
    want = long_model.region_map(panel.overview, 0, 1500, 300, 2048, 64, "mean")
    np.testing.assert_array_equal(panel.view.detail.values, want)
    value, rows, cols, is_exact = panel.view.value_at(10, 400)
    assert not is_exact and rows[0] <= 10 < rows[1] and cols[0] <= 400 < cols[1]
    panel.view.hover(10, 400)
    assert "mean" in panel.hover.text()


def test_zooming_the_view_writes_the_window(window, qtbot):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    panel.view.plot.setRange(xRange=(499.5, 531.5), yRange=(999.5, 1015.5), padding=0)
    qtbot.waitUntil(lambda: window.document.long.rows == (1000, 1016), timeout=WAIT)
    assert window.document.long.cols == (500, 532)
    qtbot.waitUntil(lambda: panel.view.detail.exact, timeout=WAIT)
    panel.keyPressEvent(_key(Qt.Key.Key_Home))
    assert window.document.long.rows == () and panel.view.window() == (0, 2048, 0, 2048)


def _key(key):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent

    return QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier)


def test_cancel_stops_the_job_and_says_so(window, qtbot):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    window.document.long.update(n=32768, bins=256)
    assert panel.resolver.map_running and panel.overview is None  # the old map was of 2,048 tokens
    qtbot.wait(300)
    panel.run.click()
    assert not panel.resolver.map_running and panel.progress.format() == "Cancelled"
    assert panel.run.text() == "Compute"
    _idle(qtbot)  # the worker noticed the flag and ended
    assert panel.resolver.cached_overview() is None


def test_backend_selector_lists_what_is_here(window, qtbot):
    torch = pytest.importorskip("torch")
    selector = window.panels["overview"].backend
    qtbot.waitUntil(lambda: bool(selector.status), timeout=WAIT)
    entries = {name: (on, tip) for name, on, tip in selector.entries()}
    assert list(entries) == ["numpy", "torch", "cuda", "auto"]
    assert entries["numpy"][0] and entries["auto"][0]
    assert entries["torch"][0] and torch.__version__ in entries["torch"][1]
    if torch.cuda.is_available():
        assert entries["cuda"][0]
    else:
        assert not entries["cuda"][0] and "no CUDA device" in entries["cuda"][1]
        assert "no device" in selector.itemText(selector.findData("cuda"))


def test_memory_refusal_is_a_message_with_the_numbers(window, qtbot, monkeypatch):
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    monkeypatch.setattr(memory_guard, "available_bytes", lambda backend="numpy": 1 << 28)
    window.document.long.update(n=262144, d_k=512, bins=1024)
    qtbot.waitUntil(lambda: panel.message.isVisible(), timeout=WAIT)
    need = memory_guard.estimate_overview_bytes(262144, 512, 1024, "numpy", np.float32)
    assert f"{need / memory_guard.GiB:.1f} GiB" in panel.message.text()
    assert "0.2 GiB free" in panel.message.text() and not panel.resolver.map_running


def test_png_export_draws_the_map(qtbot):
    from attnviz.model.workspace import Workspace

    ws = Workspace()
    ws.document.long.update(n=512, bins=64, rows=(0, 12), cols=(0, 12))
    image = render_panel_image(ws, "overview", ExportSpec(width=1920, height=1080))
    assert (image.width(), image.height()) == (1920, 1080)
    colors = {image.pixel(x, y) for x in range(0, 1920, 37) for y in range(0, 1080, 29)}
    assert len(colors) > 20


def test_soak_random_events_on_both_long_panels(window, qtbot):
    rng = random.Random(13)
    doc = window.document
    overview, tiles = window.panels["overview"], window.panels["tiles"]
    long = doc.long
    actions = [
        Action("n, bins", lambda: long.update(n=rng.choice([64, 96, 256, 512, 1000]),
                                              bins=rng.choice([8, 64]))),
        Action("head", lambda: long.update(head=rng.choice(["content", "previous", "decay",
                                                            "random"]))),
        Action("causal, reduce", lambda: long.update(causal=rng.random() < 0.5,
                                                     reduce=rng.choice(["mean", "max"]))),
        Action("log colour", lambda: long.update(log_color=rng.random() < 0.5)),
        Action("zoom", lambda: long.update(rows=(0, min(12, long.n)), cols=(3, 15))),
        Action("unzoom", lambda: long.update(rows=(), cols=())),
        Action("tiles", lambda: long.update(tiles_n=rng.randint(4, 64),
                                            block_q=rng.randint(4, 16))),
        Action("tile step", lambda: long.update(tile_step=rng.randint(0, 15))),
        undo(window),
        redo(window),
        Action("raise", lambda: window.docks[rng.choice(["overview", "tiles"])].raise_()),
        Action("hover", lambda: overview.view.hover(rng.randint(0, 80), rng.randint(0, 80))),
        Action("mouse on the map", lambda: _move_mouse(overview.view.viewport(), rng)),
        Action("mouse on the tiles", lambda: _move_mouse(tiles.matrices, rng)),
        Action("tile keys", lambda: tiles.keyPressEvent(
            _key(rng.choice([Qt.Key.Key_Right, Qt.Key.Key_End])))),
    ]  # fmt: skip
    # Theme switches and resizes restyle the whole window (about a second): a few, at set steps.
    rare = {
        20: Action("dark theme", lambda: window.themes.set_mode("dark")),
        40: Action("resize", lambda: window.resize(1000, 650)),
    }
    Soak(rng, actions, at=rare).run(60)  # a refused value is fine; nothing else is
    window.docks["overview"].raise_()
    _map_ready(qtbot, overview)
    assert overview.view.coarse.values is overview.overview.map


def _move_mouse(widget, rng) -> None:
    """A mouse move sent to ``widget`` at a random point (shown or not)."""
    send_mouse_move(widget, rng.randint(0, max(widget.width() - 1, 1)),
                    rng.randint(0, max(widget.height() - 1, 1)))  # fmt: skip


def test_the_map_says_how_long_it_takes_before_it_starts(window, qtbot, monkeypatch):
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: 1e-4)  # a slow machine
    panel = window.panels["overview"]
    window.document.long.update(n=4096)
    qtbot.waitUntil(lambda: "min on this machine's CPU" in panel.hover.text(), timeout=WAIT)
    assert "about 14 min on this machine's CPU" in panel.hover.text()
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: 1e-9)
    window.document.long.update(n=2048)
    qtbot.waitUntil(lambda: "a second or less" in panel.hover.text(), timeout=WAIT)


def test_the_whole_map_fits_a_720p_window_with_large_fonts(window, qtbot):
    """The map's axis and the line under it are on screen, not below a scroll."""
    from PySide6.QtWidgets import QScrollArea

    window.themes.set_large_fonts(True)
    window.docks["overview"].setFocus()
    window.set_focus_mode(True)
    panel = window.panels["overview"]
    _map_ready(qtbot, panel)
    qtbot.wait(50)
    area = panel.findChild(QScrollArea)
    assert area.verticalScrollBar().maximum() == 0
    assert panel.view.height() >= 300 and panel.hover.isVisible()
    window.set_focus_mode(False)
    window.themes.set_large_fonts(False)


@pytest.mark.parametrize("n", [64, 4096])
def test_every_query_tick_label_is_drawn_whole_inside_the_view(qtbot, n):
    from attnviz.model.workspace import Workspace
    from attnviz.ui.panel_export import build_panel

    workspace = Workspace()
    workspace.document["long"].update(n=n)
    panel, _figure = build_panel(
        workspace, "overview", ExportSpec(1280, 720, "light", False, None, None)
    )
    try:
        _map_ready(qtbot, panel)
        view = panel.view
        axis = view.plot.getAxis("left")
        image = QImage(8, 8, QImage.Format.Format_ARGB32)
        painter = QPainter(image)  # the axis measures its labels with a painter's font
        try:
            texts = axis.generateDrawSpecs(painter)[2]
        finally:
            painter.end()
        shown = {text for _rect, _flags, text in texts}
        assert "0" in shown  # token 0's label: its cell sits half a cell below the top
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        for rect, _flags, text in texts:
            assert visible.contains(axis.mapRectToScene(rect)), text
    finally:
        panel.close()
        panel.deleteLater()
