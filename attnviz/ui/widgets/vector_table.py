"""Q, K and V of every token as one editable table (a model, so 64 × 48 cells stay fast).

Rows are tokens; columns are the first dimensions of q, then of k, then of v. Cells edit
with a spin box and the table reports each edit; it never writes the state itself. Headers
are compact (``q1``, ``k2``, ``v1``) with the dimension's name on hover ("v1 · seat"), and
each column is as wide as its numbers and header in the table's font, so that every q, k
and v column of a head of d ≤ 4 shows without scrolling at 1280×720 with Large Fonts.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QDoubleSpinBox, QHeaderView, QStyledItemDelegate, QTableView

from attnviz.ui.preset_strings import preset_text
from attnviz.ui.widgets.numbers import exact, fmt_value

#: Dimensions of each of q, k and v shown as columns; wider vectors show their start.
MAX_SHOWN = 16
#: Translucent tints tell the three groups apart on light and dark palettes alike.
_TINTS = {
    "q": QColor(31, 119, 180, 48),
    "k": QColor(255, 127, 14, 48),
    "v": QColor(44, 160, 44, 48),
}


class VectorModel(QAbstractTableModel):
    """Table model over the state's q, k, v arrays (copies, refreshed by :meth:`set_data`).

    Wide (the default): one row per token, the dimensions of q, then k, then v as columns.
    Stacked (:meth:`set_stacked`, for a narrow dock): three rows per token (its q, k and v)
    and one column per dimension, so a head of d = 4 needs four columns, not twelve.

    Signals
    -------
    sigEdited(str, int, int, float)
        ``(name, row, dim, value)`` when the user commits a cell.
    """

    sigEdited = Signal(str, int, int, float)  # Qt naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.tokens: tuple[str, ...] = ()
        self.arrays = {name: np.zeros((0, 1)) for name in "qkv"}
        self.value_labels: tuple[str, ...] = ()
        self.columns: list[tuple[str, int]] = []
        self.stacked = False

    def set_data(self, tokens, q, k, v, value_labels=()) -> None:
        """Show new arrays; resets the view only when the shape of the table changes."""
        columns = [
            (name, d)
            for name, arr in (("q", q), ("k", k), ("v", v))
            for d in range(min(arr.shape[1], MAX_SHOWN))
        ]
        reshape = columns != self.columns or len(tokens) != len(self.tokens)
        relabel = tuple(value_labels) != self.value_labels
        if reshape:
            self.beginResetModel()
        self.tokens = tuple(tokens)
        self.arrays = {"q": q, "k": k, "v": v}
        self.value_labels = tuple(value_labels)
        self.columns = columns
        if reshape:
            self.endResetModel()
        elif self.tokens:
            last = self.index(self.rowCount() - 1, self.columnCount() - 1)
            self.dataChanged.emit(self.index(0, 0), last)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, self.rowCount() - 1)
            if relabel and columns:
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)

    def set_stacked(self, on: bool) -> None:
        """Three rows per token and a column per dimension (on), or the wide table."""
        if on != self.stacked:
            self.beginResetModel()
            self.stacked = on
            self.endResetModel()

    def truncated(self) -> bool:
        """True when some dimensions are not shown."""
        return any(arr.shape[1] > MAX_SHOWN for arr in self.arrays.values())

    def cell(self, row: int, column: int) -> tuple[str, int, int] | None:
        """``(name, token, dim)`` of a cell, or None for a stacked cell past its vector."""
        if self.stacked:
            name, token = "qkv"[row % 3], row // 3
            if column >= min(self.arrays[name].shape[1], MAX_SHOWN):
                return None
            return name, token, column
        name, d = self.columns[column]
        return name, row, d

    def _widest(self) -> int:
        return max((min(a.shape[1], MAX_SHOWN) for a in self.arrays.values()), default=0)

    # --- Qt model API ------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        if parent.isValid():
            return 0
        return 3 * len(self.tokens) if self.stacked else len(self.tokens)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        if parent.isValid():
            return 0
        return self._widest() if self.stacked else len(self.columns)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        cell = self.cell(index.row(), index.column())
        if cell is None:
            return None
        name, token, d = cell
        value = float(self.arrays[name][token, d])
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt_value(value)
        if role == Qt.ItemDataRole.EditRole:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{name}[{self.tokens[token]}][{d}] = {exact(value)}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(_TINTS[name])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        if orientation == Qt.Orientation.Vertical:
            return self._row_header(section)
        if section >= self.columnCount():
            return None
        if self.stacked:
            short = f"d{section + 1}"
            if role == Qt.ItemDataRole.DisplayRole:
                return short
            names = [f"{n}{section + 1}" for n in "qkv" if section < self.arrays[n].shape[1]]
            label = self._value_label(section)
            return " · ".join(names) + (f" ({label})" if label else "")
        name, d = self.columns[section]
        short = f"{name}{d + 1}"
        if role == Qt.ItemDataRole.DisplayRole:
            return short
        label = self._value_label(d) if name == "v" else ""
        return f"{short} · {label}" if label else short  # "v2 · money"

    def _row_header(self, section: int) -> str | None:
        if section >= self.rowCount():
            return None
        if self.stacked:
            token, name = divmod(section, 3)
            return f"{token}: {self.tokens[token]} · {'qkv'[name]}"
        return f"{section}: {self.tokens[section]}"

    def _value_label(self, d: int) -> str:
        if len(self.value_labels) == self.arrays["v"].shape[1] and d < len(self.value_labels):
            return preset_text(self.value_labels[d])
        return ""

    def column_texts(self, column: int) -> list[str]:
        """What the cells of ``column`` show (for sizing it)."""
        texts = (self.data(self.index(r, column)) for r in range(self.rowCount()))
        return [t for t in texts if t is not None]

    def flags(self, index):
        flags = super().flags(index)
        if index.isValid() and self.cell(index.row(), index.column()) is not None:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        cell = self.cell(index.row(), index.column())
        if cell is None:
            return False
        name, token, d = cell
        # The state is the only owner of the numbers: report, and let its event redraw.
        self.sigEdited.emit(name, token, d, float(value))
        return True


class SpinDelegate(QStyledItemDelegate):
    """Edits a cell with a spin box of enough range and precision for any vector entry."""

    def createEditor(self, parent, option, index):
        spin = QDoubleSpinBox(parent)
        spin.setRange(-1e6, 1e6)
        spin.setDecimals(4)
        spin.setSingleStep(0.1)
        spin.setFrame(False)
        return spin

    def setEditorData(self, editor, index) -> None:
        editor.setValue(float(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor, model, index) -> None:
        editor.interpretText()
        model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)


class VectorTable(QTableView):
    """The view: compact columns, a spin box per edited cell, keyboard editing."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.vectors = VectorModel(self)
        self.setModel(self.vectors)
        self.setItemDelegate(SpinDelegate(self))
        self.setEditTriggers(
            QTableView.EditTrigger.DoubleClicked
            | QTableView.EditTrigger.EditKeyPressed
            | QTableView.EditTrigger.AnyKeyPressed
        )
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setAlternatingRowColors(False)
        self.vectors.modelReset.connect(self.fit_columns)
        self.vectors.dataChanged.connect(lambda *_: self.fit_columns())
        self.vectors.headerDataChanged.connect(self._on_q_header_changed)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns as wide as their numbers and their header; rows for the font. A table
        wider than its room stacks q, k and v (see :class:`VectorModel`)."""
        self._wide = None  # new numbers, headers or font: measure the wide table again
        self._size_columns()
        # Not from inside the model's own reset (set_stacked resets it): next time round.
        QTimer.singleShot(0, self, self._choose_stacking)

    def wide_width(self) -> int:
        """The width the wide table needs (its row header, every column, the frame)."""
        if getattr(self, "_wide", None) is None:
            # Kept until the numbers, headers or font change (fit_columns): each resize
            # of the dock asks again.
            self._wide = self._measure_wide()
        return self._wide

    def _measure_wide(self) -> int:
        metrics = self.fontMetrics()
        model = self.vectors
        width = max(
            (
                metrics.horizontalAdvance(model._row_header(r) or "")
                for r in range(len(model.tokens))
            ),
            default=0,
        )
        header = self.horizontalHeader().fontMetrics()
        for name, d in model.columns:
            values = [model.arrays[name][r, d] for r in range(len(model.tokens))]
            texts = [fmt_value(v) for v in values]
            numbers = max((metrics.horizontalAdvance(t) for t in texts), default=0) + 12
            width += max(numbers, header.horizontalAdvance(f"{name}{d + 1}") + 16)
        return width + 24 + 2 * self.frameWidth()

    def _choose_stacking(self) -> None:
        room = self.viewport().width() + (
            self.verticalScrollBar().width() if self.verticalScrollBar().isVisible() else 0
        )
        if room < 50 or not self.isVisible():
            return  # not laid out yet
        stacked = self.wide_width() > room
        if stacked != self.vectors.stacked:
            self.vectors.set_stacked(stacked)
            self._size_columns()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            QTimer.singleShot(0, self, self._choose_stacking)

    def _size_columns(self) -> None:
        metrics = self.fontMetrics()
        header = self.horizontalHeader()
        header.setMinimumSectionSize(metrics.horizontalAdvance("q1") + 8)
        header.setDefaultSectionSize(metrics.horizontalAdvance("−0.00") + 12)
        for c in range(self.vectors.columnCount()):
            texts = self.vectors.column_texts(c)
            numbers = max((metrics.horizontalAdvance(t) for t in texts), default=0) + 12
            # The header's own measure: its font, margins and sort indicator included.
            width = max(numbers, header.sectionSizeFromContents(c).width())
            if header.sectionSize(c) != width:
                header.resizeSection(c, width)
        self.verticalHeader().setDefaultSectionSize(metrics.height() + 8)

    def _on_q_header_changed(self, orientation, _first: int, _last: int) -> None:
        if orientation == Qt.Orientation.Horizontal:
            self.fit_columns()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.fit_columns()
            # The header may take the new font after the table: measure once more then.
            QTimer.singleShot(0, self, self.fit_columns)
