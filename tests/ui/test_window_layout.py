"""The window on a hall's 1280×720 projector with Large Fonts, and on a large screen.

Measured on the window as ``attnviz export --window`` opens it (fresh settings, offscreen).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import QEvent, QPointF, QRect, Qt
from PySide6.QtGui import QFontInfo, QImage, QMouseEvent

from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace
from attnviz.ui.window_export import _settle, open_window


@pytest.fixture
def hall(qapp, tmp_path):
    """The window at 1280×720 with Large Fonts (the fonts back to normal afterwards)."""
    windows = []

    def make(preset: str | None = None, size=(1280, 720), large=True):
        ws = Workspace()
        if preset:
            ws.document.restore(document_preset_values(preset))
        w = open_window(ws, *size, large_fonts=large, folder=str(tmp_path))
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.themes.set_large_fonts(False)
        w.close()
        w.deleteLater()


def test_the_heatmap_keeps_most_of_the_height_with_legible_numbers(hall):
    w = hall()
    view = w.panels["heatmap"].view
    assert w.compact()
    assert view.plot.vb.height() >= 0.40 * w.height()
    cells = view._cell_texts
    assert all(c.isVisible() for c in cells)
    assert [c.toPlainText() for c in cells[3:6]] == ["0.07", "0.31", "0.62"]
    assert min(QFontInfo(c.textItem.font()).pixelSize() for c in cells) >= 16
    # The steps table beside it shows every key without scrolling.
    steps = w.panels["steps"]
    assert steps.table.horizontalScrollBar().maximum() == 0
    assert steps.table.shown_header_texts() == ["sentei", "banco", "praça"]


@pytest.mark.parametrize("preset, d", [("banco", 2), ("backward-reference", 4)])
def test_every_q_k_v_column_of_a_small_head_shows_without_scrolling(hall, preset, d):
    w = hall(preset)
    w.docks["editor"].raise_()
    _settle()
    table = w.panels["editor"].table
    assert table.horizontalScrollBar().maximum() == 0
    model = table.vectors
    shown = (
        {model.cell(0, c)[0] for c in range(model.columnCount())}
        if not model.stacked
        else set("qkv")
    )
    assert shown == set("qkv")
    columns = model.columnCount()
    assert columns == (d if model.stacked else 3 * d)
    header = table.horizontalHeader()
    assert header.sectionViewportPosition(columns - 1) + header.sectionSize(columns - 1) <= (
        table.viewport().width()
    )


def test_every_lesson_is_listed_without_scrolling(hall):
    from attnviz.model.lessons import shipped_lessons

    w = hall()
    w.docks["lessons"].raise_()
    _settle()
    lessons = w.panels["lessons"].list
    count = len(shipped_lessons())
    assert lessons.count() == count >= 13  # the documents' twelve and the prediction's
    assert lessons.verticalScrollBar().maximum() == 0
    room = lessons.viewport().rect()
    assert all(room.contains(lessons.visualItemRect(lessons.item(i))) for i in range(count))


def test_a_small_screen_opens_maximized_a_large_one_at_nine_tenths(hall):
    w = hall(large=False)
    w.fit_screen(QRect(0, 0, 1366, 768))
    assert w.opens_maximized and w.size().width() == 1366
    w.fit_screen(QRect(0, 0, 2560, 1440))
    assert not w.opens_maximized and (w.width(), w.height()) == (2304, 1296)


def test_a_large_resize_splits_the_docks_again_in_proportion(hall, qtbot):
    w = hall(size=(1920, 1080), large=False)
    assert not w.compact()  # a big screen: the views above the steps
    _settle()
    w._remember_split()
    share = w.docks["editor"].width() / w.width()
    height = w.docks["heatmap"].height() / w.height()
    assert height > 0.5
    for size in ((1400, 800), (1920, 1080)):
        w.resize(*size)
        _settle(0.5)
    assert w.docks["editor"].width() / w.width() == pytest.approx(share, abs=0.02)
    assert w.docks["heatmap"].height() / w.height() == pytest.approx(height, abs=0.03)
    # A separator the user drags sets the shares kept from then on.
    w.resizeDocks([w.docks["editor"], w.docks["heatmap"]], [800, 1120], Qt.Orientation.Horizontal)
    w.mouseReleaseEvent(
        QMouseEvent(
            QEvent.Type.MouseButtonRelease,
            QPointF(5, 5),
            QPointF(5, 5),
            Qt.MouseButton.LeftButton,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
    )
    _settle(0.5)
    dragged = w.docks["editor"].width() / w.width()
    assert dragged > share + 0.03
    for size in ((1300, 900), (1920, 1080)):
        w.resize(*size)
        _settle(0.5)
    assert w.docks["editor"].width() / w.width() == pytest.approx(dragged, abs=0.02)


def test_export_window_writes_the_window_at_the_screens_size(tmp_path):
    out = tmp_path / "window.png"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--window",
            "--preset",
            "banco",
            "--width",
            "1280",
            "--height",
            "720",
            "--large-fonts",
            "--lang",
            "pt_BR",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "1280×720, large fonts" in r.stdout and "pt_BR" in r.stdout
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720)
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--window",
            "--matrix",
            "weights",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "--window draws the whole window; drop --matrix" in bad.stderr


def _labels_clear(vb, labels, curves, *, log_x: bool, lines=(), log_y: bool = True) -> None:
    """No two labels overlap, and no sampled point of a curve (or of a straight line:
    ("h", y) or ("v", x) in view coordinates) falls inside a label."""
    import numpy as np
    from PySide6.QtCore import QPointF

    rects = [i.sceneBoundingRect() for i in labels if i.isVisible()]
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (labels[a], labels[b])
    (x0, x1), (y0, y1) = vb.viewRange()
    paths = []
    for curve in curves:
        x = np.asarray(curve.xData, float)
        y = np.asarray(curve.yData, float)
        keep = (
            np.isfinite(x)
            & np.isfinite(y)
            & (x > 0 if log_x else True)
            & (y > 0 if log_y else True)
        )
        x, y = x[keep], y[keep]
        x = np.log10(x) if log_x else x
        y = np.log10(y) if log_y else y  # log axes: the view is in log10
        t = np.linspace(x.min(), x.max(), 2000)
        paths.append((t, np.interp(t, x, y)))
    for kind, at in lines:
        t = np.linspace(x0, x1, 2000) if kind == "h" else np.linspace(y0, y1, 2000)
        paths.append((t, np.full_like(t, at)) if kind == "h" else (np.full_like(t, at), t))
    for xs, ys in paths:
        for px, py in zip(xs, ys, strict=True):
            point = vb.mapViewToScene(QPointF(px, py))
            assert not any(r.contains(point) for r in rects), (px, py)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_memory_charts_labels_cross_no_line_and_no_other_label(qtbot, size):
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import build_panel

    panel, _ = build_panel(Workspace(), "memory", ExportSpec(*size, "light", False, None, None))
    try:
        _settle(0.3)
        fig = panel.figure
        labels = [fig.score_text, fig.tile_text, fig.gpu_text]
        assert all(item.isVisible() and item.toPlainText() for item in labels)
        # The curves are named under the chart, in their colours.
        names = fig.curve_names.text()
        assert "S of one head, one layer: n²".replace(" ", "&nbsp;") in names
        assert fig.score_curve.opts["pen"].color().name() in names
        lines = [("h", fig.gpu_line.value()), ("v", fig.context_line.value())]
        _labels_clear(
            fig.plot.getViewBox(),
            labels,
            [fig.score_curve, fig.tile_curve],
            log_x=True,
            lines=lines,
        )
    finally:
        panel.close()
        panel.deleteLater()


@pytest.mark.parametrize(
    ("size", "length"),
    [((1280, 720), 256), ((1920, 1080), 256), ((1280, 720), 1000), ((1280, 720), 1024)]
    + [((960, 540), n) for n in (64, 100, 300, 600)],
)
def test_the_reach_charts_labels_cross_no_curve_and_no_other_label(qtbot, size, length):
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import build_panel

    workspace = Workspace()
    workspace.document["reach"].update(length=length)
    spec = ExportSpec(*size, "light", False, None, None)
    panel, _figure = build_panel(workspace, "reach", spec)
    try:
        qtbot.waitUntil(lambda: panel.curves["rnn"].xData is not None, timeout=10000)
        _settle(0.3)
        labels = [i for i in panel.reference_labels if i.isVisible()]
        assert len(labels) == (4 if length >= 256 else 2)
        vb = panel.plot.getViewBox()
        # Whole inside the plot (none cut at its left edge), and clear of the legend.
        area = vb.sceneBoundingRect()
        for item in labels:
            assert area.contains(item.sceneBoundingRect()), item.toPlainText()
        _labels_clear(vb, [*labels, panel.plot.legend], list(panel.curves.values()), log_x=False)
    finally:
        panel.close()
        panel.deleteLater()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_zipf_legend_covers_neither_the_law_nor_the_batch(qtbot, size):
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import build_panel

    panel, _ = build_panel(Workspace(), "embedding", ExportSpec(*size, "light", False, None, None))
    try:
        qtbot.waitUntil(lambda: panel.expected.xData is not None, timeout=10000)
        _settle(0.3)
        legend = panel.plot.legend
        assert legend.isVisible() and len(legend.items) == 2
        _labels_clear(
            panel.plot.getViewBox(), [legend], [panel.expected, panel.observed], log_x=True
        )
    finally:
        panel.close()
        panel.deleteLater()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_the_rope_legend_lies_above_the_relative_curves(qtbot, size):
    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import build_panel

    panel, _ = build_panel(Workspace(), "positions", ExportSpec(*size, "light", False, None, None))
    try:
        panel.tabs.setCurrentIndex(0)  # the relative-position tab
        qtbot.waitUntil(lambda: panel.relative_curves[0].xData is not None, timeout=10000)
        _settle(0.3)
        plot = panel.relative_plot
        legend = plot.legend
        assert legend.isVisible() and len(legend.items) == len(panel.relative_curves)
        _labels_clear(plot.getViewBox(), [legend], panel.relative_curves, log_x=False, log_y=False)
    finally:
        panel.close()
        panel.deleteLater()


def test_a_cramped_tab_says_so_and_offers_focus_on_panel(hall):
    w = hall()
    w.docks["gradient"].raise_()
    _settle()
    gradient = w.panels["gradient"]
    assert gradient.room_note.cramped() and gradient.room_note.isVisible()
    assert "needs more room" in gradient.room_note.text.text()
    steps = w.panels["steps"]  # fits its room: no note
    assert not steps.room_note.isVisible()
    gradient.room_note.button.click()
    _settle()
    assert w.focused_panel
    assert [pid for pid, d in w.docks.items() if d.isVisible()] == ["gradient"]
    assert not gradient.room_note.isVisible()
