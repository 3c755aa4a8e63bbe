"""The layers panel's heads by type and rollout with MiniLM: the View box, what each view
draws against the model layer's numbers, clicks, the painted widgets alone (a hybrid's
band, a refused rollout), and a soak of random events over the new views."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

pytest.importorskip("transformers")
from attnviz.model.head_type_table import DEFINITIONS, TYPES, strongest
from attnviz.model.layer_analysis import model_head_types, model_rollout
from attnviz.ui.widgets.head_type_grid import HeadTypeGrid
from attnviz.ui.widgets.rollout_view import RolloutView
from attnviz.ui.workers import wait_for_workers
from tests.core.test_hf_capture import SENTENCE, minilm_path
from tests.ui.soak import Action, Soak, resize, switch_theme, undo_or_redo

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shared_window(make_module_window):
    return make_module_window()


@pytest.fixture
def window(shared_window, qtbot):
    """The shared window showing MiniLM, the layers panel in front, its weights view."""
    w = shared_window
    w.themes.set_mode("light")
    w.resize(1280, 720)
    w.docks["layers"].raise_()
    if w.state.head != "model" or w.state.model_text != SENTENCE:
        w.models.open_path(minilm_path(), SENTENCE)
        qtbot.waitUntil(lambda: not w.models.busy, timeout=180_000)
    w.state.update(layer=0, model_head=0, selected_query=1)
    w.document["display"].update(layers_view="weights", head_type="strongest")
    qtbot.wait(5)
    return w


def settle(qtbot) -> None:
    wait_for_workers()
    qtbot.wait(5)


def test_the_view_box_writes_the_field_and_shows_its_page(window, qtbot):
    panel = window.panels["layers"]
    assert panel.views.currentWidget() is panel.grid and not panel.type_pick.isVisibleTo(panel)
    panel.view.setCurrentIndex(1)
    panel.view.activated.emit(1)
    assert window.document["display"].layers_view == "head_types"
    assert panel.views.currentWidget() is panel.types_grid
    assert panel.type_pick.isVisibleTo(panel) and not panel.flow_token.isVisibleTo(panel)
    # Every type's definition is its item's tooltip in the type box.
    for i, name in enumerate(TYPES, start=1):
        tip = panel.type_pick.itemData(i, Qt.ItemDataRole.ToolTipRole)
        assert tip == DEFINITIONS[name] and panel.type_pick.itemData(i) == name


def test_heads_by_type_draws_the_models_scores_and_a_click_picks_a_head(window, qtbot):
    panel = window.panels["layers"]
    window.document["display"].update(layers_view="head_types")
    settle(qtbot)
    grid = panel.types_grid
    want = model_head_types(minilm_path(), SENTENCE).scores
    assert grid.scores.shape == (6, 12, len(TYPES))
    np.testing.assert_array_equal(grid.scores, want)
    # Layer 0 head 2 is MiniLM's previous-token head: its tile says so, not "local".
    index, value = strongest(grid.scores[0, 2])
    assert TYPES[int(index)] == "previous" and value > 0.9
    said = []
    grid.sigHovered.connect(said.append)
    center = grid.tile_rect(3, 7).center()
    QTest.mouseMove(grid, center.toPoint())
    assert said and said[-1].startswith("layer 3, head 7: ")
    QTest.mouseClick(grid, Qt.MouseButton.LeftButton, pos=center.toPoint())
    assert (window.state.layer, window.state.model_head) == (3, 7)
    assert grid.selected == (3, 7)
    window.document["display"].update(head_type="sep")
    assert grid.chosen == "sep" and panel.type_pick.currentData() == "sep"


def test_rollout_draws_the_models_flow_and_a_row_click_follows_a_token(window, qtbot):
    panel = window.panels["layers"]
    window.document["display"].update(layers_view="rollout")
    settle(qtbot)
    view = panel.rollout_view
    flow = model_rollout(window.state.capture())
    np.testing.assert_array_equal(view.flow, flow)
    assert view.token == window.state.selected_query == 1
    left, _right, _label = view._rects()
    cell = left.height() / flow.shape[-1]
    row = QPointF(left.center().x(), left.top() + 4.5 * cell).toPoint()
    QTest.mouseClick(view, Qt.MouseButton.LeftButton, pos=row)
    assert window.state.selected_query == 4 and view.token == 4
    assert panel.flow_token.currentData() == 4
    said = []
    view.sigHovered.connect(said.append)
    QTest.mouseMove(view, row)
    assert "share of" in said[-1]


def test_the_widgets_alone_a_band_a_nan_score_and_a_refusal(qtbot):
    grid = HeadTypeGrid()
    qtbot.addWidget(grid)
    grid.resize(400, 300)
    scores = np.full((2, 3, len(TYPES)), np.nan)
    scores[1] = 0.1
    scores[1, 2, TYPES.index("sink")] = 0.9
    grid.set_scores(scores, ("Gated DeltaNet", "softmax"))
    grid.show()
    qtbot.waitExposed(grid)
    assert grid.tile_at(grid.tile_rect(0, 1).center()) is None  # the band: not a head
    assert grid.tile_at(grid.tile_rect(1, 2).center()) == (1, 2)
    assert grid.hover_text(1, 2).startswith("layer 1, head 2: sink (first token) 0.9")
    view = RolloutView()
    qtbot.addWidget(view)
    view.set_message("rollout needs softmax attention in every layer; layer 1 is Mamba-2")
    assert view.cell_at(QPointF(10, 10)) is None and view.message.endswith("Mamba-2")


def test_soak_random_events_over_the_new_views(window, qtbot):
    rng = random.Random("layers-views")
    s, display = window.state, window.document["display"]
    panel = window.panels["layers"]
    texts = ["the bank of the river", "money in the bank", SENTENCE]

    def rest(_step: int) -> None:  # the mouse on the view shown, anywhere
        widget = panel.views.currentWidget()
        x, y = rng.randrange(max(widget.width(), 1)), rng.randrange(max(widget.height(), 1))
        QTest.mouseMove(widget, QPoint(x, y))
        if rng.random() < 0.2:
            QTest.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(x, y))

    actions = [
        Action("view", lambda: display.update(layers_view=rng.choice(
            ["weights", "head_types", "rollout"])), weight=2),
        Action("type", lambda: display.update(head_type=rng.choice(["strongest", *TYPES]))),
        Action("token", lambda: s.update(selected_query=rng.randrange(s.n))),
        Action("head", lambda: s.update(layer=rng.randrange(6), model_head=rng.randrange(12))),
        Action("sentence", lambda: s.update(model_text=rng.choice(texts))),
        undo_or_redo(window, rng),
        resize(window, rng, widths=(900, 1280), heights=(720,)),
        switch_theme(window, rng),
    ]  # fmt: skip
    Soak(rng, actions, after=rest, settle=lambda _step: settle(qtbot)).run(30)
    settle(qtbot)
    # Whatever happened, the page is the field's and the view drawn is the model's.
    view = display.layers_view
    assert panel.views.currentIndex() == ["weights", "head_types", "rollout"].index(view)
    if view == "rollout" and s.head == "model":
        np.testing.assert_array_equal(panel.rollout_view.flow, model_rollout(s.capture()))
    if view == "head_types" and s.head == "model":
        want = model_head_types(s.model_path, s.model_text).scores
        np.testing.assert_array_equal(panel.types_grid.scores, want)
    assert not panel.message.isVisible()
