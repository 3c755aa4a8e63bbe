"""``attnviz export --window``: the main window as it opens on a screen of a given size.

For handouts, documentation and the layout tests: the window is built offscreen on fresh
settings (as at a first start: no saved layout, the chosen theme and font size), laid out
for a ``width × height`` screen by :meth:`MainWindow.fit_screen`, filling it (maximized),
let settle, and grabbed at exactly that size.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QRect, QSettings, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication


def _settle(seconds: float = 0.4) -> None:
    """Let layouts, timers (the first layout's split) and repaints run."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        QApplication.processEvents()
        time.sleep(0.01)


def open_window(
    workspace,
    width: int,
    height: int,
    *,
    large_fonts: bool = False,
    theme: str = "light",
    folder: str | None = None,
):
    """A main window showing ``workspace`` as it opens on a ``width × height`` screen
    (offscreen, settled). Its settings live in ``folder`` (a fresh one by default)."""
    from attnviz.ui.main_window import MainWindow

    folder = folder or tempfile.mkdtemp(prefix="attnviz-window-")
    settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("view/theme", theme)
    settings.setValue("view/large_fonts", bool(large_fonts))
    window = MainWindow(workspace, settings=settings)
    window.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    window.fit_screen(QRect(0, 0, width, height))
    window.setGeometry(QRect(0, 0, width, height))  # maximized on that screen
    window._arrange_default()
    window.show()
    _settle()
    settle_painted(window)
    return window


def settle_painted(widget, rounds: int = 2) -> None:
    """Paint ``widget`` (offscreen, thrown away) and let the layouts follow, ``rounds``
    times: pyqtgraph's axes measure their tick labels as they paint and only then take
    the width they need (before, a title such as "gradient (last token = 1)" ran into the
    ticks in a window grabbed on its first paint)."""
    for _ in range(rounds):
        widget.grab()
        _settle(0.05)


def render_window(
    workspace, width: int, height: int, *, large_fonts: bool = False, theme: str = "light"
) -> QImage:
    """The picture of :func:`open_window`'s window, ``width × height`` pixels."""
    window = open_window(workspace, width, height, large_fonts=large_fonts, theme=theme)
    try:
        image = window.grab().toImage()
        image.setDevicePixelRatio(1.0)
        return image
    finally:
        if large_fonts:
            window.themes.set_large_fonts(False)  # the application's font back as it was
        window.close()
        window.deleteLater()
        # Gone now, while Qt is whole: left to the interpreter's exit, its deletion came
        # after QApplication's and crashed the process once the PNG was written.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QApplication.processEvents()
