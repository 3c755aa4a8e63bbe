"""The ablation map: layers × heads of Δ log p(target) with that one head zero-ablated.

A :class:`~attnviz.ui.widgets.matrix_view.MatrixView` (diverging colours centred on 0, the
value in each cell when it fits, the colour scale under it) whose masked cells are the
layers that are not softmax attention (NaN in the map: hatched, never a colour), whose
tooltip gives a cell's exact values, which outlines the heads switched off now, and which
says which cell was clicked (``sigClicked(layer, head)``).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPen

from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.numbers import exact, fmt
from attnviz.ui.widgets.placeholders import fill


class AblationMapView(MatrixView):
    """Δ log p(target) per (layer, head); click a cell to switch that head off or on."""

    sigClicked = Signal(int, int)
    WRAP_TITLE = True  # it names the target token: long in a narrow dock

    def __init__(self, parent=None) -> None:
        super().__init__("Δ", parent)
        self.setObjectName("ablation_map")
        self.target = ""  # the target token's text
        self.clean_logp = 0.0
        self.marked: frozenset = frozenset()  # (layer, head) switched off now
        self.copying = np.zeros((0, 0))  # copy accuracy with the head off, where known
        self.copy_count = 0  # the sentence's copyable tokens
        self.copy_clean = math.nan  # copy accuracy with nothing off
        self.shows_copying = False  # the cells are Δ copy accuracy, not Δ log p

    def set_map(
        self, values: np.ndarray, target: str, clean_logp: float, copying=None, copy_count=0
    ) -> None:
        """Show ``values`` (layers × heads, NaN: not softmax attention) for ``target``;
        the hover also says ``copying`` (copy accuracy on the sentence with the head off,
        over ``copy_count`` copyable tokens) where given."""
        values = np.asarray(values, dtype=np.float64)
        self.copying = np.zeros((0, 0)) if copying is None else np.asarray(copying, float)
        self.copy_count = int(copy_count)
        self.shows_copying = False
        self.target, self.clean_logp = target, float(clean_logp)
        layers, heads = values.shape
        self.set_matrix(
            values,
            allowed=np.isfinite(values),
            rows=[fill(self.tr("L%1"), i) for i in range(layers)],
            columns=[fill(self.tr("H%1"), h) for h in range(heads)],
        )

    def set_copying(self, copying: np.ndarray, clean: float, count: int) -> None:
        """Show copy accuracy with each head off minus ``clean`` (nothing off), over
        ``count`` copyable tokens (layers × heads; NaN: not softmax attention)."""
        self.copying = np.asarray(copying, dtype=np.float64)
        self.copy_clean, self.copy_count = float(clean), int(count)
        self.target, self.shows_copying = "", True
        layers, heads = self.copying.shape
        delta = self.copying - self.copy_clean
        self.set_matrix(
            delta,
            allowed=np.isfinite(delta),
            rows=[fill(self.tr("L%1"), i) for i in range(layers)],
            columns=[fill(self.tr("H%1"), h) for h in range(heads)],
        )

    def clear_map(self) -> None:
        """Show nothing (no map for the current inputs)."""
        self.target = ""
        self.copying, self.copy_count = np.zeros((0, 0)), 0
        self.shows_copying = False
        self.set_matrix(np.zeros((0, 0)))

    def set_marked(self, heads) -> None:
        """Outline the cells of ``heads`` ((layer, head) pairs switched off now)."""
        marked = frozenset((int(a), int(b)) for a, b in heads)
        if marked != self.marked:
            self.marked = marked
            self.update()

    # --- hover and click ---------------------------------------------------------------
    def hover_text(self, row: int, col: int) -> str:
        values = self.values()
        if values.size == 0 or not (0 <= row < values.shape[0] and 0 <= col < values.shape[1]):
            return ""
        value = float(values[row, col])
        if self.shows_copying and math.isfinite(value):
            copied = float(self.copying[row, col])
            return fill(
                self.tr(
                    "layer %1, head %2 zero-ablated: it copies %3 of the %4 copyable tokens "
                    "(%5; %6 with nothing off, Δ %7); %8"
                ),
                row,
                col,
                round(copied * self.copy_count),
                self.copy_count,
                fmt(copied, 4),
                fmt(self.copy_clean, 4),
                exact(value),
                self._action(row, col),
            )
        if not math.isfinite(value):
            return fill(
                self.tr("layer %1, head %2: not softmax attention, no head to switch off"),
                row,
                col,
            )
        before = math.exp(self.clean_logp)
        after = math.exp(self.clean_logp + value)
        action = self._action(row, col)
        text = fill(
            self.tr("layer %1, head %2 zero-ablated: Δ log p(“%3”) = %4; p %5 → %6; %7"),
            row,
            col,
            self.target,
            exact(value),
            fmt(before, 6),
            fmt(after, 6),
            action,
        )
        if row < self.copying.shape[0] and col < self.copying.shape[1]:
            copied = float(self.copying[row, col])
            if math.isfinite(copied):
                text += fill(
                    self.tr("; it copies %1 of the %2 copyable tokens (%3)"),
                    round(copied * self.copy_count),
                    self.copy_count,
                    fmt(copied, 4),
                )
        return text

    def _action(self, row: int, col: int) -> str:
        if (row, col) in self.marked:
            return self.tr("click to switch it on again")
        return self.tr("click to switch it off")

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            row, col = self.cell_at(event.position())
            if self.clickable(row, col):
                self.sigClicked.emit(row, col)
                event.accept()
                return
        super().mousePressEvent(event)

    def clickable(self, row: int, col: int) -> bool:
        """True when ``(row, col)`` is a head of a softmax layer."""
        values = self.values()
        return (
            values.size > 0
            and 0 <= row < values.shape[0]
            and 0 <= col < values.shape[1]
            and bool(np.isfinite(values[row, col]))
        )

    def cell_rect(self, row: int, col: int) -> QRectF:
        """Where cell ``(row, col)`` is drawn."""
        grid, cw, ch = self._grid()
        return QRectF(grid.left() + col * cw, grid.top() + row * ch, cw, ch)

    # --- painting ----------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        super()._paint(painter)
        values = self.values()
        if not self.marked or values.size == 0:
            return
        pen = QPen(self.palette().windowText().color(), 2.5)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for row, col in self.marked:
            if 0 <= row < values.shape[0] and 0 <= col < values.shape[1]:
                painter.drawRect(self.cell_rect(row, col).adjusted(1.5, 1.5, -1.5, -1.5))
