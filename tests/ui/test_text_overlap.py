"""The text check itself, on widgets built to overlap, clip and run together.

Each case is built twice where it can be: broken (the check must name it) and mended (the
check must say nothing), so that neither a blind nor a trigger-happy check passes.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QTabBar,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from attnviz.ui.text_items import text_items
from attnviz.ui.text_overlap import check_texts, report
from attnviz.ui.widgets.painted import PaintedWidget
from attnviz.ui.window_export import _settle


@pytest.fixture
def board(qtbot):
    """A plain 600×400 widget, shown offscreen, to place children on by hand."""
    w = QWidget()
    w.resize(600, 400)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _label(parent, text: str, x: int, y: int, w: int = 200, h: int = 30) -> QLabel:
    label = QLabel(text, parent)
    label.setGeometry(x, y, w, h)
    label.show()
    return label


def _kinds(root) -> list[str]:
    return [f.kind for f in check_texts(root)]


def test_two_labels_whose_texts_overlap_are_named_and_apart_they_are_not(board):
    a = _label(board, "softmax of the scores", 10, 10)
    _label(board, "34.36 GB", 60, 15)
    findings = check_texts(board)
    assert [f.kind for f in findings] == ["overlap"]
    line = report(findings)
    assert "softmax of the scores" in line and "34.36 GB" in line and "\n" not in line
    a.move(10, 100)
    assert check_texts(board) == []


def test_the_box_is_the_texts_not_the_labels(board):
    """A wide label with a short text leaves the rest of its box free (plain and rich)."""
    wide = _label(board, "n²", 10, 10, w=400)
    rich = _label(board, "<b>S</b> of one head", 10, 60, w=400)
    _label(board, "GPU 80 GB", 120, 10)
    _label(board, "O(n)", 250, 60)
    assert check_texts(board) == []
    (n2,) = [i for i in text_items(board) if i.text == "n²"]
    assert n2.box.width() < 40 <= wide.width()
    (s,) = [i for i in text_items(board) if i.text == "S of one head"]
    assert s.box.width() < 200 <= rich.width()


def test_texts_running_together_on_one_line_count_as_overlapping(board):
    """ "64256" for the ticks 64 and 256: boxes that touch on one line."""
    a = _label(board, "64", 10, 10, w=40)
    first = next(i for i in text_items(board) if i.text == "64")
    _label(board, "256", int(first.box.right()), 10, w=60)
    assert _kinds(board) == ["overlap"]
    a.move(0, 60)  # one above the other, touching only at an edge: two lines
    assert _kinds(board) == []


def test_a_label_narrower_than_its_text_or_outside_its_parent_is_cut(board):
    short = _label(board, "the summary line of the KV cache", 10, 10, w=60)
    findings = check_texts(board)
    assert [(f.kind, f.note) for f in findings] == [("cut", "clipped")]
    short.resize(400, 30)
    assert check_texts(board) == []
    inner = QWidget(board)
    inner.setGeometry(0, 100, 100, 40)
    inner.show()
    _label(inner, "half of me is outside", 50, 0, w=300)
    assert _kinds(board) == ["cut"]
    inner.resize(400, 40)
    assert _kinds(board) == []


def test_a_wrapped_label_too_short_for_its_lines_is_cut(board):
    label = _label(board, "one two three four five six seven eight nine ten", 10, 10, w=80)
    label.setWordWrap(True)
    assert _kinds(board) == ["cut"]
    label.resize(80, label.heightForWidth(80))
    assert _kinds(board) == []


def test_a_combo_box_and_a_tab_that_cut_their_text_are_named(board):
    combo = QComboBox(board)
    combo.addItem("Causal mask: one sentence, four next-token examples")
    combo.setGeometry(10, 10, 90, 30)
    combo.show()
    assert [f.kind for f in check_texts(board)] == ["cut"]
    assert "Causal mask" in report(check_texts(board))
    combo.resize(560, 30)
    assert check_texts(board) == []
    bar = QTabBar(board)
    bar.setUsesScrollButtons(True)
    bar.setElideMode(Qt.TextElideMode.ElideNone)
    for text in ("Attention matrix", "Positions (RoPE)", "Gradient", "KV-cache memory"):
        bar.addTab(text)
    bar.setGeometry(10, 100, 330, 40)
    bar.show()
    _settle(0.05)
    cut = [f for f in check_texts(board) if f.kind == "cut"]
    assert cut and all("tab" in str(f) for f in cut)
    bar.resize(590, 40)
    _settle(0.05)
    assert check_texts(board) == []


def _table(parent, texts: list[str], width: int) -> QTableWidget:
    table = QTableWidget(1, len(texts), parent)
    table.setObjectName("steps_table")
    for c, text in enumerate(texts):
        table.setItem(0, c, QTableWidgetItem(text))
        table.setColumnWidth(c, 80)
    table.setGeometry(10, 10, width, 90)
    table.show()
    return table


def test_a_table_names_its_cells_out_of_view_and_those_elided(board):
    # (A text with a space would wrap onto two lines in the row, as Qt draws it: whole.)
    table = _table(board, ["0.419", "0.326", "0.254", "0.906123456789"], 180)
    findings = check_texts(board)
    assert [f.kind for f in findings] == ["cut"]
    assert "0.254" in str(findings[0]) and "0.906123456789" in str(findings[0])
    # Meant to scroll: cells out of view are fine, an elided one is not.
    findings = check_texts(board, scrolls={"steps_table"})
    assert [i.text for f in findings for i in f.items] == ["0.906123456789"]
    assert findings[0].items[0].cut == "elided"
    table.setColumnWidth(3, 160)
    table.resize(500, 90)
    assert check_texts(board) == []


def test_a_list_that_wraps_its_titles_is_whole_when_its_rows_hold_their_lines(board):
    # The lessons list wraps a long Portuguese title onto two lines: whole, not elided,
    # while its row is two lines tall; elided when the row holds one line only.
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QListWidget, QListWidgetItem

    title = "Como a atenção funciona de verdade: o passo a passo do blog"
    view = QListWidget(board)
    view.setWordWrap(True)
    view.setGeometry(10, 10, 260, 200)
    item = QListWidgetItem(title)
    view.addItem(item)
    view.show()
    line = view.fontMetrics().height()
    item.setSizeHint(QSize(240, 3 * line + 4))
    _settle(0.05)
    assert check_texts(board) == []
    item.setSizeHint(QSize(240, line + 2))
    view.doItemsLayout()
    _settle(0.05)
    findings = check_texts(board)
    assert [i.cut for f in findings for i in f.items] == ["elided"]


class _Painted(PaintedWidget):
    """Paints two texts at the places it is given."""

    def __init__(self, parent, second) -> None:
        super().__init__(parent)
        self.second = second

    def _paint(self, painter) -> None:
        painter.drawText(10, 30, "fits up to 117,000 tokens")
        painter.drawText(QRectF(*self.second, 200, 30), Qt.AlignmentFlag.AlignLeft, "KV 16 GiB")


def test_a_painted_view_is_read_as_it_paints(board):
    view = _Painted(board, (60, 12))
    view.setGeometry(0, 0, 400, 200)
    view.show()
    assert _kinds(board) == ["overlap"]
    view.second = (10, 60)
    assert _kinds(board) == []
    view.second = (350, 60)  # its end beyond the view's edge
    assert _kinds(board) == ["cut"]


@pytest.fixture
def plot(board):
    p = pg.PlotWidget(board)
    p.setGeometry(0, 0, 600, 400)
    p.show()
    p.setXRange(0, 10, padding=0)
    p.setYRange(0, 10, padding=0)
    # pyqtgraph centres its top tick label on the plot's top edge: half of "10" would be
    # cut (a finding of its own, not the one these tests are about).
    p.getAxis("left").setStyle(showValues=False)
    return p


def _text(plot, text: str, x: float, y: float) -> pg.TextItem:
    item = pg.TextItem(text, anchor=(0, 0))
    plot.addItem(item)
    item.setPos(x, y)
    return item


def test_plot_texts_over_each_other_and_under_a_curve_are_named(plot, board):
    a = _text(plot, "kernel em blocos (FlashAttention)", 1, 8)
    _text(plot, "34,36 GB", 3, 8)
    _settle(0.05)
    assert _kinds(board) == ["overlap"]
    a.setPos(1, 4)
    _settle(0.05)
    assert _kinds(board) == []
    line = plot.plot(np.array([0.0, 10.0]), np.array([0.0, 10.0]))
    _settle(0.05)
    # The diagonal runs through "kernel…" (x from 1, y from 4 down), not "34,36 GB" (y 8).
    findings = check_texts(board)
    assert [f.kind for f in findings] == ["curve"]
    assert findings[0].items[0].text == "kernel em blocos (FlashAttention)"
    line.setData(np.array([0.0, 10.0]), np.array([9.5, 9.5]))
    _settle(0.05)
    assert _kinds(board) == []
    # A marker line counts as a curve too.
    plot.addItem(pg.InfiniteLine(pos=2, angle=90))
    _settle(0.05)
    assert _kinds(board) == ["curve"]


def test_tick_labels_that_run_together_are_named(plot, board):
    axis = plot.getAxis("bottom")
    axis.setTicks([[(4.0, "4"), (4.3, "16"), (4.6, "64"), (4.9, "256")]])
    _settle(0.05)
    findings = check_texts(board)
    assert findings and {f.kind for f in findings} == {"overlap"}
    assert all("tick" in str(f) for f in findings)
    axis.setTicks([[(1.0, "4"), (4.0, "16"), (7.0, "64"), (9.5, "256")]])
    _settle(0.05)
    assert check_texts(board) == []


def test_a_visible_room_note_is_a_finding(board):
    panel = QWidget(board)
    panel.setObjectName("panel_steps")
    panel.setGeometry(0, 0, 300, 100)
    note = _label(panel, "This panel needs more room than it has here.", 0, 0, w=300)
    note.setObjectName("room_note")
    panel.show()
    findings = check_texts(board)
    assert [f.kind for f in findings] == ["room"]
    assert "panel_steps" in str(findings[0])
    note.hide()
    assert check_texts(board) == []
