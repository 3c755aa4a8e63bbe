"""The application icon, from the PNG sizes (and SVG) in ``resources/icons``."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QIcon

from attnviz.paths import resource

#: The sizes rendered by ``packaging/make_icons.py``.
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)

#: Must match the .desktop file's name (``packaging/attnviz.desktop``): on Wayland the
#: compositor finds the window's icon and name through it, not through ``setWindowIcon``.
DESKTOP_FILE_NAME = "attnviz"


def app_icon() -> QIcon:
    """Return the attnviz icon with every shipped size, for windows, the taskbar and docks.

    The PNGs come first: they need no image plugin, and Qt picks the nearest size instead of
    scaling one picture. The SVG is the fallback (it needs QtSvg's icon engine). An empty
    QIcon is returned when neither is found, never an exception: a missing icon must not
    stop the app.
    """
    icon = QIcon()
    for size in ICON_SIZES:
        path = resource("icons", f"attnviz-{size}.png")
        if path.is_file():
            icon.addFile(str(path), QSize(size, size))
    if icon.isNull():
        svg = resource("icons", "attnviz.svg")
        if svg.is_file():
            icon = QIcon(str(svg))
    return icon


def install_app_icon(app: QGuiApplication) -> None:
    """Give the whole application its icon and desktop-file identity (call once at start)."""
    app.setWindowIcon(app_icon())
    app.setDesktopFileName(DESKTOP_FILE_NAME)
