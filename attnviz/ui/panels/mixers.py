"""The mixers panel: one synthetic head through every token mixer, each as its matrix M.

Softmax pays for n² pairs; a window, top-k or strided pattern keeps fewer of them; linear,
decayed and delta-rule layers carry a fixed d × d state instead of a growing KV cache. All
mix tokens as out_t = Σ_s M[t, s] v_s: the panel draws M of the kind chosen, a table of
every kind's error against dense softmax, pairs kept and state, the FLOPs and bytes of the
kind against softmax as the sequence grows (with the lengths where it becomes cheaper),
and the recall experiment: how many key–value pairs each state gives back. Two more pages
(:mod:`attnviz.ui.panels._mixers_decode`): one decoding step, the cache read against the
state updated, and a window's reach growing with depth.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.mixers import FEATURE_MAPS, KINDS
from attnviz.model.topics.mixers import (
    MAX_PAIRS,
    MAX_REACH,
    MAX_SEED,
    MAX_TOKENS,
    MAX_WIDTH,
    VIEWS,
)
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels._mixers_decode import DecodePagesMixin
from attnviz.ui.panels._mixers_names import KIND_NAMES, kind_name  # noqa: F401 (the names' home)
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.flow_layout import FlowLayout, flow_of
from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color, with_legend_line
from attnviz.ui.widgets.steady_plot import SteadyPlot
from attnviz.ui.widgets.units import count, sci

_C = "MixersPanel"
FEATURE_NAMES = {
    "elu1": QT_TRANSLATE_NOOP("MixersPanel", "φ = elu + 1"),
    "relu": QT_TRANSLATE_NOOP("MixersPanel", "φ = ReLU"),
    "identity": QT_TRANSLATE_NOOP("MixersPanel", "φ = identity"),
}
#: The settings each kind reads (the others are greyed out while it is drawn).
SETTINGS = {
    "window": ("window",),
    "top_k": ("top_k",),
    "strided": ("stride",),
    "linear": ("feature_map", "normalised"),
    "decayed": ("decay",),
    "deltanet": ("beta",),
    "gated_deltanet": ("beta", "alpha"),
}
#: The kinds that drop causal pairs (their kept pairs are the nonzero weights of M).
SPARSE = ("window", "top_k", "strided")
SETTING_NAMES = ("window", "top_k", "stride", "feature_map", "normalised", "decay", "beta", "alpha")
#: The kinds of the recall plot: softmax and the ones whose state does not grow with n.
RECALL_KINDS = ("softmax", "window", "linear", "decayed", "deltanet", "gated_deltanet")


class MixersPanel(DecodePagesMixin, FigurePanel):
    """Every token mixer on one synthetic head: M, errors, states, costs and recall."""

    PANEL_ID = "mixers"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        # A dict, not attributes: a control named "window" would hide QWidget.window().
        self.controls: dict[str, QWidget] = {}
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self._build_controls())
        self.matrix_page = QWidget()
        self.matrix_page.setObjectName("matrix_page")
        page = QVBoxLayout(self.matrix_page)
        page.setContentsMargins(0, 0, 0, 0)
        self.matrix = MatrixView("M")
        self.matrix.WRAP_TITLE = True  # "M of Gated DeltaNet: out_t = …": wrapped, never cut
        self.matrix.setMinimumSize(180, 180)
        # Its size hint asks for numbered cells; it draws in whatever room the row has, so
        # at 1280 × 720 the numbers fit beneath it without scrolling.
        self.matrix.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.matrix.sigHover.connect(self._on_cell)
        self.table = QLabel()
        self.table.setObjectName("kinds_table")
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.table.setWordWrap(True)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.costs = self._build_costs()
        # Both legends are lines beneath their plots: in a narrow dock a legend inside
        # lay over the curves.
        costs_page, self.costs_legend = with_legend_line(self.costs, "costs_legend")
        self.recall = self._build_recall()
        # The recall curves cross the whole plot: their legend is a line beneath it.
        recall_page, self.recall_legend = with_legend_line(self.recall, "recall_legend")
        for plot in (self.costs, self.recall):
            plot.setMinimumSize(180, 150)  # the plots give way before the numbers do
        self.costs_page, self.recall_page = costs_page, recall_page
        self.table_kinds = None  # the kinds the table lists (None: all; a slide: fewer)
        # Two arrangements of the same parts (:meth:`_arrange`): on a slide, an export or
        # the panel focused, three pictures side by side over the numbers; docked in a tab
        # at 1280 × 720 that was taller and wider than the dock (the left column narrowed
        # for it), so there the parts are pages of their own.
        self.wide = QWidget()
        self.wide.setObjectName("mixers_wide")
        self.parts = QTabWidget()
        self.parts.setObjectName("mixers_parts")
        self.parts.setDocumentMode(True)
        self.part_pages = []
        for name, title in (
            ("part_costs", self.tr("M and costs")),
            ("part_table", self.tr("Every mixer")),
            ("part_recall", self.tr("Recall")),
        ):
            part = QWidget()
            part.setObjectName(name)
            part.setLayout(QHBoxLayout() if name == "part_costs" else QVBoxLayout())
            # A little margin: the table's last column ran to the page's edge, clipped.
            part.layout().setContentsMargins(2, 2, 6, 2)
            self.parts.addTab(part, title)
            self.part_pages.append(part)
        self.parts.currentChanged.connect(self._on_q_part)
        page.addWidget(self.wide)
        page.addWidget(self.parts)
        self._compact: bool | None = None
        self._arrange(False)
        # The pages are the figure: an export shows the one open (``mixers.view``).
        self.figure = self.tabs = QTabWidget()
        self.tabs.setObjectName("mixers_pages")
        self.tabs.addTab(self.matrix_page, self.tr("Matrices"))
        self.tabs.addTab(self._build_decode_page(), self.tr("Decoding"))
        self.tabs.addTab(self._build_depth_page(), self.tr("Depth"))
        self.tabs.currentChanged.connect(
            lambda i: self._write(self.tabs, view=VIEWS[i]) if 0 <= i < len(VIEWS) else None
        )
        layout.addWidget(self.figure, 1)
        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        layout.addWidget(self.hover)
        layout.addWidget(self.busy)
        for name in ("kind", "n", "d", "seed", "window", "top_k", "stride", "feature_map",
                     "normalised", "decay", "beta", "alpha", "recall_pairs"):  # fmt: skip
            self.mirror(name, self.controls[name])
        # Set explicitly: the figures' style sheets stop the stage's font (Large Fonts) from
        # reaching these lines, which a slide drew in the window's small type.
        for label in (self.table, self.summary, self.costs_legend, self.recall_legend,
                      *self._page_labels()):  # fmt: skip
            self.scale_font(label, 1.0)
        self._on_kind_changed()
        self._on_view_changed()
        self._draw_pages()
        self._finish(layout, scroll=True)

    # --- arrangement -------------------------------------------------------------------
    def compact(self) -> bool:
        """True while docked in a tab group and not focused: the parts are pages then."""
        window = self.window()
        return isinstance(self.parentWidget(), QDockWidget) and not bool(
            getattr(window, "focused_panel", False)
        )

    def _arrange(self, compact: bool) -> None:
        """Lay the matrix page's parts out as pages (``compact``) or as one grid."""
        if compact == self._compact:
            return
        self._compact = compact
        if compact:
            costs, table, recall = (p.layout() for p in self.part_pages)
            costs.addWidget(self.matrix, 1)
            costs.addWidget(self.costs_page, 1)
            table.addWidget(self.table)
            table.addWidget(self.summary)
            table.addStretch(1)
            recall.addWidget(self.recall_page)
        else:
            old = self.wide.layout()
            if old is not None:
                QWidget().setLayout(old)  # a widget holds one layout: the old one goes
            grid = QGridLayout(self.wide)
            grid.setContentsMargins(0, 0, 0, 0)
            grid.addWidget(self.matrix, 0, 0)
            grid.addWidget(self.costs_page, 0, 1)
            grid.addWidget(self.recall_page, 0, 2)
            grid.addWidget(self.table, 1, 0, 1, 2)
            grid.addWidget(self.summary, 1, 2)
            for i in range(3):
                grid.setColumnStretch(i, 1)
            grid.setRowStretch(0, 1)
        self.wide.setVisible(not compact)
        self.parts.setVisible(compact)
        if self._theme is not None:
            self._restyle(self._theme)

    def _on_q_part(self, _index: int) -> None:
        # A page brought forward is laid out now: its plots draw at their new size.
        if self.results is not None:
            self.redraw()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange(self.compact())

    def showEvent(self, event) -> None:
        self._arrange(self.compact())
        super().showEvent(event)

    # --- building ----------------------------------------------------------------------
    def _spin(self, name: str, lo: int, hi: int, prefix: str, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setObjectName(name)
        spin.setRange(lo, hi)
        spin.setPrefix(prefix)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v: self._write(spin, **{name: int(v)}))
        return spin

    def _real(self, name: str, prefix: str, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setObjectName(name)
        spin.setRange(0.0, 1.0)
        spin.setDecimals(2)
        spin.setSingleStep(0.05)
        spin.setPrefix(prefix)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v: self._write(spin, **{name: float(v)}))
        return spin

    def _combo(self, name: str, items, tip: str) -> QComboBox:
        box = QComboBox()
        box.setObjectName(name)
        for value, text in items:
            box.addItem(text, value)
        box.setToolTip(tip)
        box.activated.connect(lambda i: self._write(box, **{name: box.itemData(i)}))
        return box

    def _build_controls(self) -> FlowLayout:
        c = self.controls
        c["kind"] = self._combo(
            "kind", [(k, kind_name(k)) for k in KINDS], self.tr("The mixer whose matrix M is drawn")
        )
        c["n"] = self._spin("n", 2, MAX_TOKENS, self.tr("n "), self.tr("Tokens of the head"))
        c["d"] = self._spin(
            "d", 1, MAX_WIDTH, self.tr("d "), self.tr("Width of q, k, v: the state is d × d")
        )
        c["seed"] = self._spin(
            "seed", 0, MAX_SEED, self.tr("seed "), self.tr("Another draw of q, k and v")
        )
        c["recall_pairs"] = self._spin(
            "recall_pairs", 1, MAX_PAIRS, self.tr("recall up to "),
            self.tr("The most key–value pairs the recall experiment writes"),
        )  # fmt: skip
        c["window"] = self._spin(
            "window", 1, MAX_REACH, self.tr("window "), self.tr("Keys a row sees, itself included")
        )
        c["top_k"] = self._spin(
            "top_k", 1, MAX_REACH, self.tr("k "), self.tr("The largest scores a row keeps")
        )
        c["stride"] = self._spin(
            "stride", 1, MAX_REACH, self.tr("stride "),
            self.tr("The l nearest keys and every l-th one before them"),
        )  # fmt: skip
        c["feature_map"] = self._combo(
            "feature_map",
            [(f, QCoreApplication.translate(_C, FEATURE_NAMES[f])) for f in FEATURE_MAPS],
            self.tr("Linear attention's feature map"),
        )
        box = QCheckBox(self.tr("normalised"))
        box.setObjectName("normalised")
        box.setToolTip(self.tr("Divide each row by Σ φ(q)·φ(k)"))
        box.toggled.connect(lambda on: self._write(box, normalised=on))
        c["normalised"] = box
        c["decay"] = self._real("decay", self.tr("γ "), self.tr("Decay per step"))
        c["beta"] = self._real("beta", self.tr("β "), self.tr("The delta rule's writing strength"))
        c["alpha"] = self._real("alpha", self.tr("α "), self.tr("Gated DeltaNet's forgetting gate"))
        # Flows: with Large Fonts in a tab at 1280 × 720 the thirteen fields wrap onto
        # more lines rather than widen the panel past its dock.
        return flow_of(*(c[name] for name in ("kind", "n", "d", "seed", "recall_pairs",
                                               *SETTING_NAMES)))  # fmt: skip

    def _build_costs(self) -> SteadyPlot:
        plot = SteadyPlot()
        plot.setObjectName("costs_plot")
        plot.setLogMode(x=True, y=True)
        plot.setLabel("bottom", self.tr("tokens n"))
        plot.setLabel("left", self.tr("FLOPs or bytes"))  # for n: the axis below
        # Powers of ten on the ticks, never a "×1e12" beside the title.
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.legend.hide()
        self.cost_curves = [plot.plot([], []) for _ in range(4)]
        self.crossing_marks = pg.ScatterPlotItem()
        self.crossing_marks.setZValue(10)
        plot.addItem(self.crossing_marks)
        return plot

    def _build_recall(self) -> SteadyPlot:
        plot = SteadyPlot()
        plot.setObjectName("recall_plot")
        plot.setLogMode(x=True, y=False)
        plot.setLabel("bottom", self.tr("key–value pairs written"))
        plot.setLabel("left", self.tr("pairs recalled"))
        plot.legend.hide()
        self.recall_curves = {k: plot.plot([], [], symbol="o") for k in RECALL_KINDS}
        return plot

    # --- fields → view -----------------------------------------------------------------
    def _on_kind_changed(self) -> None:
        used = SETTINGS.get(self.state.kind, ())
        for name in SETTING_NAMES:
            self.controls[name].setEnabled(name in used)
            # Only the kind's own settings show: the others greyed out took a line of
            # their own in a narrow dock.
            self.controls[name].setVisible(name in used)
        if self.results is not None:
            self.redraw()
        else:
            self._draw_pages()

    def _on_view_changed(self) -> None:
        self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(VIEWS.index(self.state.view))
        self.tabs.blockSignals(False)

    # --- results → view ----------------------------------------------------------------
    def _on_results(self, res, _names: frozenset) -> None:
        kind = self.state.kind
        m = res.matrices[kind]
        self.matrix.set_title(fill(self.tr("M of %1: out_t = Σ_s M[t, s] v_s"), kind_name(kind)))
        # Hatched: the pairs a kind never reads (the future; for a sparse kind, the pairs
        # it drops), so a 0 in a cell is a weight that happens to be 0.
        kept = m != 0 if kind in SPARSE else np.tril(np.ones(m.shape, dtype=bool))
        self.matrix.set_matrix(m, allowed=kept, decimals=2)
        self._draw_table(res, kind)
        self._draw_costs(res, kind)
        self._draw_recall(res, kind)
        self._write_summary(res, kind)
        self._draw_pages()

    def focus_data(self, quoted: frozenset) -> None:
        """On a slide, only the pictures the lesson quotes beside M: the costs plot for
        ``flops`` / ``bytes``, the recall plot for ``recall``; the table keeps softmax and
        the kind drawn (the nine rows in the stage's type pushed the pictures off it)."""
        self.costs_page.setVisible(bool({"flops", "bytes"} & set(quoted)))
        self.recall_page.setVisible("recall" in quoted)
        self.table_kinds = ("softmax",)
        if self.results is not None:
            self.redraw()

    def _draw_table(self, res, kind: str) -> None:
        head = (
            self.tr("mixer"), self.tr("error vs softmax"), self.tr("pairs kept"),
            fill(self.tr("state at n = %1"), res.n), self.tr("state at 128k tokens"),
        )  # fmt: skip
        rows = [
            "<tr>"
            + "".join(f"<th align='left'>{html.escape(h)}&nbsp;&nbsp;</th>" for h in head)
            + "</tr>"
        ]
        for k in (
            KINDS
            if self.table_kinds is None
            else [k for k in KINDS if k in {*self.table_kinds, kind}]
        ):
            cells = (
                kind_name(k),
                fmt(res.errors[k], 3),
                f"{fmt(100 * res.kept[k], 0)} %",
                count(res.state[k]),
                sci(float(res.state_long[k])),
            )
            style = " style='font-weight:bold'" if k == kind else ""
            rows.append(
                f"<tr{style}>"
                + "".join(f"<td>{html.escape(str(c))}&nbsp;&nbsp;</td>" for c in cells)
                + "</tr>"
            )
        self.table.setText("<table cellspacing='0' cellpadding='0'>" + "".join(rows) + "</table>")
        self.table.setToolTip(
            self.tr("State: numbers a head holds, KV cache (2·d per token) or a d × d matrix.")
        )

    def _draw_costs(self, res, kind: str) -> None:
        plot = self.costs
        x = res.lengths.astype(float)
        entries = []
        curves = (
            ("softmax", "flops", 0, False), ("softmax", "bytes", 0, True),
            (kind, "flops", 1, False), (kind, "bytes", 1, True),
        )  # fmt: skip
        spots = []
        for i, (curve, (k, what, color, dash)) in enumerate(
            zip(self.cost_curves, curves, strict=True)
        ):
            # Softmax drawn: its second pair of curves would repeat the first (hiding both
            # left the plot empty).
            same = i >= 2 and kind == "softmax"
            y = getattr(res, what)[k][:-1]
            curve.setData(x, y)
            curve.setVisible(not same)
            curve.setPen(plot.pen(color, width=1.3, dash=dash))
            if not same:
                label = self.tr("FLOPs") if what == "flops" else self.tr("bytes")
                entries.append(_legend(self._theme, color, f"{kind_name(k)}: {label}", dash))
        self.costs_legend.setText("&nbsp;&nbsp; ".join(entries))
        crossings = res.crossings[kind]
        for what, at in zip(("flops", "bytes"), crossings, strict=True):
            if at is None or kind == "softmax":
                continue
            value = _total(res, what, at)
            spots.append(
                {
                    "pos": (np.log10(at), np.log10(max(value, 1.0))),
                    "symbol": "o",
                    "size": max(10, round(self.plot_font().pixelSize() * 0.8)),
                    "brush": pg.mkBrush(None),
                    "pen": pg.mkPen(series_color(self._theme, 1), width=2),
                }
            )
        self.crossing_marks.setData(spots)

    def _draw_recall(self, res, kind: str) -> None:
        plot = self.recall
        x = res.recall_lengths.astype(float)
        entries = []
        for i, k in enumerate(RECALL_KINDS):
            curve = self.recall_curves[k]
            curve.setData(x, res.recall[k])
            pen = plot.pen(i, width=2.2 if k == kind else 1.0)
            curve.setPen(pen)
            curve.setSymbolPen(pen)
            curve.setSymbolBrush(series_color(self._theme, i))
            curve.setSymbolSize(max(4, round(self.plot_font().pixelSize() * 0.4)))
            entries.append(_legend(self._theme, i, kind_name(k), bold=k == kind))
        self.recall_legend.setText("&nbsp;&nbsp; ".join(entries))
        plot.setYRange(0.0, 1.05, padding=0)
        plot.getAxis("bottom").setTicks([[(float(np.log10(v)), str(int(v))) for v in x]])

    def _write_summary(self, res, kind: str) -> None:
        flops_at, bytes_at = res.crossings[kind]
        if kind == "softmax":
            costs = self.tr("Softmax reads the whole cache: its FLOPs and bytes grow as n².")
        elif flops_at is None and bytes_at is None:
            costs = self.tr("It is never cheaper than softmax up to 128k tokens.")
        else:
            costs = fill(
                self.tr("Cheaper than softmax from n = %1 tokens in FLOPs, %2 in bytes (○)."),
                "—" if flops_at is None else count(flops_at),
                "—" if bytes_at is None else count(bytes_at),
            )
        self.summary.setText(
            fill(
                self.tr(
                    "%1: output error %2 against dense softmax, %3 % of the causal pairs "
                    "kept, %4 numbers of state after %5 tokens (softmax's KV cache: %6). %7"
                ),
                kind_name(kind),
                fmt(res.errors[kind], 3),
                fmt(100 * res.kept[kind], 0),
                count(res.state[kind]),
                res.n,
                count(res.state["softmax"]),
                costs,
            )
        )

    # --- hover -------------------------------------------------------------------------
    def _on_cell(self, row: int, col: int) -> None:
        res = self.results
        if res is None or row < 0 or col >= res.n or row >= res.n:
            self.hover.setText(" ")
            self.sigHoverText.emit("")
            return
        value = res.matrices[self.state.kind][row, col]
        text = fill(self.tr("M[%1, %2] = %3: token %1 takes this much of v_%2"), row, col,
                    fmt(float(value), 4))  # fmt: skip
        self.hover.setText(text)
        self.sigHoverText.emit(text)

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme: Theme) -> None:
        style_figure(self.figure, theme)
        self.matrix.set_theme(theme)
        self.decode_view.set_theme(theme)
        self.reach_view.set_theme(theme)
        # Pages in a dock need fewer lines than the grid of three pictures over the table.
        lines = 13 if self._compact else 18
        self.figure.setMinimumHeight(round(QFontMetricsF(self.font()).height() * lines))
        for plot in (self.costs, self.recall):
            plot.set_style(theme, self.plot_font())
        self._redraw_styled()


def _legend(theme, color: int, text: str, dash: bool = False, *, bold: bool = False) -> str:
    """One legend entry as rich text: a stroke in the curve's colour, then its name, kept
    on one line."""
    stroke = "╍" if dash else "━"
    weight = "font-weight:bold;" if bold else ""
    name = html.escape(text).replace(" ", "&nbsp;")
    return (
        f'<span style="color:{series_color(theme, color).name()}">{stroke}</span>&nbsp;'
        f'<span style="{weight}">{name}</span>'
    )


def _total(res, what: str, at: int) -> float:
    """The softmax total at length ``at``, read off the log grid (the mark's height)."""
    y = np.log10(np.maximum(getattr(res, what)["softmax"][:-1], 1.0))
    return float(10 ** np.interp(np.log10(at), np.log10(res.lengths.astype(float)), y))
