"""Issue 8, items 11–16: what a lecture hall needs, checked against exact numbers.

Weights at fixed levels, the "Scores" group (d_k, the divisor as a temperature, the scores'
spread), entropy on hover, numbers with a decimal comma in Portuguese, the second "banco"
sentence, the causal pass's training examples, padding by ranges, large fonts everywhere
and labels that do not overlap.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, QLocale, Qt, QTranslator
from PySide6.QtWidgets import QApplication, QPushButton, QStyle

from attnviz.core.attention import softmax
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.topics.attention import AttentionState
from attnviz.ui import language
from attnviz.ui.heatmap_look import auto_levels, view_levels
from attnviz.ui.panels.controls import ControlsPanel
from attnviz.ui.panels.heatmap import HeatmapPanel
from attnviz.ui.panels.steps import StepsPanel
from attnviz.ui.theme import theme_named
from attnviz.ui.widgets import numbers
from attnviz.ui.widgets.heatmap_view import ENTROPY_COL
from tests.ui.soak import Action, Soak, redo, resize, undo
from tests.ui.workspaces import workspace_of


def _preset(pid: str):
    """The workspace of preset ``pid``'s attention fields."""
    state = AttentionState()
    state.update(**preset_state_values(load_preset(pid)))
    return workspace_of(state)


@pytest.fixture
def controls(qtbot, workspace):
    panel = ControlsPanel(workspace)
    qtbot.addWidget(panel)
    panel.resize(520, 900)
    panel.show()
    return panel


@pytest.fixture
def heatmap(qtbot, workspace):
    panel = HeatmapPanel(workspace)
    qtbot.addWidget(panel)
    panel.apply_theme(theme_named("light"))
    panel.resize(700, 520)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


@pytest.fixture
def comma():
    """Numbers as a Portuguese reader writes them, for one test."""
    language.use_number_format("pt_BR")
    yield
    language.use_number_format("en")


# --- 11: weights are probabilities ---------------------------------------------------------
def test_a_has_levels_0_to_1_and_s_and_o_stay_automatic(heatmap, state, resolver):
    res = resolver.results
    weights = res.attention.weights
    assert view_levels(state, weights, res.mask) == (0.0, 1.0)
    assert heatmap.view._levels == (0.0, 1.0)
    assert weights.max() < 0.63  # banco: automatic levels would have stretched 0.62 to 1
    state.stretch_weights = True
    assert heatmap.view._levels == (weights.min(), weights.max())
    state.update(stretch_weights=False, matrix="scores")
    scores = res.attention.scores
    assert heatmap.view._levels == (scores.min(), scores.max())
    assert heatmap.view._levels == pytest.approx((0.0, 4 / 2**0.5), rel=1e-15)
    state.matrix = "output"
    out = resolver.results.attention.output
    assert heatmap.view._levels == auto_levels(out, None, False) == (out.min(), out.max())
    state.update(matrix="weights", levels_auto=False, levels=(0.2, 0.4))
    assert heatmap.view._levels == (0.2, 0.4)


def test_the_stretch_control_writes_the_state(controls, state):
    box = controls.stretch_weights
    assert not box.isChecked() and box.isEnabled()
    box.setChecked(True)
    assert state.stretch_weights is True
    state.levels_auto = False
    assert not box.isEnabled()  # fixed levels: nothing automatic to stretch


# --- 12: d_k, the divisor and the temperature together ---------------------------------------
def test_d_k_slider_stops_at_powers_of_two_and_the_box_takes_any_value(qtbot, controls, state):
    slider = controls.d_k
    assert controls.d_k.parentWidget() is controls.scale.parentWidget()  # one group
    assert controls.d_k.parentWidget().objectName() == "scores_group"
    assert [slider.to_value(p) for p in range(11)] == [2.0**p for p in range(11)]
    assert slider.slider.maximum() == 10 and slider.slider.pageStep() == 1
    slider.spin.setValue(48)
    qtbot.waitUntil(lambda: state.d_k == 48)
    assert slider.slider.value() == 6  # the nearest stop, 64; the value stays 48
    assert slider.value() == 48.0


def test_dragging_the_d_k_handle_lands_where_the_mouse_stops(qtbot, controls, state):
    from PySide6.QtCore import QEvent, QPoint, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QStyleOptionSlider

    written = []
    state.changed.connect(lambda names: "d_k" in names and written.append(state.d_k))
    s = controls.d_k.slider
    opt = QStyleOptionSlider()
    s.initStyleOption(opt)

    def centre(position: int) -> QPoint:
        opt.sliderPosition = position
        rect = s.style().subControlRect(
            QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, s
        )
        return rect.center()

    start, target = centre(1), centre(7)  # from d_k = 2 toward 128
    QTest.mousePress(s, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for x in range(start.x(), target.x() + 1, 2):
        pos = QPointF(x, start.y())
        move = QMouseEvent(
            QEvent.Type.MouseMove,
            pos,
            s.mapToGlobal(pos),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(s, move)
        qtbot.wait(1)
    QTest.mouseRelease(s, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)
    qtbot.waitUntil(lambda: state.d_k == 128)
    qtbot.wait(50)
    assert state.d_k == 128 and s.value() == 7
    assert written and all(d & (d - 1) == 0 for d in written) and max(written) == 128


@pytest.mark.parametrize(
    ("pid", "expected"),
    # The exact standard deviation of q·kᵀ over every pair, computed below from the arrays;
    # the values are pinned too, so a change of the content head shows up here.
    [("frase-longa", 10.3239), ("long-sentence", 13.6369)],
)
def test_the_spread_of_the_scores_without_the_divisor_at_d_k_128(qtbot, pid, expected):
    workspace = _preset(pid)
    state = workspace.state
    panel = ControlsPanel(workspace)
    qtbot.addWidget(panel)
    panel.show()
    state.update(d_k=128, scale=False)
    assert state.head == "content" and state.q.shape == (28, 128)
    raw = state.q @ state.k.T
    sigma = float(np.std(raw))
    assert panel.spread_value() == pytest.approx(sigma, rel=1e-12)
    assert sigma == pytest.approx(expected, abs=5e-5)
    # Of the order of √d_k = 11.3, the chapter's figure for unit-variance components.
    assert 0.9 < sigma / math.sqrt(128) < 1.25
    assert panel.spread.text().endswith(f"σ = {sigma:.2f}")
    assert "√d_k = 11.31" in panel.divisor_note.text()
    state.update(scale=True)  # the divisor divides the spread by √128 exactly
    assert panel.spread_value() == pytest.approx(sigma / math.sqrt(128), rel=1e-12)
    assert "÷ √d_k = 11.31 — a fixed temperature" in panel.divisor_note.text()
    state.temperature = 0.5  # no recompute of the spread: one factor
    assert panel.spread_value() == pytest.approx(2 * sigma / math.sqrt(128), rel=1e-12)
    assert "÷ 5.657 in all" in panel.divisor_note.text()


def test_the_spread_leaves_masked_pairs_out(controls, state, resolver):
    state.causal = True
    scores = resolver.results.attention.scores
    seen = scores[np.tril(np.ones((3, 3), bool))]
    assert controls.spread_value() == pytest.approx(float(np.std(seen)), rel=1e-12)


def test_each_rows_entropy_on_hover(qtbot, heatmap, state, resolver):
    weights = softmax(np.array([1.0, 3.0, 4.0]) / math.sqrt(2))  # banco's row
    entropy = float(-(weights * np.log(weights)).sum())
    assert entropy == pytest.approx(resolver.results.attention.entropy[1], rel=1e-12)
    seen = []
    heatmap.view.sigHover.connect(lambda r, c, v: seen.append((r, c, v)))
    heatmap.view.hover_cell(1, ENTROPY_COL)
    assert seen[-1] == (1, ENTROPY_COL, pytest.approx(entropy, rel=1e-12))
    text = heatmap.hover_text(1, ENTROPY_COL)
    assert "“banco”" in text and f"{entropy:.3f}" in text and f"{math.log(3):.3f}" in text
    assert heatmap.view.entropy_plot.toolTip() == text
    heatmap.view.hover_cell(1, 2)
    assert heatmap.view.image.toolTip().split("\n")[1] == text
    # A real mouse over the strip beside row 0.
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    vb = heatmap.view.entropy_plot.vb
    point = heatmap.view.mapFromScene(vb.mapViewToScene(QPointF(0.1, 0.5)))
    QTest.mouseMove(heatmap.view.viewport(), point)
    qtbot.waitUntil(lambda: seen[-1][:2] == (0, ENTROPY_COL))


# --- 14: Portuguese ------------------------------------------------------------------------
def test_numbers_with_a_decimal_comma(comma):
    assert numbers.fmt(0.85) == "0,85"
    assert numbers.fmt_vector([0.85, 0.15]) == "[0,85; 0,15]"
    assert numbers.fmt_vector([1, 2]) == "[1; 2]"
    assert numbers.fmt(-0.5) == "−0,50" and numbers.exact(0.1) == "0,1"
    assert QLocale().decimalPoint() == ","  # spin boxes show and read 0,5 too


def test_english_keeps_the_point():
    language.use_number_format("en")
    assert numbers.fmt_vector([0.85, 0.15]) == "[0.85, 0.15]"
    assert QLocale().decimalPoint() == "."


def test_the_steps_in_portuguese_numbers(qtbot, comma, workspace):
    panel = StepsPanel(workspace)
    qtbot.addWidget(panel)
    assert panel.step_texts()[1:] == [["0,71", "2,12", "2,83"], ["0,07", "0,31", "0,62"]]
    assert panel.mix.texts() == [["0,85", "0,15"]]
    assert panel.query_vector.text() == "q = [1; 2]"
    assert "[0,85; 0,15]" in panel.formula.text()


class _Portuguese(QTranslator):
    """The two value names, as the shipped catalogue translates them."""

    WORDS = {"seat": "assento", "money": "dinheiro"}

    def translate(self, context, source, disambiguation=None, n=-1):
        if context == "Preset":
            return self.WORDS.get(source)
        return None  # not translated here (an empty string would be a translation)


def test_value_labels_are_translated_where_they_are_shown(
    qtbot, workspace, state, resolver, tmp_path
):
    from attnviz.ui.export import write_csv
    from attnviz.ui.widgets.vector_table import VectorTable

    app = QCoreApplication.instance()
    translator = _Portuguese()
    app.installTranslator(translator)
    try:
        steps = StepsPanel(workspace)
        qtbot.addWidget(steps)
        assert steps.mix.header_texts() == ["assento", "dinheiro"]
        assert "assento" in steps.verdict.text()
        state.matrix = "output"
        heat = HeatmapPanel(workspace)
        qtbot.addWidget(heat)
        heat.resize(600, 400)
        heat.show()
        assert heat.view.tick_labels("bottom") == ["assento", "dinheiro"]
        table = VectorTable()
        qtbot.addWidget(table)
        table.vectors.set_data(state.tokens, state.q, state.k, state.v, state.value_labels)
        tip = table.vectors.headerData(5, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
        assert tip == "v2 · dinheiro"
        # The data stay data: the state and the CSV keep the preset's own words.
        assert state.value_labels == ("seat", "money")
        rows = write_csv(state, resolver.results, tmp_path / "o.csv", "output").read_text()
        assert rows.splitlines()[0].endswith("seat,money")
    finally:
        app.removeTranslator(translator)


def test_fui_ao_banco_sacar_dinheiro_reads_as_money(qtbot):
    workspace = _preset("banco-dinheiro")
    state, resolver = workspace.state, workspace.resolver
    banco = load_preset("banco")
    assert state.tokens == ("Fui", "ao", "banco", "sacar", "dinheiro")
    # The same query and key of "banco" as in "sentei no banco da praça"; only the context
    # (and so the keys and values around it) differs.
    np.testing.assert_array_equal(state.q[2], banco.q[1])
    np.testing.assert_array_equal(state.k[2], banco.k[1])
    st = resolver.results.steps
    assert st.query == 2 and st.token == "banco"
    np.testing.assert_array_equal(st.raw, [1, 0, 3, 4, 4])
    e = np.exp(np.array([1, 0, 3, 4, 4]) / math.sqrt(2))
    weights = e / e.sum()
    np.testing.assert_allclose(st.weights, weights, rtol=1e-12)
    np.testing.assert_allclose(
        st.weights, [0.0448619, 0.0221200, 0.1845284, 0.3742448, 0.3742448], atol=5e-8
    )
    assert st.weights[3] + st.weights[4] == pytest.approx(0.7484896, abs=1e-7)  # sacar, dinheiro
    seat = 0.5 * weights[:3].sum()
    np.testing.assert_allclose(st.output, [seat, 1 - seat], rtol=1e-12)
    np.testing.assert_allclose(st.output, [0.1257552, 0.8742448], atol=5e-8)
    panel = StepsPanel(workspace)
    qtbot.addWidget(panel)
    assert panel.mix.texts() == [["0.13", "0.87"]]
    assert panel.verdict.text() == "“banco” reads mostly as money (0.87)."


def test_a_portuguese_sentence_beside_the_english_one():
    pt, en = load_preset("frase-longa"), load_preset("long-sentence")
    assert len(pt.tokens) == len(en.tokens) == 28
    assert pt.tokens[pt.selected_query] == "banco" and "atenção" in pt.tokens
    assert pt.head == en.head == {"kind": "content", "seed": 0}


# --- 16: masks at any length ---------------------------------------------------------------
def test_gato_lists_its_four_next_token_examples(qtbot):
    workspace = _preset("gato")
    state = workspace.state
    panel = ControlsPanel(workspace)
    qtbot.addWidget(panel)
    assert panel.masks.example_lines() == [
        "o → gato",
        "o gato → subiu",
        "o gato subiu → no",
        "o gato subiu no → telhado",
    ]
    assert "4 next-token" in panel.masks.examples.text()
    state.causal = False  # without the causal mask a pass trains nothing of the kind
    assert panel.masks.example_lines() == []
    state.update(**preset_state_values(load_preset("banco")))
    state.causal = True
    assert panel.masks.example_lines() == []  # only where the preset asks for them


def test_padding_by_ranges_at_two_thousand_tokens(qtbot, controls, state):
    from attnviz.ui.widgets.mask_box import MAX_CHIPS

    state.update(tokens=tuple(f"t{i}" for i in range(2000)))
    box = controls.masks
    assert box.padding.isHidden() and box.padding.count() == 0  # no 2000 check boxes
    box.hide_from.setValue(100)
    box.hide_to.setValue(199)
    box.findChild(QPushButton, "padding_hide").click()
    valid = np.array(state.padding)
    assert (~valid).sum() == 100 and not valid[100:200].any() and valid[:100].all()
    assert box.hidden_summary.text() == "100 of 2000 keys hidden: 100–199"
    box.hide_from.setValue(150)
    box.hide_to.setValue(150)
    box.findChild(QPushButton, "padding_show").click()
    assert box.hidden_summary.text() == "99 of 2000 keys hidden: 100–149, 151–199"
    state.update(tokens=("a", "b", "c"))
    assert not box.padding.isHidden() and box.padding.count() == 3 <= MAX_CHIPS


# --- 13: large fonts reach every widget ------------------------------------------------------
def test_large_fonts_reach_check_boxes_and_dock_titles(qtbot, make_window):
    window = make_window(size=None, shown=False)
    style = QApplication.style()
    small = style.pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth)
    dock = window.docks["steps"]
    before = dock.font().pointSizeF()
    window.themes.set_large_fonts(True)
    try:
        big = QApplication.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth)
        assert big == round(small * 1.5)
        assert dock.font().pointSizeF() == pytest.approx(before * 1.5)
        assert dock.font().pointSizeF() == QApplication.font().pointSizeF()
        table = window.panels["editor"].table
        header = table.horizontalHeader()

        def whole() -> bool:  # no "v·seat·mone": every header fits its column
            return all(
                header.sectionSize(c) >= header.sectionSizeFromContents(c).width()
                for c in range(table.model().columnCount())
            )

        qtbot.waitUntil(whole)
        assert header.font().pointSizeF() == pytest.approx(before * 1.5)
    finally:
        window.themes.set_large_fonts(False)
    assert QApplication.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth) == small


@pytest.mark.parametrize("pid", ["banco", "banco-dinheiro", "blog-2d"])
def test_vector_plot_labels_do_not_overlap(qtbot, pid):
    from attnviz.ui.widgets.vector_plot import VectorPlot

    p = load_preset(pid)
    plot = VectorPlot()
    qtbot.addWidget(plot)
    plot.resize(380, 250)
    plot.show()
    qtbot.waitExposed(plot)
    plot.set_vectors(p.tokens, p.q, p.k, p.selected_query)
    plot.grab()  # a text item settles its transform when painted
    rects = {key: r.adjusted(0.5, 0.5, -0.5, -0.5) for key, r in plot.label_rects().items()}
    texts = " ".join(plot.heads[n][r].label().toPlainText() for n, r in rects)
    for token in p.tokens:  # every token is named once for q and once for k
        assert f"q·{token}" in texts or f", {token}" in texts
    keys = list(rects)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            assert not rects[a].intersects(rects[b]), (a, b)


# --- a short random soak of what changed here --------------------------------------------
def test_random_edits_hover_undo_resize_and_themes(make_window):
    from PySide6.QtCore import QPointF
    from PySide6.QtTest import QTest

    window = make_window(front="controls")
    state = window.state
    heat = window.panels["heatmap"]
    controls = window.panels["controls"]
    rng = random.Random(8)

    def random_padding() -> None:
        state.update(padding=tuple(rng.random() < 0.5 for _ in range(state.n)))

    actions = [
        Action("tokens", lambda: state.update(tokens=tuple(f"t{i}"
                                                           for i in range(rng.randint(1, 39))))),
        Action("d_k", lambda: state.update(d_k=2 ** rng.randint(0, 7))),
        Action("matrix", lambda: state.update(matrix=rng.choice(["scores", "weights", "output"]))),
        Action("head", lambda: state.update(head=rng.choice(["manual", "content", "previous"]))),
        Action("scale", lambda: state.update(scale=rng.random() < 0.5,
                                             temperature=rng.uniform(0.1, 5))),
        Action("causal", lambda: state.update(causal=rng.random() < 0.5,
                                              stretch_weights=rng.random() < 0.5)),
        Action("padding", random_padding),
        Action("preset", lambda: window.apply_preset(rng.choice(["banco", "banco-dinheiro",
                                                                 "gato"]))),
        Action("hide keys", lambda: controls.masks.findChild(QPushButton, "padding_hide").click()),
        undo(window),
        redo(window),
        resize(window, rng, widths=(900, 1399), heights=(600, 899)),
    ]  # fmt: skip

    def dark_and_large() -> None:  # a theme switch restyles every panel: once is enough here
        window.themes.set_mode("dark")
        window.themes.set_large_fonts(True)

    def after(step: int) -> None:
        rows, cols = heat.view._values.shape
        # The mouse rests on a cell or on the entropy strip while the data change shape.
        heat.view.hover_cell(rng.randrange(rows), rng.randrange(cols))
        if step % 5 == 0:
            heat.view.hover_cell(rng.randrange(rows), ENTROPY_COL)
        if step in (10, 25):  # a real mouse over the entropy strip, twice (each costs)
            vb = heat.view.entropy_plot.vb
            point = heat.view.mapFromScene(vb.mapViewToScene(QPointF(0.1, rows / 2)))
            QTest.mouseMove(heat.view.viewport(), point)
        if state.matrix == "weights" and not state.stretch_weights and not window.resolver.pending:
            assert heat.view._levels == (0.0, 1.0)

    # a refused value changes nothing (the driver counts it); the levels hold at every step
    Soak(rng, actions, at={20: Action("dark, large", dark_and_large)}, after=after,
         settle=None).run(40)  # fmt: skip
    window.themes.set_large_fonts(False)


def test_the_app_style_is_fusion_with_its_title_bar_icons_made_once(qapp):
    from PySide6.QtWidgets import QStyle, QStyleFactory

    from attnviz.ui.theme import AppStyle, ProjectorStyle

    fusion, style = QStyleFactory.create("Fusion"), AppStyle()
    assert style.objectName() == "fusion" and isinstance(ProjectorStyle(1.5), AppStyle)
    sp = QStyle.StandardPixmap
    for pixmap in (sp.SP_TitleBarCloseButton, sp.SP_TitleBarNormalButton, sp.SP_MediaPlay):
        icon = style.standardIcon(pixmap)
        for size in (10, 16, 32):
            assert icon.pixmap(size).toImage() == fusion.standardIcon(pixmap).pixmap(size).toImage()
    first = style.standardIcon(sp.SP_TitleBarCloseButton)
    assert style.standardIcon(sp.SP_TitleBarCloseButton).cacheKey() == first.cacheKey()
    # Every other icon is Fusion's own, asked for each time.
    assert style.standardIcon(sp.SP_MediaPlay).cacheKey() != (
        style.standardIcon(sp.SP_MediaPlay).cacheKey()
    )
