"""The embeddings X and the matrices W_Q, W_K, W_V, W^O: collapsible, editable, draggable.

A standalone widget for the editor panel (``attention.head == "projections"``): one tab
per matrix, each an editable table (a model, so a 64 × 64 W stays fast) whose columns
(rows of W^O) are tinted by the KV head their query head reads; typing a cell writes the
matrix, which from then on holds the typed numbers (the others stay drawn from the seed),
and "Draw from the seed" gives it back to the seed. With d_model = 2 every embedding is
also an arrow that can be dragged (the tokens' Q, K and V follow at once).

It never keeps numbers of its own: it reads the state and writes through ``write(widget,
**values)`` — the editor panel's ``_write`` (message and revert on a refused value) — or,
standalone, through the state with the message shown in its own label.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.fields import StateError
from attnviz.model.topics.attention import MATS
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import exact, fmt_value
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.throttle import THROTTLE_MS, LazyThrottled
from attnviz.ui.widgets.vector_plot import SNAP
from attnviz.ui.widgets.vector_table import SpinDelegate

#: Rows and columns of a matrix shown; larger ones show their top-left corner.
MAX_SHOWN = 256
#: Fields whose change redraws the tables (the slider path touches none of them).
WATCHED = frozenset(
    {"tokens", "head", "seed", "d_k", "d_model", "n_heads", "n_kv_heads", "head_index", *MATS}
)
#: The embeddings' arrows: green, apart from the editor's blue queries and orange keys.
_ARROW = (44, 160, 44)
TITLES = {"x": "X", "w_q": "W_Q", "w_k": "W_K", "w_v": "W_V", "w_o": "W^O"}


class MatrixModel(QAbstractTableModel):
    """An editable view of one matrix with labelled rows and columns and tinted heads.

    Signals
    -------
    sigEdited(int, int, float)
        ``(row, column, value)`` when the user commits a cell.
    """

    sigEdited = Signal(int, int, float)  # Qt naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.values = np.zeros((0, 0))
        self.rows: tuple[str, ...] = ()
        self.cols: tuple[str, ...] = ()
        self.tints: dict[str, list] = {"rows": [], "cols": []}
        self.name = ""

    def set_matrix(self, name: str, values: np.ndarray, rows, cols, tints) -> None:
        """Show ``values`` (the first :data:`MAX_SHOWN` rows and columns)."""
        shown = values[:MAX_SHOWN, :MAX_SHOWN]
        reshape = shown.shape != self.values.shape or name != self.name
        if reshape:
            self.beginResetModel()
        self.name, self.values = name, shown
        self.rows, self.cols = tuple(rows[: shown.shape[0]]), tuple(cols[: shown.shape[1]])
        self.tints = tints
        if reshape:
            self.endResetModel()
        elif shown.size:
            self.dataChanged.emit(self.index(0, 0), self.index(*np.subtract(shown.shape, 1)))

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else self.values.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else self.values.shape[1]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        value = float(self.values[r, c])
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt_value(value)
        if role == Qt.ItemDataRole.EditRole:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            title = TITLES.get(self.name, self.name)
            return f"{title}[{self.rows[r]}, {self.cols[c]}] = {exact(value)}"
        if role == Qt.ItemDataRole.BackgroundRole:
            tint = (self.tints["cols"][c] if self.tints["cols"] else None) or (
                self.tints["rows"][r] if self.tints["rows"] else None
            )
            return QBrush(tint) if tint is not None else None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        labels = self.rows if orientation == Qt.Orientation.Vertical else self.cols
        return labels[section] if section < len(labels) else None

    def flags(self, index):
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        # The state owns the numbers: report the edit, its event redraws the table.
        self.sigEdited.emit(index.row(), index.column(), float(value))
        return True


class EmbeddingPlot(QWidget):
    """The rows of a 2-D X as arrows from the origin, their heads draggable (as the 2-D
    query and key arrows of the editor, on the same snapping grid).

    Signals
    -------
    sigDragged(int, float, float)
        ``(row, x, y)`` while the head of token ``row``'s embedding is dragged.
    """

    sigDragged = Signal(int, float, float)  # Qt naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(enableMenu=False)  # (its menu would be built, then dropped)
        self.plot.setAspectLocked(True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getPlotItem().setMouseEnabled(x=False, y=False)
        self.plot.setMinimumSize(200, 200)
        axis_pen = pg.mkPen((128, 128, 128), width=1)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=axis_pen))
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=90, pen=axis_pen))
        self.shafts = pg.PlotDataItem(connect="pairs")
        self.plot.addItem(self.shafts)
        self.heads: list[pg.TargetItem] = []
        self.vectors = np.zeros((0, 2))
        self._setting = False
        self._dragging = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def set_embeddings(self, tokens, x: np.ndarray, selected: int) -> None:
        """Show the 2-D embeddings ``x`` (one row per token); emphasise ``selected``."""
        self._setting = True
        try:
            self.vectors = np.array(x[:, :2], dtype=float)
            while len(self.heads) > len(tokens):
                self.plot.removeItem(self.heads.pop())
            while len(self.heads) < len(tokens):
                row = len(self.heads)
                head = pg.TargetItem(symbol="o", size=14)
                head.setLabel(f"x·{tokens[row]}", {"anchor": (0, 1), "offset": (6, -6)})
                head.sigPositionChanged.connect(lambda _item, r=row: self._on_q_moved(r))
                head.sigPositionChangeFinished.connect(lambda *_: self._on_q_finished())
                self.plot.addItem(head)
                self.heads.append(head)
            text = self.palette().color(QPalette.ColorRole.Text)
            for row, (head, token) in enumerate(zip(self.heads, tokens, strict=True)):
                px, py = self.vectors[row]
                head.setPos(px, py)
                head.label().setFormat(f"x·{token}")
                head.label().setFont(self.font())
                head.label().setColor(text)
                head.setToolTip(f"x[{token}] = [{px!r}, {py!r}]")
                alpha = 255 if row == selected else 150
                head.setPen(pg.mkPen((*_ARROW, alpha), width=2))
                head.setBrush(pg.mkBrush((*_ARROW, alpha)))
                head.setHoverPen(pg.mkPen(text, width=3))
            self.shafts.setPen(pg.mkPen(_ARROW, width=3))
            self._draw_shafts()
            self.plot.setBackground(self.palette().color(QPalette.ColorRole.Base))
            if not self._dragging:
                reach = max(float(np.max(np.abs(self.vectors), initial=0.0)), 1.0) * 1.2
                # More room on the right, where the labels sit beside the heads.
                self.plot.setRange(
                    xRange=(-1.2 * reach, 2.0 * reach), yRange=(-reach, reach), padding=0
                )
        finally:
            self._setting = False

    def _draw_shafts(self) -> None:
        pts = np.zeros((2 * len(self.vectors), 2))
        pts[1::2] = self.vectors
        self.shafts.setData(pts[:, 0], pts[:, 1])

    def _on_q_moved(self, row: int) -> None:
        if self._setting or row >= len(self.vectors):
            return
        self._dragging = True
        pos = self.heads[row].pos()
        x, y = (round(round(v / SNAP) * SNAP, 6) for v in (pos.x(), pos.y()))
        self.vectors[row] = (x, y)
        self._draw_shafts()
        self.sigDragged.emit(row, x, y)

    def _on_q_finished(self) -> None:
        self._dragging = False


def _tint(theme_dark: bool, group: int) -> QColor:
    color = QColor(series_color(None, group))
    color.setAlpha(70 if theme_dark else 45)
    return color


class ProjectionEditor(QWidget):
    """X and the W matrices of the attention state, collapsible (see the module docstring).

    Parameters
    ----------
    state : AttentionState
    parent : QWidget, optional
    write : callable, optional
        ``write(widget, **values) -> bool``; by default the state is written directly and
        a refused value is shown under the tables.
    """

    def __init__(self, state, parent=None, *, write: Callable[..., bool] | None = None):
        super().__init__(parent)
        self.setObjectName("projection_editor")
        self.state = state
        self._write_values = write or self._write_direct
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        header = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setObjectName("projection_toggle")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setText(self.tr("Embeddings X and matrices W"))
        self.toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.toggle.toggled.connect(self._on_q_toggled)
        self.status = QLabel()
        self.status.setObjectName("projection_status")
        header.addWidget(self.toggle)
        header.addWidget(self.status, 1)
        layout.addLayout(header)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        self.use = QPushButton(self.tr("Use learned projections"))
        self.use.setObjectName("projection_use")
        self.use.setToolTip(self.tr("Make Q, K and V from embeddings X and matrices W"))
        self.use.clicked.connect(lambda: self._write_values(self.use, head="projections"))
        body.addWidget(self.use)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("projection_tabs")
        self.models: dict[str, MatrixModel] = {}
        self.tables: dict[str, QTableView] = {}
        for name in MATS:
            self.tabs.addTab(self._build_tab(name), TITLES[name])
        self.tabs.currentChanged.connect(lambda _i: self.refresh())
        # Room under the text: the underscore of W_Q sinks below the tab's text line.
        self.tabs.tabBar().setStyleSheet("QTabBar::tab { padding: 2px 10px 5px 10px; }")
        body.addWidget(self.tabs, 1)
        row = QHBoxLayout()
        self.reseed = QPushButton(self.tr("Draw from the seed"))
        self.reseed.setObjectName("projection_reseed")
        self.reseed.setToolTip(self.tr("Forget the typed numbers of this matrix"))
        self.reseed.clicked.connect(self._on_q_reseed)
        self.note = QLabel()
        self.note.setObjectName("projection_note")
        self.note.setWordWrap(True)
        row.addWidget(self.note, 1)
        row.addWidget(self.reseed)
        body.addLayout(row)
        self.message = QLabel()
        self.message.setObjectName("projection_message")
        self.message.setStyleSheet("color: #d62728; font-weight: bold;")
        self.message.setWordWrap(True)
        self.message.hide()
        body.addWidget(self.message)
        layout.addWidget(self.body, 1)
        self._write_drag = LazyThrottled(self._write_drag_now, timeout=THROTTLE_MS, parent=self)
        bind(self, state.changed, self._on_state_changed)
        self._on_q_toggled(True)

    def _build_tab(self, name: str) -> QWidget:
        model = MatrixModel(self)
        model.sigEdited.connect(lambda r, c, v, n=name: self._on_q_cell_edited(n, r, c, v))
        table = QTableView()
        table.setObjectName(f"projection_{name}")
        table.setModel(model)
        table.setItemDelegate(SpinDelegate(table))
        table.horizontalHeader().setDefaultSectionSize(
            self.fontMetrics().horizontalAdvance("−00.00") + 12
        )
        table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.models[name], self.tables[name] = model, table
        if name != "x":
            return table
        self.plot = EmbeddingPlot()
        self.plot.setObjectName("embedding_plot")
        self.plot.sigDragged.connect(self._on_q_dragged)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(table)
        split.addWidget(self.plot)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(1, 1)
        split.setSizes([2, 3])  # two columns of numbers need less than the arrows
        return split

    # --- model → view ------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        if names & WATCHED or ("selected_query" in names and self.state.d_model == 2):
            self.refresh()

    def refresh(self) -> None:
        """Show the state's matrices (only the visible tab's table is refilled)."""
        s = self.state
        proj = s.head == "projections"
        self.use.setVisible(not proj)
        self.tabs.setVisible(proj)
        self.reseed.setVisible(proj)
        self.note.setVisible(proj)
        typed = [TITLES[n] for n in MATS if s.get(n) is not None]
        if not proj:
            self.status.setText(self.tr("Q, K and V do not come from X and W now"))
            return
        self.status.setText(
            self.tr("typed: %1").replace("%1", ", ".join(typed))
            if typed
            else self.tr("all drawn from seed %1").replace("%1", str(s.seed))
        )
        if not self.body.isVisible() and not self.toggle.isChecked():
            return
        name = MATS[self.tabs.currentIndex()]
        arrays = s.projections()
        self._show_matrix(name, arrays[name])
        self.reseed.setEnabled(s.get(name) is not None)
        shape = arrays[name].shape
        note = (
            self.tr("%1 is %2 × %3, %4.")
            .replace("%1", TITLES[name])
            .replace("%2", str(shape[0]))
            .replace("%3", str(shape[1]))
            .replace(
                "%4",
                self.tr("typed")
                if s.get(name) is not None
                else self.tr("drawn from seed %1").replace("%1", str(s.seed)),
            )
        )
        if max(shape) > MAX_SHOWN:
            note += " " + self.tr("Showing the first %1 rows and columns.").replace(
                "%1", str(MAX_SHOWN)
            )
        self.note.setText(note)
        two_d = s.d_model == 2
        self.plot.setVisible(two_d)
        if two_d and name == "x":
            self.plot.set_embeddings(s.tokens, arrays["x"], s.selected_query)

    def _show_matrix(self, name: str, values: np.ndarray) -> None:
        s = self.state
        d, h, h_kv = s.d_k, s.n_heads, s.n_kv_heads
        group = h // h_kv
        dark = self.palette().window().color().lightness() < 128
        dims = [str(j + 1) for j in range(values.shape[1 if name in ("x", "w_o") else 0])]
        tints: dict[str, list] = {"rows": [], "cols": []}
        if name == "x":
            rows, cols = [f"{i}: {t}" for i, t in enumerate(s.tokens)], dims
        elif name == "w_o":
            rows = [f"h{i}·{c + 1}" for i in range(h) for c in range(d)]
            cols = dims
            tints["rows"] = [_tint(dark, i // group) for i in range(h) for _c in range(d)]
        else:
            kv = name in ("w_k", "w_v")
            heads = h_kv if kv else h
            prefix = "kv" if kv else "h"
            rows = [f"x{j}" for j in dims]
            cols = [f"{prefix}{i}·{c + 1}" for i in range(heads) for c in range(d)]
            tints["cols"] = [
                _tint(dark, i if kv else i // group) for i in range(heads) for _c in range(d)
            ]
        self.models[name].set_matrix(name, values, rows, cols, tints)

    # --- view → model ------------------------------------------------------------------
    def _on_q_toggled(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.body.setVisible(on)
        self.refresh()

    def _on_q_cell_edited(self, name: str, row: int, col: int, value: float) -> None:
        arr = np.array(self.state.projections()[name])
        arr[row, col] = value
        self._write_values(self.tables[name], **{name: arr})

    def _on_q_dragged(self, row: int, x: float, y: float) -> None:
        self._write_drag(row, x, y)

    def _write_drag_now(self, row: int, x: float, y: float) -> None:
        if self.state.head != "projections" or row >= self.state.n:
            return  # the sentence changed under the drag
        arr = np.array(self.state.projections()["x"])
        arr[row, :2] = (x, y)
        self._write_values(self.plot, x=arr)

    def _on_q_reseed(self) -> None:
        name = MATS[self.tabs.currentIndex()]
        self._write_values(self.reseed, **{name: None})

    def _write_direct(self, _widget, **values) -> bool:
        try:
            self.state.update(**values)
        except StateError as exc:
            self.message.setText(str(exc))
            self.message.show()
            self.refresh()
            return False
        self.message.hide()
        return True
