"""The training panel: builtin:induction's curves drawn as its training.csv says, the
phase change marked where the induction score first passes 0.5, the hover's exact row, a
one-line reason where a model has no curves, and a soak in the window; and the prediction
panel's map saying how much of a repeat the model copies."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from attnviz.core.builtin_models import builtin_folder
from attnviz.model.panel_data import panel_data
from attnviz.model.training_curves import model_curves
from tests.core.test_copying import TEXT, WORDS  # the repeat the copying tests read
from tests.tiny_models import SENTENCE, make_model
from tests.ui.soak import Action, Soak, resize, send_mouse_move, switch_theme, undo


@pytest.fixture
def opened(qtbot, make_window):
    window = make_window()
    window.models.open_path("builtin:induction", TEXT)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["training"].show()
    window.docks["training"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "training"))
    return window, window.panels["training"]


def test_the_curves_drawn_are_the_models_training_csv(opened, tmp_path):
    window, panel = opened
    curves = model_curves("model", builtin_folder("induction"))
    drawn = panel.view.drawn()
    np.testing.assert_array_equal(drawn["step"], [c.step for c in curves])
    for name in ("loss", "previous_token", "induction", "copy_accuracy"):
        np.testing.assert_array_equal(drawn[name], [getattr(c, name) for c in curves])
    phase = next(c for c in curves if c.induction > 0.5)
    assert panel.phase == phase.step and all(m.value() == phase.step for m in panel.marks)
    assert all(m.isVisible() for m in panel.marks)
    text = panel.summary.text()
    assert f"At step {phase.step} (dotted)" in text and f"{phase.loss:.4f}" in text
    data = panel_data(window.workspace, "training", "milestones")
    assert data.values[1, 0] == phase.step
    # Hovering near a step says its row exactly.
    vb = panel.view.score_plot.getPlotItem().vb
    from PySide6.QtCore import QPointF

    panel._on_q_mouse(panel.view.score_plot, vb.mapViewToScene(QPointF(phase.step + 3, 0.5)))
    assert panel.hover.text().startswith(f"step {phase.step}: loss {phase.loss:.6f}")
    # A model folder without curves: one line, no empty axes.
    window.document.attention.update(model_path=make_model(tmp_path, "llama"), model_text=SENTENCE)
    assert panel.view.isHidden()
    assert "has no training.csv" in panel.summary.text()
    assert "\n" not in panel.summary.text()


def test_the_map_says_how_much_of_the_repeat_the_model_copies(qtbot, make_window):
    window = make_window()
    window.models.open_path("builtin:induction", TEXT)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.document.prediction.update(view="map")
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    qtbot.waitUntil(lambda: panel.map_key is not None, timeout=60_000)
    data = panel_data(window.workspace, "prediction", "copying")
    assert data.rows == ("0", "1", "clean")
    count = len(WORDS) - 1
    clean = data.values[2, 0]
    note = panel.map_note.text()
    assert f"at {round(clean * count)} of its {count} copyable tokens" in note
    worst = np.unravel_index(np.nanargmin(data.values[:2]), (2, 2))
    assert f"With layer {worst[0]}'s head {worst[1]} off" in note
    hover = panel.map_view.hover_text(1, 1)
    assert f"it copies {round(data.values[1, 1] * count)} of the {count} copyable" in hover
    # The map's cells as Δ copy accuracy: each head's copy accuracy minus the clean one.
    window.document.prediction.update(map_value="copying")
    np.testing.assert_array_equal(panel.map_view.values(), data.values[:2] - clean)
    assert panel.map_value.currentData() == "copying"
    assert "Δ" in panel.map_view.hover_text(0, 1) and "zero-ablated" in panel.map_view.hover_text(
        0, 1
    )
    window.document.prediction.update(map_value="logp")
    np.testing.assert_array_equal(
        panel.map_view.values(), panel_data(window.workspace, "prediction", "ablation").values
    )
    # A sentence that repeats nothing has no copying to draw: one line instead.
    window.document.prediction.update(map_value="copying")
    window.document.attention.update(model_text=" ".join(WORDS))
    qtbot.waitUntil(lambda: "can be copied" in panel.map_note.text(), timeout=60_000)
    assert panel.map_view.values().size == 0


def test_soak_of_the_training_panel_in_the_window(opened, qtbot, tmp_path):
    window, panel = opened
    rng = random.Random("training-soak")
    attention = window.document.attention
    folder = builtin_folder("induction")
    plain = make_model(tmp_path / "plain", "llama")
    bad = make_model(tmp_path / "bad", "llama")
    (tmp_path / "bad" / "training.csv").write_text("step,loss\n1,2\n", encoding="utf-8")
    texts = {folder: TEXT, plain: SENTENCE, bad: SENTENCE}

    def model():
        path = rng.choice((folder, plain, bad, folder))
        attention.update(head="model", model_path=path, model_text=texts[path])

    def rest():
        plot = rng.choice((panel.view.loss_plot, panel.view.score_plot))
        send_mouse_move(
            plot.viewport(), rng.uniform(0, plot.width()), rng.uniform(0, plot.height())
        )

    Soak(
        rng,
        [
            Action("model", model, 0.3),
            Action("rest", rest, 0.35),
            undo(window, 0.1),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.1),
            switch_theme(window, rng, 0.05),
        ],
        after=lambda _step: rest(),
        settle=lambda _step: qtbot.wait(2),
    ).run(40)
    attention.update(head="model", model_path=folder, model_text=TEXT)  # undo may leave it
    assert not panel.view.isHidden() and len(panel.curves) == 40
