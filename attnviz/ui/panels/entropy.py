"""The entropy panel: how spread each query's attention is, one bar per row.

A row's entropy is 0 when one key takes all its weight and ln k when the k keys it may see
share it evenly (the dashed line). The chapter suggests logging it while training: a cheap
sign of heads that collapse onto one key, or never focus at all.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout

from attnviz.model.resolve.attention import entropy_data
from attnviz.model.resolve.result_names import ATTENTION, MASK
from attnviz.ui.panel_base import FigurePanel, figure_box
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.steady_plot import SteadyPlot

#: Up to this many rows the axis names each query by its token.
NAMED_ROWS = 24
#: The plot's height over the tallest bar or bound: the legend's room above them.
LEGEND_ROOM = 1.4


class EntropyPanel(FigurePanel):
    """A bar per query row: the entropy of its weights, under ln of the keys it sees."""

    PANEL_ID = "entropy"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.data = None  # the drawn array: one row per query, entropy and its bound
        self.plot = SteadyPlot()
        self.plot.setObjectName("entropy_plot")
        self.plot.setLabel("left", self.tr("entropy (nats)"))
        self.plot.setLabel("bottom", self.tr("query"))
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.bounds = pg.PlotDataItem()
        self.plot.addItem(self.bars)
        self.plot.addItem(self.bounds)
        self.plot.legend_entry(self.bars, self.tr("entropy of the row"))
        self.plot.legend_entry(self.bounds, self.tr("ln of the keys it sees"))
        self.plot.scene().sigMouseMoved.connect(self._on_q_mouse)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.figure = figure_box(self.plot, self.summary, stretch=(1,))
        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        layout = QVBoxLayout()
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.hover)
        self._finish(layout)

    # --- results → view ----------------------------------------------------------------
    def _on_results(self, results, names: frozenset) -> None:
        if not names & {ATTENTION, MASK}:
            return  # a new selected query or colour map: the entropies are the same
        self.data = entropy_data(self.workspace, "entropy")
        entropy, bound = self.data.values[:, 0], self.data.values[:, 1]
        rows = np.arange(entropy.size)
        self.bars.setOpts(
            x=rows, height=entropy, width=0.7, brush=series_color(self._theme, 0), pen=None
        )
        self.bounds.setData(np.arange(entropy.size + 1) - 0.5, bound, stepMode="center")
        self.bounds.setPen(self.plot.pen(1, dash=True))
        names_shown = self.data.rows if entropy.size <= NAMED_ROWS else None
        axis = self.plot.getAxis("bottom")
        axis.setTicks(None if names_shown is None else [list(enumerate(names_shown))])
        top = max(float(bound.max(initial=0.0)), float(entropy.max(initial=0.0)), 0.1)
        self.plot.setXRange(-0.5, entropy.size - 0.5, padding=0.02)
        self.plot.setYRange(0.0, top * LEGEND_ROOM, padding=0)
        self.summary.setText(
            fill(
                self.tr(
                    "Mean entropy %1 nats over %2 rows; a row spread evenly over all %2 "
                    "keys has ln %2 = %3."
                ),
                fmt(float(entropy.mean()) if entropy.size else 0.0, 3),
                entropy.size,
                fmt(float(np.log(max(entropy.size, 1))), 3),
            )
        )

    def _on_q_mouse(self, pos) -> None:
        vb = self.plot.getPlotItem().vb
        row = round(vb.mapSceneToView(pos).x())
        if self.data is None or not 0 <= row < self.data.values.shape[0]:
            self.hover.setText(" ")
            self.sigHoverText.emit("")
            return
        entropy, bound = self.data.values[row]
        text = fill(
            self.tr("“%1”: entropy %2 nats, at most %3 (ln of the keys it sees)"),
            self.data.rows[row],
            fmt(entropy, 4),
            fmt(bound, 4),
        )
        self.hover.setText(text)
        self.plot.setToolTip(text)
        self.sigHoverText.emit(text)

    # --- look --------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        style_figure(self.figure, theme)
        self.plot.set_style(theme, self.plot_font())
        self._redraw_styled()
