"""Test-wide settings: Qt runs offscreen, pyqtgraph uses PySide6."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
