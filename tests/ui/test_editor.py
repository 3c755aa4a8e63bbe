"""The token and vector editor: edits reach the state and the steps, rows stay aligned."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QPushButton

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.ui.panels.editor import EditorPanel
from attnviz.ui.panels.steps import StepsPanel
from attnviz.ui.widgets.vector_table import MAX_SHOWN


@pytest.fixture
def panel(qtbot, workspace):
    p = EditorPanel(workspace)
    qtbot.addWidget(p)
    p.resize(900, 700)
    p.show()
    return p


@pytest.fixture
def steps(qtbot, workspace):
    p = StepsPanel(workspace)
    qtbot.addWidget(p)
    return p


def rows_by_token(state):
    """Each token's (q, k, v) rows, to check that edits keep them together."""
    return {
        t: (state.q[i].tolist(), state.k[i].tolist(), state.v[i].tolist())
        for i, t in enumerate(state.tokens)
    }


def test_identity_and_initial_view(panel):
    assert EditorPanel.PANEL_ID == "editor" and EditorPanel.title() == "Tokens and vectors"
    assert panel.tokens.tokens() == ["sentei", "banco", "praça"]
    model = panel.table.vectors
    assert model.rowCount() == 3 and model.columnCount() == 6
    # Compact headers; the value dimension's name on hover.
    assert model.headerData(4, Qt.Orientation.Horizontal) == "v1"
    assert model.headerData(4, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == (
        "v1 · seat"
    )
    assert not panel.plot.isHidden()
    assert not hasattr(panel, "d_k")  # d_k lives in the controls' "Scores" group


def test_spin_box_edit_reaches_state_and_steps(qtbot, panel, steps, state):
    view = panel.table
    index = view.model().index(1, 0)  # q of "banco", first dimension
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.viewport().findChild(QDoubleSpinBox)
    assert editor is not None and editor.value() == 1.0
    editor.selectAll()
    qtbot.keyClicks(editor, "0")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the delegate commits on the next event loop
    qtbot.waitUntil(lambda: state.q[1, 0] == 0)
    np.testing.assert_array_equal(state.q[1], [0, 2])
    assert view.model().index(1, 0).data() == "0"
    # q = [0, 2]: scores 0, 2, 4 → the steps panel follows.
    assert steps.step_texts()[0] == ["0", "2", "4"]


def test_editing_a_synthetic_head_makes_it_manual(panel, state):
    state.update(head="content", d_k=4)
    panel.table.model().setData(panel.table.model().index(0, 4), 0.5)  # k of token 0
    assert state.head == "manual" and state.k[0, 0] == 0.5
    assert panel.head.currentData() == "manual"


def test_reorder_insert_delete_keep_rows_aligned(qtbot, panel, state):
    before = rows_by_token(state)
    tokens = panel.tokens
    tokens.list.setCurrentRow(0)
    tokens.move_down()
    tokens.flush()
    assert state.tokens == ("banco", "sentei", "praça")
    assert rows_by_token(state) == before
    assert state.tokens[state.selected_query] == "sentei"  # picked, then moved along

    tokens.list.setFocus()
    tokens.list.setCurrentRow(2)
    qtbot.keyClick(tokens.list, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    tokens.flush()
    assert state.tokens == ("banco", "praça", "sentei")
    assert rows_by_token(state) == before

    tokens.list.setCurrentRow(0)
    tokens.insert()
    tokens.flush()
    assert state.tokens == ("banco", "new", "praça", "sentei")
    assert rows_by_token(state)["new"] == ([0, 0], [0, 0], [0, 0])
    assert {t: r for t, r in rows_by_token(state).items() if t != "new"} == before

    tokens.list.setCurrentRow(1)
    tokens.delete()
    tokens.flush()
    assert state.tokens == ("banco", "praça", "sentei")
    assert rows_by_token(state) == before
    assert panel.table.vectors.rowCount() == 3


def test_picking_a_token_selects_its_query(panel, steps, state):
    panel.tokens.list.setCurrentRow(2)
    assert state.selected_query == 2 and steps.query.currentText() == "2: praça"
    state.selected_query = 0
    assert panel.tokens.list.currentRow() == 0


def test_delete_key_and_rename(qtbot, panel, state):
    before = rows_by_token(state)
    lst = panel.tokens.list
    lst.setFocus()
    lst.setCurrentRow(0)
    qtbot.keyClick(lst, Qt.Key.Key_Delete)
    panel.tokens.flush()
    assert state.tokens == ("banco", "praça")
    lst.item(1).setText("plaza")
    panel.tokens.flush()
    assert state.tokens == ("banco", "plaza")
    assert rows_by_token(state)["plaza"] == before["praça"]


def test_blank_token_is_rejected_and_reverted(panel, state):
    panel.tokens.list.item(0).setText(" ")
    panel.tokens.flush()
    assert state.tokens == ("sentei", "banco", "praça")
    assert panel.tokens.tokens() == ["sentei", "banco", "praça"]
    assert "blank" in panel.message.text()


def test_reorder_with_a_synthetic_head(panel, state):
    state.update(head="previous", d_k=8)
    panel.tokens.list.setCurrentRow(2)
    panel.tokens.move_up()
    panel.tokens.flush()
    assert state.tokens == ("sentei", "praça", "banco") and state.q.shape == (3, 8)


def test_sentence_is_tokenized_on_enter(qtbot, panel, state):
    panel.sentence.clear()
    qtbot.keyClicks(panel.sentence, "O gato, subiu.")
    qtbot.keyClick(panel.sentence, Qt.Key.Key_Return)
    assert state.tokens == ("O", "gato", ",", "subiu", ".")
    assert panel.table.vectors.rowCount() == 5
    panel.sentence.setText("  ")
    qtbot.keyClick(panel.sentence, Qt.Key.Key_Return)
    assert state.n == 5 and "no tokens" in panel.message.text()


def test_head_d_k_and_seed(qtbot, panel, state):
    panel.head.setCurrentIndex(panel.head.findData("content"))
    panel.head.activated.emit(panel.head.currentIndex())
    assert state.head == "content"
    q_seed0 = state.q.copy()
    panel.seed.setValue(7)
    assert state.seed == 7 and not np.array_equal(state.q, q_seed0)
    state.d_k = 48  # set in the controls panel (exact entry there, not a power of two)
    assert state.q.shape == (3, 48)
    model = panel.table.vectors
    # 48 columns do not fit 900 px: q, k and v stack, one column per dimension shown.
    qtbot.waitUntil(lambda: model.stacked)
    assert model.stacked and model.rowCount() == 3 * state.n
    assert model.columnCount() == MAX_SHOWN
    model.set_stacked(False)
    assert model.columnCount() == 2 * MAX_SHOWN + min(state.v.shape[1], MAX_SHOWN)
    assert "first 16" in panel.table_note.text()
    assert panel.plot.isHidden()
    assert not panel.seed.isHidden()
    state.update(head="manual")
    assert panel.seed.isHidden()  # typed vectors have no seed


def test_invalid_head_is_rejected_with_a_message(panel, state):
    panel.head.setCurrentIndex(panel.head.findData("decay"))
    panel.head.activated.emit(panel.head.currentIndex())
    assert state.head == "manual"
    assert panel.head.currentData() == "manual"  # reverted
    assert "d_k ≥ 3" in panel.message.text() and panel.message.isVisible()


def test_experiment_buttons(panel, state):
    names = [b.objectName() for b in panel.experiment_box.findChildren(QPushButton)]
    assert "experiment_praca-money" in names and "experiment_reset" in names
    panel.findChild(QPushButton, "experiment_zero-query").click()
    np.testing.assert_array_equal(state.q[1], [0, 0])
    panel.findChild(QPushButton, "experiment_reset").click()
    np.testing.assert_array_equal(state.q[1], [1, 2])
    state.update(**preset_state_values(load_preset("gato")))
    assert panel.experiment_box.isHidden() or not load_preset("gato").experiments


def test_dragging_an_arrow_head_moves_the_query(panel, steps, state):
    head = panel.plot.heads["q"][1]  # banco's query
    head.setPos(1.0, 0.0)  # what a drag does, point by point
    np.testing.assert_array_equal(state.q[1], [1, 0])
    assert steps.step_texts()[2] == ["0.40", "0.40", "0.20"]
    head.setPos(0.512, 0.013)  # snapped to the 0.05 grid
    panel._write_arrow.flush()
    np.testing.assert_allclose(state.q[1], [0.5, 0.0])


def test_large_editor_stays_a_model(qtbot, panel, state):
    state.update(tokens=tuple(f"w{i}" for i in range(64)), d_k=16)
    model = panel.table.vectors
    qtbot.waitUntil(lambda: model.stacked)  # 34 columns are too wide: q, k, v stacked
    assert (model.rowCount(), model.columnCount()) == (3 * 64, 16)
    assert model.data(model.index(3 * 63 + 2, 1)) is not None  # v of the last token
    assert model.data(model.index(3 * 63 + 2, 2)) is None  # v has two dimensions
    assert not model.flags(model.index(3 * 63 + 2, 2)) & Qt.ItemFlag.ItemIsEditable
    model.set_stacked(False)
    assert (model.rowCount(), model.columnCount()) == (64, 16 + 16 + 2)
    assert panel.tokens.list.count() == 64


def test_many_two_dimensional_tokens_skip_the_arrows(panel, state):
    from attnviz.ui.panels.editor import MAX_ARROWS

    state.update(tokens=tuple(f"w{i}" for i in range(MAX_ARROWS + 1)), d_k=2)
    assert panel.plot.isHidden() and str(MAX_ARROWS) in panel.plot_note.text()
    state.tokens = ("a", "b")
    assert not panel.plot.isHidden() and len(panel.plot.heads["q"]) == 2


def test_a_preset_draws_the_table_and_the_arrows_once(panel, state, monkeypatch):
    # Tokens, q, k, v and the selected query all change: one drawing of each, at the end.
    tables, arrows = [], []
    monkeypatch.setattr(panel.table.vectors, "set_data", lambda *a: tables.append(a))
    monkeypatch.setattr(panel.plot, "set_vectors", lambda *a: arrows.append(a))
    state.update(**preset_state_values(load_preset("banco-dinheiro")))
    assert len(tables) == 1 and len(arrows) == 1
    tokens, _q, _k, selected = arrows[0]
    assert list(tokens) == list(state.tokens) and selected == state.selected_query
    state.update(selected_query=0)  # the query alone: only the arrows
    assert len(tables) == 1 and len(arrows) == 2 and arrows[1][3] == 0


def test_the_arrow_labels_are_placed_when_the_plot_is_first_shown(qtbot, state):
    from attnviz.ui.widgets.vector_plot import VectorPlot

    plot = VectorPlot()
    qtbot.addWidget(plot)
    plot.resize(380, 250)
    plot.set_vectors(state.tokens, state.q, state.k, state.selected_query)
    assert plot._placed is None  # hidden: nothing placed for a size it does not have
    plot.show()
    qtbot.waitExposed(plot)
    plot.grab()
    rects = plot.label_rects()
    assert plot._placed is not None and rects
    view = plot.plot.getPlotItem().getViewBox().sceneBoundingRect()
    assert all(view.intersects(r) for r in rects.values())


def _table_share(panel) -> int:
    """The height _fit_table gives the q/k/v table for its rows now."""
    table, total = panel.table, sum(panel._vertical.sizes())
    rows = table.verticalHeader().defaultSectionSize() * (table.vectors.rowCount() + 1)
    extra = table.horizontalScrollBar().sizeHint().height() + 2 * table.frameWidth() + 4
    return min(rows + extra + panel.table_note.sizeHint().height(), total // 2)


def test_a_docked_table_fits_its_split_when_it_stacks(make_window, qtbot, panel):
    window = make_window(size=(1000, 800), front="editor")
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "editor"))
    docked = window.panels["editor"]
    qtbot.waitExposed(docked)
    model = docked.table.vectors
    model.set_stacked(not model.stacked)  # as a narrower (or wider) dock makes it
    assert docked._vertical.sizes()[0] == _table_share(docked)
    # A panel outside a dock (an export) keeps the split it was laid out with.
    before = panel._vertical.sizes()
    panel.table.vectors.set_stacked(not panel.table.vectors.stacked)
    assert panel._vertical.sizes() == before
