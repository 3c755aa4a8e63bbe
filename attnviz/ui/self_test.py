"""``attnviz --self-test``: build every panel offscreen, export a PNG through the real path.

Used on the frozen bundle, so the modules it needs are imported here at the top of the
function, by name, rather than lazily deep inside pyqtgraph; a missing module or plugin
shows up as a failure with its reason, not as a crash later in front of a class.
"""

from __future__ import annotations

import os
import sys
import tempfile
import traceback

#: Size of the test export: small enough to be quick, large enough to hold labels.
SIZE = (640, 360)


def _fail(reason: str) -> int:
    print(f"self-test: FAILED: {reason}", file=sys.stderr)
    return 1


def _check_png(path: str) -> str | None:
    """None when ``path`` is a PNG of :data:`SIZE` with real content, else the reason."""
    from PySide6.QtGui import QImage

    img = QImage(path)
    if img.isNull():
        return f"the exported PNG {path} does not read back"
    if (img.width(), img.height()) != SIZE:
        return f"the PNG is {img.width()}×{img.height()}, expected {SIZE[0]}×{SIZE[1]}"
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    colors = {img.pixel(x, y) for x in range(0, img.width(), 7) for y in range(0, img.height(), 7)}
    if len(colors) < 16:
        return f"the PNG is nearly blank ({len(colors)} distinct colours sampled)"
    return None


def run_self_test() -> int:
    """Return 0 when the main window with every dock builds and a good PNG is exported."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    try:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication

        from attnviz.ui.app import require_working_binding

        require_working_binding()
        app = QApplication.instance() or QApplication(sys.argv[:1])
        from attnviz.ui.export import ExportSpec, write_png
        from attnviz.ui.main_window import MainWindow
        from attnviz.ui.panels import panel_ids
    except Exception as exc:  # any import failure is the answer
        traceback.print_exc()
        return _fail(f"import: {exc}")

    with tempfile.TemporaryDirectory() as tmp:
        # Never read or write the user's real settings.
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(QSettings.Format.IniFormat, scope, tmp)
        try:
            window = MainWindow()
            window.resize(1280, 800)
            window.show()
            app.processEvents()
            missing = [p for p in panel_ids() if p not in window.panels]
            if missing:
                return _fail(f"panels missing: {', '.join(missing)}")
            for pid in panel_ids():
                # Panels are built when first seen; here every one is built and shown once.
                window.docks[pid].raise_()
                app.processEvents()
                if window.panels[pid] is None:
                    return _fail(f"panel {pid} was not built")
            shot = window.grab()
            if shot.isNull() or shot.width() < 100:
                return _fail("the main window did not paint")
            path = os.path.join(tmp, "self-test.png")
            write_png(window.state, window.resolver.results, path, ExportSpec(*SIZE))
            problem = _check_png(path)
            if problem:
                return _fail(problem)
            window.settings.clear()
            window.hide()
            # Let the panels' workers finish while their windows still exist (a worker
            # reporting to a deleted object at exit prints a traceback).
            from attnviz.ui.workers import wait_for_workers

            if not wait_for_workers():
                return _fail("a background computation did not finish in 30 s")
            app.processEvents()
        except Exception as exc:
            traceback.print_exc()
            return _fail(str(exc))
    print(f"self-test: ok ({len(panel_ids())} panels, {SIZE[0]}×{SIZE[1]} PNG)")
    return 0
