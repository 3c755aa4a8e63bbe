"""The steps panel shows the hand-worked example's numbers, live, read from its text."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.ui.panels.steps import MAX_KEYS, StepsPanel


@pytest.fixture
def panel(qtbot, workspace):
    p = StepsPanel(workspace)
    qtbot.addWidget(p)
    return p


def test_banco_shows_the_documents_four_steps(panel):
    assert panel.table.header_texts() == ["0: sentei", "1: banco", "2: praça"]
    assert panel.step_texts() == [
        ["1", "3", "4"],
        ["0.71", "2.12", "2.83"],
        ["0.07", "0.31", "0.62"],
    ]
    labels = panel.table.row_labels()
    assert labels[0].startswith("①") and labels[2].startswith("③")
    assert "√2 = 1.41" in labels[1]
    assert panel.mix.header_texts() == ["seat", "money"]
    assert panel.mix.texts() == [["0.85", "0.15"]]
    assert "seat" in panel.verdict.text() and "0.85" in panel.verdict.text()
    assert "[0.85, 0.15]" in panel.formula.text()
    assert panel.query.currentText() == "1: banco"
    assert panel.query_vector.text() == "q = [1, 2]"
    assert panel.tooltip_of(1, 0).startswith("0.7071067811")


def test_other_queries_match_the_documents_rows(panel, state):
    state.selected_query = 0
    assert panel.step_texts()[2] == ["0.45", "0.45", "0.11"]
    assert panel.mix.texts() == [["0.78", "0.22"]]
    state.selected_query = 2
    assert panel.step_texts()[2] == ["0.14", "0.28", "0.58"]
    assert panel.mix.texts() == [["0.86", "0.14"]]


def test_choosing_the_query_in_the_panel_writes_the_state(qtbot, panel, state):
    qtbot.keyClick(panel.query, Qt.Key.Key_Down)  # keyboard access: banco → praça
    assert state.selected_query == 2
    assert panel.step_texts()[0] == ["0", "1", "2"]


def test_experiment_flips_the_verdict(panel, state):
    preset = load_preset("banco").with_experiment("praca-money")
    state.update(**preset_state_values(preset))
    assert panel.step_texts()[2] == ["0.07", "0.31", "0.62"]  # weights unchanged
    assert panel.mix.texts() == [["0.23", "0.77"]]
    assert "money" in panel.verdict.text()


def test_masked_keys_are_shown_as_masked(panel, state):
    state.causal = True  # banco (query 1) may not see praça (key 2)
    texts = panel.step_texts()
    assert texts[1][2] == "−∞" and texts[2][2] == "0.00"
    assert "masked" in panel.tooltip_of(2, 2)
    assert panel.table.item(2, 2).font().italic()
    assert float(texts[2][0]) + float(texts[2][1]) == pytest.approx(1.0, abs=0.01)


def test_divisor_follows_scale_and_temperature(panel, state):
    state.scale = False
    assert panel.table.row_labels()[1].endswith("÷ 1")
    assert panel.step_texts()[1] == ["1", "3", "4"]
    state.update(scale=True, temperature=2.0)
    assert "√2 × T 2 = 2.83" in panel.table.row_labels()[1]


def test_long_sentence_shows_the_heaviest_keys_and_says_so(panel, state):
    state.update(tokens=tuple(f"t{i}" for i in range(MAX_KEYS + 10)))
    assert panel.table.columnCount() == MAX_KEYS
    assert not panel.note.isHidden() and str(MAX_KEYS + 10) in panel.note.text()


def test_unlabelled_values_name_the_largest_dimension(panel, state):
    state.update(value_labels=(), head="content", d_k=4)
    assert panel.mix.header_texts()[:2] == ["v1", "v2"]
    assert "Largest component" in panel.verdict.text()


def test_large_type_follows_a_change_of_the_application_font(qapp, panel):
    """The projector's large-font mode changes the application font while panels exist."""
    base = qapp.font()
    table_size = panel.table.font().pointSizeF()
    verdict_size = panel.verdict.font().pointSizeF()
    bigger = QFont(base)
    bigger.setPointSizeF(base.pointSizeF() * 1.5)
    qapp.setFont(bigger)
    try:
        qapp.processEvents()
        assert panel.table.font().pointSizeF() == pytest.approx(table_size * 1.5)
        assert panel.verdict.font().pointSizeF() == pytest.approx(verdict_size * 1.5)
        assert panel.verdict.font().bold()
        assert panel.step_texts()[2] == ["0.07", "0.31", "0.62"]
    finally:
        qapp.setFont(base)


def test_step_five_shows_the_gradient_reaching_the_query_while_the_gradient_panel_is_open(
    qtbot, make_window
):
    window = make_window(preset="backward-reference")
    steps = window.panels["steps"]
    assert steps.grad.isHidden()
    # Nothing has made the gradient's resolver yet (its module stays unimported): the steps
    # wait for the panel that makes it.
    assert window.workspace.existing_resolver("gradient") is None
    window.docks["gradient"].raise_()
    qtbot.waitUntil(lambda: not steps.grad.isHidden(), timeout=3000)
    # the chapter's reference run: dQ's first row [0.456 0.354 0.099 0.209]
    assert steps.grad.texts() == [["0.456", "0.354", "0.099", "0.209"]]
    window.state.selected_query = 2
    dq = window.workspace.resolver_for("gradient").results.chain.dq[2]
    shown = [float(t.replace("−", "-").replace(",", ".")) for t in steps.grad.texts()[0]]
    assert shown == pytest.approx(dq, abs=0.006)
    window.docks["heatmap"].raise_()
    qtbot.waitUntil(lambda: steps.grad.isHidden(), timeout=3000)


def test_score_terms_add_their_rows_and_the_sink_its_denominator(panel, state):
    import math

    state.update(softcap=1.2, alibi=0.25, sink=True, sink_logit=0.0)
    labels = panel.table.row_labels()
    assert labels[2].startswith("↳ capped 1.2·tanh") and "ALiBi" in labels[3]
    texts = panel.step_texts()
    # banco's scaled scores 0.71, 2.12, 2.83, capped: 1.2·tanh(s/1.2).
    capped = [1.2 * math.tanh(x / 2**0.5 / 1.2) for x in (1, 3, 4)]
    assert texts[2] == [f"{c:.2f}" for c in capped]
    assert texts[3] == [f"{c - 0.25 * abs(1 - j):.2f}" for j, c in enumerate(capped)]
    st = panel.resolver.results.steps
    assert panel.sink_line.isVisibleTo(panel)
    line = panel.sink_line.text()
    # Σ e^s over banco's row plus e^0, and the sink's share of it.
    assert "8.1031" in line and f"{st.sink_weight:.4f}" == "0.1234" and "0.1234" in line
    assert sum(st.weights) + st.sink_weight == pytest.approx(1.0)
    state.update(softcap=0.0, alibi=0.0, sink=False)
    assert len(panel.table.row_labels()) == 3 and not panel.sink_line.isVisibleTo(panel)


def test_temperature_tuning_adds_the_tuned_row_with_its_factor(panel, state):
    import math

    # banco's query 1 ("banco", i = 1): ⌊(1 + 1) / 2⌋ = 1, τ = 1 + 0.5·ln 2.
    state.update(selected_query=1, tuning=0.5, tuning_floor=2)
    tau = 1 + 0.5 * math.log(2)
    labels = panel.table.row_labels()
    assert labels[2] == f"↳ tuned × τ = {tau:.6g}" and len(labels) == 4
    assert panel.step_texts()[2] == [f"{x / 2**0.5 * tau:.2f}" for x in (1, 3, 4)]
    state.update(tuning=0.0)
    assert len(panel.table.row_labels()) == 3


def test_the_row_of_exponentials_and_the_naive_softmax(panel, state):
    state.update(steps_exp=True)
    labels = panel.table.row_labels()
    assert labels[2] == "e^sⱼ (Σ = 27.3)" and labels[3].startswith("③ weight")
    assert panel.step_texts()[2] == ["2.03", "8.34", "16.92"]
    assert panel.step_texts()[3] == ["0.07", "0.31", "0.62"]
    # Scores 16, 48 and 64 (T = 1/16, no divisor): float16 holds none of their e^s.
    state.update(scale=False, temperature=1 / 16, naive_softmax=True, softmax_dtype="float16")
    labels = panel.table.row_labels()
    assert labels[2] == "e^sⱼ in float16 (Σ = ∞)" and labels[3] == "③ e^sⱼ / Σ, no max"
    texts = panel.step_texts()
    assert texts[2] == ["∞"] * 3 and texts[3] == ["NaN"] * 3
    assert "overflowed" in panel.verdict.text() and panel.mix.texts() == [["NaN", "NaN"]]
    state.update(softmax_dtype="float32")  # e^64 fits in float32: finite weights again
    assert panel.step_texts()[2] == ["8.89 × 10⁶", "7.02 × 10²⁰", "6.24 × 10²⁷"]
    assert panel.step_texts()[3] == ["0.00", "0.00", "1.00"]
    assert "seat" in panel.verdict.text()
    state.update(steps_exp=False, naive_softmax=False)
    assert len(panel.table.row_labels()) == 3
