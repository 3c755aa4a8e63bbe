"""The layers panel and File → Open Model…: open MiniLM, find a head, pick it, what-ifs, soak."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

pytest.importorskip("transformers")
from attnviz.model.real_model import STORE
from attnviz.ui.main_window import MainWindow
from tests.core.test_hf_capture import SENTENCE, minilm_path
from tests.ui.soak import Action, Soak, resize, switch_theme, undo_or_redo

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shared_window(make_module_window):
    """One window for the module: building it and loading MiniLM are the slow parts."""
    return make_module_window()


def wait_loaded(window, qtbot) -> None:
    qtbot.waitUntil(lambda: not window.models.busy, timeout=180_000)


@pytest.fixture
def window(shared_window, qtbot):
    """The shared window showing MiniLM's layer 0 head 0, the layers panel in front."""
    w = shared_window
    w.themes.set_mode("light")
    w.themes.set_large_fonts(False)
    w.resize(1280, 720)
    w.docks["layers"].raise_()
    if w.state.head != "model" or w.state.model_text != SENTENCE:
        w.models.open_path(minilm_path(), SENTENCE)
        wait_loaded(w, qtbot)
    w.state.update(layer=0, model_head=0, selected_cell=None)
    qtbot.wait(5)
    return w


def test_open_model_shows_every_layer_and_head(window):
    panel = window.panels["layers"]
    assert window.models.last_error == ""
    assert panel.grid.weights and len(panel.grid.weights) == 6
    assert panel.grid.weights[0].shape == (12, 10, 10)
    assert "6 layers × 12 heads (12 KV)" in panel.caption.text()
    assert "[CLS] [SEP]" in panel.caption.text()
    assert window.findChild(type(window.models.open_action), "action_open_model") is not None
    assert window.models.timings["forward"] > 0 and "load" in window.models.timings
    assert panel.text.text() == SENTENCE


def test_click_a_tile_picks_the_head_every_panel_shows(window, qtbot):
    grid = window.panels["layers"].grid
    rect = grid.tile_rect(2, 3)
    qtbot.mouseClick(
        grid, Qt.MouseButton.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y()))
    )
    s = window.state
    assert (s.layer, s.model_head, s.head_index) == (2, 3, 3)
    cap = s.capture()
    np.testing.assert_allclose(
        window.resolver.results.attention.weights, cap.layers[2].weights[3], atol=1e-5
    )
    assert grid.selected == (2, 3)
    grid.hover_at(rect.center())
    assert grid.toolTip().startswith("layer 2 · head 3 · “")


def test_link_finder_and_strongest(window, qtbot):
    panel = window.panels["layers"]
    panel.query.setCurrentIndex(5)
    panel.query.activated.emit(5)
    panel.key.setCurrentIndex(8)
    panel.key.activated.emit(8)
    s = window.state
    assert s.selected_cell == (5, 8) and s.selected_query == 5
    panel.by_link.setChecked(True)
    assert panel.grid.by_link and panel.grid.link == (5, 8)
    panel.strongest.click()
    a = np.stack([lc.weights[:, 5, 8] for lc in s.capture().layers])
    assert a[s.layer, s.model_head] == a.max()
    assert "“bank” → “river”" in panel.summary.text()
    panel.by_link.setChecked(False)


def test_what_if_detaches_and_a_click_goes_back(window, qtbot):
    s = window.state
    s.update(layer=1, model_head=4)
    q = np.array(s.q)
    q[5] *= 2
    s.update(q=q)
    assert s.head == "manual"
    assert "left the model" in window.models.detached_message
    panel = window.panels["layers"]
    assert "not the model's" in panel.caption.text()
    grid = panel.grid
    rect = grid.tile_rect(1, 4)
    qtbot.mouseClick(
        grid, Qt.MouseButton.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y()))
    )
    assert s.head == "model" and not np.array_equal(s.q, q)


def test_new_sentence_runs_on_a_worker(window, qtbot):
    panel = window.panels["layers"]
    panel.text.setText("The river bank flooded")
    panel.run.click()
    wait_loaded(window, qtbot)
    assert window.state.tokens == ("[CLS]", "the", "river", "bank", "flooded", "[SEP]")
    assert len(panel.grid.weights[0][0]) == 6
    window.undo.stack.undo()
    assert window.state.model_text == SENTENCE


def test_refusal_is_one_clear_message(window, qtbot, tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "bert"}')
    (tmp_path / "pytorch_model.bin").write_bytes(b"\x80\x04")
    window.models.open_path(str(tmp_path))
    wait_loaded(window, qtbot)
    assert "pickle checkpoint" in window.models.last_error
    box = window.findChild(QMessageBox, "model_error")
    assert box is not None and "pickle" in box.text()
    box.close()
    assert window.state.head == "model"  # the open model stays


def test_memory_card_from_this_model(window):
    window.models.card_action.trigger()
    m = window.document.memory
    assert (m.model, m.layers, m.heads, m.kv_heads, m.head_dim) == ("custom", 6, 12, 12, 32)
    assert m.params == 22_713_216


def test_layers_export_png(window, tmp_path):
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import export_panel

    out = tmp_path / "layers.png"
    export_panel(window.workspace, "layers", out, ExportSpec(1920, 1080, "dark", False, None, None))
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1920, 1080)


def test_soak_random_edits_hover_undo_resize_and_themes(window, qtbot):
    rng = random.Random(15)
    s = window.state
    grid = window.panels["layers"].grid
    texts = [
        "I sat on the bank of the river",
        "bank",
        "The bank of the river was steep",
        "money in the bank",
    ]

    def select_a_cell() -> None:
        n = s.n
        s.update(selected_cell=(rng.randrange(n), rng.randrange(n)))

    def rest_on_a_tile(_step: int) -> None:  # after every action, while the shapes change
        if grid.weights:
            rect = grid.tile_rect(rng.randrange(len(grid.weights)), rng.randrange(12))
            qtbot.mouseMove(grid, QPoint(int(rect.center().x()), int(rect.center().y())))
            grid.hover_at(rect.center())

    actions = [
        Action("sentence", lambda: s.update(model_text=rng.choice(texts))),  # every shape new
        Action("layer, head", lambda: s.update(layer=rng.randrange(7),
                                               model_head=rng.randrange(13))),
        Action("head", lambda: s.update(tokens=("a", "b")) if rng.random() < 0.3
               else s.update(head="model")),
        Action("cell", select_a_cell),
        Action("causal, temperature", lambda: s.update(causal=rng.random() < 0.5,
                                                       temperature=rng.choice([0.5, 1.0, 2.0]))),
        undo_or_redo(window, rng),
        Action("by link", lambda: window.panels["layers"].by_link.setChecked(rng.random() < 0.5)),
        resize(window, rng, widths=(1280, 900, 1400), heights=(720,)),
        switch_theme(window, rng, weight=2),
    ]  # fmt: skip
    Soak(rng, actions, after=rest_on_a_tile, settle=lambda _step: qtbot.wait(1)).run(40)
    assert len(STORE._captures) <= 8


def test_a_model_session_opens_without_loading_on_the_gui_thread(window, qtbot, tmp_path):
    """A session shows MiniLM's layer 2 head 3, in a new run of the app (nothing loaded):
    opening returns at once, the model loads on the worker, then the head shows."""
    from attnviz.model.session import save_session

    window.state.update(layer=2, model_head=3)
    path = save_session(window.document, tmp_path / "river.attnviz")
    q = window.state.q.copy()
    window.state.update(layer=0, model_head=0)
    STORE.clear()
    errors = []
    window.session._show_error = lambda title, message: errors.append(message)
    assert window.session.open_path(path)
    assert window.models.busy  # loading on the worker: the window still answers
    assert (window.state.layer, window.state.model_head) == (0, 0)  # nothing applied yet
    wait_loaded(window, qtbot)
    assert not errors
    s = window.state
    assert (s.head, s.model_text, s.layer, s.model_head) == ("model", SENTENCE, 2, 3)
    np.testing.assert_array_equal(s.q, q)
    assert window.session.path == path and window.undo.stack.isClean()
    # A model folder that is gone: one message, and the document stays as it was.
    data = json.loads(path.read_text())
    data["topics"]["attention"]["model_path"] = str(tmp_path / "gone")
    path.write_text(json.dumps(data))
    shown = window.state.snapshot()
    window.session.open_path(path)  # the check runs on the worker too
    wait_loaded(window, qtbot)
    assert len(errors) == 1 and "gone" in errors[0]
    after = window.state.snapshot()
    assert after.keys() == shown.keys() and (after["layer"], after["model_head"]) == (2, 3)


def test_a_later_open_wins_over_a_session_still_loading(window, qtbot, tmp_path):
    """Open a model session (its model loading), then another session at once: the second
    stays, and a session without model_text loads the field's default sentence."""
    from attnviz.model.session import save_session
    from attnviz.model.topics.attention import AttentionState

    model_file = save_session(window.document, tmp_path / "model.attnviz")
    window.state.update(layer=1)
    data = json.loads(model_file.read_text())
    del data["topics"]["attention"]["model_text"]
    model_file.write_text(json.dumps(data))
    plain = tmp_path / "plain.attnviz"
    plain.write_text(json.dumps({"format_version": 2, "topics": {}}))
    STORE.clear()
    errors = []
    window.session._show_error = lambda title, message: errors.append(message)
    assert window.session.open_path(model_file) and window.models.busy
    assert window.session.open_path(plain)
    assert window.session.path == plain and window.state.head != "model"
    wait_loaded(window, qtbot)
    assert window.session.path == plain and window.state.head != "model" and not errors
    default = AttentionState.field("model_text").default
    assert STORE.cached(minilm_path(), default) is not None  # the sentence a session means
    assert STORE.cached(minilm_path(), "") is None


def test_closing_the_window_while_a_model_session_loads(window, qtbot, tmp_path):
    """The worker finishes after the window is gone: nothing reaches the deleted window."""
    import shiboken6

    from attnviz.model.session import save_session

    path = save_session(window.document, tmp_path / "model.attnviz")
    other = MainWindow()
    other.show()
    STORE.clear()
    assert other.session.open_path(path) and other.models.busy
    other.session.undo.stack.setClean()
    other.close()
    shiboken6.delete(other)
    # The load goes on; its end must not touch the deleted controller (pytest-qt fails the
    # test on an exception raised inside Qt's event loop).
    qtbot.waitUntil(lambda: STORE.cached(minilm_path(), SENTENCE) is not None, timeout=180_000)
    qtbot.wait(100)


def test_cancel_stops_the_worker_at_its_next_stage(window, qtbot, monkeypatch):
    """Cancel sets the job's flag: its next stage raises, the worker ends, nothing shows."""
    import threading
    import time

    from attnviz.core.hf_capture import LoadCancelled

    stopped, calls = threading.Event(), []

    def slow_capture(path, text, progress=None):
        try:
            for _ in range(2000):  # 20 s unless cancelled
                progress("forward")
                calls.append(1)
                time.sleep(0.01)
        except LoadCancelled:
            stopped.set()
            raise
        raise AssertionError("never cancelled")

    monkeypatch.setattr(STORE, "capture", slow_capture)
    before = window.state.model_text
    window.models.run_text("a sentence that never finishes")
    qtbot.waitUntil(lambda: len(calls) > 3, timeout=60_000)
    window.models.cancel()
    # Watchdogs only (they end a hang): the worker stops at its next stage, however busy
    # the machine; then the controller is idle again.
    assert stopped.wait(60)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=60_000)
    assert not window.models.busy and window.state.model_text == before


def test_the_dialog_says_the_layer_and_the_time_left(window, monkeypatch):
    """A long sentence's pass: which layer, and the rest timed by the layers done.

    The controller's clock is a fake one the test moves: the estimate's arithmetic is
    checked, not how fast this machine runs the lines between two readings."""
    from types import SimpleNamespace

    from attnviz.ui import model_loader

    now = [1000.0]
    monkeypatch.setattr(model_loader, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    models = window.models
    assert isinstance(models, model_loader.ModelController)
    models._estimate = 0.0
    models._set_stage("forward", 0, 6)
    assert models.stage_text().endswith("layer 1 of 6")
    models._set_stage("forward", 0, 6, 30.0)  # the capture's estimate, before a layer is done
    assert models.stage_text().endswith("layer 1 of 6 · about 30 s left")
    now[0] += 4.0  # two layers took 4 s
    models._set_stage("forward", 2, 6)
    assert models.stage_text().endswith("layer 3 of 6 · about 8 s left")
    models._set_stage("proof")
    assert "\n" not in models.stage_text()


def test_a_hybrids_other_layers_are_bands_the_grid_names_and_skips(qtbot):
    """A layer without softmax attention: a band naming its kind, no tile to click, the
    arrow keys step over it, the hover says what it is."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from attnviz.ui.widgets.layer_grid import LayerGrid

    grid = LayerGrid()
    qtbot.addWidget(grid)
    grid.resize(400, 400)
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(5), size=(2, 5))  # (heads, n, n), rows sum to 1
    kinds = ("Gated DeltaNet", "softmax (gated output)", "Mamba-2", "softmax")
    grid.set_data([None, w, None, w], tuple("abcde"), (1, 0), kinds=kinds)
    grid.show()
    qtbot.waitExposed(grid)
    said, picked = [], []
    grid.sigHovered.connect(said.append)
    grid.sigPicked.connect(lambda layer, head: picked.append((layer, head)))
    band = grid.tile_rect(0, 0).united(grid.tile_rect(0, 1)).center()
    assert grid.tile_at(band) is None
    grid.hover_at(band)
    assert said[-1] == "layer 0: Gated DeltaNet — no softmax attention, no weights to draw"
    grid.hover_at(grid.tile_rect(1, 1).center())
    assert said[-1].startswith("layer 1 · head 1") and said[-1].endswith("softmax (gated output)")
    QTest.mouseClick(grid, Qt.MouseButton.LeftButton, pos=band.toPoint())
    assert picked == []
    grid.setFocus()
    QTest.keyClick(grid, Qt.Key.Key_Down)
    assert picked[-1] == (3, 0)  # layer 2 is a Mamba-2 band: stepped over
    grid.set_selected(3, 0)
    QTest.keyClick(grid, Qt.Key.Key_Down)
    assert picked[-1] == (1, 0)  # round to the top, over layer 0's band
    image = grid.grab().toImage()
    assert image.pixelColor(grid.tile_rect(0, 0).center().toPoint()) == image.pixelColor(
        grid.tile_rect(2, 1).center().toPoint()
    )  # both bands in the masked colour
