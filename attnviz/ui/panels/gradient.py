"""The gradient panel: the backward pass of one head and the softmax Jacobian, live.

What the chapter's backward-pass section writes, drawn from the attention topic:

- the chain dO → dA → dS → dQ, dK, dV, each matrix with the formula that made it, dS
  with its row sums (all 0: the softmax ignores a constant added to a row), masked cells
  drawn as masked;
- the Jacobian diag(a) − a aᵀ of the selected query's softmax row;
- the saturation demo: the Jacobian's size against d_k (or the temperature) with the
  √d_k divisor on and off, on log axes, with the current setting marked;
- a finite-difference check of dQ, dK and dV on a worker thread (never blocking; Cancel
  drops its answer).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.work import Cancelled
from attnviz.model.resolve.gradient import (
    CHECK_BUDGET,
    MAX_BACKWARD_TOKENS,
    MAX_CURVE_TOKENS,
    GradientResults,
    check_cost,
)
from attnviz.model.topics.attention import MAX_SEED
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.theme import Theme, palette_for
from attnviz.ui.widgets.binding import bind, blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, keep_together
from attnviz.ui.widgets.matrix_view import MatrixView, sci
from attnviz.ui.widgets.numbers import MINUS, display_decimals, fmt, shown_decimals
from attnviz.ui.widgets.steady_plot import SteadyPlot

_C = "GradientPanel"
SOURCES = (
    ("onehot", QT_TRANSLATE_NOOP("GradientPanel", "one output entry")),
    ("random", QT_TRANSLATE_NOOP("GradientPanel", "random (seeded)")),
    ("preset", QT_TRANSLATE_NOOP("GradientPanel", "the example's own")),
)
#: Decimals written in the cells (the chapter quotes dQ to three).
DECIMALS = 3
#: The fields the saturation plot is about (a slide shows it when its lesson moves them).
SATURATION_FIELDS = frozenset({"d_k", "scale", "temperature"})


def _decimals(values) -> int:
    """Decimals of a gradient matrix: the display's choice, 3 when it is automatic
    (gradients are small: 0.012 written 0.01 hides half of it)."""
    return shown_decimals(values, display_decimals() or DECIMALS)


#: The lowest power of ten the saturation plot draws: smaller sizes (a double underflows
#: near 1e−308; the sizes are exact beyond) lie on the floor. pyqtgraph's log axes stop
#: at 1e−307.6.
PLOT_FLOOR = -300.0
#: The matrices of the chain and the row of the figure each sits in.
CHAIN = {"d_output": 0, "da": 0, "dscores": 0, "dv": 1, "dq": 1, "dk": 1}
SYMBOLS = {"d_output": "dO", "da": "dA", "dscores": "dS", "dv": "dV", "dq": "dQ", "dk": "dK"}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def _tick(x: float) -> str:
    """A tick label: 0.01, 0.1, 1, 10, 100 (the UI's decimal separator)."""
    return str(int(x)) if x >= 1 else fmt(x, max(0, -int(np.floor(np.log10(x)))))


def pow10(log10: float) -> str:
    """A size given as log10: ``3.4e−52`` even far below what a double holds."""
    if not np.isfinite(log10):
        return "0"
    exp = int(np.floor(log10))
    mant = round(10 ** (log10 - exp), 1)
    if mant >= 10:
        mant, exp = 1.0, exp + 1
    if -3 <= exp <= 2:
        return fmt(10**log10, 3)
    return f"{fmt(mant, 1)}e{exp}".replace("-", MINUS)


class GradientPanel(FigurePanel):
    """The backward pass, the softmax Jacobian, its saturation and a finite-difference check."""

    PANEL_ID = "gradient"
    PLOT_FONT_SCALE = 1.0  # the matrices' numbers and the plot in one size

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self._version = 0  # bumped at every edit: a check of older inputs is stale
        self._check_version = 0
        self.check_result = None
        # The finite-difference check runs in the resolver; the panel shows its answer.
        bind(self, self.resolver.check_done, self._on_check_done)
        bind(self, self.resolver.check_failed, self._on_check_failed)
        self.chain_shown = True  # a slide whose lesson quotes no part of the chain: False
        self._has_chain = False  # the last results had one (a real model's may not)
        self._last: GradientResults | None = None
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, backward pass: how the loss's gradient dO flows back through "
                "A = softmax(QKᵀ/√d_k) to Q, K and V."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        layout.addLayout(self._build_check())
        self.figure = self._build_figure()
        layout.addWidget(self.figure, 1)
        self.mirror("grad_seed", self.seed)
        # Scrolls rather than squeezing the matrices below their numbers at 1280×720.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_controls(self) -> FlowLayout:
        # A flow: in a dock beside the steps the choices go onto more lines rather than
        # widen the panel past the window.
        row = FlowLayout()
        self.source = QComboBox()
        self.source.setObjectName("grad_source")
        for key, text in SOURCES:
            self.source.addItem(_tr(text), key)
        self.source.setToolTip(self.tr("Where the upstream gradient dO = ∂L/∂O comes from"))
        self.source.activated.connect(
            lambda i: self._write(self.source, grad_source=self.source.itemData(i))
        )
        self.seed = QSpinBox()
        self.seed.setObjectName("grad_seed")
        self.seed.setRange(0, MAX_SEED)
        self.seed.setToolTip(self.tr("Seed of the random dO (normal, mean 0, variance 1)"))
        self.seed.valueChanged.connect(lambda v: self._write(self.seed, grad_seed=int(v)))
        self.dim = QComboBox()
        self.dim.setObjectName("grad_dim")
        self.dim.setToolTip(
            self.tr("The loss is this value dimension of the selected query's output")
        )
        self.dim.activated.connect(lambda i: self._write(self.dim, grad_dim=int(i)))
        self.query = QSpinBox()
        self.query.setObjectName("grad_query")
        self.query.setToolTip(self.tr("The query whose softmax row the Jacobian shows"))
        self.query.valueChanged.connect(lambda v: self._write(self.query, selected_query=int(v)))
        self.axis = QComboBox()
        self.axis.setObjectName("saturation_axis")
        self.axis.addItem(self.tr("plot vs d_k"), "d_k")
        self.axis.addItem(self.tr("plot vs T"), "temperature")
        self.axis.setToolTip(
            self.tr("The saturation plot: the Jacobian's size against d_k or the temperature")
        )
        self.measure = QComboBox()
        self.measure.setObjectName("saturation_measure")
        self.measure.addItem("max |J_ij|", 0)
        self.measure.addItem("‖J‖_F", 1)
        self.measure.setToolTip(
            self.tr("The Jacobian's size: its largest entry or its Frobenius norm")
        )
        for box in (self.axis, self.measure):
            box.activated.connect(lambda _i: self.shown and self._draw_guarded())
        for text, widget in (
            (self.tr("dO:"), self.source),
            (self.tr("seed"), self.seed),
            (self.tr("entry"), self.dim),
            (self.tr("query"), self.query),
            ("", self.axis),
            ("", self.measure),
        ):
            if text:
                label = QLabel(text)
                label.setBuddy(widget)
                widget = keep_together(label, widget)
            row.addWidget(widget)
        return row

    def _build_check(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.check = QPushButton(self.tr("Check with finite differences"))
        self.check.setObjectName("check")
        self.check.clicked.connect(self._on_q_check)
        self.cancel = QPushButton(self.tr("Cancel"))
        self.cancel.setObjectName("cancel")
        self.cancel.clicked.connect(self._on_q_cancel)
        self.cancel.hide()
        self.check_label = QLabel()
        self.check_label.setObjectName("check_result")
        self.check_label.setWordWrap(True)
        self.check_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.check)
        row.addWidget(self.cancel)
        row.addWidget(self.check_label, 1)
        return row

    def _build_figure(self) -> QWidget:
        figure = QWidget()
        figure.setObjectName("gradient_figure")
        column = QVBoxLayout(figure)
        column.setContentsMargins(0, 0, 0, 0)
        self.views = {}
        # One row per line of the chain, each sharing its width by its own matrices.
        self.rows = [QHBoxLayout() for _ in range(3)]
        for name, row in CHAIN.items():
            view = MatrixView(SYMBOLS[name])
            self.views[name] = view
            self.rows[row].addWidget(view)
        self.jacobian = MatrixView("J")
        self.rows[2].addWidget(self.jacobian)
        # Explicit fonts that follow the panel's: a style sheet on the panel stops a font
        # set on it (an export's 22 px) from reaching its children by itself.
        for view in (*self.views.values(), self.jacobian):
            self.scale_font(view, 1.0)
        self.plot = SteadyPlot()  # its hint, not its 640 × 480, in the scrolled figure
        self.plot.setObjectName("saturation_plot")
        self.plot.setMinimumSize(240, 200)
        # The sizes are fed as log10 already (far below what a double holds): the axis
        # writes powers of ten; the x axis gets explicit ticks at the widths (1, 4, 16, …).
        self.plot.getAxis("left").setLogMode(True)
        for side in ("left", "bottom"):
            # An SI prefix would rescale the exponents themselves (10^23 for 10^−277).
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        # Bottom left: the curves start near the top (an unsaturated row) and fall rightwards.
        self.plot.legend.anchor((0, 1), (0, 1), offset=(10, -10))
        self.curves = {True: self.plot.plot([], []), False: self.plot.plot([], [])}
        self.marker = pg.ScatterPlotItem()
        self.marker.setZValue(5)
        self.plot.addItem(self.marker)
        self.marker_line = pg.InfiniteLine(angle=90, movable=False)
        self.plot.addItem(self.marker_line)
        self.rows[2].addWidget(self.plot, 2)
        # On a slide the plot goes under J alone, across the figure: beside it, it was a
        # strip too narrow for its ticks and legend.
        self.below = QHBoxLayout()
        for row in (*self.rows, self.below):
            row.setSpacing(12)
            column.addLayout(row)
        self.column = column
        column.setStretch(2, 1)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.summary)
        self.scale_font(self.summary, 1.0)
        return figure

    def sizeHint(self) -> QSize:
        # Constant: the matrices' sizes change with the data, and a dock whose hint follows
        # them would make the main window move its dock separators at every edit (the
        # figure scrolls inside the panel instead).
        return QSize(560, 360)

    def focus_fields(self, in_lesson=(), so_far=(), step=()) -> None:
        """On a slide, the saturation plot only from the step on that moves d_k, the
        divisor or the temperature (what it is drawn against), and only beside J alone;
        until then, and in a lesson on the chain, the chain and J get its room."""
        self.plot.setVisible(bool(SATURATION_FIELDS & set(so_far)) and not self.chain_shown)
        if self._last is not None:
            self._write_summary(self._last)  # it speaks of the plot only where it is drawn

    def focus_data(self, quoted: frozenset) -> None:
        """On a slide, the chain dO … dK only in a lesson that quotes one of its arrays
        (``quoted``: the gradient's data names the lesson quotes); a lesson on the
        softmax's Jacobian gives J and the saturation plot the room (called before
        :meth:`focus_fields`)."""
        self.chain_shown = bool(set(CHAIN) & set(quoted))
        for view in self.views.values():
            view.setVisible(self.chain_shown and self._has_chain)
        under = not self.chain_shown
        target, other = (self.below, self.rows[2]) if under else (self.rows[2], self.below)
        if other.indexOf(self.plot) >= 0:
            other.removeWidget(self.plot)
            target.addWidget(self.plot, 2)
        # J alone in its row keeps its own width (a wider one grows taller with its cells);
        # the row that holds the plot takes the figure's spare height.
        left = Qt.AlignmentFlag.AlignLeft if under else Qt.AlignmentFlag(0)
        self.rows[2].setAlignment(self.jacobian, left)
        self.column.setStretch(2, int(not under))
        self.column.setStretch(3, int(under))

    # --- model → view ------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        self._version += 1
        super()._on_state_changed(names)

    def _on_grad_source_changed(self) -> None:
        source = self.state.grad_source
        with blocked(self.source):
            self.source.setCurrentIndex(self.source.findData(source))
        self.seed.setEnabled(source == "random")
        self.dim.setEnabled(source == "onehot")

    def _on_d_output_changed(self) -> None:
        # The preset's own dO only exists for an example that brings one.
        item = self.source.model().item(self.source.findData("preset"))
        item.setEnabled(self.state.d_output is not None)

    def _on_grad_dim_changed(self) -> None:
        d_v, labels = self.state.v.shape[1], self.state.value_labels
        names = [f"{i} · {labels[i]}" if len(labels) == d_v else str(i) for i in range(d_v)]
        with blocked(self.dim):
            if [self.dim.itemText(i) for i in range(self.dim.count())] != names:
                self.dim.clear()
                self.dim.addItems(names)
            self.dim.setCurrentIndex(self.state.grad_dim)

    _on_v_changed = _on_value_labels_changed = _on_grad_dim_changed

    def _on_selected_query_changed(self) -> None:
        with blocked(self.query):
            self.query.setRange(0, self.state.n - 1)
            self.query.setValue(self.state.selected_query)

    _on_tokens_changed = _on_selected_query_changed

    # --- drawing -----------------------------------------------------------------------
    def _on_results(self, res: GradientResults, _names: frozenset) -> None:
        state, inputs = self.state, res.inputs
        tokens = tuple(state.tokens)
        d_v = inputs.v.shape[1]
        v_cols = tuple(state.value_labels) if len(state.value_labels) == d_v else None
        allowed = inputs.mask
        titles = self._titles(res)
        self._last = res
        self._has_chain = res.chain is not None
        for name, view in self.views.items():
            view.set_title(titles[name])
            view.setVisible(res.chain is not None and self.chain_shown)
            if res.chain is None:
                continue
            values = getattr(res.chain, name)
            cols = v_cols if name in ("d_output", "dv") else None
            square = name in ("da", "dscores")
            view.set_matrix(
                values,
                allowed=allowed if square else None,
                rows=tokens,
                columns=tokens if square else cols,
                row_sums=res.chain.row_sums if name == "dscores" else None,
                decimals=_decimals(values),
            )
        self.jacobian.set_title(titles["jacobian"])
        self.jacobian.setVisible(res.jacobian is not None)
        if res.jacobian is not None:
            both = np.outer(res.allowed, res.allowed)
            self.jacobian.set_matrix(
                res.jacobian,
                allowed=both,
                rows=tokens,
                columns=tokens,
                decimals=_decimals(res.jacobian),
            )
        self._share_width()
        self._draw_plot(res)
        self._write_summary(res)
        self._update_check_button(res)

    def _share_width(self) -> None:
        # A row shares its width as its matrices' numbers would fill it (not their titles):
        # an 8-wide dO gets more than a 3-wide dA, so each keeps its numbers where it can.
        for row in self.rows[:2]:
            for i in range(row.count()):
                view = row.itemAt(i).widget()
                row.setStretch(i, round(view.cells_width()) if view.isVisible() else 0)

    def _titles(self, res: GradientResults) -> dict[str, str]:
        state, inputs = self.state, res.inputs
        c = "/ √d_k" if inputs.scale else ""
        if inputs.temperature != 1.0:
            c = "/ (√d_k·T)" if inputs.scale else "/ T"
        token = state.tokens[inputs.query]
        source = state.grad_source
        if source == "onehot":
            d_v = inputs.v.shape[1]
            labels = state.value_labels
            dim = labels[state.grad_dim] if len(labels) == d_v else str(state.grad_dim)
            d_o = self.tr("dO: L = O[%1, %2]").replace("%1", token).replace("%2", dim)
        elif source == "random":
            d_o = self.tr("dO ~ N(0, 1), seed %1").replace("%1", str(state.grad_seed))
        else:
            d_o = self.tr("dO: the example's own")
        return {
            "d_output": d_o,
            "da": "dA = dO Vᵀ",
            "dscores": "dS = A ⊙ (dA − rowsum(dA ⊙ A))",
            "dv": "dV = Aᵀ dO",
            "dq": f"dQ = dS K {c}".rstrip(),
            "dk": f"dK = dSᵀ Q {c}".rstrip(),
            "jacobian": self.tr("J = diag(a) − a aᵀ, query “%1”").replace("%1", token),
        }

    def _draw_plot(self, res: GradientResults) -> None:
        sat = res.saturation
        by_t = self.axis.currentData() == "temperature" or sat.d_k is None
        curve = sat.temperature if by_t else sat.d_k
        m = int(self.measure.currentData())
        x = np.log10(curve.x.astype(np.float64))
        names = {True: self.tr("with the √d_k divisor"), False: self.tr("without it")}
        self.plot.legend.clear()
        low = 0.0
        for i, (scaled, item) in enumerate(self.curves.items()):
            y = np.maximum((curve.scaled if scaled else curve.unscaled)[m], PLOT_FLOOR)
            item.setData(x, y)
            item.setPen(
                self.plot.pen(i, width=1.2 if scaled == sat.scale else 0.8, dash=not scaled)
            )
            self.plot.legend_entry(item, names[scaled])
            low = min(low, float(y.min()))
        current = sat.current.log10_max if m == 0 else sat.current.log10_fro
        cx = np.log10(sat.current_temperature if by_t else sat.current_d_k)
        cy = max(current, PLOT_FLOOR)
        color = QColor(self._theme.highlight if self._theme else "#d62728")
        size = max(10, round(self.plot_font().pixelSize() * 0.8))
        self.marker.setData([{"pos": (cx, cy), "size": size, "brush": pg.mkBrush(color),
                              "pen": pg.mkPen(color.darker(130), width=1.5)}])  # fmt: skip
        self.marker_line.setValue(cx)
        self.marker_line.setPen(pg.mkPen(color, width=1.5, style=Qt.PenStyle.DotLine))
        self.plot.setLabel("bottom", self.tr("temperature T") if by_t else "d_k")
        which = self.tr("largest |J_ij|") if m == 0 else self.tr("‖J‖ Frobenius")
        self.plot.setLabel("left", which)
        if self._theme is not None:
            self.plot.set_style(self._theme, self.plot_font())
        self._set_x_ticks(by_t)
        self.plot.setXRange(float(x[0]), float(x[-1]), padding=0.03)
        # The largest entry is at most 1/4, the norm at most 1: the top stays just above.
        bottom = min(low, cy)
        bottom = max(bottom - 0.3 - 0.25 * (0.3 - bottom), PLOT_FLOOR - 7)
        self.plot.setYRange(bottom, 0.3, padding=0)

    def _set_x_ticks(self, by_t: bool) -> None:
        if by_t:
            major = [0.01, 0.1, 1.0, 10.0, 100.0]
            minor = [m * x for x in major[:-1] for m in range(2, 10)]
        else:
            major = [4**i for i in range(6)]  # 1, 4, 16, …, 1024
            minor = [2 * x for x in major[:-1]]
        ticks = [[(float(np.log10(x)), _tick(x)) for x in major]]
        ticks.append([(float(np.log10(x)), "") for x in minor])
        self.plot.getAxis("bottom").setTicks(ticks)

    def _write_summary(self, res: GradientResults) -> None:
        inputs, sat = res.inputs, res.saturation
        parts = []
        if res.chain is not None:
            worst = float(np.abs(res.chain.row_sums).max())
            parts.append(self.tr("dS rows sum to 0 (largest |Σ| %1)").replace("%1", sci(worst)))
        else:
            parts.append(
                self.tr("%1 tokens: the matrices are drawn for up to %2 (exports have them)")
                .replace("%1", str(inputs.n))
                .replace("%2", str(MAX_BACKWARD_TOKENS))
            )
        parts.append(
            self.tr("Jacobian of “%1”: largest entry %2, Frobenius norm %3")
            .replace("%1", self.state.tokens[inputs.query])
            .replace("%2", pow10(sat.current.log10_max))
            .replace("%3", pow10(sat.current.log10_fro))
        )
        if self.plot.isHidden():
            pass  # a slide without the plot: no word about its curve
        elif sat.d_k is None:
            parts.append(
                self.tr("the d_k curve is drawn for up to %1 tokens").replace(
                    "%1", str(MAX_CURVE_TOKENS)
                )
            )
        elif sat.model == "random":
            parts.append(
                self.tr("typed vectors: the d_k curve is the typical size for random q, k "
                        "(the dot is this row)")
            )  # fmt: skip
        if inputs.rope:
            parts.append(
                self.tr("RoPE on: Q and K are the rotated vectors; dQ, dK are gradients "
                        "with respect to them")
            )  # fmt: skip
        self.summary.setText("   ·   ".join(parts))

    # --- finite differences ------------------------------------------------------------
    def _update_check_button(self, res: GradientResults) -> None:
        ok = check_cost(res.inputs) <= CHECK_BUDGET
        self.check.setEnabled(ok and not self.cancel.isVisible())
        self.check.setToolTip(
            self.tr("Compare dQ, dK, dV with central differences of the loss (ε = 1e−6)")
            if ok
            else self.tr("Too large to check here: try fewer tokens or a smaller d_k")
        )

    def _on_q_check(self) -> None:
        self._check_version = self._version
        self.check_result = None
        self.check.setEnabled(False)
        self.cancel.show()
        self.check_label.setText(self.tr("Checking…"))
        self.resolver.request_check()

    def _on_q_cancel(self) -> None:
        self.resolver.cancel_check()  # the running check's answer will be dropped
        self._end_check(self.tr("Cancelled."))

    def _end_check(self, text: str) -> None:
        self.cancel.hide()
        self.check_label.setText(text)
        self._update_check_button(self.resolver.results)

    def _on_check_failed(self, exc: BaseException) -> None:
        if not isinstance(exc, Cancelled):  # a cancel has said so already
            self._end_check(f"{type(exc).__name__}: {exc}")

    def _on_check_done(self, result) -> None:
        if self._check_version != self._version:
            self._end_check(self.tr("The example changed while checking: check again."))
            return
        self.check_result = result
        self._end_check(
            self.tr("Largest error against finite differences: dQ %1 · dK %2 · dV %3")
            .replace("%1", sci(result.dq))
            .replace("%2", sci(result.dk))
            .replace("%3", sci(result.dv))
        )

    # --- style -------------------------------------------------------------------------

    def _restyle(self, theme: Theme) -> None:
        """Restyle the matrices and the plot for ``theme`` and the current font."""
        for view in (*self.views.values(), self.jacobian):
            view.set_theme(theme)
        # The panel's style sheet keeps a palette set on the panel (an export's theme) from
        # reaching its children: the figure and what it shows get theirs explicitly.
        palette = palette_for(theme)
        for widget in (self.figure, *self.views.values(), self.jacobian, self.summary):
            widget.setPalette(palette)
        self.plot.set_style(theme, self.plot_font())
        self._redraw_styled()
