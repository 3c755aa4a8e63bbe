"""A slider on a logarithmic scale with a spin box for the exact value.

Temperature (0.01 … 100) and d_k (1 … 1024, powers of two on the slider) span several
orders of magnitude: a linear slider would spend almost all its travel on the top decade.
The spin box beside it accepts any value in range, not only the slider's stops.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QSlider,
    QSpinBox,
    QWidget,
)

from attnviz.ui.widgets.binding import blocked


class LogSlider(QWidget):
    """A log-scale slider plus exact entry.

    Parameters
    ----------
    minimum, maximum : float
        The range (both > 0).
    integer : bool
        Whole values only (a QSpinBox); with ``powers_of_two`` the slider stops at 2^k.
    decimals : int
        Decimals of the spin box when not ``integer``.
    steps : int
        Slider positions between the ends (ignored with ``powers_of_two``).
    parent : QWidget, optional
        Qt parent.

    Signals
    -------
    valueChanged(float)
        Emitted on user edits only, never by :meth:`setValue`.
    """

    valueChanged = Signal(float)  # Qt naming

    def __init__(
        self,
        minimum: float,
        maximum: float,
        *,
        integer: bool = False,
        powers_of_two: bool = False,
        decimals: int = 2,
        steps: int = 400,
        parent=None,
    ) -> None:
        super().__init__(parent)
        if not 0 < minimum < maximum:
            raise ValueError("a log slider needs 0 < minimum < maximum")
        self._min, self._max = float(minimum), float(maximum)
        self._pow2 = powers_of_two
        self._integer = integer
        self._steps = round(math.log2(maximum / minimum)) if powers_of_two else steps
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, self._steps)
        self.slider.setPageStep(max(1, self._steps // 8))
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1 if powers_of_two else max(1, self._steps // 4))
        if integer:
            self.spin = QSpinBox()
            self.spin.setRange(int(minimum), int(maximum))
        else:
            self.spin = QDoubleSpinBox()
            self.spin.setDecimals(decimals)
            self.spin.setRange(minimum, maximum)
            self.spin.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        # Typing "0.5" must not send 0 first: commit on Enter or focus out.
        self.spin.setKeyboardTracking(False)
        self.spin.setAccelerated(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.setFocusProxy(self.slider)
        self.slider.valueChanged.connect(self._on_q_slider)
        self.spin.valueChanged.connect(self._on_q_spin)
        self.setValue(minimum)

    # --- mapping -----------------------------------------------------------------------
    def to_position(self, value: float) -> int:
        """The slider position nearest to ``value``."""
        value = min(max(value, self._min), self._max)
        frac = math.log(value / self._min) / math.log(self._max / self._min)
        return round(frac * self._steps)

    def to_value(self, position: int) -> float:
        """The value at slider ``position`` (a power of two, or rounded to the spin box)."""
        value = self._min * (self._max / self._min) ** (position / self._steps)
        if self._integer:
            return float(round(value))
        return round(value, self.spin.decimals())

    # --- access ------------------------------------------------------------------------
    def value(self) -> float:
        """The exact current value (the spin box's)."""
        return float(self.spin.value())

    def setValue(self, value: float) -> None:
        """Show ``value`` without emitting :attr:`valueChanged`."""
        with blocked(self.slider, self.spin):
            self.spin.setValue(int(round(value)) if self._integer else value)
            self.slider.setValue(self.to_position(value))
        self._tip(value)

    def _tip(self, value: float) -> None:
        tip = self.tr("Exact value: %1").replace("%1", repr(value))
        self.slider.setToolTip(tip)
        self.spin.setToolTip(tip)

    # --- Qt events -----------------------------------------------------------------------
    def _on_q_slider(self, position: int) -> None:
        value = self.to_value(position)
        with blocked(self.spin):
            self.spin.setValue(int(value) if self._integer else value)
        self._tip(value)
        self.valueChanged.emit(value)

    def _on_q_spin(self, value) -> None:
        with blocked(self.slider):
            self.slider.setValue(self.to_position(float(value)))
        self._tip(float(value))
        self.valueChanged.emit(float(value))
