"""``attnviz --self-test``: build the window offscreen, export a PNG and check it."""

from __future__ import annotations

import os
import sys
import tempfile


def run_self_test() -> int:
    """Return 0 when the window builds and a non-blank PNG of the right size is written."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from attnviz.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow()
    window.resize(800, 600)
    window.show()
    app.processEvents()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "self-test.png")
        if not window.grab().save(path):
            print("self-test: could not write the PNG", file=sys.stderr)
            return 1
        img = QImage(path)
        if img.isNull() or img.width() != 800:
            print("self-test: the PNG did not read back", file=sys.stderr)
            return 1
    window.close()
    print("self-test: ok")
    return 0
