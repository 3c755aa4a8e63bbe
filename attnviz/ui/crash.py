"""Crash handling for the desktop app: a log file, a dialog instead of a silent death.

A windowed build (Windows, macOS) has no console: ``sys.stdout`` and ``sys.stderr`` are
None, so a stray ``sys.stderr.write`` raises, tracebacks go nowhere and the app just
vanishes. :func:`install_crash_handler`, called once at start-up,

- logs to a rotating file ``attnviz.log`` in ``<user data>/attnviz/logs`` (Qt's
  GenericDataLocation: ``~/.local/share`` on Linux, ``%LOCALAPPDATA%`` on Windows,
  ``~/Library/Application Support`` on macOS), or ``$ATTNVIZ_LOG_DIR``;
- replaces a missing stdout/stderr with streams that write to that log;
- sends unhandled exceptions (``sys.excepthook``, which PySide6 also calls for exceptions
  raised in slots, and ``threading.excepthook``) to the log, and shows a dialog when a
  QApplication is running in the GUI thread, so that the app survives a failing slot;
- has :mod:`faulthandler` write native crashes (segfaults) to ``native-crash.log``, unless
  it is already on (``PYTHONFAULTHANDLER=1`` or ``-X faulthandler`` print to stderr).

A log file is opened without blocking and only when it is a regular file: a named pipe
called ``attnviz.log`` (no reader: opening it would wait forever, before any window) or a
device is passed over for the next folder, and the console is told so once.

The folder is GenericDataLocation + ``attnviz`` rather than AppDataLocation: the latter
depends on the application and organization names at the moment of the call, and the
handler is installed before the QApplication sets them.
"""

from __future__ import annotations

import contextlib
import errno
import faulthandler
import logging
import logging.handlers
import os
import sys
import tempfile
import threading
import traceback
from pathlib import Path

from attnviz.model.safe_io import kind_problem

log = logging.getLogger("attnviz")

LOG_NAME = "attnviz.log"
NATIVE_LOG_NAME = "native-crash.log"
_ENV = "ATTNVIZ_LOG_DIR"

_installed: CrashHandler | None = None


def default_log_dir() -> Path:
    """``$ATTNVIZ_LOG_DIR``, else ``<GenericDataLocation>/attnviz/logs``."""
    if os.environ.get(_ENV):
        return Path(os.environ[_ENV])
    try:
        from PySide6.QtCore import QStandardPaths

        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    except ImportError:  # the handler must work even where Qt itself is broken
        base = ""
    return Path(base or tempfile.gettempdir()) / "attnviz" / "logs"


class _LogStream:
    """A text stream that writes whole lines to a logger: stands in for a missing stdio.

    Re-entrant writes (a failing log handler reporting its error to sys.stderr, which is
    this stream) are dropped instead of recursing.
    """

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, logger: logging.Logger, level: int) -> None:
        self._logger = logger
        self._level = level
        self._buffer = ""
        self._busy = threading.local()

    def write(self, text: str) -> int:
        if getattr(self._busy, "on", False):
            return len(text)
        self._busy.on = True
        try:
            self._buffer += text
            *lines, self._buffer = self._buffer.split("\n")
            for line in lines:
                if line.strip():
                    self._logger.log(self._level, line)
        finally:
            self._busy.on = False
        return len(text)

    def flush(self) -> None:
        if self._buffer.strip():
            pending, self._buffer = self._buffer, ""
            self.write(pending + "\n")

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True


def open_log_file(path: Path, encoding: str | None = "utf-8"):
    """``path`` opened for appending, never blocking: created when missing, refused with
    ``OSError`` (its message saying what the file is) unless it is a regular file."""

    def opener(name, flags: int) -> int:
        flags |= getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        try:
            fd = os.open(name, flags, 0o644)  # a FIFO without a reader: ENXIO, not a wait
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise OSError(errno.ENXIO, "is not a regular file (a named pipe)") from None
            raise
        why = kind_problem(os.fstat(fd).st_mode)  # the file opened, not the name's
        if why is not None:
            os.close(fd)
            raise OSError(errno.EINVAL, why)
        return fd

    return open(path, "a", encoding=encoding, errors="backslashreplace", opener=opener)


class _RotatingLog(logging.handlers.RotatingFileHandler):
    """The rotating log, whose file is opened by :func:`open_log_file` (also after each
    rotation: the name may have become a pipe meanwhile)."""

    def _open(self):
        return open_log_file(Path(self.baseFilename), self.encoding)


def _passed(path: Path, exc: OSError) -> str:
    """Why the log is not at ``path``, as a clause: "… is not a regular file (a named pipe)"
    or "cannot write … (Permission denied)"."""
    why = exc.strerror or str(exc) or type(exc).__name__
    return f"{path} {why}" if why.startswith("is ") else f"cannot write {path} ({why})"


def show_crash_dialog(summary: str, details: str, log_path: Path) -> None:
    """Tell the user that something failed, with the traceback one click away (modal)."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox()
    box.setObjectName("CrashDialog")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(QCoreApplication.translate("CrashDialog", "attnviz: unexpected error"))
    # Literal translate() calls: pyside6-lupdate cannot see through a local helper.
    box.setText(
        QCoreApplication.translate(
            "CrashDialog", "Something went wrong, but attnviz is still running."
        )
        + "\n\n"
        + summary
    )
    box.setInformativeText(
        QCoreApplication.translate("CrashDialog", "The details were written to:") + f"\n{log_path}"
    )
    box.setDetailedText(details)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.exec()


class CrashHandler:
    """What :func:`install_crash_handler` changed, so that :meth:`uninstall` can undo it."""

    def __init__(self, log_dir: Path, *, show_dialog: bool = True, max_bytes: int = 1 << 20):
        self.log_dir = log_dir
        self.log_path = log_dir / LOG_NAME
        self.show_dialog = show_dialog
        # No console to print to: a windowed build, where the dialog is all the user sees.
        self.windowed = sys.stderr is None
        self._showing = False
        self._native_file = None
        self._saved = (sys.stdout, sys.stderr, sys.excepthook, threading.excepthook)
        self._qt_handler_installed = False
        self._console_handler: logging.Handler | None = None
        #: Why the log is not where it was asked for, or None (said once on the console).
        self.notice: str | None = None
        self.file_handler: logging.Handler = self._open_log(max_bytes)

    def _open_log(self, max_bytes: int) -> logging.Handler:
        """A rotating file handler, or a do-nothing one when no folder is writable; a log
        file passed over (a named pipe, a device, an unwritable folder) is said once."""
        passed = []
        for folder in (self.log_dir, Path(tempfile.gettempdir()) / "attnviz-logs"):
            try:
                folder.mkdir(parents=True, exist_ok=True)
                handler = _RotatingLog(
                    folder / LOG_NAME, maxBytes=max_bytes, backupCount=3, encoding="utf-8"
                )
            except OSError as exc:
                passed.append(_passed(folder / LOG_NAME, exc))
                continue
            self.log_dir, self.log_path = folder, folder / LOG_NAME
            handler.setFormatter(
                logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(threadName)s] %(message)s")
            )
            if passed:
                self._say(f"attnviz: {passed[0]}; logging to {self.log_path} instead")
            return handler
        self._say(f"attnviz: {passed[0]}, and {passed[-1]}; going on without a log file")
        return logging.NullHandler()

    def _say(self, line: str) -> None:
        """Tell the console once why the log is elsewhere (the log itself says it too)."""
        self.notice = line
        if not self.windowed:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                print(line, file=sys.stderr)

    def install(self) -> None:
        """Attach the log file, replace missing stdio, and take over the exception hooks."""
        root = logging.getLogger()
        if not root.handlers and not self.windowed:
            # Once the root logger has a handler, Python's last-resort printing of warnings
            # to stderr stops; keep it for console users.
            self._console_handler = logging.StreamHandler()
            self._console_handler.setLevel(logging.WARNING)
            root.addHandler(self._console_handler)
        root.addHandler(self.file_handler)
        if log.level == logging.NOTSET:
            log.setLevel(logging.INFO)
        if sys.stdout is None:
            sys.stdout = _LogStream(logging.getLogger("attnviz.stdout"), logging.INFO)
        if sys.stderr is None:
            sys.stderr = _LogStream(logging.getLogger("attnviz.stderr"), logging.WARNING)
            self._install_qt_message_handler()
        if not faulthandler.is_enabled():
            try:
                # Kept open for the life of the process: faulthandler writes to its fd.
                self._native_file = open_log_file(self.log_dir / NATIVE_LOG_NAME)
                faulthandler.enable(self._native_file)
            except (OSError, ValueError, RuntimeError):
                self._native_file = None
        sys.excepthook = self.excepthook
        threading.excepthook = self.thread_excepthook
        log.info("attnviz started (log: %s)", self.log_path)
        if self.notice:  # in the file; the console was told once, by _say
            log.info("%s", self.notice.removeprefix("attnviz: "))

    def _install_qt_message_handler(self) -> None:
        """Windowed only: Qt's own warnings would go to a missing stderr; log them instead."""
        try:
            from PySide6.QtCore import QtMsgType, qInstallMessageHandler
        except ImportError:
            return
        qt_log = logging.getLogger("attnviz.qt")
        levels = {
            QtMsgType.QtDebugMsg: logging.DEBUG,
            QtMsgType.QtInfoMsg: logging.INFO,
            QtMsgType.QtWarningMsg: logging.WARNING,
            QtMsgType.QtCriticalMsg: logging.ERROR,
            QtMsgType.QtFatalMsg: logging.CRITICAL,
        }

        def handler(mode, _context, message):
            qt_log.log(levels.get(mode, logging.WARNING), message)

        qInstallMessageHandler(handler)
        self._qt_handler_installed = True

    def uninstall(self) -> None:
        """Restore stdio and the hooks, detach and close the log file (mainly for tests)."""
        global _installed
        sys.stdout, sys.stderr, sys.excepthook, threading.excepthook = self._saved
        logging.getLogger().removeHandler(self.file_handler)
        self.file_handler.close()
        if self._console_handler is not None:
            logging.getLogger().removeHandler(self._console_handler)
        if self._native_file is not None:
            faulthandler.disable()
            self._native_file.close()
            self._native_file = None
        if self._qt_handler_installed:
            from PySide6.QtCore import qInstallMessageHandler

            qInstallMessageHandler(None)
        if _installed is self:
            _installed = None

    def excepthook(self, exc_type, exc, tb) -> None:
        """Log an unhandled exception, echo it to a real stderr, and show the dialog."""
        if issubclass(exc_type, KeyboardInterrupt):
            self._saved[2](exc_type, exc, tb)
            return
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.critical("Unhandled exception\n%s", details.rstrip())
        self.file_handler.flush()
        if not self.windowed and sys.stderr is not None:
            with contextlib.suppress(OSError, ValueError):  # a closed or broken console
                sys.stderr.write(details)
        self._show(f"{exc_type.__name__}: {exc}", details)

    def thread_excepthook(self, args) -> None:
        """Log an exception that ended a worker thread (a dialog is for the GUI thread only)."""
        if args.exc_type is SystemExit:
            return
        details = "".join(
            traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)
        )
        name = args.thread.name if args.thread is not None else "?"
        log.critical("Unhandled exception in thread %s\n%s", name, details.rstrip())
        self.file_handler.flush()

    def _show(self, summary: str, details: str) -> None:
        """The dialog, when it can be shown: GUI thread, a QApplication, not already open."""
        if not self.show_dialog or self._showing:
            return  # a second error while the box is up is only logged
        if threading.current_thread() is not threading.main_thread():
            return  # widgets belong to the GUI thread; a worker's error is only logged
        try:
            from PySide6.QtWidgets import QApplication
        except ImportError:
            return
        app = QApplication.instance()
        if app is None and self.windowed:
            # Nothing else would tell the user why the app did not start.
            app = QApplication(sys.argv[:1])
        if not isinstance(app, QApplication):
            return  # headless (a QCoreApplication or none): the log and stderr must do
        self._showing = True
        try:
            show_crash_dialog(summary, details, self.log_path)
        except Exception:  # the dialog itself must never take the app down
            log.exception("could not show the crash dialog")
        finally:
            self._showing = False


def install_crash_handler(
    log_dir: Path | None = None, *, show_dialog: bool = True, max_bytes: int = 1 << 20
) -> CrashHandler:
    """Install the crash handler once (later calls return the same one) and return it.

    Parameters
    ----------
    log_dir
        Folder of the log files; default :func:`default_log_dir`.
    show_dialog
        Show a message box for exceptions in the GUI thread (off for headless commands).
    max_bytes
        Size at which ``attnviz.log`` rotates (three old files are kept).
    """
    global _installed
    if _installed is None:
        handler = CrashHandler(
            log_dir or default_log_dir(), show_dialog=show_dialog, max_bytes=max_bytes
        )
        handler.install()
        _installed = handler
    return _installed
