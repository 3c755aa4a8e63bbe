"""The embedding panel: the table's rows, which of them one batch's gradient touches.

A lookup ``E[ids]`` is a one-hot product, so the gradient reaches only the rows of the
tokens in the batch, repeats summed. With tokens drawn from a Zipf law the few frequent
rows are hit again and again while most of the long tail gets nothing. The strip shows
every row in frequency order coloured by its count (or its gradient norm); the plot beside
it shows the counts against the rank on log-log axes with the Zipf law's expectation; the
summary gives the share of untouched rows, the parameter count and what tying saves.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.topics.embedding import MAX_D_MODEL, MAX_SEED, MAX_TOKENS, MAX_VOCAB
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.embedding_strip import EmbeddingStrip
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.flow_layout import FlowLayout, keep_together
from attnviz.ui.widgets.log_axes import DecadeAxis
from attnviz.ui.widgets.log_slider import LogSlider
from attnviz.ui.widgets.numbers import counted, fmt, grouped, qt_count
from attnviz.ui.widgets.steady_plot import SteadyPlot
from attnviz.ui.widgets.units import count

_C = "EmbeddingPanel"
COLOR_NAMES = {
    "count": QT_TRANSLATE_NOOP("EmbeddingPanel", "update count"),
    "norm": QT_TRANSLATE_NOOP("EmbeddingPanel", "gradient row norm"),
}


#: Bins per decade of rank on the rank plot.
BINS_PER_DECADE = 6


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def rank_bins(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(rank at the bin's geometric centre, mean count per row)`` over log-spaced bins.

    Row r has rank r + 1. Bins hold whole ranks; empty bins (possible at the head, where
    the log spacing is finer than one rank) are dropped.
    """
    v = counts.shape[0]
    edges = np.unique(
        np.round(np.logspace(0, np.log10(v + 1), int(np.log10(v + 1) * BINS_PER_DECADE) + 2))
    )
    edges = edges.astype(np.int64)
    edges[-1] = v + 1
    starts, stops = edges[:-1] - 1, edges[1:] - 1  # row indices [start, stop)
    keep = stops > starts
    starts, stops = starts[keep], stops[keep]
    sums = np.add.reduceat(counts.astype(np.float64), starts)
    mean = sums / (stops - starts)
    centre = np.sqrt(starts + 1.0) * np.sqrt(stops.astype(np.float64))
    return centre, mean


class EmbeddingPanel(FigurePanel):
    """The embedding table's sparse Zipf gradient and its parameter count."""

    PANEL_ID = "embedding"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, the embedding table: a lookup is a one-hot product, so a "
                "batch's gradient reaches only the rows of the tokens in it."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        self.figure = QWidget()
        box = QVBoxLayout(self.figure)
        box.setContentsMargins(0, 0, 0, 0)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.strip = EmbeddingStrip()
        self.strip.setObjectName("embedding_strip")
        self.strip.setToolTip(
            self.tr("Every row of the table, most frequent token first, read like text")
        )
        self.strip.sigHover.connect(self._on_q_hover)
        self.splitter.addWidget(self.strip)
        self.plot = self._build_plot()
        self.splitter.addWidget(self.plot)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        # Whatever height is left, down to the strip's least (as the positions panel's
        # plots): its size hint claimed 260 pixels, and the wrapped summary below it was
        # cut in a short dock (Portuguese, Large Fonts, 1280×720).
        self.splitter.setMinimumHeight(120)
        self.splitter.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        box.addWidget(self.splitter, 1)
        # A narrow plot (a dock at 1280×720, Large Fonts) writes its legend beneath the
        # figure, on a line as wide as the panel.
        self.rank_legend = QLabel()
        self.rank_legend.setObjectName("rank_legend")
        self.rank_legend.setWordWrap(True)
        self.rank_legend.hide()
        self.plot.legend_spill = self.rank_legend
        box.addWidget(self.rank_legend)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.addWidget(self.summary)
        # Set explicitly: the panel's style sheet stops a font set on it from reaching here.
        self.scale_font(self.summary, 1.0)
        layout.addWidget(self.figure, 1)
        self.hover = QLabel()
        self.hover.setObjectName("hover")
        layout.addWidget(self.hover)
        layout.addWidget(self.busy)
        self.mirror("vocab_size", self.vocab, block=False)
        self.mirror("batch_tokens", self.tokens, block=False)
        self.mirror("exponent", self.exponent)
        self.mirror("seed", self.seed)
        self.mirror("d_model", self.d_model)
        # Scrolls rather than squeezing the strip and the plot below a readable height.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_controls(self) -> QVBoxLayout:
        grid = QGridLayout()
        self.vocab = LogSlider(2, MAX_VOCAB, integer=True)
        self.vocab.setObjectName("vocab_size")
        self.vocab.setToolTip(self.tr("Rows of the table: one per token id"))
        self.vocab.valueChanged.connect(lambda v: self._write(self.vocab, vocab_size=int(v)))
        self.tokens = LogSlider(1, MAX_TOKENS, integer=True)
        self.tokens.setObjectName("batch_tokens")
        self.tokens.setToolTip(self.tr("Tokens drawn for one training batch"))
        self.tokens.valueChanged.connect(lambda v: self._write(self.tokens, batch_tokens=int(v)))
        self.exponent = QDoubleSpinBox()
        self.exponent.setRange(0.0, 3.0)
        self.exponent.setSingleStep(0.1)
        self.exponent.setToolTip(self.tr("Zipf exponent: 1 is like natural text, 0 uniform"))
        self.exponent.valueChanged.connect(lambda v: self._write(self.exponent, exponent=float(v)))
        self.seed = QSpinBox()
        self.seed.setRange(0, MAX_SEED)
        self.seed.setToolTip(self.tr("Another draw of the batch"))
        self.seed.valueChanged.connect(lambda v: self._write(self.seed, seed=int(v)))
        self.d_model = QSpinBox()
        self.d_model.setRange(1, MAX_D_MODEL)
        self.d_model.setSingleStep(256)
        self.d_model.setToolTip(self.tr("Width of each row: d_model"))
        self.d_model.valueChanged.connect(lambda v: self._write(self.d_model, d_model=int(v)))
        self.tied = QCheckBox(self.tr("Tied input/output"))
        self.tied.setToolTip(self.tr("The output projection reuses the embedding table"))
        self.tied.toggled.connect(lambda on: self._write(self.tied, tied=bool(on)))
        self.color_by = QComboBox()
        self.color_by.setObjectName("color_by")
        for name, text in COLOR_NAMES.items():
            self.color_by.addItem(_tr(text), name)
        self.color_by.setToolTip(self.tr("What colours each row of the strip"))
        self.color_by.activated.connect(
            lambda i: self._write(self.color_by, color_by=self.color_by.itemData(i))
        )
        self._pair(grid, 0, 0, self.tr("Vocabulary"), self.vocab)
        self._pair(grid, 1, 0, self.tr("Batch tokens"), self.tokens)
        grid.setColumnStretch(1, 1)
        # The smaller fields flow under the sliders: in a dock beside the steps they go
        # onto more lines rather than widen the panel past the window.
        flow = FlowLayout()
        for text, widget in (
            (self.tr("Zipf s"), self.exponent),
            (self.tr("Seed"), self.seed),
            (self.tr("d_model"), self.d_model),
            (self.tr("Colour by"), self.color_by),
        ):
            label = QLabel(text)
            label.setBuddy(widget)
            flow.addWidget(keep_together(label, widget))
        flow.addWidget(self.tied)
        column = QVBoxLayout()
        column.addLayout(grid)
        column.addLayout(flow)
        return column

    @staticmethod
    def _pair(grid: QGridLayout, row: int, col: int, text: str, widget) -> None:
        label = QLabel(text)
        label.setBuddy(widget)
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        grid.addWidget(label, row, col)
        grid.addWidget(widget, row, col + 1)

    def _build_plot(self) -> SteadyPlot:
        plot = SteadyPlot()
        plot.setObjectName("rank_plot")
        plot.getPlotItem().setAxisItems(
            {"left": DecadeAxis("left"), "bottom": DecadeAxis("bottom")}
        )
        plot.setLogMode(x=True, y=True)
        plot.setLabel("bottom", self.tr("frequency rank"))
        plot.setLabel("left", self.tr("tokens in the batch"))
        # The points fall from the top left: the bottom left corner is free for the legend.
        plot.legend.anchor(itemPos=(0, 1), parentPos=(0, 1), offset=(10, -10))
        self.observed = plot.plot([], [], connect="finite")
        self.expected = plot.plot([], [])
        plot.setMinimumWidth(200)
        return plot

    # --- model → view ------------------------------------------------------------------
    def _on_tied_changed(self) -> None:
        with blocked(self.tied):
            self.tied.setChecked(self.state.tied)
        self._write_summary(self.results)

    def _on_color_by_changed(self) -> None:
        with blocked(self.color_by):
            self.color_by.setCurrentIndex(self.color_by.findData(self.state.color_by))
        self._draw_strip(self.results)

    def _on_results(self, res, _names: frozenset) -> None:
        self._draw_strip(res)
        self._draw_plot(res)
        self._write_summary(res)

    def _draw_strip(self, res) -> None:
        if res is None:
            return
        by = self.state.color_by
        values = res.counts if by == "count" else res.row_norms
        self.strip.set_values(values, _tr(COLOR_NAMES[by]))

    def _draw_plot(self, res) -> None:
        centre, mean = rank_bins(res.counts)
        size = max(6, round(self.plot_font().pixelSize() * 0.45))
        self.observed.setData(centre, np.where(mean > 0, mean, np.nan))
        self.observed.setPen(self.plot.pen(0, width=1.0))
        self.observed.setSymbol("o")
        self.observed.setSymbolSize(size)
        self.observed.setSymbolBrush(self.plot.pen(0).color())
        self.observed.setSymbolPen(None)
        # The law is a smooth line: a few hundred log-spaced ranks draw it (a dashed pen
        # through 131,072 points would cost the GUI thread tens of milliseconds).
        ranks = np.unique(np.geomspace(1, res.vocab_size, 400).round().astype(np.int64))
        self.expected.setData(ranks.astype(np.float64), np.maximum(res.expected[ranks - 1], 1e-300))
        self.expected.setPen(self.plot.pen(1, width=1.0, dash=True))
        if len(self.plot.legend.items) != 2:  # the entries never change: built once
            self.plot.legend.clear()
            self.plot.legend_entry(self.observed, self.tr("this batch (mean per row)"))
            self.plot.legend_entry(self.expected, self.tr("Zipf law: tokens × p(rank)"))
        top = max(float(res.counts.max()), float(res.expected[0]), 1.0)
        low = max(min(float(res.expected[-1]), float(np.nanmin(mean[mean > 0]))), 1e-4)
        span = max(np.log10(top) - np.log10(low), 1.0)
        self.plot.setYRange(np.log10(low) - 0.05 * span, np.log10(top) + 0.1 * span, padding=0)
        self.plot.setXRange(0, np.log10(res.vocab_size), padding=0.02)

    def _write_summary(self, res) -> None:
        if res is None:
            return
        v, d = res.vocab_size, res.d_model
        untouched = res.vocab_size - res.touched
        batch = res.batch_tokens
        left = counted(
            self.tr("%n row(s) (%1 %) (gets|get) no gradient", "", qt_count(untouched)), untouched
        ).replace("%1", fmt(100 * res.untouched_fraction, 1))
        touch = self.tr("%n token(s) (touches|touch)", "", qt_count(batch))
        rows = (
            self.tr("%1 %2 of %3 rows; %4.")
            .replace("%1", counted(touch, batch))
            .replace("%2", grouped(res.touched))
            .replace("%3", grouped(v))
            .replace("%4", left)
        )
        table = (
            self.tr("Table %1 × %2 = %3 parameters (%4).")
            .replace("%1", grouped(v))
            .replace("%2", grouped(d))
            .replace("%3", grouped(res.table_parameters))
            .replace("%4", count(res.table_parameters))
        )
        if self.state.tied:
            tying = self.tr("Tied with the output projection: %1 in all, saving %2 (half).")
        else:
            tying = self.tr("With its own output projection: %1 in all; tying would save %2.")
        tying = tying.replace("%1", grouped(res.parameters(self.state.tied))).replace(
            "%2", grouped(res.tied_saving)
        )
        self.summary.setText(f"{rows}  {table}  {tying}")

    # --- hover -------------------------------------------------------------------------
    def _on_q_hover(self, first: int, last: int) -> None:
        res = self.results
        if res is None or first < 0 or last >= res.vocab_size:
            self.hover.clear()
            return
        if first == last:
            text = (
                self.tr("row %1 (rank %2): %3 in the batch, gradient norm %4")
                .replace("%1", grouped(first))
                .replace("%2", grouped(first + 1))
                .replace("%3", grouped(int(res.counts[first])))
            )
            self.hover.setText(text.replace("%4", f"{res.row_norms[first]:.3g}"))
            return
        part = res.counts[first : last + 1]
        text = self.tr("rows %1–%2: %3, %4 of %5 rows touched")
        tokens = int(part.sum())
        self.hover.setText(
            text.replace("%1", grouped(first))
            .replace("%2", grouped(last))
            .replace("%3", counted(self.tr("%n token(s)", "", qt_count(tokens)), tokens))
            .replace("%4", str(int(np.count_nonzero(part))))
            .replace("%5", str(part.size))
        )

    # --- style -------------------------------------------------------------------------

    def _restyle(self, theme: Theme) -> None:
        """Restyle the strip and the plot for ``theme`` and the current font."""
        style_figure(self.figure, theme)
        self.figure.setMinimumHeight(round(QFontMetricsF(self.font()).height() * 16))
        font = self.plot_font()
        self.strip.set_theme(theme)
        self.strip.setFont(font)
        self.plot.set_style(theme, font)
        self._redraw_styled()
