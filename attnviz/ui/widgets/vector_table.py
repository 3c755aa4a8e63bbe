"""Q, K and V of every token as one editable table (a model, so 64 × 48 cells stay fast).

Rows are tokens; columns are the first dimensions of q, then of k, then of v. Cells edit
with a spin box and the table reports each edit; it never writes the state itself. Column
widths follow their headers ("v·dinheiro" whole) and the font (large-font mode).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QDoubleSpinBox, QHeaderView, QStyledItemDelegate, QTableView

from attnviz.ui.preset_strings import preset_text
from attnviz.ui.widgets.numbers import exact, fmt, shown_decimals

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

    Signals
    -------
    sigEdited(str, int, int, float)
        ``(name, row, dim, value)`` when the user commits a cell.
    """

    sigEdited = Signal(str, int, int, float)  # noqa: N815 (Qt naming)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.tokens: tuple[str, ...] = ()
        self.arrays = {name: np.zeros((0, 1)) for name in "qkv"}
        self.value_labels: tuple[str, ...] = ()
        self.columns: list[tuple[str, int]] = []

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
            last = self.index(len(self.tokens) - 1, len(columns) - 1)
            self.dataChanged.emit(self.index(0, 0), last)
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, len(self.tokens) - 1)
            if relabel and columns:
                self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(columns) - 1)

    def truncated(self) -> bool:
        """True when some dimensions are not shown."""
        return any(arr.shape[1] > MAX_SHOWN for arr in self.arrays.values())

    # --- Qt model API ------------------------------------------------------------------
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.tokens)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        name, d = self.columns[index.column()]
        value = float(self.arrays[name][index.row(), d])
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(value, shown_decimals(value), integer=value == round(value))
        if role == Qt.ItemDataRole.EditRole:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{name}[{self.tokens[index.row()]}][{d}] = {exact(value)}"
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(_TINTS[name])
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Vertical:
            return f"{section}: {self.tokens[section]}" if section < len(self.tokens) else None
        name, d = self.columns[section]
        if name == "v" and len(self.value_labels) == self.arrays["v"].shape[1]:
            return f"v·{preset_text(self.value_labels[d])}"
        return f"{name}{d + 1}"

    def flags(self, index):
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        name, d = self.columns[index.column()]
        # The state is the only owner of the numbers: report, and let its event redraw.
        self.sigEdited.emit(name, index.row(), d, float(value))
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
        self.vectors.headerDataChanged.connect(self._on_q_header_changed)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns wide enough for a number and their whole header; rows for the font."""
        metrics = self.fontMetrics()
        header = self.horizontalHeader()
        number = metrics.horizontalAdvance("−00.00") + 12
        header.setDefaultSectionSize(number)
        header.setMinimumSectionSize(metrics.horizontalAdvance("q1") + 8)
        for c in range(self.vectors.columnCount()):
            # The header's own measure: its font, margins and sort indicator included.
            width = max(number, header.sectionSizeFromContents(c).width())
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
