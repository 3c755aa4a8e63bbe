"""The memory panel's figure: gauge, attention designs, the n² chart, the decode ceiling and a
summary line.

Everything a slide of the KV-cache section needs, without the controls (an export draws
this widget). :meth:`MemoryFigure.show_results` takes the memory resolver's results and
the topic; the texts are written here, translated under the ``MemoryFigure`` context.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QPointF,
    QRectF,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QFontInfo
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from attnviz.ui.theme import Theme
from attnviz.ui.widgets.bars import Bar, BarChart
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.gauge import GaugeState, MemoryGauge
from attnviz.ui.widgets.label_room import LabelRoom
from attnviz.ui.widgets.log_axes import BytesAxis, TokensAxis
from attnviz.ui.widgets.numbers import counted, grouped, qt_count
from attnviz.ui.widgets.steady_plot import SteadyPlot
from attnviz.ui.widgets.units import binary_bytes, both_bytes, decimal_bytes, short_tokens

_C = "MemoryFigure"
SAVING_NAMES = {
    "hybrid": QT_TRANSLATE_NOOP("MemoryFigure", "all %1 layers"),
    "window": QT_TRANSLATE_NOOP("MemoryFigure", "no window"),
}
#: Width from which the decode chart stands beside the designs' bars and the n² chart, in
#: pixels: three columns of at least 330 (a slide, the window at full width).
DECODE_BESIDE_WIDTH = 1000
#: Each decode ceiling's row name (:func:`attnviz.core.decode.decode_ceilings`' kinds).
CEILING_NAMES = {
    "fp8": QT_TRANSLATE_NOOP("MemoryFigure", "fp8"),
    "dense": QT_TRANSLATE_NOOP("MemoryFigure", "all %1 layers"),
}
#: The decode chart's rows in the designs chart's order, then fp8 and the dense twin.
CEILING_ORDER = ("MHA", "GQA", "MQA", "MLA", "fp8", "dense")


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


class MemoryFigure(QWidget):
    """Gauge on top; designs and the n² chart side by side, the decode ceilings beside them
    or below; a summary line below."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.theme: Theme | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.gauge = MemoryGauge()
        self.gauge.setObjectName("gauge")
        layout.addWidget(self.gauge)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.bars = BarChart()
        self.bars.setObjectName("variants")
        self.bars.setMinimumWidth(260)
        self.splitter.addWidget(self.bars)
        self.plot = self._build_plot()
        # The curves' names under the chart, in their colours: inside it, names as long as
        # "tiled kernel (FlashAttention): O(n)" found no room clear of the lines.
        self.curve_names = QLabel()
        self.curve_names.setObjectName("n2_legend")
        self.curve_names.setWordWrap(True)
        chart = QWidget()
        column = QVBoxLayout(chart)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.plot, 1)
        column.addWidget(self.curve_names)
        self.splitter.addWidget(chart)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        layout.addWidget(self.splitter, 1)
        # The decode ceilings: a third column where the figure is wide (a slide, the window
        # at full width), under the other two where it is not (a docked panel, whose bars
        # and values a third column would cut).
        self.decode = BarChart()
        self.decode.setObjectName("decode")
        self.decode.setMinimumWidth(260)
        self.decode_beside = False
        layout.addWidget(self.decode)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if (self.width() >= DECODE_BESIDE_WIDTH) != self.decode_beside:
            # Moved after the resize: moving a widget inside its own resize relays out.
            QTimer.singleShot(0, self, self._place_decode)

    def _place_decode(self) -> None:
        """Put the decode chart beside the designs when the figure is wide, else below."""
        beside = self.width() >= DECODE_BESIDE_WIDTH
        if beside == self.decode_beside:
            return
        self.decode_beside = beside
        shown = self.decode.isVisibleTo(self)
        if beside:
            self.splitter.insertWidget(1, self.decode)
            self.splitter.setStretchFactor(1, 1)
            # A widget put into a splitter takes what room is left: shared out again, the
            # n² chart a little wider than the bars (its values need room beside the lines).
            width = max(self.width(), 10)
            self.splitter.setSizes([3 * width // 10, 3 * width // 10, 4 * width // 10])
        else:
            self.layout().insertWidget(self.layout().indexOf(self.summary), self.decode)
        self.decode.setVisible(shown)

    def _build_plot(self) -> SteadyPlot:
        plot = _ChartPlot()
        plot.setObjectName("n2_plot")
        plot.getPlotItem().setAxisItems({"left": BytesAxis("left"), "bottom": TokensAxis("bottom")})
        plot.setLogMode(x=True, y=True)
        plot.setLabel("bottom", self.tr("context n (tokens)"))
        plot.setLabel("left", self.tr("bytes"))
        # Low enough for the whole figure to stay in view at 1280×720 with Large Fonts.
        plot.setMinimumHeight(140)
        # The lines are named under the chart (curve_names): a legend box would cover them.
        plot.getPlotItem().legend.hide()
        self.score_curve = plot.plot([], [])
        self.tile_curve = plot.plot([], [])
        self.gpu_line = pg.InfiniteLine(angle=0, movable=False)
        self.context_line = pg.InfiniteLine(angle=90, movable=False)
        # Values at the context: right of the context line and below each rising line (above
        # it, the line ran through the number).
        self.score_text = pg.TextItem(anchor=(-0.05, -0.15))
        self.tile_text = pg.TextItem(anchor=(-0.05, -0.15))
        self.gpu_text = pg.TextItem(anchor=(0, 1.15))  # above its dashed line, clear of it
        for item in (self.gpu_line, self.context_line, self.score_text, self.tile_text,
                     self.gpu_text):  # fmt: skip
            plot.addItem(item)
        # Where the labels go depends on the plot's size: placed again when it changes.
        self._marks: dict | None = None
        self._placing_held = False
        vb = plot.getPlotItem().vb
        vb.sigResized.connect(self._place_labels)
        vb.sigRangeChanged.connect(self._place_labels)
        return plot

    # --- style -------------------------------------------------------------------------
    def plot_font(self) -> QFont:
        """The charts' font: the panel's, a little larger, in pixels."""
        font = QFont(self.font())
        font.setPixelSize(max(11, round(QFontInfo(font).pixelSize() * 1.05)))
        return font

    def set_style(self, theme: Theme, font: QFont) -> None:
        """Colours of ``theme``; the charts' font from ``font``."""
        self.theme = theme
        style_figure(self, theme)
        self.setFont(font)
        pf = self.plot_font()
        for view in (self.gauge, self.bars, self.decode):
            view.set_theme(theme)
            view.setFont(pf)
        self.plot.set_style(theme, pf)
        self.summary.setFont(font)  # set explicitly: a panel's style sheet stops inheritance

    # --- drawing -----------------------------------------------------------------------
    def show_results(self, res, state) -> None:
        """Draw the memory resolver's results ``res`` for the memory topic ``state``."""
        self._draw_gauge(res, state)
        self._draw_bars(res, state)
        self._draw_plot(res, state)
        self._draw_decode(res, state)
        self._write_summary(res, state)

    def _draw_decode(self, res, state) -> None:
        """One bar per decode ceiling, in tokens/s: the card's design (bold), the other
        attention designs, fp8 and, for a hybrid, every layer with attention (hatched)."""
        d = res.decode
        self.decode.setVisible(d is not None)
        if d is None:
            return
        bandwidth = bandwidth_label(d["bandwidth_gbs"])
        self.decode.setToolTip(
            self.tr(
                "A bandwidth-bound ceiling: generating one token at batch 1 reads every "
                "weight, the whole KV cache and the recurrent state once, so tokens/s ≤ "
                "bandwidth / bytes read"
            )
        )
        if d["decode_tokens_per_s"] is None:
            title = self.tr("Tokens/s at %1: unknown without a parameter count").replace(
                "%1", bandwidth
            )
            self.decode.set_bars([], title)
            return
        rows = {c["kind"]: c for c in d["decode_ceilings"]}
        rows[res.card.attention_kind] = rows.pop("card")
        bars = []
        for kind in sorted(
            rows, key=lambda k: CEILING_ORDER.index(k) if k in CEILING_ORDER else -1
        ):
            c = rows[kind]
            name = _tr(CEILING_NAMES[kind]) if kind in CEILING_NAMES else kind
            name = name.replace("%1", str(res.card.layers))
            per_token = decimal_bytes(c["bytes_per_step"])
            bars.append(
                Bar(
                    name=name,
                    value=float(c["tokens_per_s"]),
                    text=_rate(c["tokens_per_s"]),
                    detail=self.tr("%1 per token").replace("%1", per_token),
                    tip=self.tr("%1: each token reads %2 (%3 bytes) at %4 → %5 tokens/s")
                    .replace("%1", name)
                    .replace("%2", per_token)
                    .replace("%3", grouped(round(c["bytes_per_step"])))
                    .replace("%4", bandwidth)
                    .replace("%5", _rate(c["tokens_per_s"])),
                    kind={"card": "current", "dense": "without"}.get(c["kind"], "other"),
                    color=2,
                )
            )
        title = self.tr("Tokens/s at %1, batch 1 (decode ceiling)").replace("%1", bandwidth)
        self.decode.set_bars(bars, title)

    def _draw_gauge(self, res, state) -> None:
        kv = float(res.kv_bytes)
        w = float(res.weights_bytes or 0.0)
        gpu = gpu_label(state.gpu_gb)
        if res.weights_bytes is None:
            title = self.tr("KV cache %1 of %2; weights unknown (no parameter count)")
            title = title.replace("%1", both_bytes(kv)).replace("%2", gpu)
        else:
            title = self.tr("KV cache %1 + weights %2 = %3 of %4 (%5 %)")
            title = (
                title.replace("%1", both_bytes(kv))
                .replace("%2", decimal_bytes(w))
                .replace("%3", decimal_bytes(kv + w))
                .replace("%4", gpu)
                .replace("%5", f"{100 * (kv + w) / res.gpu_bytes:.0f}")
            )
        if res.unbounded:
            fit = self.tr("every context fits: the windows cap the cache")
        elif res.max_context == 0:
            fit = self.tr("does not fit: the weights alone fill the GPU")
        else:
            most = res.max_context
            fit = self.tr("fits up to %n token(s)", "", qt_count(most))
            if state.batch > 1:
                fit = self.tr("fits up to %n token(s) per sequence", "", qt_count(most))
            fit = counted(fit, most)
        self.gauge.set_state(
            GaugeState(
                gpu_bytes=res.gpu_bytes,
                weights_bytes=w,
                kv_bytes=kv,
                context=state.context,
                max_context=res.max_context,
                title=title,
                weights_text=self.tr("weights %1").replace("%1", decimal_bytes(w)),
                kv_text=self.tr("KV %1").replace("%1", binary_bytes(kv)),
                gpu_text=self.tr("GPU %1").replace("%1", gpu),
                fit_text=fit,
            )
        )

    def _draw_bars(self, res, state) -> None:
        report = res.report
        bars = []
        for v in report["variants"]:
            if v["latent"]:
                what = (
                    self.tr("latent %1 + %2")
                    .replace("%1", str(v["latent"][0]))
                    .replace("%2", str(v["latent"][1]))
                )
            else:
                what = counted(self.tr("%n KV head(s)", "", v["n_kv_heads"]), v["n_kv_heads"])
            tip = (
                self.tr("%1 (%2): %3 per token, %4 at the context")
                .replace("%1", v["design"])
                .replace("%2", what)
                .replace("%3", self._bytes(v["kv_bytes_per_token"]))
                .replace("%4", self._bytes(v["kv_cache_bytes"]))
            )
            bars.append(
                Bar(
                    name=v["design"],
                    value=float(v["kv_cache_bytes"]),
                    text=binary_bytes(v["kv_cache_bytes"]),
                    detail=what,
                    tip=tip,
                    kind="current" if v["is_card"] else "other",
                    color=1,
                )
            )
        for s in res.savings:
            name = _tr(SAVING_NAMES[s.kind]).replace("%1", str(res.card.layers))
            bars.append(
                Bar(
                    name=name,
                    value=float(s.kv_cache_bytes),
                    text=binary_bytes(s.kv_cache_bytes),
                    detail=self.tr("%1× the card").replace("%1", f"{s.ratio:.3g}"),
                    tip=self._saving_tip(s, res),
                    kind="without",
                )
            )
        n = state.context
        title = self.tr("KV cache at %n token(s) by attention design", "", qt_count(n))
        title = counted(title, n, short_tokens(n))
        self.bars.set_bars(bars, title)

    def _saving_tip(self, s, res) -> str:
        if s.kind == "hybrid":
            text = self.tr("If all %1 layers had attention (the card: %2 of them): %3 bytes")
            text = text.replace("%1", str(res.card.layers)).replace(
                "%2", str(res.card.attention_layers)
            )
        else:
            text = self.tr("Without the %1-token window: %3 bytes").replace(
                "%1", grouped(res.card.sliding_window)
            )
        return text.replace("%3", grouped(s.kv_cache_bytes))

    def _draw_plot(self, res, state) -> None:
        plot, theme = self.plot, self.theme
        n = res.curve_n.astype(np.float64)
        self.score_curve.setData(n, res.score_bytes)
        self.score_curve.setPen(plot.pen(3, width=1.3))
        self.tile_curve.setData(n, res.tile_bytes)
        self.tile_curve.setPen(plot.pen(2, width=1.3))
        fg = QColor(theme.foreground) if theme else QColor("#000000")
        names = []
        for text, curve in (
            (self.tr("S of one head, one layer: n²"), self.score_curve),
            (self.tr("tiled kernel (FlashAttention): O(n)"), self.tile_curve),
        ):
            color = curve.opts["pen"].color().name()
            # A non-breaking name: the line wraps between the two names, not inside one.
            name = html.escape(text).replace(" ", "&nbsp;")
            names.append(f'<span style="color:{color}"><b>━━</b>&nbsp;{name}</span>')
        self.curve_names.setText("&nbsp;&nbsp;&nbsp; ".join(names))
        self.curve_names.setFont(self.plot_font())
        muted = QColor(theme.muted) if theme else QColor("#888888")
        self.gpu_line.setValue(np.log10(res.gpu_bytes))
        self.gpu_line.setPen(pg.mkPen(muted, width=2, style=Qt.PenStyle.DashLine))
        self.gpu_text.setText(self.tr("GPU %1").replace("%1", gpu_label(state.gpu_gb)))
        self.gpu_text.setColor(muted)
        self.gpu_text.setPos(np.log10(n[0]), np.log10(res.gpu_bytes))
        ctx = min(max(state.context, n[0]), n[-1])
        self.context_line.setValue(np.log10(ctx))
        self.context_line.setPen(pg.mkPen(fg, width=2))
        s = res.report["score_matrix"]
        self.score_text.setText(decimal_bytes(s["bytes"]))
        self.tile_text.setText(binary_bytes(float(np.interp(ctx, n, res.tile_bytes))))
        score_at = (
            float(s["bytes"])
            if state.context == ctx
            else float(np.interp(np.log10(ctx), np.log10(n), res.score_bytes))
        )
        for item, y in ((self.score_text, score_at), (self.tile_text, float(
                np.interp(ctx, n, res.tile_bytes)))):  # fmt: skip
            item.setColor(fg)
            item.setFont(self.plot_font())
            item.setPos(np.log10(ctx), np.log10(y))
        for item in (self.gpu_text,):
            item.setFont(self.plot_font())
        top = np.log10(max(res.score_bytes[-1], res.gpu_bytes))
        bottom = np.log10(res.tile_bytes[0])
        self._marks = {
            "curves": [
                (np.log10(n), np.log10(res.score_bytes)),
                (np.log10(n), np.log10(res.tile_bytes)),
            ],
            "gpu": np.log10(res.gpu_bytes),
            "context": np.log10(ctx),
            "values": [
                (self.score_text, np.log10(score_at)),
                (self.tile_text, np.log10(float(np.interp(ctx, n, res.tile_bytes)))),
            ],
            "start": np.log10(n[0]),
        }
        # The two ranges each move the view: the labels are placed once, after both.
        self._placing_held = True
        try:
            plot.setYRange(bottom - 0.16 * (top - bottom), top + 0.22 * (top - bottom), padding=0)
            plot.setXRange(np.log10(n[0]), np.log10(n[-1]), padding=0.02)
        finally:
            self._placing_held = False
        self._place_labels()

    def _place_labels(self, *_args) -> None:
        """Put every label of the n² chart where it lies whole inside the plot, clear of
        both curves, of the GPU's and the context's lines and of the labels placed before
        it: the values beside their points on the context line first, then the GPU's
        label on its line
        (:class:`~attnviz.ui.widgets.label_room.LabelRoom`). Where a place beside its
        point is not clear, a label takes the nearest free box of the plot."""
        marks = self._marks
        if marks is None or self._placing_held:
            return
        vb = self.plot.getPlotItem().vb
        if vb.width() < 2 or vb.height() < 2:
            return  # not laid out yet: placed when it is
        (x0, x1), _ys = vb.viewRange()
        gpu_curve = (np.array([x0, x1]), np.array([marks["gpu"], marks["gpu"]]))
        # The context line is straight up: a thin box no label may cover.
        top = vb.mapViewToScene(QPointF(marks["context"], _ys[1]))
        bottom = vb.mapViewToScene(QPointF(marks["context"], _ys[0]))
        line = QRectF(top.x() - 2, min(top.y(), bottom.y()), 4, abs(bottom.y() - top.y()))
        room = LabelRoom(vb, [*marks["curves"], gpu_curve], [line])
        # Right of the context line first: below each rising curve, then above it. A
        # label with no clear place at all is left out rather than written over another
        # (the summary line and the gauge say the same numbers).
        places = [
            (item, QPointF(marks["context"], y), (-0.05, -0.15)) for item, y in marks["values"]
        ]
        places.append((self.gpu_text, QPointF(marks["start"], marks["gpu"]), (0.0, 1.15)))
        for item, point, first in places:
            item.setVisible(True)
            if not room.beside(item, point, first, VALUE_ANCHORS):
                placed = room.away(item, point, first)
                if not placed:
                    room.taken.pop()  # its box, taken where it would overlap
                item.setVisible(placed)

    def _bytes(self, n: float) -> str:
        """``1 byte``, ``131,072 bytes`` (4.096 with a decimal comma)."""
        return counted(self.tr("%n byte(s)", "", qt_count(round(n))), round(n))

    def _write_summary(self, res, state) -> None:
        r, card = res.report, res.card
        query = counted(self.tr("%n query head(s)", "", card.n_heads), card.n_heads)
        if card.attention_kind == "MLA":
            heads = (
                self.tr("%1, MLA latent %2 + %3")
                .replace("%1", query)
                .replace("%2", str(card.kv_lora_rank))
                .replace("%3", str(card.rope_head_dim or 0))
            )
        else:
            heads = (
                self.tr("%1, %2 (%3), head_dim %4")
                .replace("%1", query)
                .replace(
                    "%2", counted(self.tr("%n KV head(s)", "", card.n_kv_heads), card.n_kv_heads)
                )
                .replace("%3", card.attention_kind)
                .replace("%4", str(card.head_dim))
            )
        layers = counted(self.tr("%n layer(s)", "", card.layers), card.layers)
        if card.attention_layers < card.layers:
            layers = (
                self.tr("%1, %2 with attention")
                .replace("%1", layers)
                .replace("%2", str(card.attention_layers))
            )
        if card.sliding_layers:
            layers += (
                self.tr(", %1 with a %2-token window")
                .replace("%1", str(card.sliding_layers))
                .replace("%2", grouped(card.sliding_window))
            )
        kv = r["kv_bytes_per_token"]
        per_token = self.tr("%1 per token").replace("%1", self._bytes(kv))
        if kv >= 1024:  # 256 B are 256 bytes: said once
            per_token = (
                self.tr("%1 per token (%2)")
                .replace("%1", binary_bytes(kv))
                .replace("%2", self._bytes(kv))
            )
        s = r["score_matrix"]
        n, entries = r["context"], s["entries"]
        price = (
            self.tr("S at %1: %2, %3 in %4-bit, per head per layer")
            .replace("%1", counted(self.tr("%n token(s)", "", qt_count(n)), n))
            .replace("%2", counted(self.tr("%n entr(y|ies)", "", qt_count(entries)), entries))
            .replace("%3", decimal_bytes(s["bytes"]))
            .replace("%4", str(8 * s["bytes_per_element"]))
        )
        total = s["total_entries"]
        if total != entries:
            price += (
                self.tr("; × %1 × %2 = %3 in one pass")
                .replace("%1", counted(self.tr("%n head(s)", "", s["heads"]), s["heads"]))
                .replace("%2", self._layer_count(s))
                .replace("%3", counted(self.tr("%n entr(y|ies)", "", qt_count(total)), total))
            )
        state = ""
        if r["recurrent_state_bytes"]:
            state = " · " + self.tr("the other layers' state %1 at any context").replace(
                "%1", binary_bytes(r["recurrent_state_bytes"])
            )
        name = html.escape(card.name)
        self.summary.setText(f"<b>{name}</b>: {layers}; {heads} · {per_token}{state} · {price}")
        self.summary.setToolTip(card.source)

    def _layer_count(self, s: dict) -> str:
        """``16 full-attention layers`` (and the sliding-window ones) of the score total."""
        full = s["full_layers"]
        text = counted(self.tr("%n full-attention layer(s)", "", full), full)
        if s["sliding_layers"]:
            sliding = s["sliding_layers"]
            text += self.tr(" + %1").replace(
                "%1", counted(self.tr("%n sliding-window layer(s)", "", sliding), sliding)
            )
        return text


#: Places beside a value's point on the context line: right of the line below and above
#: the point, then left of it (a little off the line, which no label may cover).
VALUE_ANCHORS = ((-0.05, -0.15), (-0.05, 1.15), (1.05, -0.15), (1.05, 1.15))


class _ChartPlot(SteadyPlot):
    """The n² chart asks for less height than a plot of its own panel: in a scrolled
    panel the preferred heights add up, and the figure's must fit a 720-pixel window."""

    def sizeHint(self) -> QSize:
        return QSize(420, 150)


def _rate(tokens_per_s: float) -> str:
    """``100.8``, ``2.48``, ``1,234``: three figures, as precise as a ceiling can be."""
    if tokens_per_s >= 1000:
        return grouped(round(tokens_per_s))
    if tokens_per_s >= 10:
        return grouped(tokens_per_s, 1)
    return grouped(tokens_per_s, 2)


def bandwidth_label(gbs: float) -> str:
    """``3350.0`` → ``"3,350 GB/s"``."""
    return f"{grouped(gbs, 0 if float(gbs).is_integer() else 1)} GB/s"


def gpu_label(gb: float) -> str:
    """``80.0`` → ``"80 GB"``."""
    return f"{gb:g} GB"
