"""The controls panel: scaling, temperature, the matrix shown, colours, levels and masks.

Every control writes the state and nothing else; the heatmap and the steps follow from
the state's events. Slider drags are throttled so the state is written at most about
60 times a second, always with the latest value.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
)
from superqt.utils import qthrottled

from attnviz.model.topics.attention import COLORMAPS, MATRICES, TEMPERATURE_RANGE
from attnviz.ui.widgets.log_slider import LogSlider
from attnviz.ui.widgets.mask_box import MaskBox
from attnviz.ui.widgets.state_panel import StatePanel, blocked

#: Write at most once per frame of a 60 Hz display while a slider is dragged.
THROTTLE_MS = 16

# QT_TRANSLATE_NOOP below spells the context out: pyside6-lupdate does not resolve _C.
_C = "ControlsPanel"
_MATRIX_TEXT = {
    "scores": (
        QT_TRANSLATE_NOOP("ControlsPanel", "S  scores  QKᵀ / √d_k"),
        QT_TRANSLATE_NOOP("ControlsPanel", "S: the scaled score of every query with every key"),
    ),
    "weights": (
        QT_TRANSLATE_NOOP("ControlsPanel", "A  weights  softmax(S)"),
        QT_TRANSLATE_NOOP(
            "ControlsPanel", "A: each row is a probability distribution over the keys"
        ),
    ),
    "output": (
        QT_TRANSLATE_NOOP("ControlsPanel", "O  output  A·V"),
        QT_TRANSLATE_NOOP("ControlsPanel", "O: each query's weighted mix of the values"),
    ),
}
_COLORMAP_TEXT = {"diverging": QT_TRANSLATE_NOOP("ControlsPanel", "diverging (for scores)")}


class ControlsPanel(StatePanel):
    """√d_k on/off, temperature, matrix, colormap, levels and every mask kind."""

    PANEL_ID = "controls"
    ORDER = 10
    AREA = "left"
    TITLE = QT_TRANSLATE_NOOP("ControlsPanel", "Controls")

    def __init__(self, state, resolver, parent=None) -> None:
        super().__init__(state, resolver, parent)
        layout = QVBoxLayout()
        layout.addWidget(self._build_scores())
        layout.addWidget(self._build_view())
        self.masks = MaskBox(self)
        layout.addWidget(self.masks)
        layout.addStretch(1)
        self._write_temperature = qthrottled(
            self._write_temperature_now, timeout=THROTTLE_MS, parent=self
        )
        self._write_levels = qthrottled(self._write_levels_now, timeout=THROTTLE_MS, parent=self)
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_scores(self) -> QGroupBox:
        box = QGroupBox(self.tr("Scores"))
        form = QFormLayout(box)
        self.scale = QCheckBox(self.tr("Divide scores by √d_k"))
        self.scale.setToolTip(
            self.tr("Without the divisor, large d_k makes the softmax a hard argmax")
        )
        self.scale.toggled.connect(self._on_q_scale)
        form.addRow(self.scale)
        lo, hi = TEMPERATURE_RANGE
        self.temperature = LogSlider(lo, hi, decimals=3)
        self.temperature.spin.setPrefix("T = ")
        self.temperature.valueChanged.connect(self._on_q_temperature)
        reset = QToolButton()
        reset.setText(self.tr("T = 1"))
        reset.setToolTip(self.tr("Back to the plain softmax (temperature 1)"))
        reset.clicked.connect(lambda: self._write(self.temperature, temperature=1.0))
        row = QHBoxLayout()
        row.addWidget(self.temperature, 1)
        row.addWidget(reset)
        label = QLabel(self.tr("Te&mperature"))
        label.setBuddy(self.temperature)
        label.setToolTip(self.tr("Scores are divided by T: below 1 sharpens, above 1 flattens"))
        form.addRow(label, row)
        return box

    def _build_view(self) -> QGroupBox:
        box = QGroupBox(self.tr("Show"))
        form = QFormLayout(box)
        self.matrix = QButtonGroup(self)
        col = QVBoxLayout()
        for i, name in enumerate(MATRICES):
            text, tip = _MATRIX_TEXT[name]
            button = QRadioButton(QCoreApplication.translate(_C, text))
            button.setToolTip(QCoreApplication.translate(_C, tip))
            button.setObjectName(f"matrix_{name}")
            self.matrix.addButton(button, i)
            col.addWidget(button)
        self.matrix.idClicked.connect(self._on_q_matrix)
        form.addRow(self.tr("Matrix"), col)
        self.colormap = QComboBox()
        for name in COLORMAPS:
            self.colormap.addItem(
                QCoreApplication.translate(_C, _COLORMAP_TEXT.get(name, name)), name
            )
        self.colormap.activated.connect(self._on_q_colormap)
        label = QLabel(self.tr("&Colormap"))
        label.setBuddy(self.colormap)
        form.addRow(label, self.colormap)
        self.levels_auto = QCheckBox(self.tr("Automatic levels"))
        self.levels_auto.setToolTip(self.tr("Stretch the colours over the data, or fix them below"))
        self.levels_auto.toggled.connect(self._on_q_levels_auto)
        form.addRow(self.levels_auto)
        self.level_low, self.level_high = QDoubleSpinBox(), QDoubleSpinBox()
        for spin, prefix in (
            (self.level_low, self.tr("low ")),
            (self.level_high, self.tr("high ")),
        ):
            spin.setRange(-1e6, 1e6)
            spin.setDecimals(3)
            spin.setSingleStep(0.05)
            spin.setPrefix(prefix)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._on_q_levels)
        row = QHBoxLayout()
        row.addWidget(self.level_low)
        row.addWidget(self.level_high)
        form.addRow(self.tr("Levels"), row)
        return box

    # --- model → view ------------------------------------------------------------------
    def _on_scale_changed(self) -> None:
        with blocked(self.scale):
            self.scale.setChecked(self.state.scale)

    def _on_temperature_changed(self) -> None:
        self.temperature.setValue(self.state.temperature)

    def _on_matrix_changed(self) -> None:
        with blocked(self.matrix):
            self.matrix.button(MATRICES.index(self.state.matrix)).setChecked(True)

    def _on_colormap_changed(self) -> None:
        with blocked(self.colormap):
            self.colormap.setCurrentIndex(self.colormap.findData(self.state.colormap))

    def _on_levels_auto_changed(self) -> None:
        with blocked(self.levels_auto):
            self.levels_auto.setChecked(self.state.levels_auto)
        self.level_low.setEnabled(not self.state.levels_auto)
        self.level_high.setEnabled(not self.state.levels_auto)

    def _on_levels_changed(self) -> None:
        lo, hi = self.state.levels
        with blocked(self.level_low, self.level_high):
            self.level_low.setValue(lo)
            self.level_high.setValue(hi)
        for spin, value in ((self.level_low, lo), (self.level_high, hi)):
            spin.setToolTip(self.tr("Exact value: %1").replace("%1", repr(value)))

    def _on_tokens_changed(self) -> None:
        self.masks.refresh()

    _on_causal_changed = _on_padding_changed = _on_segments_changed = _on_tokens_changed
    _on_window_changed = _on_window_causal_changed = _on_tokens_changed

    # --- view → model ------------------------------------------------------------------
    def _on_q_scale(self, on: bool) -> None:
        self._write(self.scale, scale=on)

    def _on_q_temperature(self, value: float) -> None:
        self._write_temperature(value)

    def _write_temperature_now(self, value: float) -> None:
        self._write(self.temperature, temperature=value)

    def _on_q_matrix(self, index: int) -> None:
        self._write(self.matrix.button(index), matrix=MATRICES[index])

    def _on_q_colormap(self, index: int) -> None:
        self._write(self.colormap, colormap=self.colormap.itemData(index))

    def _on_q_levels_auto(self, on: bool) -> None:
        if on:
            self._write(self.levels_auto, levels_auto=True)
            return
        # Fix the levels where automatic ones were, so the picture does not jump.
        data = self.resolver.results.matrix(self.state.matrix)
        finite = data[np.isfinite(data)]
        values = {"levels_auto": False}
        if finite.size and finite.min() < finite.max():
            values["levels"] = (float(finite.min()), float(finite.max()))
        self._write(self.levels_auto, **values)

    def _on_q_levels(self, _value: float) -> None:
        self._write_levels(self.level_low.value(), self.level_high.value())

    def _write_levels_now(self, low: float, high: float) -> None:
        self._write(self.level_high, levels=(low, high))
