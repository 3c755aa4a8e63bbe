"""Start the Qt application and show the main window."""

from __future__ import annotations

import os
import sys

# One binding for pyqtgraph, whatever else is installed.
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

#: Added to the reference counts of the singletons when a leaking binding is detected:
#: far more decrements than any session can make, so the count never reaches zero.
_REFCOUNT_RESERVE = 1 << 40
_guarded = False


def _binding_leaks_singletons() -> bool:
    """True when PySide6 hands out ``None``/``True`` without a reference (seen in 6.12.0).

    That build returns ``Py_None`` and ``Py_True`` from every void method and from
    ``Signal.emit`` without increasing their reference count, which is harmless on
    Python ≥ 3.12 (immortal singletons) but on 3.10/3.11 drives the counts to zero and
    aborts the interpreter ("bool_dealloc") after a few thousand calls.
    """
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        sig = Signal()

    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(64):
        probe.setObjectName("probe")
        probe.sig.emit()
    lost_none = none_before - sys.getrefcount(None)
    lost_true = true_before - sys.getrefcount(True)
    return lost_none >= 32 or lost_true >= 32


def guard_singleton_refcounts() -> bool:
    """Protect the interpreter from a PySide6 build that leaks references to singletons.

    Only on CPython before 3.12 and only when the leak is detected, the reference counts
    of ``None``, ``True``, ``False``, ``NotImplemented`` and ``Ellipsis`` get a huge
    reserve (they are never freed anyway). Returns True when the guard was applied.
    Safe to call more than once. The real fix is a PySide6 without the bug (6.11.x).
    """
    global _guarded
    if _guarded or sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if not _binding_leaks_singletons():
        return False
    import ctypes

    for obj in (None, True, False, NotImplemented, Ellipsis):
        # ob_refcnt is the first field of every object on CPython < 3.12.
        ctypes.c_ssize_t.from_address(id(obj)).value += _REFCOUNT_RESERVE
    _guarded = True
    return True


def _load_translations(app) -> None:
    """Install ``resources/translations/attnviz_<locale>.qm`` when one exists."""
    from PySide6.QtCore import QLocale, QTranslator

    from attnviz.paths import resource

    folder = resource("translations")
    translator = QTranslator(app)
    if translator.load(QLocale(), "attnviz", "_", str(folder)):
        app.installTranslator(translator)


def run_app(argv: list[str] | None = None, *, quit_after_first_paint: bool = False) -> int:
    """Create the QApplication, open the main window and run the event loop.

    With ``quit_after_first_paint`` (or ``ATTNVIZ_QUIT_AFTER_FIRST_PAINT=1`` in the
    environment, which works on the frozen app too) the process prints ``first-paint
    <time.time()>`` once the window has been painted and quits: the ``startup`` benchmark.
    """
    quit_after_first_paint |= os.environ.get("ATTNVIZ_QUIT_AFTER_FIRST_PAINT") == "1"
    from attnviz.ui.crash import install_crash_handler

    install_crash_handler()  # first: a failure from here on is logged, not lost
    guard_singleton_refcounts()
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    from attnviz import __version__
    from attnviz.ui.icon import install_app_icon
    from attnviz.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("attnviz")
    app.setOrganizationName("attnviz")
    app.setApplicationVersion(__version__)
    install_app_icon(app)
    _load_translations(app)
    window = MainWindow()
    if quit_after_first_paint:

        class _FirstPaint(QObject):
            def eventFilter(self, obj, event) -> bool:
                if event.type() == QEvent.Type.Paint and obj is window:
                    window.removeEventFilter(self)
                    # The children paint in the same pass; report once it has finished.
                    QTimer.singleShot(0, self._done)
                return False

            def _done(self) -> None:
                import time

                print(f"first-paint {time.time():.6f}", flush=True)
                app.quit()

        watcher = _FirstPaint(window)
        window.installEventFilter(watcher)
    window.show()
    return app.exec()
