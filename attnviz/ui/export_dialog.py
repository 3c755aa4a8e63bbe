"""File → Export…: the heatmap as PNG/SVG at slide size, or its matrix as CSV/NPY.

The dialog only gathers an :class:`~attnviz.ui.export.ExportSpec` and a file name; the
writing is done by :mod:`attnviz.ui.export`, the same code ``attnviz export`` runs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
)

from attnviz.model.topics.attention import MATRICES
from attnviz.ui.export import ExportError, ExportSpec, copy_to_clipboard, export
from attnviz.ui.export_form import PictureForm


class ExportDialog(QDialog):
    """Choose format, matrix, size, theme and background, then save or copy."""

    def __init__(self, state, resolver, theme: str = "light", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("export_dialog")
        self.setWindowTitle(self.tr("Export Heatmap"))
        self.state, self.resolver = state, resolver
        form = QFormLayout(self)
        self.format = QComboBox()
        self.format.setObjectName("format")
        for ext, text in (
            ("png", self.tr("PNG image (exact pixel size)")),
            ("svg", self.tr("SVG vector drawing")),
            ("csv", self.tr("CSV table of the matrix (with token headers)")),
            ("npy", self.tr("NumPy .npy array of the matrix")),
        ):
            self.format.addItem(text, ext)
        self.format.currentIndexChanged.connect(self._on_q_format_changed)
        form.addRow(self.tr("&Format"), self.format)
        self.matrix = QComboBox()
        self.matrix.setObjectName("matrix")
        names = {
            "scores": self.tr("S  scores"),
            "weights": self.tr("A  weights"),
            "output": self.tr("O  output"),
            "mixing": self.tr("M  mixing"),
        }
        for name in MATRICES:
            self.matrix.addItem(names[name], name)
        self.matrix.setCurrentIndex(MATRICES.index(state.matrix))
        form.addRow(self.tr("&Matrix"), self.matrix)
        self.picture = PictureForm(
            form,
            theme,
            (self.tr("&Size"), self.tr("&Theme"), self.tr("Transparent background")),
            self,
        )
        self.picture.name_widgets_on(self)
        self.title = QLineEdit()
        self.title.setPlaceholderText(self.tr("automatic: the formula and the preset's title"))
        form.addRow(self.tr("T&itle"), self.title)
        self.note = QLabel()
        self.note.setWordWrap(True)
        form.addRow(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = buttons.addButton(
            self.tr("&Save…"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.copy_button = buttons.addButton(
            self.tr("&Copy Image"), QDialogButtonBox.ButtonRole.ActionRole
        )
        self.save_button.clicked.connect(self._on_q_save)
        self.copy_button.clicked.connect(self._on_q_copy)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._on_q_format_changed(0)

    def spec(self) -> ExportSpec:
        """The export the dialog describes now."""
        return self.picture.spec(matrix=self.matrix.currentData(), title=self.title.text() or None)

    def _on_q_format_changed(self, _index: int) -> None:
        figure = self.format.currentData() in ("png", "svg")
        self.picture.set_enabled(figure)
        self.title.setEnabled(figure)
        self.note.setText(
            self.tr("The image is exactly this many pixels, whatever the screen.")
            if figure
            else self.tr("Numbers are written in full precision; rows are queries.")
        )

    def _on_q_save(self) -> None:
        ext = self.format.currentData()
        settings = QSettings()
        folder = str(settings.value("export/folder", str(Path.home())))
        name = f"{self.state.preset_id or 'attnviz'}-{self.matrix.currentData()}.{ext}"
        path, _filter = QFileDialog.getSaveFileName(
            self, self.tr("Export Heatmap"), str(Path(folder) / name), f"*.{ext}"
        )
        if not path:
            return
        if not path.lower().endswith(f".{ext}"):
            path += f".{ext}"
        try:
            export(self.state, self.resolver.results, path, self.spec())
        except ExportError as exc:
            QMessageBox.warning(self, self.tr("Export failed"), str(exc))
            return
        settings.setValue("export/folder", str(Path(path).parent))
        self.accept()

    def _on_q_copy(self) -> None:
        try:
            copy_to_clipboard(self.state, self.resolver.results, self.spec())
        except ExportError as exc:
            QMessageBox.warning(self, self.tr("Copy failed"), str(exc))
            return
        self.note.setText(self.tr("Copied to the clipboard."))
