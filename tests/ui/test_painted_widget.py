"""The painted widgets' base: background, render hints, the skip hook, and the painter ended."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from PySide6.QtWidgets import QWidget

from attnviz.ui.theme import DARK, LIGHT
from attnviz.ui.widgets.bars import BarChart
from attnviz.ui.widgets.clock_dial import ClockDial
from attnviz.ui.widgets.embedding_strip import EmbeddingStrip
from attnviz.ui.widgets.gauge import MemoryGauge
from attnviz.ui.widgets.head_blocks import BlocksView
from attnviz.ui.widgets.head_grid import HeadGrid
from attnviz.ui.widgets.layer_grid import LayerGrid
from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.tile_grid import AlignedMatrices, MemoryBars

MARK = QColor("#123456")


class Probe(PaintedWidget):
    """Records what its painter looked like; paints a mark or raises."""

    def __init__(self, background=Background.NONE, hints=(), content=True, fail=False) -> None:
        super().__init__()
        self.background = background
        self.render_hints = hints
        self.content = content
        self.fail = fail
        self.seen: list[QPainter] = []
        self.hints_seen = None
        self.resize(40, 30)

    def _has_content(self) -> bool:
        return self.content

    def _paint(self, painter: QPainter) -> None:
        self.seen.append(painter)
        self.hints_seen = painter.renderHints()
        assert painter.isActive()
        if self.fail:
            raise RuntimeError("boom")
        painter.fillRect(0, 0, 4, 4, MARK)


def _render(widget) -> QImage:
    image = QImage(widget.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    # the widget's own painting only, not the window background Qt draws under a window
    widget.render(image, QPoint(), QRegion(), QWidget.RenderFlag.DrawChildren)
    return image


def test_painter_is_ended_when_paint_raises(qtbot):
    probe = Probe(fail=True)
    qtbot.addWidget(probe)
    with pytest.raises(RuntimeError, match="boom"):  # PySide6 passes it on through render()
        _render(probe)
    assert len(probe.seen) == 1 and not probe.seen[0].isActive()
    probe.fail = False
    assert _render(probe).pixelColor(1, 1) == MARK  # the widget paints again afterwards


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_theme_background_is_filled_first(qtbot, theme):
    probe = Probe(background=Background.THEME)
    qtbot.addWidget(probe)
    probe.set_theme(theme)
    assert probe.theme is theme
    image = _render(probe)
    assert image.pixelColor(1, 1) == MARK
    assert image.pixelColor(30, 20) == QColor(theme.background)


def test_no_background_leaves_the_parent_showing(qtbot):
    probe = Probe(background=Background.NONE)
    qtbot.addWidget(probe)
    probe.setAutoFillBackground(False)
    assert _render(probe).pixelColor(30, 20).alpha() == 0


@pytest.mark.parametrize("fills", [True, False])
def test_exported_background_follows_the_window(qtbot, fills):
    probe = Probe(background=Background.EXPORTED)
    qtbot.addWidget(probe)
    probe.setAutoFillBackground(fills)  # its own window: an export sets this, or not
    probe.set_theme(DARK)
    pixel = _render(probe).pixelColor(30, 20)
    assert (pixel == QColor(DARK.background)) is fills


def test_render_hints_are_set(qtbot):
    hints = (QPainter.RenderHint.Antialiasing, QPainter.RenderHint.TextAntialiasing)
    probe = Probe(hints=hints)
    qtbot.addWidget(probe)
    _render(probe)
    for hint in hints:
        assert probe.hints_seen & hint


def test_no_content_paints_nothing(qtbot):
    probe = Probe(background=Background.THEME, content=False)
    qtbot.addWidget(probe)
    image = _render(probe)
    assert probe.seen == []
    assert image.pixelColor(30, 20) != QColor(LIGHT.background)


@pytest.mark.parametrize(
    "cls",
    [
        BarChart,
        ClockDial,
        EmbeddingStrip,
        MemoryGauge,
        BlocksView,
        HeadGrid,
        LayerGrid,
        MatrixView,
        AlignedMatrices,
        MemoryBars,
    ],
)
def test_widgets_share_the_base(qtbot, cls):
    widget = cls()
    qtbot.addWidget(widget)
    assert isinstance(widget, PaintedWidget)
    assert "paintEvent" not in vars(cls)  # the scaffolding lives in the base only
    widget.set_theme(DARK)
    assert widget.theme is DARK
    widget.resize(200, 120)
    _render(widget)  # paints empty without error
