"""The reach panel: how much gradient gets back to each earlier token, on a log scale.

A plain RNN multiplies the gradient by ``diag(1 − h²) W`` at every step back, an LSTM's
cell path by its forget gates; both are straight lines on a log plot (a constant factor
per step). Attention links the last token to every token in one step: a flat line. The
chapter's four figures are marked, and the fitted factor of each line is printed. The
LSTM at T = 1024 takes about half a second, so the curves are computed on a worker.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QPointF, Qt
from PySide6.QtGui import QFontMetricsF, QPen
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QGraphicsLineItem,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.resolve.reach import KINDS, REFERENCES
from attnviz.model.topics.reach import MAX_LENGTH, MAX_SEED
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.label_room import LabelRoom, nearest_point
from attnviz.ui.widgets.log_slider import LogSlider
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.steady_plot import SteadyPlot
from attnviz.ui.widgets.units import sci

_C = "ReachPanel"
KIND_NAMES = {
    "rnn": QT_TRANSLATE_NOOP("ReachPanel", "RNN (tanh)"),
    "lstm": QT_TRANSLATE_NOOP("ReachPanel", "LSTM cell path"),
    "attention": QT_TRANSLATE_NOOP("ReachPanel", "attention"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def _label_anchor(n: int, value: float, length: int) -> tuple[float, float]:
    """The first place tried for a chapter mark's label on its point: the upper of two
    marks at one length above and right of its point, the lower one below and left (below
    and right, each line struck its own label through); near the right end below and left,
    so that it stays inside. A little off the point, so the line running into the mark
    does not touch the text's box. :meth:`ReachPanel._place_labels` keeps it only where it
    is clear."""
    if n - 1 > 0.6 * (length - 1):
        return (1.0, -0.3)
    upper = value >= max(v for _k, m, v in REFERENCES if m == n)
    return (0.0, 1.2) if upper else (1.0, -0.3)


class ReachPanel(FigurePanel):
    """Gradient reach of an RNN, an LSTM and attention against the distance back."""

    PANEL_ID = "reach"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self._hover_t: int | None = None
        self._placing_held = False  # while a result sets both ranges
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, why recurrent networks forget: each step back multiplies the "
                "gradient by a factor below 1; attention reaches every token in one step."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        self.figure = QWidget()
        box = QVBoxLayout(self.figure)
        box.setContentsMargins(0, 0, 0, 0)
        self.plot = self._build_plot()
        box.addWidget(self.plot, 1)
        # The chapter's marks whose labels found no free place in the plot (a short dock
        # at Large Fonts laid two of them over each other): written here, in their colours.
        self.marks_note = QLabel()
        self.marks_note.setObjectName("marks_note")
        self.marks_note.setWordWrap(True)
        self.marks_note.hide()
        box.addWidget(self.marks_note)
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
        self.mirror("length", self.length, block=False)
        self.mirror("seed", self.seed)
        self.mirror("weight_scale", self.weight_scale)
        self.mirror("score_std", self.score_std)
        # Scrolls rather than squeezing the plot below a readable height.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_controls(self) -> QVBoxLayout:
        row = QHBoxLayout()
        label = QLabel(self.tr("Length &T"))
        self.length = LogSlider(2, MAX_LENGTH, integer=True)
        self.length.setObjectName("length")
        self.length.setToolTip(
            self.tr("Tokens in the sequence: the gradient runs back T − 1 steps")
        )
        self.length.valueChanged.connect(lambda v: self._write(self.length, length=int(v)))
        label.setBuddy(self.length)
        self.seed = QSpinBox()
        self.seed.setRange(0, MAX_SEED)
        self.seed.setPrefix(self.tr("seed "))
        self.seed.setToolTip(self.tr("Another draw of the random weights and inputs"))
        self.seed.valueChanged.connect(lambda v: self._write(self.seed, seed=int(v)))
        self.weight_scale = QDoubleSpinBox()
        self.weight_scale.setRange(0.05, 2.0)
        self.weight_scale.setSingleStep(0.05)
        self.weight_scale.setPrefix(self.tr("weights × "))
        self.weight_scale.setToolTip(
            self.tr("Scale of the recurrent weights: 1 is the chapter's setting")
        )
        self.weight_scale.valueChanged.connect(
            lambda v: self._write(self.weight_scale, weight_scale=float(v))
        )
        self.score_std = QDoubleSpinBox()
        self.score_std.setRange(0.0, 10.0)
        self.score_std.setSingleStep(0.5)
        self.score_std.setPrefix(self.tr("score spread "))
        self.score_std.setToolTip(
            self.tr("Attention: random content scores of this spread (0: all tokens alike)")
        )
        self.score_std.valueChanged.connect(
            lambda v: self._write(self.score_std, score_std=float(v))
        )
        row.addWidget(label)
        row.addWidget(self.length, 1)
        second = QHBoxLayout()
        for spin in (self.seed, self.weight_scale, self.score_std):
            second.addWidget(spin, 1)
        column = QVBoxLayout()
        column.addLayout(row)
        column.addLayout(second)
        return column

    def _build_plot(self) -> SteadyPlot:
        plot = SteadyPlot()
        plot.setObjectName("reach_plot")
        plot.setLogMode(x=False, y=True)
        plot.setLabel("bottom", self.tr("steps back from the last token (t)"))
        plot.setLabel("left", self.tr("gradient (last token = 1)"))
        # The lines fall from the top left: the bottom left corner is free for the legend.
        plot.legend.anchor(itemPos=(0, 1), parentPos=(0, 1), offset=(10, -10))
        self.curves = {k: plot.plot([], [], connect="finite") for k in KINDS}
        self.references = pg.ScatterPlotItem()
        self.references.setZValue(10)
        plot.addItem(self.references)
        self.reference_labels = [pg.TextItem(anchor=(0, 0)) for _ in REFERENCES]
        for item in self.reference_labels:
            plot.addItem(item)
        # From a mark to its label, where the curves left no room beside the mark.
        self.leaders = [QGraphicsLineItem() for _ in REFERENCES]
        for leader in self.leaders:
            leader.setVisible(False)
            leader.setZValue(9)
            plot.addItem(leader)
        plot.scene().sigMouseMoved.connect(self._on_q_mouse)
        # A new size (an export's) or range moves the curves under the labels: place again.
        vb = plot.getPlotItem().vb
        vb.sigResized.connect(self._place_labels)
        vb.sigRangeChanged.connect(self._place_labels)
        return plot

    # --- model → view ------------------------------------------------------------------
    def _on_results(self, res, _names: frozenset) -> None:
        plot = self.plot
        fresh = len(plot.legend.items) != len(KINDS)
        if fresh:
            plot.legend.clear()
        low = 1.0
        for i, kind in enumerate(KINDS):
            g = res.curves[kind]
            shown = np.where(g > 0, g, np.nan)  # a cut path (0) has no place on a log axis
            curve = self.curves[kind]
            curve.setData(res.distance, shown)
            curve.setPen(plot.pen(i, width=1.4 if kind == "attention" else 1.2))
            if fresh:
                plot.legend_entry(curve, self._legend_text(kind, res))
            else:  # only the factors change: rewriting the labels is cheaper than a rebuild
                self._relabel(plot.legend.items[i][1], self._legend_text(kind, res))
            if np.any(g > 0):
                low = min(low, float(g[g > 0].min()))
        top = max(
            1.0,
            *(
                float(np.nanmax(np.where(g > 0, g, np.nan), initial=1.0))
                for g in res.curves.values()
            ),
        )
        self._draw_references(res)
        y_lo = np.log10(low)
        if res.length >= 64:
            y_lo = min(y_lo, np.log10(min(r[2] for r in REFERENCES if r[1] <= res.length)))
        span = max(np.log10(top) - y_lo, 1.0)
        # Room below the lowest point for its label. The two ranges each move the view:
        # the labels are placed once, after both.
        self._placing_held = True
        try:
            plot.setYRange(y_lo - 0.12 * span, np.log10(top) + 0.05 * span, padding=0)
            plot.setXRange(0, max(1, res.length - 1), padding=0.02)
        finally:
            self._placing_held = False
        self._place_labels()
        self._write_summary(res)
        self._show_hover(self._hover_t)

    def _relabel(self, label, text: str) -> None:
        plot = self.plot
        if plot.theme is None or plot.plot_font is None:
            label.setText(text)
            return
        label.setText(text, color=plot.theme.foreground, size=f"{plot.plot_font.pixelSize()}px")

    def _legend_text(self, kind: str, res) -> str:
        fit = res.fits[kind]
        factor = self.tr("no fit") if fit is None else f"× {fmt(fit.factor, 3)}"
        return self.tr("%1: %2 per step").replace("%1", _tr(KIND_NAMES[kind])).replace("%2", factor)

    def _draw_references(self, res) -> None:
        spots = []
        size = max(10, round(self.plot_font().pixelSize() * 0.8))
        for item, (kind, n, value) in zip(self.reference_labels, REFERENCES, strict=True):
            shown = n <= res.length
            item.setVisible(shown)
            if not shown:
                continue
            color = series_color(self._theme, KINDS.index(kind))
            spots.append(
                {
                    "pos": (n - 1, np.log10(value)),
                    "symbol": "d",
                    "size": size,
                    "brush": pg.mkBrush(None),
                    "pen": pg.mkPen(color, width=max(2.0, size / 5)),
                }
            )
            item.setText(
                self.tr("chapter: %1 at %2 tokens")
                .replace("%1", sci(value, 1))
                .replace("%2", str(n))
            )
            item.setColor(color)
            item.setFont(self.plot_font())
            item.setAnchor(_label_anchor(n, value, res.length))
            item.setPos(n - 1, np.log10(value))
        self.references.setData(spots)

    def _place_labels(self, *_args) -> None:
        """Put each shown label where it lies whole inside the plot, clear of every curve,
        of the legend and of the labels placed before it: beside its mark (its usual place
        first) or, where the curves crowd the mark, in the nearest free box, with a leader
        to the mark (:class:`~attnviz.ui.widgets.label_room.LabelRoom`)."""
        res = self.results
        if res is None or self._placing_held:
            return
        vb = self.plot.getPlotItem().vb
        legend = self.plot.legend
        curves = []
        for kind in KINDS:
            g = np.asarray(res.curves[kind], float)
            keep = g > 0  # a cut path (0) has no place on the log axis
            curves.append((np.asarray(res.distance, float)[keep], np.log10(g[keep])))
        room = LabelRoom(vb, curves, [legend.sceneBoundingRect()] if legend.isVisible() else [])
        marks = [
            (
                item,
                leader,
                kind,
                QPointF(n - 1, np.log10(value)),
                _label_anchor(n, value, res.length),
            )
            for item, leader, (kind, n, value) in zip(
                self.reference_labels, self.leaders, REFERENCES, strict=True
            )
        ]
        for leader in self.leaders:
            leader.setVisible(False)
        for item, (_kind, n, _value) in zip(self.reference_labels, REFERENCES, strict=True):
            item.setVisible(n <= res.length)  # those left out last time are tried again
        # Beside their marks first, all of them; then the crowded ones, where there is room.
        crowded = [m for m in marks if m[0].isVisible() and not room.beside(m[0], m[3], m[4])]
        left_out = []
        for item, leader, kind, point, first in crowded:
            if not room.away(item, point, first):
                item.setVisible(False)
                color = series_color(self._theme, KINDS.index(kind)).name()
                words = html.escape(item.toPlainText()).replace(" ", "&nbsp;")  # kept whole
                left_out.append(f'<span style="color:{color}">◇&nbsp;{words}</span>')
            else:
                end = vb.mapSceneToView(
                    nearest_point(item.sceneBoundingRect(), vb.mapViewToScene(point))
                )
                # A thin line in the mark's curve's colour.
                pen = QPen(series_color(self._theme, KINDS.index(kind)), 1)
                pen.setCosmetic(True)
                leader.setPen(pen)
                leader.setLine(point.x(), point.y(), end.x(), end.y())
                leader.setVisible(True)
        self.marks_note.setText(" · ".join(left_out))
        self.marks_note.setVisible(bool(left_out))

    def _write_summary(self, res) -> None:
        first = [f"{_tr(KIND_NAMES[k])} {sci(res.curves[k][-1])}" for k in KINDS]
        self.summary.setText(
            self.tr("Gradient reaching the first of T = %1 tokens: %2.")
            .replace("%1", str(res.length))
            .replace("%2", " · ".join(first))
        )

    # --- hover -------------------------------------------------------------------------
    def _on_q_mouse(self, pos) -> None:
        vb = self.plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(pos):
            self._hover_t = None
            self.hover.clear()
            return
        self._hover_t = int(round(vb.mapSceneToView(pos).x()))
        self._show_hover(self._hover_t)

    def _show_hover(self, t: int | None) -> None:
        res = self.results
        if t is None or res is None:
            return
        t = min(max(t, 0), res.length - 1)
        parts = [f"{_tr(KIND_NAMES[k])} {sci(res.curves[k][t], 3)}" for k in KINDS]
        self.hover.setText(
            self.tr("t = %1: %2").replace("%1", str(t)).replace("%2", " · ".join(parts))
        )

    # --- style -------------------------------------------------------------------------

    def _restyle(self, theme: Theme) -> None:
        """Restyle the plot for ``theme`` and the current font."""
        style_figure(self.figure, theme)
        self.figure.setMinimumHeight(round(QFontMetricsF(self.font()).height() * 16))
        self.plot.set_style(theme, self.plot_font())
        self._redraw_styled()
