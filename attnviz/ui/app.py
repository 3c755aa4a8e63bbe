"""Start the Qt application and show the main window."""

from __future__ import annotations

import os
import sys

# One binding for pyqtgraph, whatever else is installed.
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")


def run_app(argv: list[str] | None = None) -> int:
    """Create the QApplication, open the main window and run the event loop."""
    from PySide6.QtWidgets import QApplication

    from attnviz import __version__
    from attnviz.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("attnviz")
    app.setOrganizationName("attnviz")
    app.setApplicationVersion(__version__)
    window = MainWindow()
    window.show()
    return app.exec()
