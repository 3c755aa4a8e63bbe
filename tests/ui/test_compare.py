"""Before / after in the heatmap and the layers grid (``display.compare``) on a tiny random
Llama (grouped-query attention, 3 layers): what is drawn is the export, which is
transformers' weights with a pre-hook on W^O's input (tests/model/test_intervened.py);
the difference is diverging and centred on 0, the layers before the intervention are 0;
undo and redo; a soak that switches the option while the sentence changes length."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtGui import QAction

from attnviz.model.intervened import compared_for
from attnviz.model.panel_data import panel_data
from attnviz.model.workspace import Workspace
from attnviz.ui.heatmap_look import colormap_for
from attnviz.ui.panels.heatmap import HeatmapPanel
from attnviz.ui.panels.layers import LayersPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, undo

pytest.importorskip("transformers")

from tests.tiny_models import SENTENCE, make_model

TEXTS = (SENTENCE, "the dog ran", "a cat sat on a river bank of the river i sat on")


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> str:
    return make_model(tmp_path_factory.mktemp("llama"), "llama", layers=3)


def _workspace(path: str) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path, model_text=SENTENCE)
    ws.document.attention.update(layer=2, model_head=1)
    ws.document.prediction.update(ablate=((1, 2),), knockout=((2, 1, 9, 4),))
    return ws


@pytest.fixture
def shown(qtbot):
    def make(cls, workspace):
        p = cls(workspace)
        qtbot.addWidget(p)
        p.apply_theme(theme_named("light"))
        p.resize(640, 600)
        p.show()
        qtbot.waitExposed(p)
        p.set_shown(True)
        return p

    return make


def _lut(name: str) -> np.ndarray:
    return np.asarray(colormap_for(name).getLookupTable(0.0, 1.0, 256, alpha=False))[:, :3]


def test_the_heatmap_draws_the_difference_export_centred_on_zero(llama, shown):
    ws = _workspace(llama)
    panel = shown(HeatmapPanel, ws)
    clean = np.array(panel.view._values)
    ws.document.display.update(compare="difference")
    want = panel_data(ws, "heatmap", "weights_difference").values
    np.testing.assert_array_equal(panel.view._values, want)
    m = float(np.abs(want).max())
    assert m > 1e-3 and panel.view._levels == (-m, m)
    np.testing.assert_array_equal(
        np.asarray(panel.view._cmap.getLookupTable(0.0, 1.0, 256, alpha=False))[:, :3],
        _lut("diverging"),
    )
    note = panel.compare_note.text()
    assert "ΔA = intervened A − clean A" in note and "Layers 0–1 are exactly 0" in note
    assert not panel.view.entropy_shown  # the strip's entropies would be the clean rows'

    row, col = np.unravel_index(int(np.argmax(np.abs(want))), want.shape)
    assert panel.hover_text(int(row), int(col)).startswith("ΔA  query")
    ws.document.display.update(compare="intervened")
    np.testing.assert_array_equal(
        panel.view._values, panel_data(ws, "heatmap", "weights_intervened").values
    )
    assert panel.view._levels == (0.0, 1.0)
    assert "Layers 0–1 are the clean run's" in panel.compare_note.text()
    # The knocked-out link (layer 2, head 1, "river" → "on") is hatched, its row sums to 1.
    assert not panel.view._allowed[9, 4] and panel.view._allowed[9, 3]
    assert panel.view._values[9, 4] == 0.0
    assert abs(panel.view._values[9].sum() - 1.0) < 1e-6
    assert "masked" in panel.hover_text(9, 4)
    ws.document.display.update(compare="clean")  # back: the heatmap as it always was
    np.testing.assert_array_equal(panel.view._values, clean)
    assert not panel.compare_note.isVisible() and panel.view.entropy_shown


def test_a_layer_before_the_intervention_is_drawn_as_exact_zeros(llama, shown):
    ws = _workspace(llama)
    ws.document.display.update(compare="difference")
    ws.document.attention.update(layer=1)
    panel = shown(HeatmapPanel, ws)
    assert np.count_nonzero(panel.view._values) == 0
    lo, hi = panel.view._levels
    assert lo == -hi and 0 < hi <= 1e-6  # 0 stays the middle colour


def test_the_layers_grid_draws_every_layers_difference(llama, shown):
    ws = _workspace(llama)
    ws.document.display.update(compare="difference")
    panel = shown(LayersPanel, ws)
    c = compared_for(ws.document)
    grid = panel.grid
    for layer, want in enumerate(c.layer_maps("difference")):
        np.testing.assert_array_equal(grid.weights[layer], want)
    assert np.count_nonzero(grid.weights[0]) == np.count_nonzero(grid.weights[1]) == 0
    assert grid.span == max(float(np.abs(w).max()) for w in grid.weights)
    np.testing.assert_array_equal(grid.lut, _lut("diverging"))
    assert "Layers 0–1 are exactly 0" in panel.caption.text()
    grid.hover_at(grid.tile_rect(2, 1).center())
    assert ": ΔA = " in grid.toolTip()
    ws.document.display.update(compare="clean")
    assert grid.span is None
    np.testing.assert_array_equal(grid.weights[2], c.clean.layers[2].weights)
    assert "exactly 0" not in panel.caption.text()


def test_without_an_intervention_the_panels_say_so_in_one_line(llama, shown):
    ws = _workspace(llama)
    ws.document.prediction.update(ablate=(), knockout=())
    ws.document.display.update(compare="difference")
    heat, layers = shown(HeatmapPanel, ws), shown(LayersPanel, ws)
    assert heat.compare_note.text().startswith("no intervention to compare")
    assert "\n" not in heat.compare_note.text()
    assert layers.grid.span is None and "no intervention to compare" in layers.caption.text()


def test_undo_and_redo_of_before_after_in_the_window(llama, qtbot, make_window):
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.document.prediction.update(ablate=((0, 1),))
    heat = window.panels["heatmap"]
    clean = np.array(heat.view._values)
    window.findChild(QAction, "action_compare_difference").trigger()  # View → Before / After
    assert window.document.display.compare == "difference"
    assert window.undo.stack.undoText() == "Before / after"
    # The intervened run is a forward pass: on a worker, said while it runs.
    assert heat.compare_note.text().startswith("Running the model again")
    qtbot.waitUntil(lambda: heat._compare is not None, timeout=60_000)
    assert heat.compare_note.text().startswith("ΔA = intervened A")
    diff = np.array(heat.view._values)
    assert not np.array_equal(diff, clean)
    window.undo.stack.undo()
    assert window.document.display.compare == "clean"
    assert window.compare_actions["clean"].isChecked()
    np.testing.assert_array_equal(heat.view._values, clean)
    window.undo.stack.redo()
    assert window.compare_actions["difference"].isChecked()
    np.testing.assert_array_equal(heat.view._values, diff)


def test_soak_of_before_after_while_the_sentence_changes(llama, qtbot, make_window):
    rng = random.Random("compare-soak")
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["layers"].show()
    window.docks["layers"].raise_()
    heat, layers = window.panels["heatmap"], window.panels["layers"]
    doc = window.document

    def text():
        window.models.run_text(rng.choice(TEXTS))

    def rest():
        for view in (heat.view, layers.grid):
            send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

    Soak(
        rng,
        [
            Action(
                "compare",
                lambda: doc.display.update(
                    compare=rng.choice(("clean", "intervened", "difference"))
                ),
                0.25,
            ),  # fmt: skip
            Action("text", text, 0.1),
            Action(
                "head",
                lambda: doc.attention.update(layer=rng.randrange(3), model_head=rng.randrange(4)),
                0.12,
            ),  # fmt: skip
            Action(
                "ablate",
                lambda: doc.prediction.update(ablate=((rng.randrange(3), rng.randrange(4)),)),
                0.1,
            ),  # fmt: skip
            Action(
                "knockout",
                lambda: doc.prediction.update(
                    knockout=((rng.randrange(3), rng.choice((-1, 2)), 2, rng.randrange(3)),)
                ),
                0.08,
            ),  # fmt: skip
            Action("clear", lambda: doc.prediction.update(ablate=(), knockout=()), 0.04),
            Action(
                "matrix",
                lambda: doc.attention.update(matrix=rng.choice(("weights", "scores"))),
                0.05,
            ),  # fmt: skip
            Action("rest", rest, 0.1),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.03),
        ],
        after=lambda _step: rest(),
        settle=lambda _step: qtbot.wait(2),
    ).run(40)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    # Whatever happened, the last settings are drawn: the difference is the export's.
    doc.attention.update(matrix="weights", layer=2, model_head=0)
    doc.prediction.update(ablate=((0, 2),), knockout=())
    doc.display.update(compare="difference")
    qtbot.waitUntil(lambda: heat.view._values.shape[0] == len(doc.attention.tokens))
    # The intervened run comes from a worker: both panels draw it once it is there.
    qtbot.waitUntil(
        lambda: heat._compare is not None and layers.grid.span is not None, timeout=60_000
    )
    want = panel_data(window.workspace, "heatmap", "weights_difference").values
    np.testing.assert_array_equal(heat.view._values, want)
    np.testing.assert_array_equal(layers.grid.weights[2][0], want)


def test_the_intervened_run_goes_to_the_runner_and_a_failure_is_said_once(llama, monkeypatch):
    """With a runner the forward pass leaves the GUI thread: the first ask is pending (one
    line saying so), both asks wait for one run, their redraws come after; a run that fails
    is said, not run again."""
    from attnviz.model import intervened
    from attnviz.ui import compare_view

    jobs = []
    ws = _workspace(llama)
    ws.document.prediction.update(ablate=((0, 3),), knockout=())
    ws.runner = lambda job, done: jobs.append((job, done))
    redrawn = []
    for who in ("heatmap", "layers"):
        with pytest.raises(compare_view.ComparePendingError, match="Running the model again"):
            compare_view.compared_now(ws, lambda who=who: redrawn.append(who))
    assert len(jobs) == 1  # one run for both
    job, done = jobs.pop()
    done(job())
    assert redrawn == ["heatmap", "layers"]
    c = compare_view.compared_now(ws, redrawn.append)  # kept now: at once
    assert c is intervened.compared_for(ws.document)
    ws.document.prediction.update(ablate=((1, 3),))
    with pytest.raises(compare_view.ComparePendingError):
        compare_view.compared_now(ws, lambda: redrawn.append("again"))
    job, done = jobs.pop()
    done(RuntimeError("the model ran out of memory\ntraceback…"))
    assert redrawn[-1] == "again"
    for _ in range(2):  # said in one line, not run again
        with pytest.raises(ValueError, match="^RuntimeError: the model ran out of memory$"):
            compare_view.compared_now(ws, redrawn.append)
    assert jobs == []
    from attnviz.model.real_model import STORE

    STORE.clear()  # the folder loaded again: tried again, not the kept failure
    with pytest.raises(compare_view.ComparePendingError):
        compare_view.compared_now(ws, redrawn.append)
    assert len(jobs) == 1
    compare_view._FAILED.clear()
    compare_view._WAITING.clear()
