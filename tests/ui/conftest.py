"""Shared fixtures for the UI tests: isolated QSettings, a fresh state and resolver."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QSettings

from attnviz.model.resolve import Resolver
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.app import require_working_binding
from attnviz.ui.widgets.numbers import set_display_decimals

# A PySide6 build known to abort Python < 3.12 would crash the run halfway: stop at once.
try:
    require_working_binding()
except RuntimeError as exc:
    pytest.exit(str(exc), returncode=3)


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path_factory):
    """Point every QSettings of the test at a fresh temporary folder (INI files).

    Autouse, so no UI test can read or write the user's real settings, even by accident.
    Returns the folder.
    """
    folder = tmp_path_factory.mktemp("settings")
    QCoreApplication.setOrganizationName("attnviz-tests")
    QCoreApplication.setApplicationName("attnviz-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(folder))
    yield folder
    QSettings().clear()


@pytest.fixture(autouse=True)
def automatic_decimals():
    """Every test starts with the numbers' rule automatic (``display.decimals`` 0): the
    rule is the process's, and a test that opens a preset with 3 decimals leaves it."""
    set_display_decimals(0)
    yield
    set_display_decimals(0)


@pytest.fixture
def state():
    """A fresh state: the default is the chapter's hand-worked example (banco)."""
    return AttentionState()


@pytest.fixture
def resolver(state):
    """A resolver listening to ``state``."""
    return Resolver(state)


@pytest.fixture(autouse=True)
def discard_on_close(monkeypatch):
    """Closing a modified window in a test discards instead of opening a modal prompt.

    Offscreen, nobody can answer QMessageBox.question: a test that edits the state of a
    MainWindow would hang at teardown. Tests of the prompt itself patch it again.
    """
    from PySide6.QtWidgets import QMessageBox

    from attnviz.ui.sessions import SessionController

    monkeypatch.setattr(
        SessionController, "_ask_unsaved", lambda self: QMessageBox.StandardButton.Discard
    )


@pytest.fixture
def window(qtbot):
    """A main window at the projector's 1280×720, shown (test modules may define their own)."""
    from attnviz.ui.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitExposed(w)
    return w
