"""The overview panel: attention over a long sequence as a map, zoomed down to exact cells.

The ``long`` topic's head of n tokens (up to 262,144) is mapped to ``bins × bins`` cells,
each the mean (or max) of the exact weights it covers, without the n×n matrix ever
existing. The long resolver runs the map on a worker (latest wins) and the panel shows its
progress and a Cancel; the window stays responsive. Dragging a rectangle or scrolling zooms: a
window is mapped again from its exact weights, and below about 1024 × 1024 cells it shows
the exact weights themselves (from :func:`attnviz.core.tiled.attention_block`), down to
single cells with their values. The backend selector greys out what this machine lacks and
says why; the backend and the time of the last map go to the status bar.

A real hybrid's non-softmax head (``long.head=model`` at a Gated DeltaNet, Mamba-2, …
layer) is mapped as its proven mixing matrix M, which is signed: diverging colours about 0
(levels ±the largest |M| shown), a colour bar, caption and hover that say M and its kind,
"max" a block's entry of largest |M|, and no log colours.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.memory_guard import MemoryRefused
from attnviz.core.work import Cancelled
from attnviz.model.resolve import long as long_model
from attnviz.model.topics.long import MAX_BINS, MAX_D_K, MAX_N, MAX_SEED, MIN_N
from attnviz.ui.heatmap_look import colormap_for
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels import _overview_mixing as _mixing
from attnviz.ui.widgets.binding import bind, blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, keep_together
from attnviz.ui.widgets.long_controls import BackendChoice, choice_box, spin_box, theme_figure
from attnviz.ui.widgets.numbers import exact, fmt, grouped
from attnviz.ui.widgets.text_progress import TextProgressBar
from attnviz.ui.widgets.token_map import TokenMapView

_C = "OverviewPanel"
HEAD_NAMES = {
    "content": QT_TRANSLATE_NOOP("OverviewPanel", "content"),
    "previous": QT_TRANSLATE_NOOP("OverviewPanel", "previous token"),
    "decay": QT_TRANSLATE_NOOP("OverviewPanel", "distance decay"),
    "random": QT_TRANSLATE_NOOP("OverviewPanel", "random"),
    "model": QT_TRANSLATE_NOOP("OverviewPanel", "model"),
}
HEAD_TIPS = {
    "content": QT_TRANSLATE_NOOP(
        "OverviewPanel", "Equal words attend to each other: passages of 1,024 tokens"
    ),
    "previous": QT_TRANSLATE_NOOP("OverviewPanel", "Each query attends to the token before it"),
    "decay": QT_TRANSLATE_NOOP("OverviewPanel", "Weights fall with the distance |i − j|"),
    "random": QT_TRANSLATE_NOOP("OverviewPanel", "Random q and k: an untrained head"),
    "model": QT_TRANSLATE_NOOP(
        "OverviewPanel",
        "The real model's head the heatmap shows (its layer and head), with its own mask, "
        "scale and score terms: its sentence sets n. A hybrid's Gated DeltaNet, Mamba-2, … "
        "head is drawn as its proven mixing matrix M",
    ),
}
REDUCE_NAMES = {
    "mean": QT_TRANSLATE_NOOP("OverviewPanel", "mean of the block"),
    "max": QT_TRANSLATE_NOOP("OverviewPanel", "max of the block"),
}
#: The reduce box's "max" at a mixing head: M is signed, its cell the entry farthest from 0.
SIGNED_MAX = QT_TRANSLATE_NOOP("OverviewPanel", "largest |M| of the block")
#: Decades of weight the log colour scale spans below the largest one shown.
DECADES = 5.0
# How often the progress bar follows the map (ms).
POLL_MS = 50


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def _bytes(count: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{fmt(count / size, 1)} {unit}"
    return f"{int(count)} B"


class OverviewPanel(FigurePanel):
    """A long sequence's attention map with zoom down to exact cells."""

    PANEL_ID = "overview"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        #: None: compute in place when the panel is its own window (an offscreen export).
        self.synchronous: bool | None = None
        self.overview: long_model.Overview | None = None
        self._detail_key: tuple | None = None  # the zoom window drawn
        self._status = None
        # The resolver runs the map and the zoom; the panel shows what it emits and
        # follows the map's progress with a timer (the job never touches Qt).
        bind(self, self.resolver.overview_ready, self._on_overview)
        bind(self, self.resolver.overview_failed, self._on_failed_map)
        bind(self, self.resolver.detail_ready, self._on_detail)
        bind(self, self.resolver.detail_failed, self._on_detail_failed)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._on_q_poll)
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, the price of n²: every weight of a long sequence, mapped without "
                "the n×n matrix. Drag a rectangle or scroll to zoom down to the exact weights."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        self.figure = QWidget()
        self.figure.setObjectName("overview_figure")
        box = QVBoxLayout(self.figure)
        box.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel()
        self.caption.setObjectName("overview_caption")
        self.caption.setWordWrap(True)
        self.scale_font(self.caption, 1.15, bold=True)
        self.view = TokenMapView()
        self.view.setObjectName("overview_map")
        self.view.setMinimumSize(280, 110)
        # Its preferred height must not count: in the scroll area the wrapped lines' height
        # for width adds it whole and pushes the map's axis below a 720-pixel window.
        self.view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.view.sigWindow.connect(self._on_q_window)
        self.view.sigHover.connect(self._on_q_hover)
        self.hover = QLabel(" ")
        self.hover.setWordWrap(True)
        self.hover.setObjectName("overview_hover")
        self.hover.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Explicitly: under the panel's style sheet a QLabel misses the export's font.
        self.scale_font(self.hover, 1.0)
        box.addWidget(self.caption)
        box.addWidget(self.view, 1)
        box.addWidget(self.hover)
        layout.addWidget(self.figure, 1)
        self.mirror("n", self.n)
        self.mirror("d_k", self.d_k)
        self.mirror("head", self.head)
        self.mirror("seed", self.seed)
        self.mirror("bins", self.bins)
        self.mirror("reduce", self.reduce)
        self.mirror("causal", self.causal)
        self.mirror("scale", self.scale)
        # No scroll area: its height-for-width (wrapped labels) would give the map its
        # preferred height and hide half of it at 720p; the map keeps a minimum instead.
        # Scrolls only in a window smaller than 1280×720: its controls must not set the
        # window's minimum size.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_controls(self) -> FlowLayout:
        w = self._write
        self.n = spin_box(MIN_N, MAX_N, self.tr("Tokens in the sequence (n)"), adaptive=True)
        self.n.valueChanged.connect(lambda v: w(self.n, n=int(v)))
        self.d_k = spin_box(2, MAX_D_K, self.tr("Width of queries and keys"))
        self.d_k.valueChanged.connect(lambda v: w(self.d_k, d_k=int(v)))
        self.head = choice_box(HEAD_NAMES, _C, self.tr("Which synthetic head makes q and k"))
        for i, name in enumerate(HEAD_NAMES):
            self.head.setItemData(i, _tr(HEAD_TIPS[name]), Qt.ItemDataRole.ToolTipRole)
        self.head.activated.connect(lambda i: w(self.head, head=self.head.itemData(i)))
        self.seed = spin_box(0, MAX_SEED, self.tr("Seed of the synthetic head"))
        self.seed.valueChanged.connect(lambda v: w(self.seed, seed=int(v)))
        self.bins = spin_box(1, MAX_BINS, self.tr("Cells per side of the map"))
        self.bins.valueChanged.connect(lambda v: w(self.bins, bins=int(v)))
        self.reduce = choice_box(REDUCE_NAMES, _C, self.tr("What one map cell shows"))
        self.reduce.activated.connect(lambda i: w(self.reduce, reduce=self.reduce.itemData(i)))
        self.causal = QCheckBox(self.tr("Causal"))
        self.causal.setToolTip(self.tr("A query sees only earlier keys"))
        self.causal.toggled.connect(lambda on: w(self.causal, causal=bool(on)))
        self.scale = QCheckBox(self.tr("÷ √d_k"))
        self.scale.setToolTip(self.tr("Divide the scores by √d_k"))
        self.scale.toggled.connect(lambda on: w(self.scale, scale=bool(on)))
        self.log_color = QCheckBox(self.tr("Log colours"))
        self.log_color.setToolTip(
            self.tr("Colour by log₁₀ of the weight: small weights stay visible")
        )
        self.log_color.toggled.connect(lambda on: w(self.log_color, log_color=bool(on)))
        self.backend = BackendChoice(self)
        self.backend.sigChosen.connect(lambda name, dtype: w(self.backend, backend=name))
        self.dtype = self.backend.dtype_box
        self.dtype.activated.connect(lambda i: w(self.dtype, dtype=self.dtype.itemData(i)))
        self.run = QPushButton(self.tr("Cancel"))
        self.run.setObjectName("overview_run")
        self.run.clicked.connect(self._on_q_run)
        self.reset = QPushButton(self.tr("Whole map"))
        self.reset.setObjectName("overview_reset")
        self.reset.setToolTip(self.tr("Zoom out to the whole sequence (Home)"))
        self.reset.clicked.connect(self._on_q_reset)
        self.progress = TextProgressBar()
        self.progress.setObjectName("overview_progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        cells = (
            (self.tr("n"), self.n),
            (self.tr("d_k"), self.d_k),
            (self.tr("Head"), self.head),
            (self.tr("Seed"), self.seed),
            (self.tr("Cells"), self.bins),
            (self.tr("Cell"), self.reduce),
            (self.tr("Backend"), self.backend),
            (self.tr("Precision"), self.dtype),
        )
        # A flow, not a grid of four pairs a line: in a dock beside the steps the pairs
        # go onto more lines rather than widen the panel past the window.
        flow = FlowLayout()
        for box in (self.head, self.reduce):
            # In a flow each box may be as wide as its longest choice ("block mean").
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self._labels = {}
        for text, widget in cells:
            label = self._labels[widget] = QLabel(text)
            label.setBuddy(widget)
            flow.addWidget(keep_together(label, widget))
        for widget in (self.causal, self.scale, self.log_color, self.progress, self.reset,
                       self.run):  # fmt: skip
            flow.addWidget(widget)
        return flow

    # --- model → view ------------------------------------------------------------------
    def _on_backend_changed(self) -> None:
        self.backend.show_choice(self.state.backend, self.state.dtype)

    _on_dtype_changed = _on_backend_changed

    def _on_log_color_changed(self) -> None:
        with blocked(self.log_color):
            self.log_color.setChecked(self.state.log_color)
        self._apply_scale()

    def _values(self) -> dict:
        """The fields as the map uses them (a real model's head sets n, d_k, the mask)."""
        return self.resolver.results.values

    def _on_results(self, res, _names: frozenset) -> None:
        model = res.values["head"] == "model"
        for widget in (
            self.n,
            self.d_k,
            self.seed,
            self.causal,
            self.scale,
            self.backend,
            self.dtype,
        ):
            # A real model's head brings its own sentence, width, mask and scale (and is
            # mapped by NumPy in float64): the caption says them, these would not apply.
            widget.setVisible(not model)
            if widget in self._labels:
                self._labels[widget].setVisible(not model)
        if not self._is_synchronous():  # an export needs no GPU probe (a torch import)
            self.backend.probe()
        self._show_estimate(res)
        ov = self.overview
        if ov is None or ov.key != res.key:
            cached = self.resolver.cached_overview(res.key)
            if cached is not None:
                self._show_overview(cached)
            elif self.resolver.map_work.wanted_key != res.key:
                self._start(res)
            return
        self._update_detail(res)

    # --- the overview job --------------------------------------------------------------
    def _is_synchronous(self) -> bool:
        return self.synchronous if self.synchronous is not None else self.window() is self

    def _start(self, res) -> None:
        values = res.values
        if self.overview is not None and self.overview.q.shape[0] != values["n"]:
            self.overview = None
            self.view.set_map(None, [0], [0])
            self.view.set_detail(None)
        self.caption.setText(self._caption(values, computing=True))
        self.show_error(None)
        self.run.setText(self.tr("Cancel"))
        self.progress.setVisible(True)
        self._reported = -1.0
        self._on_q_progress(0.0)
        now = self._is_synchronous()
        if not now:
            self.poll.start()
        ov = self.resolver.request_overview(now=now)
        if ov is not None:
            self._show_overview(ov)

    def _on_q_poll(self) -> None:
        value = self.resolver.map_progress
        if not self.resolver.map_running:
            self.poll.stop()
        elif value != self._reported:
            self._reported = value
            self._on_q_progress(value)

    _reported = -1.0

    def _on_q_progress(self, fraction: float) -> None:
        self.progress.setValue(round(1000 * fraction))
        self.progress.setFormat(
            self.tr("Computing the map… %1%").replace("%1", str(math.floor(100 * fraction)))
        )

    def _on_overview(self, ov) -> None:
        self.poll.stop()
        if ov.key != self.resolver.results.key:
            return  # asked for by another view of older fields
        self._show_overview(ov)
        self._report(ov)

    def _on_failed_map(self, exc) -> None:
        self.poll.stop()
        self.run.setText(self.tr("Compute"))
        self.progress.setValue(0)
        if isinstance(exc, Cancelled):
            self.progress.setFormat(self.tr("Cancelled"))
            return
        self.progress.setFormat(self.tr("Not computed"))
        if isinstance(exc, MemoryRefused):
            self.show_error(self.tr("Not enough memory: %1").replace("%1", str(exc)))
        else:
            self.show_error(f"{type(exc).__name__}: {exc}")

    def _on_q_run(self) -> None:
        if self.resolver.map_running:
            self.resolver.cancel_overview()
        elif self.isVisible():
            self._start(self.resolver.results)

    def _show_overview(self, ov) -> None:
        self.overview = ov
        self.run.setText(self.tr("Compute"))
        self.progress.setValue(1000)
        self.progress.setFormat(self.tr("Map ready in %1 s").replace("%1", fmt(ov.seconds, 2)))
        n, bins = ov.q.shape[0], ov.map.shape[0]
        self.view.set_extent(n)
        self.view.set_map(ov.map, long_model.edges(n, bins), long_model.edges(n, bins))
        self._update_detail(self.resolver.results)
        self._apply_scale()
        self.caption.setText(self._caption(self._values()))

    def _report(self, ov) -> None:
        window = self.window()
        if not isinstance(window, QMainWindow):
            return
        if self._status is None:
            self._status = QLabel()
            self._status.setObjectName("overview_status")
            window.statusBar().addPermanentWidget(self._status)
        self._status.setText(self._timing(ov))

    def _timing(self, ov) -> str:
        return (
            self.tr("Map: %1, %2 tokens in %3 s")
            .replace("%1", self.backend.label(ov.backend))
            .replace("%2", grouped(ov.q.shape[0]))
            .replace("%3", fmt(ov.seconds, 2))
        )

    # --- zoom --------------------------------------------------------------------------
    def _update_detail(self, res) -> None:
        ov = self.overview
        if ov is None or ov.key != res.key:
            return
        if self.view.window() != res.window:
            self.view.set_window(*res.window)
        if (ov.key, res.window) == self._detail_key:
            return  # drawn already
        if not self.resolver.request_detail(now=self._is_synchronous()):
            self._detail_key = None
            self.view.set_detail(None)
            self._apply_scale()
            self.caption.setText(self._caption(self._values()))

    def _on_detail(self, detail) -> None:
        res = self.resolver.results
        if self.overview is None or detail.key != (self.overview.key, res.window):
            return
        self._detail_key = detail.key
        self.view.set_detail(detail.values, detail.rows, detail.cols, exact=detail.exact)
        self._apply_scale()
        self.caption.setText(self._caption(self._values()))

    def _on_detail_failed(self, exc) -> None:
        if not isinstance(exc, Cancelled):
            self.show_error(f"{type(exc).__name__}: {exc}")

    def _on_q_window(self, r0: int, r1: int, c0: int, c1: int) -> None:
        n = self._values()["n"]
        rows = () if (r0, r1) == (0, n) else (r0, r1)
        cols = () if (c0, c1) == (0, n) else (c0, c1)
        self._write(self.view, rows=rows, cols=cols)

    def _on_q_reset(self) -> None:
        self._write(self.reset, rows=(), cols=())
        n = self._values()["n"]
        self.view.set_window(0, n, 0, n)

    # --- colours, captions, hover ------------------------------------------------------
    def _mixing_kind(self) -> str:
        """The kind of the mixing head the map shows or will show ("" for weights)."""
        src = self.resolver.results.source
        return src.kind if src is not None and self._values()["head"] == "model" else ""

    def _apply_scale(self) -> None:
        layer = self.view.detail if self.view.detail.values is not None else self.view.coarse
        values = layer.values
        ov = self.overview
        kind = ov.kind if ov is not None and ov.key == self.resolver.results.key else ""
        self._show_log_choice(kind)
        if kind:  # a signed M: diverging colours, symmetric about 0, never log
            shown = values[np.isfinite(values)] if values is not None else np.zeros(0)
            top = float(np.abs(shown).max()) if shown.size else 0.0
            top = top if top > 0 else 1.0
            self.view.set_colormap(colormap_for("diverging"))
            self.view.set_scale((-top, top), log=False, causal=self._values()["causal"])
            bar = self.tr("M (%1)").replace("%1", kind)
            self.view.set_axis_titles(self.tr("query (token)"), self.tr("key (token)"), bar)
            return
        self.view.set_colormap(colormap_for("viridis"))
        log = self.state.log_color
        if values is None or not np.any(values > 0):
            levels = (-DECADES, 0.0) if log else (0.0, 1.0)
        else:
            top = float(np.max(values))
            levels = (math.log10(top) - DECADES, math.log10(top)) if log else (0.0, top)
        self.view.set_scale(levels, log=log, causal=self._values()["causal"])
        bar = self.tr("log₁₀ weight") if log else self.tr("weight")
        self.view.set_axis_titles(self.tr("query (token)"), self.tr("key (token)"), bar)

    def _show_log_choice(self, kind: str) -> None:
        """At a mixing head the log box is off, greyed, and says why (M is signed: its
        colours are linear about 0); the reduce box names "max" as the entry of largest |M|."""
        self.log_color.setEnabled(not kind)
        with blocked(self.log_color):  # off while it does not apply; the field is kept
            self.log_color.setChecked(self.state.log_color and not kind)
        self.log_color.setToolTip(
            self.tr("M is signed: log colours do not apply to it")
            if kind
            else self.tr("Colour by log₁₀ of the weight: small weights stay visible")
        )
        index = self.reduce.findData("max")
        text = _tr(SIGNED_MAX) if kind else _tr(REDUCE_NAMES["max"])
        if index >= 0 and self.reduce.itemText(index) != text:
            self.reduce.setItemText(index, text)

    def _caption(self, v: dict, *, computing: bool = False) -> str:
        if self._mixing_kind():
            return _mixing.caption(self, v, computing)
        n, bins = v["n"], v["bins"]
        head = _tr(HEAD_NAMES[v["head"]])
        src = self.resolver.results.source if v["head"] == "model" else None
        if src is not None:
            head = (
                self.tr("%1 (layer %2, head %3)")
                .replace("%1", src.name)
                .replace("%2", str(src.layer))
                .replace("%3", str(src.head))
            )
        how = self.tr("mean") if v["reduce"] == "mean" else self.tr("max")
        detail = self.view.detail
        if computing or detail.values is None:
            size = grouped(math.ceil(n / bins))
            text = (
                self.tr("%1 tokens, %2 head: each cell the %3 of a %4 × %5 block of weights")
                .replace("%1", grouped(n))
                .replace("%2", head)
                .replace("%3", how)
                .replace("%4", size)
                .replace("%5", size)
            )
            return text + (" " + self.tr("(computing…)") if computing else "")
        re, ce = detail.row_edges, detail.col_edges
        where = (
            self.tr("queries %1–%2 × keys %3–%4")
            .replace("%1", grouped(re[0]))
            .replace("%2", grouped(re[-1] - 1))
            .replace("%3", grouped(ce[0]))
            .replace("%4", grouped(ce[-1] - 1))
        )
        if detail.exact:
            text = self.tr("%1 tokens, %2 head; %3: the exact weights")
        else:
            text = self.tr("%1 tokens, %2 head; %3: each cell the %4 of a %5 × %6 block")
            rows = math.ceil((re[-1] - re[0]) / (len(re) - 1))
            cols = math.ceil((ce[-1] - ce[0]) / (len(ce) - 1))
            text = text.replace("%4", how).replace("%5", grouped(rows)).replace("%6", grouped(cols))
        return text.replace("%1", grouped(n)).replace("%2", head).replace("%3", where)

    def _show_estimate(self, res) -> None:
        """The line under the map while the mouse is elsewhere: what the map costs."""
        n, d = res.values["n"], res.values["d_k"]
        if self._mixing_kind():
            self._estimate = _mixing.estimate(res.need_bytes, n)
            self._say_time(res)
            return
        self._estimate = (
            self.tr(
                "Working memory ≈ %1; the n×n matrix would take %2 in float32 · "
                "%3 scores, %4 multiply-adds"
            )
            .replace("%1", _bytes(res.need_bytes))
            .replace("%2", _bytes(4 * n * n))
            .replace("%3", grouped(n * n))
            .replace("%4", f"{n * n * d:.2e}")
        )
        self._say_time(res)

    def _say_time(self, res) -> None:
        seconds = long_model.overview_seconds(res.values)
        if seconds is not None:  # said before a long map starts, as the CLI says it
            if seconds < 1:
                when = self.tr("about a second or less on this machine's CPU")
            elif seconds < 120:
                when = self.tr("about %1 s on this machine's CPU").replace("%1", f"{seconds:.0f}")
            else:
                when = self.tr("about %1 min on this machine's CPU").replace(
                    "%1", f"{seconds / 60:.0f}"
                )
            self._estimate += " · " + when
        if self.view.hovered[0] < 0:
            self.hover.setText(self._estimate)

    _estimate = " "

    def _on_q_hover(self, row: int, col: int) -> None:
        found = self.view.value_at(row, col) if row >= 0 else None
        if found is None:
            self.hover.setText(self._estimate)
            return
        value, (r0, r1), (c0, c1), is_exact = found
        if self._mixing_kind():
            self.hover.setText(_mixing.hover(self, value, (r0, r1), (c0, c1), is_exact))
            return
        if is_exact:
            text = (
                self.tr("query %1, key %2: weight %3")
                .replace("%1", grouped(r0))
                .replace("%2", grouped(c0))
                .replace("%3", exact(value))
            )
        else:
            how = self.tr("mean") if self.state.reduce == "mean" else self.tr("max")
            text = (
                self.tr("queries %1–%2, keys %3–%4: %5 weight %6")
                .replace("%1", grouped(r0))
                .replace("%2", grouped(r1 - 1))
                .replace("%3", grouped(c0))
                .replace("%4", grouped(c1 - 1))
                .replace("%5", how)
                .replace("%6", f"{value:.4g}")
            )
        self.hover.setText(text)

    # --- style and lifetime ------------------------------------------------------------
    def _restyle(self, theme) -> None:
        """Restyle the map for ``theme`` and the current font."""
        font = self.font()
        font.setPixelSize(max(11, round(self.fontInfo().pixelSize() * 1.0)))
        self.view.set_style(theme, font)
        theme_figure(self.figure, theme)
        self._apply_scale()

    def hideEvent(self, event) -> None:
        # A hidden panel costs nothing: its map stops (and starts again when shown),
        # unless another view of the topic (a presentation's stage) still looks.
        self.poll.stop()
        self.resolver.stop_unless_watched(self)
        self._detail_key = None
        super().hideEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Home:
            self._on_q_reset()
            return
        if event.key() == Qt.Key.Key_Escape and self.resolver.map_running:
            self.resolver.cancel_overview()
            return
        super().keyPressEvent(event)
