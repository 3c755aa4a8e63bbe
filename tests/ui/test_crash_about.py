"""Crash handler (log file, dialog, missing stdio), About dialog and application icon."""

from __future__ import annotations

import logging
import sys
import threading

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from attnviz import __version__
from attnviz.ui import crash
from attnviz.ui.about import AboutDialog, show_about, versions
from attnviz.ui.icon import ICON_SIZES, app_icon, install_app_icon


@pytest.fixture
def dialogs(monkeypatch):
    """Record crash dialogs instead of opening a modal box (which would block the test)."""
    shown = []
    monkeypatch.setattr(
        crash, "show_crash_dialog", lambda summary, details, path: shown.append((summary, path))
    )
    return shown


@pytest.fixture
def handler(tmp_path):
    """A crash handler logging to a temporary folder, removed again after the test."""
    h = crash.install_crash_handler(tmp_path / "logs")
    yield h
    h.uninstall()


def _raise_and_hook(h, message="boom"):
    try:
        raise ValueError(message)
    except ValueError:
        h.excepthook(*sys.exc_info())


def test_install_replaces_hooks_and_uninstall_restores(tmp_path):
    before = (sys.excepthook, threading.excepthook, sys.stdout, sys.stderr)
    h = crash.install_crash_handler(tmp_path)
    assert crash.install_crash_handler(tmp_path / "other") is h  # installed once
    assert sys.excepthook == h.excepthook
    assert threading.excepthook == h.thread_excepthook
    h.uninstall()
    assert (sys.excepthook, threading.excepthook, sys.stdout, sys.stderr) == before
    assert crash.install_crash_handler(tmp_path) is not h  # a fresh one after uninstall
    crash._installed.uninstall()


def test_excepthook_logs_traceback_and_shows_dialog(qapp, handler, dialogs, capsys):
    _raise_and_hook(handler, "the softmax exploded")
    text = handler.log_path.read_text(encoding="utf-8")
    assert "Unhandled exception" in text
    assert "Traceback (most recent call last)" in text
    assert "ValueError: the softmax exploded" in text
    assert dialogs == [("ValueError: the softmax exploded", handler.log_path)]
    assert "the softmax exploded" in capsys.readouterr().err  # console users still see it


def test_exception_in_a_slot_reaches_the_dialog(qapp, qtbot, handler, dialogs):
    def slot():
        raise RuntimeError("raised inside a Qt slot")

    QTimer.singleShot(0, slot)
    qtbot.waitUntil(lambda: bool(dialogs), timeout=2000)
    assert dialogs[0][0] == "RuntimeError: raised inside a Qt slot"
    assert "raised inside a Qt slot" in handler.log_path.read_text(encoding="utf-8")


def test_no_dialog_without_a_qapplication(handler, dialogs, monkeypatch):
    monkeypatch.setattr(QApplication, "instance", staticmethod(lambda: None))
    _raise_and_hook(handler)
    assert dialogs == []
    assert "ValueError: boom" in handler.log_path.read_text(encoding="utf-8")


def test_a_second_error_while_the_dialog_is_up_is_only_logged(qapp, handler, monkeypatch):
    shown = []

    def nested_dialog(summary, details, path):
        shown.append(summary)
        _raise_and_hook(handler, "second")  # e.g. a repaint failing behind the box

    monkeypatch.setattr(crash, "show_crash_dialog", nested_dialog)
    _raise_and_hook(handler, "first")
    assert shown == ["ValueError: first"]
    assert "ValueError: second" in handler.log_path.read_text(encoding="utf-8")


def test_a_failing_dialog_does_not_raise(qapp, handler, monkeypatch):
    def broken(*args):
        raise RuntimeError("no dialog today")

    monkeypatch.setattr(crash, "show_crash_dialog", broken)
    _raise_and_hook(handler)
    assert "could not show the crash dialog" in handler.log_path.read_text(encoding="utf-8")


def test_thread_exceptions_are_logged_without_dialog(qapp, handler, dialogs):
    def work():
        raise KeyError("worker failed")

    thread = threading.Thread(target=work, name="worker-1")
    thread.start()
    thread.join()
    text = handler.log_path.read_text(encoding="utf-8")
    assert "Unhandled exception in thread worker-1" in text
    assert "KeyError: 'worker failed'" in text
    assert dialogs == []


def test_missing_stdio_is_replaced_by_the_log(tmp_path, monkeypatch, dialogs):
    # A windowed build: no console at all.
    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    h = crash.install_crash_handler(tmp_path)
    try:
        print("printed without a console")
        sys.stderr.write("written to a missing stderr\n")
        logging.getLogger("attnviz.test").warning("logged by a module")
        logging.getLogger("attnviz.test").error("with a %s", "format argument")
        sys.stdout.flush()
        text = h.log_path.read_text(encoding="utf-8")
        assert "printed without a console" in text
        assert "written to a missing stderr" in text
        assert "logged by a module" in text
        assert "with a format argument" in text
        assert h.windowed
    finally:
        h.uninstall()
    assert sys.stdout is None and sys.stderr is None  # restored as they were


def test_windowed_excepthook_writes_nothing_to_the_console(tmp_path, monkeypatch, dialogs, qapp):
    monkeypatch.setattr(sys, "stderr", None)
    h = crash.install_crash_handler(tmp_path)
    try:
        _raise_and_hook(h, "no console here")
    finally:
        h.uninstall()
    assert "no console here" in h.log_path.read_text(encoding="utf-8")
    assert dialogs and dialogs[0][0] == "ValueError: no console here"


def test_faulthandler_goes_to_a_file_unless_already_on(tmp_path, monkeypatch):
    enabled = []
    monkeypatch.setattr(crash.faulthandler, "is_enabled", lambda: False)
    monkeypatch.setattr(crash.faulthandler, "enable", lambda file: enabled.append(file.name))
    monkeypatch.setattr(crash.faulthandler, "disable", lambda: None)
    h = crash.install_crash_handler(tmp_path)
    h.uninstall()
    assert enabled == [str(tmp_path / crash.NATIVE_LOG_NAME)]


def test_unwritable_log_dir_falls_back(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setattr(crash.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    h = crash.install_crash_handler(blocker / "logs")
    try:
        logging.getLogger("attnviz.test").warning("still logged")
    finally:
        h.uninstall()
    assert h.log_dir == tmp_path / "tmp" / "attnviz-logs"
    assert "still logged" in h.log_path.read_text(encoding="utf-8")


def test_log_rotates(tmp_path):
    h = crash.install_crash_handler(tmp_path, max_bytes=2000)
    try:
        for i in range(100):
            logging.getLogger("attnviz.test").warning("line %d %s", i, "x" * 40)
    finally:
        h.uninstall()
    assert (tmp_path / (crash.LOG_NAME + ".1")).is_file()
    assert h.log_path.stat().st_size <= 2000


def test_default_log_dir_honours_env(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNVIZ_LOG_DIR", str(tmp_path))
    assert crash.default_log_dir() == tmp_path
    monkeypatch.delenv("ATTNVIZ_LOG_DIR")
    assert crash.default_log_dir().parts[-2:] == ("attnviz", "logs")


def test_about_dialog_shows_name_version_license_and_versions(qtbot):
    dialog = show_about(None)
    qtbot.addWidget(dialog)
    assert isinstance(dialog, AboutDialog)
    assert dialog.isVisible()
    text = dialog.text.text()
    assert f"attnviz {__version__}" in text
    assert "MIT License" in text
    for name in ("Qt", "PySide6", "numpy", "pyqtgraph"):
        assert f"<td>{name}</td>" in text
    assert dialog.objectName() == "AboutDialog"
    dialog.close()


def test_about_versions_do_not_import_torch():
    imported_before = "torch" in sys.modules
    names = dict(versions())
    assert names["attnviz"] == __version__
    assert ("torch" in sys.modules) == imported_before


def test_app_icon_has_every_size(qapp):
    icon = app_icon()
    assert not icon.isNull()
    sizes = {s.width() for s in icon.availableSizes()}
    assert set(ICON_SIZES) <= sizes


def test_install_app_icon(qapp):
    install_app_icon(qapp)
    assert not qapp.windowIcon().isNull()
    assert qapp.desktopFileName() == "attnviz"


def test_console_warnings_still_reach_stderr(tmp_path, monkeypatch, capsys):
    # Outside pytest the root logger has no handler and Python prints warnings to stderr
    # itself; adding the log file must not silence that for console users.
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    h = crash.install_crash_handler(tmp_path)
    try:
        logging.getLogger("attnviz.test").warning("visible on the console")
    finally:
        h.uninstall()
    assert root.handlers == []
    assert "visible on the console" in capsys.readouterr().err
    assert "visible on the console" in h.log_path.read_text(encoding="utf-8")


def test_known_broken_binding_is_refused_with_a_remedy(monkeypatch):
    import PySide6

    from attnviz.ui import app

    monkeypatch.setattr(PySide6, "__version__", "6.12.0")
    monkeypatch.setattr(sys, "version_info", (3, 11, 7))
    with pytest.raises(RuntimeError, match="PySide6-Essentials!=6.12.0"):
        app.require_working_binding()
    monkeypatch.setattr(PySide6, "__version__", "6.11.3")
    app.require_working_binding()


def _runtime_distributions() -> set[str]:
    """attnviz's runtime requirements and theirs, for this platform (no extras)."""
    import re
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    seen, todo = set(), ["attnviz"]
    while todo:
        name = todo.pop()
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        try:
            reqs = requires(name) or []
        except PackageNotFoundError:
            continue
        for text in reqs:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(re.sub(r"[-_.]+", "-", req.name))
    return seen - {"attnviz"}


def test_the_notices_cover_every_component_attnviz_runs_on():
    from attnviz.ui.about import notices_text

    text = notices_text().lower().replace("_", "-")
    shipped = _runtime_distributions()
    assert {"pyside6-essentials", "shiboken6", "numpy", "pyqtgraph", "superqt"} <= shipped
    missing = sorted(d for d in shipped if d.replace("_", "-") not in text)
    assert not missing, f"not in THIRD_PARTY_NOTICES.md: {missing}"
    for must in ("lgpl-3.0", "libqt6", "python", "openblas", "readline"):
        assert must in text
    assert "left out" in text  # readline (GPL-3.0) is not shipped


def test_about_offers_the_licences_and_about_qt(qtbot):
    from attnviz.ui.about import AboutDialog, NoticesDialog

    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    assert dialog.licences.isEnabled() and dialog.about_qt.text().replace("&", "") == "About Qt"
    notices = dialog.show_notices()
    assert isinstance(notices, NoticesDialog)
    shown = notices.text.toPlainText()
    assert "LGPL-3.0" in shown and "replace" in shown and "pyqtgraph" in shown
    notices.close()
