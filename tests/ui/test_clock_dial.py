"""The RoPE clock dial: its angles, the subset of pairs, painting, tooltips and keys."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QFont, QHelpEvent, QImage
from PySide6.QtWidgets import QApplication, QToolTip

from attnviz.core.rope import rope_frequencies, wavelengths
from attnviz.ui.theme import DARK, LIGHT, Theme
from attnviz.ui.widgets.clock_dial import MAX_PAIRS, ClockDial, format_wavelength

LLAMA31 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


@pytest.fixture
def dial(qtbot):
    widget = ClockDial()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    return widget


def _colors(image: QImage) -> np.ndarray:
    """Every pixel as one uint32 (0xAARRGGBB)."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = raw.reshape(image.height(), image.bytesPerLine())[:, : image.width() * 4]
    return rows.copy().view(np.uint32).reshape(image.height(), image.width())


def test_hand_angles_for_a_known_theta(dial):
    dial.set_frequencies([1.0, 0.1])
    dial.set_positions(3, 1)
    query, key = dial.hand_angles()
    np.testing.assert_allclose(query, [3.0 % (2 * math.pi), 0.3], rtol=0, atol=1e-15)
    np.testing.assert_allclose(key, [1.0, 0.1], rtol=0, atol=1e-15)
    # the shaded arc is (m − n)·θ, the shorter way round
    np.testing.assert_allclose(dial.relative_angles(), [2.0, 0.2], atol=1e-15)
    dial.set_positions(10, 0)  # 10 rad is 1.59 turns: wraps
    query, key = dial.hand_angles()
    assert query[0] == pytest.approx(10 - 2 * math.pi, abs=1e-14)
    assert dial.relative_angles()[0] == pytest.approx(10 - 4 * math.pi, abs=1e-14)
    assert np.all(key == 0)
    dial.set_positions(0, 3)  # key after query: counterclockwise
    np.testing.assert_allclose(dial.relative_angles(), [-3.0, -0.3], atol=1e-15)
    np.testing.assert_allclose(dial.hand_angles()[1], [3.0, 0.3], atol=1e-15)


def test_all_pairs_shown_up_to_the_maximum(dial):
    dial.set_frequencies(rope_frequencies(128, 500000.0, LLAMA31))
    np.testing.assert_array_equal(dial.pairs_shown(), np.arange(64))
    assert len(dial.hand_angles()[0]) == 64


def test_a_subset_evenly_spaced_with_128_pairs(dial):
    dial.set_frequencies(rope_frequencies(256, 500000.0))
    shown = dial.pairs_shown()
    assert len(shown) == MAX_PAIRS == 64
    assert shown[0] == 0 and shown[-1] == 127  # the fastest and the slowest pair
    assert np.all(np.diff(shown) >= 2) and np.all(np.diff(shown) <= 3)
    assert len(dial.hand_angles()[0]) == 128  # the model keeps every pair
    dial.set_max_pairs(8)
    np.testing.assert_array_equal(dial.pairs_shown(), [0, 18, 36, 54, 73, 91, 109, 127])
    with pytest.raises(ValueError):
        dial.set_max_pairs(0)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_it_paints_in_both_themes(dial, theme):
    dial.set_theme(theme)
    dial.set_frequencies(rope_frequencies(8, 10000.0))
    dial.set_positions(5, 2)
    pixels = _colors(dial.grab().toImage())
    background = QColor(theme.background).rgba()
    assert pixels[0, 0] == background  # the theme's background, not the palette's
    assert np.count_nonzero(pixels != background) > 0.1 * pixels.size
    assert len(np.unique(pixels)) >= 50  # faces, hands, arcs, text, antialiasing
    # the query and key colours are drawn as such
    for name in ("highlight", "entropy"):
        assert np.any(pixels == QColor(getattr(theme, name)).rgba()), name


def test_more_pairs_paint_more_clocks(dial):
    dial.set_frequencies(rope_frequencies(128, 500000.0, LLAMA31))
    dial.set_positions(5, 2)
    pixels = _colors(dial.grab().toImage())
    assert len(np.unique(pixels)) >= 64


def test_a_theme_without_colours_falls_back_to_the_palette(dial):
    dial.set_frequencies([1.0, 0.1])
    dial.set_theme(None)
    pixels = _colors(dial.grab().toImage())
    assert pixels[0, 0] == dial.palette().color(dial.backgroundRole()).rgba()

    class Partial:  # a theme object that knows only two colours
        background = "#102030"
        highlight = ""

    dial.set_theme(Partial())
    pixels = _colors(dial.grab().toImage())
    assert pixels[0, 0] == QColor("#102030").rgba()


def test_the_theme_may_name_query_and_key_colours(dial):
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Clock(Theme):
        query: str = "#00aa00"
        key: str = "#aa00aa"

    dial.set_theme(Clock(**{f: getattr(LIGHT, f) for f in LIGHT.__dataclass_fields__}))
    dial.set_frequencies([1.0, 0.1])
    dial.set_positions(5, 2)
    pixels = _colors(dial.grab().toImage())
    assert np.any(pixels == QColor("#00aa00").rgba()) and np.any(pixels == QColor("#aa00aa").rgba())


def test_tooltip_names_the_pair_theta_wavelength_and_angles(dial, qtbot):
    f = rope_frequencies(8, 10000.0)
    dial.set_frequencies(f)
    dial.set_positions(5, 2)
    text = dial.tooltip_text(1)
    assert "Pair 1 of 4" in text
    assert repr(float(f[1])) in text  # θ exactly
    assert "62.8" in text  # 2π/0.1 tokens
    assert f"{math.degrees(5 * f[1]):.2f}°" in text
    assert f"{math.degrees(2 * f[1]):.2f}°" in text
    assert f"{math.degrees(3 * f[1]):.2f}°" in text


def test_hover_finds_the_clock_under_the_mouse(dial, qtbot):
    dial.set_frequencies(rope_frequencies(8, 10000.0))
    dial.show()
    qtbot.waitExposed(dial)
    centers = dial.clock_centers()
    assert len(centers) == 4
    for pair, center in enumerate(centers):
        assert dial.pair_at(center) == pair
    assert dial.pair_at(QPointF(1, dial.height() - 1)) == -1
    # Qt's tooltip event shows the text of the clock under the mouse
    pos = centers[2].toPoint()
    QApplication.sendEvent(dial, QHelpEvent(QEvent.Type.ToolTip, pos, dial.mapToGlobal(pos)))
    assert QToolTip.isVisible() and QToolTip.text() == dial.tooltip_text(2)
    QToolTip.hideText()
    # with 128 pairs shown as a subset, the hovered clock is the pair it draws
    dial.set_frequencies(rope_frequencies(256, 10000.0))
    centers = dial.clock_centers()
    assert dial.pair_at(centers[5]) == dial.pairs_shown()[5] == 10


def test_wavelength_labels():
    assert [format_wavelength(x) for x in (6.283, 62.83, 628.3, 999.96, 1234, 12_345)] == [
        "6.3", "62.8", "628", "1.0k", "1.2k", "12k",
    ]  # fmt: skip
    assert format_wavelength(3.1e6) == "3.1M" and format_wavelength(2.01e7) == "20M"
    assert format_wavelength(float("inf")) == "∞"
    labels = [format_wavelength(x) for x in wavelengths(rope_frequencies(128, 500000.0))]
    assert max(len(t) for t in labels) <= 4


@pytest.mark.parametrize("size", [(0, 0), (1, 1), (5, 300), (300, 5), (40, 30), (90, 60)])
def test_tiny_sizes_do_not_raise(dial, size):
    dial.set_frequencies(rope_frequencies(128, 500000.0, LLAMA31))
    dial.set_positions(100, 3)
    dial.resize(*size)
    dial.grab()
    dial.pair_at(QPointF(1, 1))


def test_empty_and_bad_input(dial):
    dial.grab()  # no frequencies yet: a message, no error
    assert dial.pairs_shown().size == 0 and dial.hand_angles()[0].size == 0
    with pytest.raises(ValueError):
        dial.set_frequencies([1.0, -0.1])
    with pytest.raises(ValueError):
        dial.set_frequencies([[1.0, 0.1]])
    with pytest.raises(ValueError):
        dial.set_frequencies([1.0, float("nan")])
    with pytest.raises(ValueError):
        dial.set_positions(float("inf"), 0)


def test_size_hints(dial):
    dial.set_frequencies(rope_frequencies(128, 500000.0))
    assert dial.hasHeightForWidth()
    hint = dial.sizeHint()
    assert 200 < hint.width() < 1200 and 200 < hint.height() < 1200
    assert dial.heightForWidth(400) > dial.heightForWidth(1200) > 0
    few = ClockDial()
    few.set_frequencies([1.0, 0.1])
    assert few.sizeHint().width() < hint.width()
    few.deleteLater()


def test_a_larger_font_keeps_working(dial):
    font = QFont(dial.font())
    font.setPixelSize(30)
    dial.set_font(font)
    dial.set_frequencies(rope_frequencies(128, 500000.0))
    dial.grab()
    dial.set_font(None)


def test_arrow_keys_step_the_position(dial, qtbot):
    assert dial.focusPolicy() == Qt.FocusPolicy.StrongFocus
    dial.set_frequencies([1.0, 0.1])
    steps = []
    dial.sigStep.connect(steps.append)
    for key in (Qt.Key.Key_Right, Qt.Key.Key_Left, Qt.Key.Key_Up, Qt.Key.Key_Down):
        qtbot.keyClick(dial, key)
    assert steps == [1, -1, 1, -1]
    with qtbot.assertNotEmitted(dial.sigStep):
        qtbot.keyClick(dial, Qt.Key.Key_A)
