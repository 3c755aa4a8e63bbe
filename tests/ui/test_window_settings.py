"""Window settings read defensively: whatever the settings file holds, the window opens.

A geometry or dock state of the wrong type, truncated or foreign bytes, a window larger
than the screen or a settings file of random bytes once raised a ``TypeError`` in the
layout restore on every start. Each case opens the window as at a first start instead;
a sound saved geometry still comes back (so the check cannot pass by ignoring it).
"""

from __future__ import annotations

import random

import pytest
from PySide6.QtCore import QByteArray, QRect, QSettings

from attnviz.ui.main_window import LAYOUT_VERSION, MainWindow


def _settings(path) -> QSettings:
    return QSettings(str(path), QSettings.Format.IniFormat)


@pytest.fixture
def first_start(qapp, tmp_path):
    """The geometry and saved bytes of a window on fresh settings (a first start)."""
    w = MainWindow(settings=_settings(tmp_path / "fresh.ini"))
    try:
        yield {
            "geometry": w.geometry(),
            "saved_geometry": bytes(w.saveGeometry()),
            "saved_state": bytes(w.saveState(LAYOUT_VERSION)),
        }
    finally:
        w.close()
        w.deleteLater()


def _open(path) -> MainWindow:
    return MainWindow(settings=_settings(path))


def _as_at_first_start(w: MainWindow, first: dict) -> None:
    assert not w.geometry_restored
    assert w.geometry() == first["geometry"]
    heatmap = w.docks["heatmap"]
    assert not heatmap.isFloating() and w.dockWidgetArea(heatmap) == w.dockWidgetArea(
        w.docks["positions"]
    )


WRONG_TYPES = {
    "a string": "garbage",
    "a number": 5,
    "a float": 1.5,
    "a bool": True,
    "a list": ["a", "b"],
    "a rectangle": QRect(1, 2, 3, 4),
    "empty bytes": QByteArray(),
}


@pytest.mark.parametrize("kind", sorted(WRONG_TYPES))
def test_a_geometry_and_state_of_the_wrong_type_open_the_first_layout(kind, first_start, tmp_path):
    s = _settings(tmp_path / "s.ini")
    s.setValue("window/geometry", WRONG_TYPES[kind])
    s.setValue("window/state", WRONG_TYPES[kind])
    s.sync()
    w = _open(tmp_path / "s.ini")
    try:
        _as_at_first_start(w, first_start)
    finally:
        w.close()


@pytest.mark.parametrize("keep", [4, 10, 30, 50])
def test_truncated_bytes_are_refused_not_read_as_zeros(keep, first_start, tmp_path):
    """Qt reads a truncated geometry as zeros and says it restored it: a 76 × 76 window."""
    s = _settings(tmp_path / "s.ini")
    s.setValue("window/geometry", QByteArray(first_start["saved_geometry"][:keep]))
    s.setValue("window/state", QByteArray(first_start["saved_state"][: keep * 3]))
    s.sync()
    w = _open(tmp_path / "s.ini")
    try:
        _as_at_first_start(w, first_start)
    finally:
        w.close()


def test_foreign_bytes_and_a_window_larger_than_the_screen_are_refused(first_start, tmp_path):
    rng = random.Random(39)
    s = _settings(tmp_path / "s.ini")
    s.setValue("window/geometry", QByteArray(bytes(rng.getrandbits(8) for _ in range(80))))
    s.setValue("window/state", QByteArray(bytes(rng.getrandbits(8) for _ in range(900))))
    s.sync()
    w = _open(tmp_path / "s.ini")
    try:
        _as_at_first_start(w, first_start)
        # Saved by a window far larger than this screen (another machine's 8K monitor).
        w.setGeometry(0, 0, 30000, 20000)
        huge = w.saveGeometry()
    finally:
        w.close()
    s = _settings(tmp_path / "huge.ini")
    s.setValue("window/geometry", huge)
    s.sync()
    w = _open(tmp_path / "huge.ini")
    try:
        available = w.screen().availableGeometry()
        assert w.width() <= available.width() and w.height() <= available.height()
    finally:
        w.close()


def test_a_settings_file_of_random_bytes_opens_the_window(first_start, tmp_path):
    rng = random.Random(7)
    path = tmp_path / "corrupt.ini"
    path.write_bytes(bytes(rng.getrandbits(8) for _ in range(4000)))
    w = _open(path)
    try:
        _as_at_first_start(w, first_start)
    finally:
        w.close()
    path.write_text(
        "[window]\ngeometry=@ByteArray(\\x1\\xd9\\xd0\\xcb\nstate=@Variant(\\0\\0\\0\\x7f)\n"
        "[view]\nlarge_fonts=@Variant(\\0\\0\\0\\t\\0\\0\\0\\x2)\ntheme=@Rect(1 2 3 4)\n"
    )
    w = _open(path)
    try:
        _as_at_first_start(w, first_start)
        assert not w.themes.large_fonts
    finally:
        w.close()


def test_a_sound_saved_geometry_and_layout_still_come_back(first_start, tmp_path):
    path = tmp_path / "s.ini"
    w = _open(path)
    try:
        w.setGeometry(20, 30, 700, 500)
        w.docks["memory"].raise_()
        w.save_layout()
    finally:
        w.close()
    w = _open(path)
    try:
        assert w.geometry_restored
        assert (w.width(), w.height()) == (700, 500)
    finally:
        w.close()
