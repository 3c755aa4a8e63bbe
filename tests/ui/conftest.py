"""Shared fixtures for the UI tests: isolated QSettings, a fresh workspace, its state and
resolver."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QSettings

from attnviz.model.workspace import Workspace
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
def workspace():
    """A fresh workspace: the default is the chapter's hand-worked example (banco)."""
    return Workspace()


@pytest.fixture
def state(workspace):
    """The workspace's attention topic."""
    return workspace.state


@pytest.fixture
def resolver(workspace):
    """The workspace's attention resolver, listening to ``state``."""
    return workspace.resolver


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


#: The projector's window: the size every window of the tests opens at unless told.
PROJECTOR = (1280, 720)


def build_window(
    *,
    size: tuple[int, int] | None = PROJECTOR,
    large_fonts: bool = False,
    values: dict[str, dict] | None = None,
    shown: bool = True,
    preset: str | None = None,
    front: str | tuple[str, ...] = (),
    register=None,
    wait_exposed=None,
):
    """The one way the UI tests build a main window; every window fixture goes through it.

    In this order: build; ``register(w)`` (qtbot.addWidget: closed after the test); large
    fonts on; resize to ``size`` (None: the window's own); ``values`` (``{topic: {field:
    value}}``) set on the document; show and wait until exposed (``shown``); apply
    ``preset`` (one undo step, as the toolbar does); raise the docks of ``front`` in order.
    """
    from PySide6.QtTest import QTest

    from attnviz.ui.main_window import MainWindow

    w = MainWindow()
    if register is not None:
        register(w)
    if large_fonts:
        w.themes.set_large_fonts(True)
    if size is not None:
        w.resize(*size)
    for topic, fields in (values or {}).items():
        w.document[topic].update(**fields)
    if shown:
        w.show()
        (wait_exposed or QTest.qWaitForWindowExposed)(w)
    if preset is not None:
        w.apply_preset(preset)
    for pid in (front,) if isinstance(front, str) else front:
        w.docks[pid].raise_()
    return w


@pytest.fixture
def make_window(qtbot):
    """``make_window(**options)``: a main window from :func:`build_window`, closed after the
    test (shown at the projector's 1280×720 unless the options say otherwise)."""

    def make(**options):
        return build_window(register=qtbot.addWidget, wait_exposed=qtbot.waitExposed, **options)

    return make


@pytest.fixture(scope="module")
def make_module_window(qapp):
    """``make_module_window(**options)``: a window from :func:`build_window` shared by the
    tests of one module (building a main window is the slow part of a test); closed,
    discarding its changes, when the module ends. The module's own ``window`` fixture puts
    it back in the state its tests start from."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from attnviz.ui.sessions import SessionController

    made = []
    with pytest.MonkeyPatch.context() as patch:
        # Closing a modified window must not open a prompt nobody can answer offscreen
        # (the autouse discard_on_close is per test: it is gone when the module ends).
        patch.setattr(
            SessionController, "_ask_unsaved", lambda self: QMessageBox.StandardButton.Discard
        )

        yield lambda **options: build_window(register=made.append, **options)
        for w in made:
            w.close()
            w.deleteLater()
        QApplication.processEvents()


@pytest.fixture
def window(make_window):
    """A main window at the projector's 1280×720, shown."""
    return make_window()
