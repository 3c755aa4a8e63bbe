"""The gradient panel: the chain and the Jacobian follow the topic, the check runs on a
worker, the controls write the topic (and undo), the export draws it; a random-event soak."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from attnviz.model.topic_presets import document_preset_values
from attnviz.ui.widgets.matrix_view import MatrixView
from tests.ui.soak import Action, Soak, redo, resize, rest_mouse, switch_theme, undo, undo_clock

REFERENCE_DQ0 = [0.456, 0.354, 0.099, 0.209]


@pytest.fixture(scope="module")
def shared_window(make_module_window):
    """One window for the module: building a main window is the slow part of each test."""
    return make_module_window()


@pytest.fixture
def window(shared_window, qtbot):
    """The shared window, back on backward-reference with the gradient panel in front."""
    w = shared_window
    panel = w.panels["gradient"]
    if panel.cancel.isVisible():
        panel.cancel.click()
    panel.check_result = None
    panel.axis.setCurrentIndex(0)
    w.themes.set_large_fonts(False)
    w.themes.set_mode("light")
    w.resize(1280, 720)
    w.docks["gradient"].raise_()
    qtbot.waitExposed(w)
    w.document.restore(document_preset_values("backward-reference"))
    QApplication.processEvents()
    return w


def test_the_chain_shows_the_reference_run_with_its_formulas(window):
    panel = window.panels["gradient"]
    assert panel.shown
    dq = panel.views["dq"]
    np.testing.assert_array_equal(np.round(dq.values()[0], 3), REFERENCE_DQ0)
    titles = {name: view.title() for name, view in panel.views.items()}
    assert titles["da"] == "dA = dO Vᵀ"
    assert titles["dscores"] == "dS = A ⊙ (dA − rowsum(dA ⊙ A))"
    assert titles["dv"] == "dV = Aᵀ dO"
    assert titles["dq"].startswith("dQ = dS K") and "√d_k" in titles["dq"]
    assert titles["dk"].startswith("dK = dSᵀ Q")
    res = window.workspace.resolver_for("gradient").results
    np.testing.assert_array_equal(panel.views["dscores"].values(), res.chain.dscores)
    # the Σ column of dS: its row sums, all 0
    assert "Σ_j dS[t1, j]" in panel.views["dscores"].hover_cell(0, 3)
    assert abs(res.chain.row_sums).max() <= 1e-12
    assert "dS rows sum to 0" in panel.summary.text()
    # exact values on hover
    text = dq.hover_cell(0, 0)
    assert text.startswith("dQ[t1, 0] = ") and "0.456121784" in text
    a = window.workspace.resolver.results.attention.weights[0]
    np.testing.assert_allclose(panel.jacobian.values(), np.diag(a) - np.outer(a, a), atol=1e-15)


def test_masked_cells_are_drawn_masked(window):
    panel = window.panels["gradient"]
    window.state.update(causal=True)
    ds = panel.views["dscores"]
    assert ds.values()[0, 2] == 0.0
    assert "masked" in ds.hover_cell(0, 2)
    assert "masked" not in ds.hover_cell(2, 0)
    assert "masked" in panel.jacobian.hover_cell(1, 1)  # query t1 sees only t1


def test_the_check_runs_on_a_worker_and_reports_tiny_errors(window, qtbot):
    panel = window.panels["gradient"]
    assert panel.check.isEnabled()
    qtbot.mouseClick(panel.check, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.check_result is not None, timeout=20000)
    assert panel.check_result.max_error <= 1e-8
    assert "dQ" in panel.check_label.text() and "e−" in panel.check_label.text()
    assert panel.check.isEnabled() and not panel.cancel.isVisible()


def test_cancel_drops_the_answer(window, qtbot):
    panel = window.panels["gradient"]
    panel.check.click()
    assert panel.cancel.isVisible() and not panel.check.isEnabled()
    panel.cancel.click()
    assert panel.check.isEnabled()
    qtbot.wait(300)  # the worker may finish meanwhile: its answer is ignored
    assert panel.check_result is None
    assert panel.check_label.text() == "Cancelled."


def test_an_edit_during_the_check_makes_its_answer_stale(window, qtbot):
    panel = window.panels["gradient"]
    panel.check.click()
    window.state.update(temperature=2.0)
    qtbot.waitUntil(lambda: not panel.cancel.isVisible(), timeout=20000)
    assert panel.check_result is None
    assert "changed" in panel.check_label.text()


def test_a_check_too_large_for_a_worker_is_not_offered(window):
    panel = window.panels["gradient"]
    window.state.update(tokens=tuple(f"w{i}" for i in range(40)), head="content", d_k=128)
    assert not panel.check.isEnabled()
    assert "Too large" in panel.check.toolTip()
    window.state.update(d_k=8)
    assert panel.check.isEnabled()


def test_the_controls_write_the_upstream_gradient_and_undo(window):
    panel, state = window.panels["gradient"], window.state
    assert state.grad_source == "preset" and not panel.seed.isEnabled()
    panel.source.activated.emit(panel.source.findData("random"))
    assert state.grad_source == "random" and panel.seed.isEnabled()
    panel.seed.setValue(5)
    assert state.grad_seed == 5
    rng = np.random.default_rng(5)
    np.testing.assert_array_equal(panel.views["d_output"].values(), rng.normal(size=(3, 4)))
    panel.source.activated.emit(panel.source.findData("onehot"))
    panel.dim.activated.emit(2)
    assert state.grad_dim == 2 and panel.views["d_output"].title() == "dO: L = O[t1, 2]"
    panel.query.setValue(2)
    assert state.selected_query == 2
    while window.undo.stack.canUndo() and state.grad_source != "preset":
        window.undo.stack.undo()
    assert state.grad_source == "preset"
    assert panel.source.currentData() == "preset"


def test_a_refused_source_shows_why_and_reverts(window):
    panel, state = window.panels["gradient"], window.state
    window.document.restore(document_preset_values("banco"))
    panel.source.activated.emit(panel.source.findData("preset"))
    assert state.grad_source == "onehot"
    assert panel.source.currentData() == "onehot"
    assert "upstream gradient" in panel.message.text()


def test_the_saturation_demo_marks_a_dead_gradient(window):
    panel = window.panels["gradient"]
    window.document.restore(document_preset_values("banco"))
    window.state.update(head="content", d_k=128, scale=False)
    (x,), (y,) = panel.marker.getData()
    assert x == pytest.approx(np.log10(128)) and y < -6
    assert "e−" in panel.summary.text()
    window.state.update(scale=True)
    (_x,), (y,) = panel.marker.getData()
    assert y > -2
    panel.axis.setCurrentIndex(1)
    panel.axis.activated.emit(1)
    (x,), (_y,) = panel.marker.getData()
    assert x == pytest.approx(0.0)  # temperature 1


def test_rope_is_said_on_screen(window):
    window.state.update(rope=True)
    assert "RoPE" in window.panels["gradient"].summary.text()


def test_large_fonts_and_themes_restyle(window):
    panel = window.panels["gradient"]
    before = panel.views["dq"].font().pointSizeF() or panel.views["dq"].font().pixelSize()
    window.themes.set_large_fonts(True)
    QApplication.processEvents()
    after = panel.views["dq"].font().pointSizeF() or panel.views["dq"].font().pixelSize()
    assert after > before
    light = panel.views["dq"].color_at(0.0)
    window.themes.set_mode("dark")
    assert panel.views["dq"].color_at(0.0) != light
    assert panel.views["dq"].color_at(0.0).lightnessF() < 0.3  # a dark neutral on a dark panel


def test_a_hidden_panel_computes_nothing(window):
    resolver = window.workspace.resolver_for("gradient")
    window.docks["heatmap"].raise_()
    QApplication.processEvents()
    before = resolver.computations
    window.state.update(temperature=3.0)
    assert resolver.computations == before


def test_matrix_view_colours_are_symmetric_about_zero(qtbot):
    view = MatrixView("M")
    qtbot.addWidget(view)
    view.set_matrix(np.array([[-2.0, 0.0, 1.0]]))
    assert view.vmax == 2.0
    left, mid, right = view.color_at(-2.0), view.color_at(0.0), view.color_at(2.0)
    assert left.blue() > left.red() and right.red() > right.blue()
    assert mid.lightnessF() > 0.9
    view.set_matrix(np.zeros((2, 2)), allowed=np.array([[True, False], [True, True]]))
    assert view.vmax == 1.0  # an all-zero matrix still gets a scale
    assert "masked" in view.hover_cell(0, 1)
    assert view.hover_cell(5, 5) == ""


def test_the_export_draws_the_panel_at_slide_size(tmp_path):
    out = tmp_path / "g.png"
    cmd = [sys.executable, "-m", "attnviz", "export", "--preset", "backward-reference",
           "--panel", "gradient", "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=180)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1920, 1080)
    colors = {image.pixelColor(x, y).name() for x in range(0, 1920, 40) for y in range(0, 1080, 40)}
    assert len(colors) > 20  # matrices, plot and text, not a blank canvas


def test_soak(window, qtbot):
    """Random edits (shapes change), the mouse resting on the matrices, checks, undo/redo,
    resizes and theme switches: no exception anywhere."""
    rng = random.Random("gradient-soak")
    panel, state = window.panels["gradient"], window.state
    words = ("o", "gato", "subiu", "no", "telhado", "banco", "praça")
    edits = (
        lambda: {"tokens": tuple(rng.choice(words) for _ in range(rng.randint(1, 9)))},
        lambda: {"d_k": rng.randint(1, 40)},
        lambda: {"head": rng.choice(("manual", "content", "previous", "decay"))},
        lambda: {"grad_source": rng.choice(("onehot", "random", "preset"))},
        lambda: {"grad_dim": rng.randint(0, 5)},
        lambda: {"grad_seed": rng.randint(0, 9)},
        lambda: {"selected_query": rng.randint(0, 9)},
        lambda: {"scale": rng.random() < 0.5, "temperature": rng.choice((0.05, 1.0, 20.0))},
        lambda: {"causal": rng.random() < 0.5, "rope": rng.random() < 0.5},
        lambda: {"v": np.ones((state.n, rng.randint(1, 5)))},
    )

    def check_or_cancel() -> None:
        if panel.check.isEnabled():
            panel.check.click()
        elif panel.cancel.isVisible():
            panel.cancel.click()

    def rest_on_a_matrix() -> None:
        rest_mouse(rng, rng.choice([*panel.views.values(), panel.jacobian]))

    soak = Soak(
        rng,
        [
            Action("edit", lambda: state.update(**rng.choice(edits)()), 0.45),
            Action("mouse", rest_on_a_matrix, 0.25),
            Action("check", check_or_cancel, 0.06),
            undo(window, 0.08),
            redo(window, 0.06),
            resize(window, rng, widths=(700, 1400), heights=(450, 900), weight=0.05),
            switch_theme(window, rng, 0.05),
        ],
        before=undo_clock(window, rng),
    )
    soak.run(60)
    qtbot.waitUntil(lambda: not panel.cancel.isVisible(), timeout=30000)
    assert panel.message.isHidden() or "StateError" not in panel.message.text()
    assert not window.grab().isNull()
