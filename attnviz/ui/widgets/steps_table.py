"""A read-only table of numbered steps in large type, with masked cells hatched.

Columns stretch to the panel when they fit and scroll when they do not; the table is
exactly as tall as its rows, so the steps below it never drift down the panel.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QTableWidget,
    QTableWidgetItem,
)

from attnviz.ui.widgets.binding import scaled_font
from attnviz.ui.widgets.numbers import exact, fmt_row

#: Item data role holding the fraction (0…1) of a cell drawn as a bar behind its number.
BAR_ROLE = Qt.ItemDataRole.UserRole + 1


class BarDelegate(QStyledItemDelegate):
    """Paints a weight as a bar filling that fraction of its cell, then the number on top."""

    def paint(self, painter, option, index) -> None:
        fraction = index.data(BAR_ROLE)
        if fraction is not None:
            color = QColor(option.palette.color(QPalette.ColorRole.Highlight))
            color.setAlpha(110)
            rect = QRectF(option.rect)
            rect.setWidth(rect.width() * float(min(max(fraction, 0.0), 1.0)))
            painter.fillRect(rect, color)
        super().paint(painter, option, index)


class StepsTable(QTableWidget):
    """Rows of numbers under column headers, sized to show every row without scrolling."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setWordWrap(False)
        self.setItemDelegate(BarDelegate(self))
        self._header_fonts()

    def _header_fonts(self) -> None:
        self.horizontalHeader().setFont(scaled_font(self.font(), 0.8, bold=True))
        self.verticalHeader().setFont(scaled_font(self.font(), 0.75, bold=True))

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._header_fonts()
            self._fit()
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # Only the table's width decides how the columns fit; the height is the table's own
        # (``_fit`` sets it, and the layout passes of a window being opened resize it often).
        # The viewport's resizes come here too, and a fit moves the viewport's edge (the row
        # labels' width): refitting for those swung the columns back and forth for ever.
        if self.width() != getattr(self, "_fitted_width", None):
            self._fit()

    def show_rows(self, headers, rows, allowed, *, bars: bool = False) -> None:
        """Show ``rows`` = [(label, values, texts or None)] under ``headers``.

        ``allowed`` (bool per column, or None) marks masked columns: they are hatched and
        their tooltips say so. The largest entry of the last row is set in bold, and with
        ``bars`` each entry of the last row is underlaid with a bar of its size (0…1).
        """
        self.setUpdatesEnabled(False)
        try:
            self.setColumnCount(len(headers))
            self.setRowCount(len(rows))
            self._headers = list(headers)
            self.setHorizontalHeaderLabels(self._headers)
            self.setVerticalHeaderLabels([label for label, _, _ in rows])
            pal = self.palette()
            hatch = QBrush(pal.color(QPalette.ColorRole.Mid), Qt.BrushStyle.BDiagPattern)
            muted = pal.color(QPalette.ColorRole.PlaceholderText)
            for r, (_label, values, texts) in enumerate(rows):
                values = np.asarray(values, dtype=float)
                texts = texts or fmt_row(values)
                last = r == len(rows) - 1
                finite = np.isfinite(values)
                # A naive softmax's overflow may leave NaN in the last row: then no entry
                # is the largest.
                best = -1
                if last and finite.all():
                    best = int(np.argmax(np.where(finite, values, -np.inf)))
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
                    barred = bars and last and not masked and np.isfinite(value)
                    item.setData(BAR_ROLE, float(value) if barred else None)
                    item.setForeground(QBrush(muted) if masked else QBrush())
                    tip = exact(value)
                    if masked:
                        tip = self.tr("masked: the query may not attend to this key (%1)")
                        tip = tip.replace("%1", exact(value))
                    item.setToolTip(tip)
        finally:
            self.setUpdatesEnabled(True)
        self._fit()

    def _fit(self) -> None:
        """Stretch the columns when their contents fit, and fit the height to the rows.

        When they do not, the margins tighten and the headers drop their position
        ("2: praça" → "praça", whole in the tooltip) before the table scrolls sideways.
        """
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self._fitted_width = self.width()
        for tight in (False, True):
            self._label_headers(short=tight)
            self._size_columns(tight)
            spare = self._columns_room() - header.length()
            if spare >= 0:
                break
        fits = spare >= 0
        if fits and self.columnCount():
            # Share the spare room out, so that no column gets less than its contents
            # (equal stretching would cut a long header such as "4: dinheiro").
            share, rest = divmod(spare, self.columnCount())
            for c in range(self.columnCount()):
                self.setColumnWidth(c, self.columnWidth(c) + share + (c < rest))
        self.resizeRowsToContents()  # row heights are otherwise measured lazily
        air = self.fontMetrics().height() // 4  # a little air between the rows of numbers
        for r in range(self.rowCount()):
            self.setRowHeight(r, self.rowHeight(r) + air)
        scroll = 0 if fits else self.horizontalScrollBar().sizeHint().height()
        height = header.sizeHint().height() + self.verticalHeader().length() + 2 * self.frameWidth()
        self.setFixedHeight(height + scroll)

    def _columns_room(self) -> int:
        """The width the columns will have beside the row labels just sized: the viewport's
        once Qt lays the view out again (until then it is the old one's)."""
        rows = self.verticalHeader()
        labels = min(max(rows.minimumWidth(), rows.sizeHint().width()), rows.maximumWidth())
        return self.contentsRect().width() - (0 if rows.isHidden() else labels)

    def _label_headers(self, *, short: bool) -> None:
        """The column headers as given, or without their "i: " position when ``short``."""
        for c, full in enumerate(getattr(self, "_headers", [])[: self.columnCount()]):
            item = self.horizontalHeaderItem(c)
            if item is None:
                continue
            text = full.split(": ", 1)[1] if short and ": " in full else full
            if item.text() != text:
                item.setText(text)
            item.setToolTip(full)

    def _size_columns(self, tight: bool) -> None:
        # Qt's own measure leaves a few pixels too few for bold labels: "① score q·k…".
        self.verticalHeader().setMinimumWidth(self.row_header_width(tight=tight))
        self.resizeColumnsToContents()
        pad = self.fontMetrics().horizontalAdvance("0") // (2 if tight else 1)
        bold = self.horizontalHeader().fontMetrics()
        for c in range(self.columnCount()):
            item = self.horizontalHeaderItem(c)
            title = bold.horizontalAdvance(item.text()) + 2 * pad if item else 0
            self.setColumnWidth(c, max(self.columnWidth(c) + pad, title))

    def row_header_width(self, labels=None, *, tight: bool = False) -> int:
        """The width of the row labels' column (as :meth:`_size_columns` sets it), for
        the rows shown or the given ``labels``."""
        if labels is None:
            items = [self.verticalHeaderItem(r) for r in range(self.rowCount())]
            labels = [i.text() for i in items if i is not None]
        metrics = self.verticalHeader().fontMetrics()
        widest = max((metrics.horizontalAdvance(text) for text in labels), default=0)
        return widest + (1 if tight else 2) * metrics.horizontalAdvance("M")

    def column_width(self, texts, header: str, *, tight: bool = False) -> int:
        """The width a column of ``texts`` under ``header`` takes (as :meth:`_size_columns`
        sizes it), in the table's fonts; for columns not shown yet."""
        pad = self.fontMetrics().horizontalAdvance("0") // (2 if tight else 1)
        bold = QFont(self.font())
        bold.setBold(True)  # the largest entry is set in bold
        cells = max((QFontMetrics(bold).horizontalAdvance(t) for t in texts), default=0)
        margin = 2 * (self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
        title = self.horizontalHeader().fontMetrics().horizontalAdvance(header) + 2 * pad
        return max(cells + margin + pad, title)

    def natural_width(self, *, tight: bool = False) -> int:
        """The width that shows every column with its header without scrolling: whole
        ("2: praça"), or ``tight`` as a narrow table shows them ("praça", less padding)."""
        headers = list(getattr(self, "_headers", []))
        columns = 0
        for c in range(self.columnCount()):
            full = headers[c] if c < len(headers) else ""
            header = full.split(": ", 1)[1] if tight and ": " in full else full
            texts = [self.item(r, c).text() for r in range(self.rowCount()) if self.item(r, c)]
            columns += self.column_width(texts, header, tight=tight)
        return self.row_header_width(tight=tight) + columns + 2 * self.frameWidth()

    def texts(self) -> list[list[str]]:
        """Every cell's text, row by row."""
        return [
            [self.item(r, c).text() for c in range(self.columnCount())]
            for r in range(self.rowCount())
        ]

    def header_texts(self) -> list[str]:
        """The column headers as given (a narrow table shows them without "i: ")."""
        return list(getattr(self, "_headers", []))[: self.columnCount()]

    def shown_header_texts(self) -> list[str]:
        """The column headers as drawn."""
        return [self.horizontalHeaderItem(c).text() for c in range(self.columnCount())]

    def row_labels(self) -> list[str]:
        """The row headers."""
        return [self.verticalHeaderItem(r).text() for r in range(self.rowCount())]
