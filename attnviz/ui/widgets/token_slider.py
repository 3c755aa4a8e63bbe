"""A context-length control: a log slider over token counts and a box that reads ``128k``.

The slider stops at 2^k and 3·2^(k−1) (…, 96k, 128k, 192k, 256k, …) from 1 to 2^24 tokens,
so the models' native contexts are exact stops; the box takes any count
:func:`attnviz.core.kvcache.parse_tokens` reads (``131072``, ``131,072``, ``128k``, ``1M``)
and shows the value with its short form.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QSlider, QWidget

from attnviz.core.kvcache import parse_tokens
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.numbers import counted, qt_count
from attnviz.ui.widgets.units import tokens

#: The slider's stops.
STOPS = tuple(sorted({2**k for k in range(25)} | {3 * 2**k for k in range(23)}))


class TokenSlider(QWidget):
    """Slider and text box for a token count.

    Signals
    -------
    valueEdited(int)
        A count the user chose (slider or box); never emitted by :meth:`setValue`.
    textRejected(str)
        The box held text that is not a token count; the message says why.
    """

    valueEdited = Signal(object)  # (Qt naming); object: counts pass 2^31
    textRejected = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._value = 1
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, len(STOPS) - 1)
        self.slider.setPageStep(2)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(6)
        self.box = QLineEdit()
        self.box.setObjectName("context_text")
        self.box.setMaxLength(40)
        self._fit_box()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 3)
        layout.addWidget(self.box, 2)
        self.setFocusProxy(self.slider)
        self.slider.valueChanged.connect(self._on_q_slider)
        self.box.editingFinished.connect(self._on_q_box)

    def _fit_box(self) -> None:
        fm = self.box.fontMetrics()
        self.box.setMinimumWidth(round(fm.horizontalAdvance(" 1,048,576 (1M) ") + fm.height()))

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        self._fit_box()  # the box's width follows the font

    @staticmethod
    def to_position(value: int) -> int:
        """The stop nearest to ``value`` on a log scale."""
        v = math.log(max(int(value), 1))
        return min(range(len(STOPS)), key=lambda i: abs(math.log(STOPS[i]) - v))

    def value(self) -> int:
        """The count shown."""
        return self._value

    def setValue(self, value: int) -> None:  # Qt naming
        """Show ``value`` without emitting :attr:`valueEdited`."""
        self._value = int(value)
        with blocked(self.slider, self.box):
            self.slider.setValue(self.to_position(value))
            self.box.setText(tokens(value))
        exact = counted(self.tr("%n token(s)", "", qt_count(value)), int(value))
        tip = self.tr("Exact value: %1; type 131072, 128k or 1M")
        self.box.setToolTip(tip.replace("%1", exact))

    def _on_q_slider(self, position: int) -> None:
        value = STOPS[position]
        self._value = value
        with blocked(self.box):
            self.box.setText(tokens(value))
        self.valueEdited.emit(value)

    def _on_q_box(self) -> None:
        text = self.box.text()
        if text == tokens(self._value):
            return
        try:
            value = parse_tokens(text)
        except ValueError as exc:
            self.textRejected.emit(str(exc))
            self.setValue(self._value)
            return
        self._value = value
        with blocked(self.slider):
            self.slider.setValue(self.to_position(value))
        self.valueEdited.emit(value)
