"""Issue 39 item 7, the sweep's settings: values a settings file may hold after a hand edit
or another version, read by the window's loaders of the recent sessions, the theme and the
language. Each is read without an error (@Point(1 2) as the recent sessions was a
TypeError at every window's start)."""

from __future__ import annotations

import pytest

from attnviz.model.document import Document

_INI_VALUES = [
    "1e300",
    "nan",
    "a, b, c",
    "x" * 100000,
    "@Invalid()",
    "@Point(1 2)",
    "@Rect(1 2 3 4)",
    "@Size(1 2)",
    "@ByteArray(\\0\\x1)",
    "true, false",
    "",
    "-1",
]


@pytest.mark.parametrize("value", _INI_VALUES)
@pytest.mark.parametrize(
    "key", ["sessions/recent", "view/theme", "view/large_fonts", "view/language"]
)
def test_any_stored_setting_is_read_without_an_error(qapp, tmp_path, key, value):
    """A settings file edited by hand (or by another version): the window's readers of the
    recent sessions, the theme and the language start the app whatever they find.
    (@Point(1 2) as the recent sessions was a TypeError in every window's start.)"""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMainWindow

    from attnviz.ui import language
    from attnviz.ui.sessions import SessionController
    from attnviz.ui.theme import MODES, ThemeManager
    from attnviz.ui.undo import UndoController

    section, _, name = key.partition("/")
    if key == "view/language":
        section, _, name = language.SETTING.partition("/")
    ini = tmp_path / "settings.ini"
    ini.write_text(f"[{section}]\n{name}={value}\n", encoding="utf-8")
    stored = QSettings(str(ini), QSettings.Format.IniFormat)
    assert language.saved_choice(stored) in language.CHOICES
    theme = ThemeManager(qapp, stored)
    assert theme.mode in MODES
    QSettings().setValue("sessions/recent", stored.value("sessions/recent"))
    try:
        window = QMainWindow()
        document = Document()
        controller = SessionController(window, document, UndoController(document, window))
        assert all(p.is_file() for p in controller.recent_files())
        window.deleteLater()
    finally:
        QSettings().remove("sessions/recent")
