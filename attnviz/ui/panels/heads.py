"""The heads panel: many heads from one X, grouped-query KV heads, shapes and FLOPs.

With Q, K and V from learned projections (``attention.head = "projections"``):

- every head's attention map as small multiples, the heads that share a KV head framed
  together (MHA: a frame per head; GQA: a few; MQA: one); a click selects the head the
  heatmap, steps and gradient panels show;
- the products as blocks: X·W_Q = Q, X·W_K = K, X·W_V = V, concat·W^O = O, cut into heads;
- the shapes table with the live sizes, and the FLOPs of one head of width D = h·d_head
  beside h heads of width d_head: equal, while the score entries grow h-fold and h_kv KV
  heads shrink the K/V projections and the cache;
- through W^O: each head's term of the output and a switch per head that removes it
  (``attention.heads_off``; :mod:`attnviz.ui.panels._heads_through`).

Any other head source is one head, drawn alone, with a button to switch to projections.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.topics.attention import MAX_D_K, MAX_D_MODEL, MAX_HEADS
from attnviz.ui.heatmap_look import colormap_for
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels._heads_through import HeadSwitches
from attnviz.ui.theme import LIGHT, Theme, palette_for
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, keep_together
from attnviz.ui.widgets.head_blocks import BlocksView
from attnviz.ui.widgets.head_grid import HeadGrid
from attnviz.ui.widgets.numbers import grouped

_C = "HeadsPanel"
#: Rows of the FLOP table: a FlopCount field and what it counts.
FLOP_ROWS = (
    ("q_proj", QT_TRANSLATE_NOOP("HeadsPanel", "Q = X·W_Q")),
    ("k_proj", QT_TRANSLATE_NOOP("HeadsPanel", "K = X·W_K")),
    ("v_proj", QT_TRANSLATE_NOOP("HeadsPanel", "V = X·W_V")),
    ("scores", QT_TRANSLATE_NOOP("HeadsPanel", "S = Q·Kᵀ")),
    ("mix", QT_TRANSLATE_NOOP("HeadsPanel", "A·V")),
    ("out_proj", QT_TRANSLATE_NOOP("HeadsPanel", "concat·W^O")),
    ("total", QT_TRANSLATE_NOOP("HeadsPanel", "FLOPs in all")),
    ("score_entries", QT_TRANSLATE_NOOP("HeadsPanel", "score entries (softmax)")),
    ("kv_cache", QT_TRANSLATE_NOOP("HeadsPanel", "KV cache, numbers per token")),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def _num(value: int) -> str:
    """An integer with its thousands apart (1,234,567), as the other panels write them."""
    return grouped(int(value))


def layout_kind(n_heads: int, n_kv_heads: int) -> str:
    """ "MHA", "MQA" or "GQA" for a head layout, with how many query heads share a KV head."""
    if n_kv_heads == n_heads:
        return QCoreApplication.translate("HeadsPanel", "MHA: one KV head per query head")
    if n_kv_heads == 1:
        text = QCoreApplication.translate("HeadsPanel", "MQA: all %1 query heads share one KV head")
        return text.replace("%1", str(n_heads))
    text = QCoreApplication.translate("HeadsPanel", "GQA: %1 query heads per KV head")
    return text.replace("%1", str(n_heads // n_kv_heads))


class HeadsPanel(FigurePanel):
    """All heads' maps, their KV grouping, the products as blocks, shapes and FLOPs."""

    PANEL_ID = "heads"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self._theme: Theme = LIGHT
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, multi-head: X·W gives each head its Q, K, V; the heads side by "
                "side, times W^O, give the output."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        layout.addWidget(self.kind)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("heads_tabs")
        self.grid = HeadGrid()
        self.grid.setObjectName("head_grid")
        self.grid.sigHeadClicked.connect(self._on_q_head_clicked)
        self.grid.sigHovered.connect(self._on_q_hovered)
        self.blocks = BlocksView()
        self.blocks.setObjectName("head_blocks")
        self.figure = QSplitter(Qt.Orientation.Horizontal)
        self.figure.addWidget(self.grid)
        self.figure.addWidget(self.blocks)
        self.figure.setStretchFactor(0, 3)
        self.figure.setStretchFactor(1, 2)
        self.figure.setChildrenCollapsible(False)
        self.tabs.addTab(self.figure, self.tr("Heads"))
        self.tabs.addTab(self._build_tables(), self.tr("Shapes and FLOPs"))
        self.through = HeadSwitches()
        self.through.setObjectName("through_w_o")
        self.through.sigSwitched.connect(lambda off: self._write(self.through, heads_off=list(off)))
        # Its own scroll area: in a short dock the switches, the table and the lines under
        # it scroll inside the tab instead of running into each other.
        self.through_scroll = QScrollArea()
        self.through_scroll.setObjectName("through_scroll")
        self.through_scroll.setWidgetResizable(True)
        self.through_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.through_scroll.setWidget(self.through)
        self.tabs.addTab(self.through_scroll, self.tr("Through W^O"))
        layout.addWidget(self.tabs, 1)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.mirror("d_model", self.d_model)
        self.mirror("d_k", self.d_head)
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_controls(self) -> FlowLayout:
        # A flow: in a dock beside the steps the fields go onto a second line rather than
        # widen the panel past the window.
        row = FlowLayout()
        self.use = QPushButton(self.tr("Use learned projections"))
        self.use.setObjectName("use_projections")
        self.use.setToolTip(self.tr("Make Q, K and V from embeddings X and matrices W"))
        self.use.clicked.connect(lambda: self._write(self.use, head="projections"))
        row.addWidget(self.use)
        self.n_heads = self._spin("n_heads", 1, MAX_HEADS, self.tr("Query heads h"))
        self.n_kv = QComboBox()
        self.n_kv.setObjectName("n_kv_heads")
        self.n_kv.setToolTip(self.tr("Key/value heads: h = MHA, fewer = GQA, 1 = MQA"))
        self.n_kv.activated.connect(
            lambda i: self._write(self.n_kv, n_kv_heads=self.n_kv.itemData(i))
        )
        self.d_model = self._spin("d_model", 1, MAX_D_MODEL, self.tr("Width of X"))
        self.d_head = self._spin("d_k", 1, MAX_D_K, self.tr("Width of one head (d_k)"))
        self._labels = []
        for text, widget in (
            (self.tr("&Heads"), self.n_heads),
            (self.tr("&KV heads"), self.n_kv),
            (self.tr("d_&model"), self.d_model),
            (self.tr("d_h&ead"), self.d_head),
        ):
            label = QLabel(text)
            label.setBuddy(widget)
            self._labels.append(label)
            row.addWidget(keep_together(label, widget))
        self.kind = QLabel()
        self.kind.setObjectName("layout_kind")
        # A line of its own under the fields, wrapping at the panel's width: in the flow it
        # wrapped at the width of its first words, and unwrapped it was cut on a Portuguese
        # slide ("MQA: as 2 cabeças de consulta compartilham uma cabeça K").
        self.kind.setWordWrap(True)
        return row

    def _spin(self, field: str, lo: int, hi: int, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setObjectName(field)
        spin.setRange(lo, hi)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v, s=spin, f=field: self._write(s, **{f: int(v)}))
        return spin

    def _build_tables(self) -> QWidget:
        self.shapes = self._table("shapes_table", 3)
        self.shapes.setHorizontalHeaderLabels([self.tr("Array"), self.tr("Shape"), self.tr("Here")])
        self.flops = self._table("flops_table", 4)
        self.flops.setToolTip(
            self.tr(
                "Columns: one head of width h·d_head; h heads of width d_head with a KV head "
                "each (MHA); the same heads sharing n_kv_heads KV heads"
            )
        )
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.shapes)
        split.addWidget(self.flops)
        split.setChildrenCollapsible(False)
        split.setSizes([450, 550])
        return split

    @staticmethod
    def _table(name: str, columns: int) -> QTableWidget:
        table = QTableWidget(0, columns)
        table.setObjectName(name)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        return table

    def showEvent(self, event) -> None:
        self._on_font_changed()
        super().showEvent(event)

    # --- model → view ------------------------------------------------------------------
    def _on_head_changed(self) -> None:
        proj = self.state.head == "projections"
        self.use.setVisible(not proj)
        for w in (self.n_heads, self.n_kv, self.d_model, self.d_head, *self._labels):
            w.setEnabled(proj)
        self._on_n_heads_changed()

    def _on_n_heads_changed(self) -> None:
        s = self.state
        with blocked(self.n_heads, self.n_kv):
            self.n_heads.setValue(s.n_heads)
            self.n_kv.clear()
            for g in range(1, s.n_heads + 1):
                if s.n_heads % g == 0:
                    self.n_kv.addItem(str(g), g)
            self.n_kv.setCurrentIndex(self.n_kv.findData(s.n_kv_heads))
        proj = s.head == "projections"
        self.kind.setText(layout_kind(s.n_heads, s.n_kv_heads) if proj else "")

    _on_n_kv_heads_changed = _on_n_heads_changed

    def _on_heads_off_changed(self) -> None:
        # Also after a refused write: the checks show the field again.
        self.through.set_off(self.state.heads_off, self.state.d_k)

    def _on_head_index_changed(self) -> None:
        head = self.state.head_index if self.state.head in ("projections", "model") else 0
        self.grid.set_selected(head)
        self.blocks.set_selected(head)

    def _on_colormap_changed(self) -> None:
        self._restyle_views()

    def _restyle_views(self) -> None:
        name = self.state.colormap if self.state.colormap != "diverging" else "viridis"
        lut = colormap_for(name).getLookupTable(0.0, 1.0, 256, alpha=False)
        self.grid.set_style(self._theme, np.asarray(lut))
        self.blocks.set_theme(self._theme)

    def _on_results(self, res, _names: frozenset) -> None:
        s = self.state
        if res.model and res.n_heads == 0:  # a Gated DeltaNet's, a Mamba-2's layer: no heads
            self.grid.set_data(None, None, (), res.tokens, 0, res.too_large)
            self.blocks.set_message(res.too_large)
            self.shapes.setRowCount(0)
            self.flops.setRowCount(0)
            self.summary.setText(res.too_large)
            self.through.set_results(res)
            return
        head = s.head_index if res.projections else 0
        self.grid.set_data(
            res.weights, _allowed(res), res.groups, res.tokens, head, res.too_large or ""
        )
        self.grid.set_off(res.heads_off)
        if res.projections:
            self.blocks.set_layout(
                len(res.tokens), res.d_model, res.n_heads, res.n_kv_heads, res.d_head, head
            )
        else:
            self.blocks.set_message(
                self.tr(
                    "Q, K and V are typed or come from a synthetic head: one head, no X and no W. "
                    "Use learned projections to split a model into heads."
                )
            )
        self._fill_shapes(res)
        self._fill_flops(res)
        self._write_summary(res)
        self.through.set_results(res)

    def _compact_rows(self, table) -> None:
        table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)

    def _on_font_changed(self) -> None:
        # The drawn views take the panel's font by hand: a panel with a style sheet does not
        # pass it on (an export sets a 22 px font on the panel alone).
        for view in (self.grid, self.blocks):
            view.setFont(self.font())
        for table in (self.shapes, self.flops):
            self._compact_rows(table)
        self.through.compact_rows()

    def _fill_shapes(self, res) -> None:
        rows = res.shapes
        self.shapes.setRowCount(len(rows))
        for i, row in enumerate(rows):
            size = " × ".join(str(x) for x in row.shape)
            for j, text in enumerate((row.symbol, row.formula, size)):
                self._set_cell(self.shapes, i, j, text)

    def _fill_flops(self, res) -> None:
        table = self.flops
        if not res.projections:
            table.setRowCount(0)
            table.setColumnCount(1)
            table.setHorizontalHeaderLabels([self.tr("FLOPs need the projections")])
            return
        h, h_kv, d = res.n_heads, res.n_kv_heads, res.d_head
        columns = [
            ("wide", self.tr("1 × %1").replace("%1", str(h * d))),
            ("narrow", self.tr("%1 × %2").replace("%1", str(h)).replace("%2", str(d))),
        ]
        if h_kv != h:
            columns.append(("model", self.tr("%1 KV").replace("%1", str(h_kv))))
        table.setColumnCount(1 + len(columns))
        table.setHorizontalHeaderLabels([self.tr("Product"), *(t for _k, t in columns)])
        table.setRowCount(len(FLOP_ROWS))
        for i, (field, text) in enumerate(FLOP_ROWS):
            self._set_cell(table, i, 0, _tr(text), bold=field == "total")
            for j, (key, _t) in enumerate(columns, start=1):
                value = getattr(res.flops[key], field)
                self._set_cell(table, i, j, _num(value), bold=field == "total", right=True)

    def _set_cell(self, table, row: int, col: int, text: str, *, bold=False, right=False) -> None:
        item = table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            table.setItem(row, col, item)
        item.setText(text)
        font = QFont(self.font())
        font.setBold(bold)
        item.setFont(font)
        align = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
        item.setTextAlignment(align | Qt.AlignmentFlag.AlignVCenter)

    def _write_summary(self, res) -> None:
        if not res.projections:
            self.summary.setText(
                self.tr("One head: n = %1, d_k = %2.")
                .replace("%1", str(len(res.tokens)))
                .replace("%2", str(res.d_head))
            )
            return
        h, h_kv, d = res.n_heads, res.n_kv_heads, res.d_head
        narrow, model = res.flops["narrow"], res.flops["model"]
        text = self.tr(
            "%1 heads × %2 = 1 head × %3: %4 FLOPs either way, %5 multiply-adds (%1× the scores)."
        )
        for mark, part in (
            ("%1", str(h)),
            ("%2", str(d)),
            ("%3", str(h * d)),
            ("%4", _num(narrow.total)),
            ("%5", _num(narrow.multiply_adds)),
        ):
            text = text.replace(mark, part)
        if h_kv != h:
            cache = self.tr(" KV cache: %1 numbers per token, not %2 (÷%3).")
            for mark, part in (
                ("%1", _num(model.kv_cache)),
                ("%2", _num(narrow.kv_cache)),
                ("%3", str(h // h_kv)),
            ):
                cache = cache.replace(mark, part)
            text += cache
        self.summary.setText(text)

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme: Theme) -> None:
        """Restyle the grid and the blocks for ``theme`` and the panel's font."""
        self.figure.setPalette(palette_for(theme))  # the handle between the views, too
        self.figure.setAutoFillBackground(self.autoFillBackground())  # export: unless clear
        self._on_font_changed()
        self._restyle_views()
        self.through.set_theme(theme)

    # --- view → model ------------------------------------------------------------------
    def _on_q_head_clicked(self, head: int) -> None:
        if self.state.head in ("projections", "model") and head != self.state.head_index:
            self._write(self.grid, head_index=head)

    def _on_q_hovered(self, text: str) -> None:
        # The exact value of the cell under the mouse, as a tooltip that follows it.
        self.grid.setToolTip(text)


def _allowed(res):
    if res.mask is None:
        return None
    n = len(res.tokens)
    return np.broadcast_to(res.mask, (n, n))
