"""The About dialog: name, version, license, and the versions of what attnviz runs on."""

from __future__ import annotations

import html
import importlib.util
import platform
import sys

from PySide6.QtCore import QCoreApplication, Qt, qVersion
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
)

from attnviz.paths import resource
from attnviz.ui.icon import app_icon
from attnviz.version import __version__

#: The notices of every third-party component attnviz runs on or ships.
NOTICES = ("THIRD_PARTY_NOTICES.md",)


def _torch_version() -> str:
    """torch's version if it is already loaded, else whether it is installed.

    Importing torch takes seconds; the About box must open at once, so it only looks.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        return str(getattr(torch, "__version__", "?"))
    if importlib.util.find_spec("torch") is not None:
        return QCoreApplication.translate("AboutDialog", "installed, not loaded")
    return QCoreApplication.translate("AboutDialog", "not installed")


def versions() -> list[tuple[str, str]]:
    """(component, version) rows shown in the dialog, also handy for bug reports."""
    import numpy
    import PySide6

    try:
        import pyqtgraph

        pg_version = pyqtgraph.__version__
    except ImportError:  # the dialog must open even if a plotting import is broken
        pg_version = QCoreApplication.translate("AboutDialog", "not available")
    return [
        ("attnviz", __version__),
        ("Python", platform.python_version()),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("numpy", numpy.__version__),
        ("pyqtgraph", pg_version),
        ("torch", _torch_version()),
    ]


def about_html() -> str:
    """The dialog's rich text: name, version, one-line description, license, versions."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>&nbsp;&nbsp;{html.escape(ver)}</td></tr>"
        for name, ver in versions()
    )
    # Literal translate() calls throughout: pyside6-lupdate cannot see through a helper.
    if getattr(sys, "frozen", False):
        frozen = QCoreApplication.translate("AboutDialog", "packaged app")
    else:
        frozen = QCoreApplication.translate("AboutDialog", "from source")
    running_on = QCoreApplication.translate("AboutDialog", "Running on")
    paragraphs = [
        QCoreApplication.translate(
            "AboutDialog", "Live, touchable panels for the attention mechanism of transformers."
        ),
        QCoreApplication.translate("AboutDialog", "Released under the MIT License."),
        QCoreApplication.translate(
            "AboutDialog",
            "It runs on Qt (LGPL-3.0) through PySide6, numpy, pyqtgraph and "
            "superqt; Licences… lists every third-party component, its licence and how to "
            "replace the Qt libraries.",
        ),
    ]
    return (
        f"<h2>attnviz {html.escape(__version__)}</h2>"
        + "".join(f"<p>{html.escape(text)}</p>" for text in paragraphs)
        + f"<p><b>{html.escape(running_on)}</b> ({html.escape(frozen)})</p>"
        + f"<table>{rows}</table>"
    )


class AboutDialog(QDialog):
    """A small modal dialog with the icon, the text of :func:`about_html` and a Close button."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("AboutDialog")
        self.setWindowTitle(QCoreApplication.translate("AboutDialog", "About attnviz"))
        icon = QLabel()
        icon.setObjectName("aboutIcon")
        icon.setPixmap(app_icon().pixmap(96, 96))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text = QLabel(about_html())
        self.text.setObjectName("aboutText")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        # Selectable, so that a user can paste the versions into a bug report.
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.licences = QPushButton(QCoreApplication.translate("AboutDialog", "&Licences…"))
        self.licences.setObjectName("licencesButton")
        self.licences.clicked.connect(self.show_notices)
        buttons.addButton(self.licences, QDialogButtonBox.ButtonRole.ActionRole)
        self.about_qt = QPushButton(QCoreApplication.translate("AboutDialog", "About &Qt"))
        self.about_qt.setObjectName("aboutQtButton")
        self.about_qt.clicked.connect(lambda: QApplication.aboutQt())
        buttons.addButton(self.about_qt, QDialogButtonBox.ButtonRole.ActionRole)
        self.notices: QDialog | None = None
        top = QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(self.text, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(buttons)

    def show_notices(self) -> NoticesDialog:
        """Open the third-party notices beside the About box (not blocking)."""
        self.notices = NoticesDialog(self)
        self.notices.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.notices.open()
        return self.notices


def notices_text() -> str:
    """The third-party notices (Markdown), or a line saying where they should have been."""
    path = resource(*NOTICES)
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return QCoreApplication.translate(
            "AboutDialog", "The third-party notices are missing from this installation (%1)."
        ).replace("%1", str(path))


class NoticesDialog(QDialog):
    """The third-party notices, with their licences and how to replace the Qt libraries."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("NoticesDialog")
        self.setWindowTitle(QCoreApplication.translate("AboutDialog", "Third-party licences"))
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(True)
        self.text.setMarkdown(notices_text())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(720, 560)


def show_about(parent=None) -> AboutDialog:
    """Open the About dialog, modal to ``parent``, without blocking; return it.

    ``open()`` rather than ``exec()``: a nested event loop would stall the live panels (and
    tests) while the box is up.
    """
    dialog = AboutDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog
