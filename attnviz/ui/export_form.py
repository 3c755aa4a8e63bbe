"""The rows of an export dialog that set the picture: size, theme and background.

File → Export… (:mod:`attnviz.ui.export_dialog`) and File → Export Animation…
(:mod:`attnviz.ui.animation_dialog`) both ask for them; :class:`PictureForm` builds them
once. Its rows go into the dialog's own :class:`~PySide6.QtWidgets.QFormLayout` rather than
a nested form, so that their labels line up with the dialog's other rows and Tab walks them
in the order they are shown.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QSpinBox

from attnviz.ui.export import SIZE_RANGE, ExportSpec

#: (width, height) offered; None = custom.
SIZES = ((1920, 1080), (3840, 2160), (1280, 720), (1080, 1080), None)


class PictureForm(QObject):
    """The size (a preset, or a custom width × height), the theme and the transparency.

    Parameters
    ----------
    form : QFormLayout
        The dialog's form. Four rows are added to its end: the size presets, the width and
        height in pixels, the theme and the "transparent background" box.
    theme : str
        ``"light"`` or ``"dark"``: the theme chosen at first.
    labels : tuple of str
        The size row's label, the theme row's label and the box's text, translated by the
        dialog: each dialog gives them the accelerators (``&``) its other rows leave free.
    parent : QObject, optional
        The dialog.

    Attributes
    ----------
    size, width_spin, height_spin, theme, transparent
        The widgets, named ``size``, ``width``, ``height``, ``theme`` and ``transparent``.
    """

    def __init__(
        self, form: QFormLayout, theme: str, labels: tuple[str, str, str], parent=None
    ) -> None:
        super().__init__(parent)
        size_label, theme_label, transparent_text = labels
        self.size = QComboBox()
        self.size.setObjectName("size")
        for size in SIZES:
            self.size.addItem(self.tr("Custom") if size is None else f"{size[0]} × {size[1]}", size)
        self.size.currentIndexChanged.connect(self._on_q_size_changed)
        self.width_spin, self.height_spin = QSpinBox(), QSpinBox()
        row = QHBoxLayout()
        for spin, value, name in (
            (self.width_spin, 1920, "width"),
            (self.height_spin, 1080, "height"),
        ):
            spin.setObjectName(name)
            spin.setRange(*SIZE_RANGE)
            spin.setValue(value)
            spin.setSuffix(" px")
            row.addWidget(spin)
        form.addRow(size_label, self.size)
        form.addRow("", row)
        self.theme = QComboBox()
        self.theme.setObjectName("theme")
        self.theme.addItem(self.tr("Light"), "light")
        self.theme.addItem(self.tr("Dark"), "dark")
        self.theme.setCurrentIndex(1 if theme == "dark" else 0)
        form.addRow(theme_label, self.theme)
        self.transparent = QCheckBox(transparent_text)
        self.transparent.setObjectName("transparent")
        form.addRow("", self.transparent)
        self._on_q_size_changed(0)

    def name_widgets_on(self, dialog) -> None:
        """Give ``dialog`` the rows' widgets as attributes, under the names its tests and
        scripts know them by: ``size``, ``width_spin``, ``height_spin``, ``theme``,
        ``transparent``."""
        for name in ("size", "width_spin", "height_spin", "theme", "transparent"):
            setattr(dialog, name, getattr(self, name))

    def spec(self, **more) -> ExportSpec:
        """The :class:`ExportSpec` of the size, theme and background chosen.

        Parameters
        ----------
        **more
            Further fields of the spec (``matrix``, ``title``).
        """
        return ExportSpec(
            width=self.width_spin.value(),
            height=self.height_spin.value(),
            theme=self.theme.currentData(),
            transparent=self.transparent.isChecked(),
            **more,
        )

    def set_enabled(self, enabled: bool) -> None:
        """Enable or disable every row; width and height stay off unless the size is custom."""
        for widget in (self.size, self.width_spin, self.height_spin, self.theme, self.transparent):
            widget.setEnabled(enabled)
        if enabled:
            self._on_q_size_changed(self.size.currentIndex())

    def _on_q_size_changed(self, index: int) -> None:
        size = self.size.itemData(index)
        for spin in (self.width_spin, self.height_spin):
            spin.setEnabled(size is None)
        if size is not None:
            self.width_spin.setValue(size[0])
            self.height_spin.setValue(size[1])
