"""A read-only table of numbered steps in large type, with masked cells hatched."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont, QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from attnviz.ui.widgets.numbers import exact, fmt_row

#: Size of the step numbers relative to the application font: read from the back row.
FONT_SCALE = 1.5


def scaled_font(font: QFont, factor: float, *, bold: bool = False) -> QFont:
    """A copy of ``font`` enlarged by ``factor`` (points or pixels, whichever it uses)."""
    out = QFont(font)
    if out.pointSizeF() > 0:
        out.setPointSizeF(out.pointSizeF() * factor)
    else:
        out.setPixelSize(round(out.pixelSize() * factor))
    out.setBold(bold)
    return out


class StepsTable(QTableWidget):
    """Rows of numbers under column headers, sized to show every row without scrolling."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFont(scaled_font(self.font(), FONT_SCALE))
        self.horizontalHeader().setFont(scaled_font(self.font(), 1.0, bold=True))
        self.verticalHeader().setFont(scaled_font(self.font(), 0.8, bold=True))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setWordWrap(False)

    def show_rows(self, headers, rows, allowed) -> None:
        """Show ``rows`` = [(label, values, texts or None)] under ``headers``.

        ``allowed`` (bool per column, or None) marks masked columns: they are hatched and
        their tooltips say so. The largest entry of the last row is set in bold.
        """
        self.setUpdatesEnabled(False)
        try:
            self.setColumnCount(len(headers))
            self.setRowCount(len(rows))
            self.setHorizontalHeaderLabels(list(headers))
            self.setVerticalHeaderLabels([label for label, _, _ in rows])
            hatch = QBrush(self.palette().color(QPalette.ColorRole.Mid), Qt.BrushStyle.BDiagPattern)
            muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
            for r, (_label, values, texts) in enumerate(rows):
                values = np.asarray(values, dtype=float)
                texts = texts or fmt_row(values)
                best = int(np.argmax(values)) if r == len(rows) - 1 and values.size else -1
                for c, (value, text) in enumerate(zip(values, texts, strict=True)):
                    item = self.item(r, c)
                    if item is None:
                        item = QTableWidgetItem()
                        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                        self.setItem(r, c, item)
                    item.setText(text)
                    masked = allowed is not None and not allowed[c]
                    font = QFont(self.font())
                    font.setBold(c == best and not masked)
                    font.setItalic(masked)
                    item.setFont(font)
                    item.setBackground(hatch if masked else QBrush())
                    item.setForeground(QBrush(muted) if masked else QBrush())
                    tip = exact(value)
                    if masked:
                        tip = self.tr("masked: the query may not attend to this key (%1)")
                        tip = tip.replace("%1", exact(value))
                    item.setToolTip(tip)
        finally:
            self.setUpdatesEnabled(True)
        self.updateGeometry()

    def texts(self) -> list[list[str]]:
        """Every cell's text, row by row."""
        return [
            [self.item(r, c).text() for c in range(self.columnCount())]
            for r in range(self.rowCount())
        ]

    def header_texts(self) -> list[str]:
        """The column headers."""
        return [self.horizontalHeaderItem(c).text() for c in range(self.columnCount())]

    def row_labels(self) -> list[str]:
        """The row headers."""
        return [self.verticalHeaderItem(r).text() for r in range(self.rowCount())]
