"""Start the Qt application and show the main window."""

from __future__ import annotations

import gc
import os
import sys

# One binding for pyqtgraph, whatever else is installed.
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

#: PySide6 builds that must not run on CPython < 3.12. 6.12.0 returns None/True from void
#: methods and Signal.emit without taking a reference; on 3.10/3.11 the counts reach zero
#: after a few thousand calls and the interpreter aborts ("bool_dealloc"). pyproject.toml
#: excludes it; this check covers environments assembled by hand.
_BROKEN_PYSIDE6 = ("6.12.0",)


def require_working_binding() -> None:
    """Raise ``RuntimeError`` with a clear remedy when the installed PySide6 is known broken.

    Every entry point that uses Qt passes here first, right after PySide6 is loaded: the
    place to make PySide6's per-import source probe cheap (:mod:`attnviz.ui.feature_probe`)
    before pyqtgraph's and attnviz's modules are imported, and to prepare Qt's locale and
    messages (:mod:`attnviz.ui.qt_messages`).
    """
    import PySide6

    from attnviz.ui.feature_probe import quicken_feature_probe
    from attnviz.ui.qt_messages import prepare_qt

    quicken_feature_probe()
    # Before any QApplication: a UTF-8 locale and the handler of Qt's own messages, so
    # that a plain export prints nothing on stderr under LC_ALL=C.
    prepare_qt()

    if sys.implementation.name == "cpython" and sys.version_info < (3, 12):
        if PySide6.__version__ in _BROKEN_PYSIDE6:
            raise RuntimeError(
                f"PySide6 {PySide6.__version__} crashes Python "
                f"{sys.version_info[0]}.{sys.version_info[1]} (a reference-count bug); "
                'install another version: pip install "PySide6-Essentials!=6.12.0"'
            )


def _load_translations(app) -> str:
    """Install the translators of the UI language; return that language (``en``, ``pt_BR``).

    ``ATTNVIZ_LANG``, then View → Language, then the system locale decide
    (:mod:`attnviz.ui.language`). Called after the application's name is set, so that the
    saved choice is read from the right settings.
    """
    from attnviz.ui import language

    lang = language.resolve_language()
    if not language.install_translations(app, lang):
        # A missing catalogue must not keep the app from starting: English is the source.
        print(f"attnviz: no translation for {lang}; using English", file=sys.stderr)
        return "en"
    return lang


def _keep_going_when_a_view_fails(window) -> None:
    """Log a listener's exception and say so in the status bar; the other views still follow.

    (Tests keep the default, which re-raises once every listener has been notified.)
    """
    import logging

    from PySide6.QtCore import QCoreApplication

    from attnviz.model import events

    log = logging.getLogger("attnviz")

    def failed(exc: BaseException) -> None:
        log.error("a view failed to follow a change", exc_info=(type(exc), exc, exc.__traceback__))
        text = QCoreApplication.translate(
            "MainWindow", "A view could not follow the last change: %1"
        )
        window.statusBar().showMessage(text.replace("%1", f"{type(exc).__name__}: {exc}"), 8000)

    events.set_error_handler(failed)


#: The reverse-DNS application id of the desktop entry, icons, MIME type and metainfo.
APP_ID = "io.github.attnviz.Attnviz"
#: The collector comes back this long after the event loop starts, painted or not.
GC_HOLD_LIMIT_MS = 10_000

_gc_held = False


def hold_garbage_collection() -> None:
    """Keep Python's cyclic garbage collector off until the window is first painted.

    Start-up makes about 100,000 objects that live as long as the app (modules, classes,
    widgets) and almost no garbage: the collector's 160 or so passes over them cost about
    60 ms before the first paint and free a few hundred objects.
    :func:`release_garbage_collection` turns it back on.
    """
    global _gc_held
    if gc.isenabled():
        gc.disable()
        _gc_held = True


def release_garbage_collection() -> None:
    """Turn the collector back on after :func:`hold_garbage_collection` (else a no-op).

    The objects made so far are frozen first (``gc.freeze``): later passes skip them, so
    the first full pass after start-up does not stall a slider drag by walking them all.
    """
    global _gc_held
    if _gc_held:
        _gc_held = False
        gc.freeze()
        gc.enable()


def _after_first_paint(window, quit_after_first_paint: bool) -> None:
    """Once the window is first painted, turn the collector back on; with
    ``quit_after_first_paint`` print ``first-paint <time.time()>`` and quit."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    class _FirstPaint(QObject):
        def eventFilter(self, obj, event) -> bool:
            if event.type() == QEvent.Type.Paint and obj is window:
                window.removeEventFilter(self)
                # The children paint in the same pass; act once it has finished.
                QTimer.singleShot(0, self._done)
            return False

        def _done(self) -> None:
            if quit_after_first_paint:
                import time

                # Marked as the paint ends, as the bare window marks it (the collector's
                # return below is the window's own business after its first frame).
                print(f"first-paint {time.time():.6f}", flush=True)
                QApplication.instance().quit()
            release_garbage_collection()

    window.installEventFilter(_FirstPaint(window))


def run_app(
    argv: list[str] | None = None,
    *,
    quit_after_first_paint: bool = False,
    session: str | None = None,
) -> int:
    """Create the QApplication, open the main window and run the event loop.

    With ``quit_after_first_paint`` (or ``ATTNVIZ_QUIT_AFTER_FIRST_PAINT=1`` in the
    environment, which works on the frozen app too) the process prints ``first-paint
    <time.time()>`` once the window has been painted and quits: the ``startup`` benchmark.
    """
    quit_after_first_paint |= os.environ.get("ATTNVIZ_QUIT_AFTER_FIRST_PAINT") == "1"
    from attnviz.ui.crash import install_crash_handler

    install_crash_handler()  # first: a failure from here on is logged, not lost
    try:
        require_working_binding()
    except RuntimeError as exc:
        print(f"attnviz: {exc}", file=sys.stderr)
        return 1
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from attnviz.ui.icon import install_app_icon
    from attnviz.ui.main_window import MainWindow
    from attnviz.version import __version__

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("attnviz")
    app.setOrganizationName("attnviz")
    app.setApplicationVersion(__version__)
    # The desktop entry's id: a Wayland compositor finds the menu entry (icon, name) by it.
    app.setDesktopFileName(APP_ID)
    install_app_icon(app)
    _load_translations(app)
    window = MainWindow()
    _keep_going_when_a_view_fails(window)
    _after_first_paint(window, quit_after_first_paint)
    window.show_first()
    if session:
        # Once the window is up: a file that cannot be read is then explained in a dialog
        # over it (and on the console), and the window stays. Opened before the window was
        # shown, an empty file's dialog waited behind a window that never came.
        QTimer.singleShot(0, lambda: window.session.open_path(session))
    QTimer.singleShot(GC_HOLD_LIMIT_MS, release_garbage_collection)  # never painted: still
    status = app.exec()
    # A worker still computing reports to panels that are about to go: let it end first.
    from attnviz.ui.workers import wait_for_workers

    wait_for_workers(10_000)
    return status
