"""The spread panel: why the scores are divided by √d_k, measured.

For random q and k whose components are independent with mean 0 and variance 1, q·k sums
d_k products of variance 1: its spread grows like √d_k (the dashed curve), and the
measured points follow it. Divided by √d_k the spread is 1 at every width (the second
row of points). The head shown is marked at its own d_k: the spread of its q·kᵀ, and of
the scores its softmax receives.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout

from attnviz.model.resolve.result_names import ATTENTION, MASK
from attnviz.model.resolve.spread import spread_data
from attnviz.ui.panel_base import FigurePanel, figure_box
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.log_axes import DecadeAxis, WidthAxis
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.steady_plot import SteadyPlot

#: The plot's top over the widest measured spread (log units): the legend's room.
LEGEND_ROOM = 0.8


class SpreadPanel(FigurePanel):
    """σ of q·k against d_k beside √d_k, the same divided by √d_k, and this head."""

    PANEL_ID = "spread"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.table = None  # the drawn arrays: the measured curve and the head
        self.head = None
        self.plot = SteadyPlot()
        self.plot.setObjectName("spread_plot")
        self.plot.getPlotItem().setAxisItems(
            {"left": DecadeAxis("left"), "bottom": WidthAxis("bottom")}
        )
        self.plot.setLogMode(x=True, y=True)
        self.plot.setLabel("bottom", self.tr("d_k (head width)"))
        self.plot.setLabel("left", self.tr("spread σ of the scores"))
        # The curves rise to the top right: the top left corner is free for the legend.
        self.plot.legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(10, 10))
        self.theory = self.plot.plot([], [])
        self.raw = self.plot.plot([], [])
        self.scaled = self.plot.plot([], [])
        self.mark = pg.ScatterPlotItem()
        self.mark.setZValue(2)
        self.plot.addItem(self.mark)
        self.plot.legend_entry(self.theory, "√d_k")
        self.plot.legend_entry(self.raw, self.tr("σ(q·k), random unit-variance q, k"))
        self.plot.legend_entry(self.scaled, self.tr("σ(q·k / √d_k)"))
        self.plot.legend_entry(self.mark, self.tr("this head"))
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
            return  # another selected query or colour map: the same spreads
        self.table = spread_data(self.workspace, "spread").values
        self.head = spread_data(self.workspace, "head").values[0]
        self._draw()

    def _draw(self) -> None:
        if self.table is None:
            return
        d, sigma, root, scaled = self.table.T
        dots = max(8, round(self.plot_font().pixelSize() * 0.6))
        self.theory.setData(d, root)
        self.theory.setPen(self.plot.pen(1, dash=True))
        for item, values, index in ((self.raw, sigma, 0), (self.scaled, scaled, 2)):
            item.setZValue(1)  # the measured points over the curve they follow
            item.setData(d, values)
            item.setPen(None)
            item.setSymbol("o")
            item.setSymbolSize(dots)
            item.setSymbolBrush(self.plot.pen(index).color())
            item.setSymbolPen(None)
        width, raw, seen = self.head
        points = [(width, raw)] + ([(width, seen)] if np.isfinite(seen) and seen > 0 else [])
        points = [(x, y) for x, y in points if np.isfinite(y) and y > 0]
        self.mark.setData(
            x=[math.log10(x) for x, _ in points],
            y=[math.log10(y) for _, y in points],
            symbol="star",
            size=dots * 2.2,
            brush=self.plot.pen(3).color(),
            pen=None,
        )
        top = max(float(sigma.max()), float(root.max()), *(y for _, y in points), 1.0)
        low = min(float(scaled.min()), *(y for _, y in points), 1.0)
        self.plot.setXRange(0, math.log10(d.max()), padding=0.04)
        self.plot.setYRange(math.log10(low) - 0.2, math.log10(top) + LEGEND_ROOM, padding=0)
        self.summary.setText(self._summary(width, raw, seen))

    def _summary(self, width: float, raw: float, seen: float) -> str:
        at = self.table[self.table[:, 0] == width][0]
        text = fill(
            self.tr(
                "At d_k = %1, random q·k spread σ = %2 (√d_k = %3); divided by √d_k, %4. "
                "This head: σ(q·k) = %5, and the scores its softmax receives %6."
            ),
            int(width),
            fmt(at[1], 2),
            fmt(at[2], 2),
            fmt(at[3], 2),
            fmt(raw, 2),
            fmt(seen, 2),
        )
        return text

    def _on_d_k_changed(self) -> None:
        # A new width: its measured point joins the curve (the results follow anyway).
        if self.results is not None:
            self._on_results(self.results, frozenset({ATTENTION}))

    def _on_q_mouse(self, pos) -> None:
        if self.table is None:
            return
        x = self.plot.getPlotItem().vb.mapSceneToView(pos).x()
        d = self.table[:, 0]
        i = int(np.argmin(np.abs(np.log10(d) - x)))
        width, sigma, root, scaled = self.table[i]
        text = fill(
            self.tr("d_k = %1: σ(q·k) = %2 measured, √d_k = %3; divided by √d_k: %4"),
            int(width),
            fmt(sigma, 4),
            fmt(root, 4),
            fmt(scaled, 4),
        )
        self.hover.setText(text)
        self.plot.setToolTip(text)
        self.sigHoverText.emit(text)

    # --- look --------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        style_figure(self.figure, theme)
        self.plot.set_style(theme, self.plot_font())
        self._redraw_styled()
