"""The overview's progress bar asks for the room of its words: QProgressBar's own hint is
that of "100%", and with large fonts "Map ready in 0.24 s" was cut by its edges."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QProgressBar

from attnviz.ui.widgets.text_progress import TextProgressBar


def test_the_bar_holds_its_whole_text_at_any_font(qtbot):
    bar, plain = TextProgressBar(), QProgressBar()
    for widget in (bar, plain):
        qtbot.addWidget(widget)
        widget.setRange(0, 1000)
        widget.setValue(1000)
        widget.setTextVisible(True)
        widget.setFormat("Map ready in 0.24 s")
    for px in (12, 22, 30):
        font = QFont()
        font.setPixelSize(px)
        bar.setFont(font)
        plain.setFont(font)
        text = bar.fontMetrics().horizontalAdvance(bar.text())
        assert bar.sizeHint().width() > text and bar.minimumSizeHint().width() > text
    assert plain.sizeHint().width() < text  # Qt's own would cut it: the test can fail
    bar.setFormat("Computing the map… 7%")
    assert bar.sizeHint().width() > bar.fontMetrics().horizontalAdvance(bar.text())
