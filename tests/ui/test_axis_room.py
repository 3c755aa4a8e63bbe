"""Plot texts that never touch: tick labels thinned evenly, axis titles clear of the tick
labels, legends wrapped to the plot's room; on the slides that had them run together
(the sqrt-dk deck's d_k axis "4 16 64256", its legend cut to "with the √d_k")."""

from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QImage, QPainter
from PySide6.QtWidgets import QApplication

from attnviz.model.lessons import lesson_by_id
from attnviz.model.workspace import Workspace
from attnviz.ui import language
from attnviz.ui.panels import panel_ids
from attnviz.ui.slides import staged_step
from attnviz.ui.stage import STAGE_LARGE_FONTS
from attnviz.ui.theme import LIGHT
from attnviz.ui.widgets.axis_room import RoomyAxis, first_level, spaced_labels
from attnviz.ui.widgets.legend_fit import fit_legend, plain_text, wrap_words
from attnviz.ui.widgets.plot_style import ThemedPlot

FLAGS = Qt.AlignmentFlag.AlignCenter


def _spec(x: float, text: str, width: float, height: float = 16.0, vertical=False):
    rect = (
        QRectF(0, x - height / 2, width, height)
        if vertical
        else QRectF(x - width / 2, 0, width, height)
    )
    return rect, FLAGS, text


def tick_boxes(axis) -> list[tuple[QRectF, str]]:
    """Scene boxes of the tick labels ``axis`` draws (pyqtgraph's rectangles hold 0.8 of a
    label's height: grown back to the whole of it) with their texts."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    out = []
    for rect, _flags, text in specs[2] if specs else ():
        grow = rect.height() * 0.125
        out.append((axis.mapRectToScene(rect.adjusted(0, -grow, 0, grow)), text))
    return out


def test_the_first_level_keeps_every_kth_label_evenly():
    # d_k 1 … 1024 a log axis apart, labels ~28 px wide 40 px apart: every second keeps
    # 1, 16, 256 (the lesson's d_k), not an irregular pick.
    texts = ["1", "4", "16", "64", "256", "1024"]
    specs = [_spec(40.0 * i, t, 14.0 + 7 * len(t)) for i, t in enumerate(texts)]
    kept = [text for _r, _f, text in spaced_labels(specs, vertical=False)]
    assert kept == ["1", "16", "256"]
    roomy = [_spec(120.0 * i, t, 14.0 + 7 * len(t)) for i, t in enumerate(texts)]
    assert [t for _r, _f, t in spaced_labels(roomy, vertical=False)] == texts


def test_a_finer_level_fills_in_only_where_it_touches_nothing():
    major = [_spec(x, t, 20.0) for x, t in ((0, "0"), (200, "10"))]
    minor = [_spec(x, t, 20.0) for x, t in ((20, "1"), (100, "5"), (190, "9"))]
    kept = [t for _r, _f, t in spaced_labels(major + minor, vertical=False)]
    assert kept == ["0", "10", "5"]
    assert first_level([0, 200, 20, 100, 190]) == 2
    assert first_level([300, 200, 100, 250]) == 3  # a left axis: values up, y down
    assert spaced_labels([_spec(0, "", 0.0), _spec(5, "1", 8.0)], vertical=False) == [
        _spec(5, "1", 8.0)
    ]  # an empty label (a minor tick) is no label


def test_kept_labels_never_touch_on_either_axis():
    rng = np.random.default_rng(3)
    for vertical in (False, True):
        for _ in range(50):
            xs = np.sort(rng.uniform(0, 300, rng.integers(2, 14)))
            specs = [
                _spec(float(x), f"{x:.0f}", float(rng.uniform(8, 50)), vertical=vertical)
                for x in xs
            ]
            kept = spaced_labels(specs, vertical)
            assert kept, specs
            for (a, _f, _t), (b, _g, _u) in itertools.combinations(kept, 2):
                assert not a.intersects(b)


def _themed_plot(qtbot, px: int, size: tuple[int, int]) -> ThemedPlot:
    plot = ThemedPlot()
    qtbot.addWidget(plot)
    font = QFont()
    font.setPixelSize(px)
    plot.set_style(LIGHT, font)
    plot.resize(*size)
    plot.show()
    return plot


def test_a_themed_plot_keeps_its_axis_titles_clear_of_the_ticks(qtbot):
    plot = _themed_plot(qtbot, 30, (640, 420))
    plot.setLabel("left", "q_m · k_n")  # descenders face the tick labels
    plot.setLabel("bottom", "m − n (query position minus key position)")
    plot.plot(np.linspace(-64, 64, 50), np.linspace(80, 140, 50))
    for _ in range(3):  # pyqtgraph sizes its axes as it paints them
        plot.grab()
        QApplication.processEvents()
    item = plot.getPlotItem()
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        assert isinstance(axis, RoomyAxis)
        boxes = tick_boxes(axis)
        assert len(boxes) >= 3, side
        title = axis.label.mapRectToScene(axis.label.boundingRect())
        assert not [text for box, text in boxes if box.intersects(title)], side


def test_a_legend_wraps_to_its_plot_and_unwraps_when_wider(qtbot):
    plot = _themed_plot(qtbot, 30, (330, 420))
    for i, name in enumerate(("with the √d_k divisor", "without it")):
        plot.legend_entry(plot.plot([0, 1], [i, i + 1]), name)
    QApplication.processEvents()
    room = plot.getPlotItem().vb.boundingRect()
    legend = plot.legend
    assert legend.width() <= room.width() - 20 and legend.height() <= room.height() - 20
    texts = [label.text for _sample, label in legend.items]
    assert "<br>" in texts[0] and texts[1] == "without it"
    assert plain_text(texts[0]) == "with the √d_k divisor"  # every word still there
    plot.resize(1200, 420)
    QApplication.processEvents()
    assert [label.text for _s, label in legend.items] == ["with the √d_k divisor", "without it"]


def test_wrapping_breaks_between_words_only():
    from PySide6.QtGui import QFontMetricsF

    metrics = QFontMetricsF(QFont())
    width = max(map(metrics.horizontalAdvance, ("Zipf law:", "tokens ×", "p(rank)"))) + 1
    assert width < metrics.horizontalAdvance("Zipf law: tokens")
    assert wrap_words("Zipf law: tokens × p(rank)", width, metrics) == [
        "Zipf law:",
        "tokens ×",
        "p(rank)",
    ]
    assert wrap_words("unbreakable", 1.0, metrics) == ["unbreakable"]


def test_a_legend_too_tall_for_its_plot_shrinks_no_further_than_its_minimum(qtbot):
    plot = _themed_plot(qtbot, 30, (300, 90))
    for i in range(4):
        plot.legend_entry(plot.plot([0, 1], [i, i]), f"curve number {i}")
    room = plot.getPlotItem().vb.boundingRect()
    assert not fit_legend(plot.legend, room.width(), room.height(), 30)
    sizes = {label.opts["size"] for _s, label in plot.legend.items}
    assert sizes == {"21px"}  # 70 % of 30 px: smaller would not read from the back row


def test_a_legend_too_tall_for_its_plot_spills_beneath_it_with_the_left_title(qtbot):
    """A plot some 80 pixels tall (the RoPE chart at 1366×768, Large Fonts, beside a long
    sentence) had its legend cut and laid over its curves: with a label to spill into,
    the entries go there, in their curves' colours, with the left title; and come back."""
    from PySide6.QtWidgets import QLabel

    plot = _themed_plot(qtbot, 30, (300, 90))
    plot.setLabel("left", "q_m · k_n")
    spill = QLabel()
    qtbot.addWidget(spill)
    plot.legend_spill = spill
    for i in range(3):
        plot.legend_entry(plot.plot([0, 1], [i, i], pen=plot.pen(i)), f"key at n = {64 * i}")
    QApplication.processEvents()
    assert not plot.legend.isVisible() and spill.isVisibleTo(spill.parentWidget() or spill)
    text = spill.text()
    assert text.startswith("q_m · k_n:")
    assert [f"key&nbsp;at&nbsp;n&nbsp;=&nbsp;{64 * i}" in text for i in range(3)] == [True] * 3
    assert "#0072b2" in text.lower()  # the first curve's colour beside its entry
    assert not plot.getPlotItem().getAxis("left").label.isVisible()
    plot.resize(900, 700)
    QApplication.processEvents()
    assert plot.legend.isVisible() and spill.isHidden()
    assert plot.getPlotItem().getAxis("left").label.isVisible()
    assert len(plot.legend.items) == 3


#: Slides with plots, in both languages: the d_k axis and legend of the issue, the
#: embedding's log-log plot and legend, RoPE's score plot (its y title sat on "120"), the
#: reach plot's log axis and the KV-cache chart's byte and token axes.
PLOT_SLIDES = [
    ("sqrt-dk", 1, "saturation_plot"),
    ("embeddings", 0, "rank_plot"),
    ("positions", 6, None),
    ("reach", 0, None),
    ("kv-cache", 0, None),
    ("matrix", 6, "saturation_plot"),
]


@pytest.mark.parametrize("lang", ["en", "pt_BR"])
@pytest.mark.parametrize("lesson_id, index, name", PLOT_SLIDES)
def test_slide_plots_keep_their_texts_apart_and_whole(qtbot, lesson_id, index, name, lang):
    app = QApplication.instance()
    language.install_translations(app, lang)
    try:
        lesson = lesson_by_id(lesson_id, panel_ids())
        with staged_step(
            Workspace(), lesson, index, 1280, 720, font_scale=STAGE_LARGE_FONTS
        ) as stage:
            plots = [p for p in stage.findChildren(pg.PlotWidget) if p.isVisibleTo(stage)]
            if name is not None:
                assert name in {p.objectName() for p in plots}
            checked = 0
            for plot in plots:
                item = plot.getPlotItem()
                for side in ("left", "bottom"):
                    axis = item.getAxis(side)
                    if not axis.isVisible():
                        continue
                    boxes = tick_boxes(axis)
                    for (a, s), (b, t) in itertools.combinations(boxes, 2):
                        assert not a.intersects(b), f"{side} ticks {s!r} and {t!r} touch"
                    if axis.label.isVisible() and axis.labelText:
                        title = axis.label.mapRectToScene(axis.label.boundingRect())
                        assert not [t for box, t in boxes if box.intersects(title)], side
                    checked += len(boxes)
                legend = getattr(plot, "legend", None)
                if legend is not None and legend.isVisible() and legend.items:
                    room = item.vb.sceneBoundingRect()
                    assert room.contains(legend.sceneBoundingRect()), "legend cut"
            assert checked >= 4
            if lesson_id == "sqrt-dk":  # the lesson's d_k is among the thinned labels
                saturation = next(p for p in plots if p.objectName() == name)
                shown = [t for _b, t in tick_boxes(saturation.getPlotItem().getAxis("bottom"))]
                assert "256" in shown and len(shown) >= 4, shown
    finally:
        language.install_translations(app, "en")
