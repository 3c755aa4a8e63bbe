"""The positions panel: RoPE as clocks, relative-position invariance, context extension.

Three views of the ``positions`` topic, live:

- the clock dial: one hand per dimension pair turned by m·θ_i, the key's hand at n, the
  angle between them shaded (a position slider on a log scale and play/pause animate m);
- relative position: q_m·k_n of a fixed q and k against m − n, at three absolute offsets —
  the curves lie on top of each other, since only m − n counts;
- context extension: the wavelength of every pair under plain RoPE, position interpolation,
  NTK, Llama 3 and YaRN with the topic's factor and original context, the original context
  marked, and which pairs the chosen method keeps, slows down or blends.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.rope import ROPE_TYPES
from attnviz.core.score_terms import MAX_SLOPE
from attnviz.model.topic_presets import load_topic_preset, topic_preset_ids
from attnviz.model.topics.positions import MAX_POSITION
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.clock_dial import ClockDial
from attnviz.ui.widgets.flow_layout import FlowLayout, flow_of, keep_together
from attnviz.ui.widgets.log_slider import LogSlider
from attnviz.ui.widgets.numbers import counted, fmt, fmt_g, grouped
from attnviz.ui.widgets.plot_style import ThemedPlot, series_color, with_legend_line

_C = "PositionsPanel"
METHOD_NAMES = {
    "default": QT_TRANSLATE_NOOP("PositionsPanel", "plain RoPE"),
    "linear": QT_TRANSLATE_NOOP("PositionsPanel", "position interpolation (linear)"),
    "ntk": QT_TRANSLATE_NOOP("PositionsPanel", "NTK-aware"),
    "dynamic": QT_TRANSLATE_NOOP("PositionsPanel", "dynamic NTK"),
    "llama3": QT_TRANSLATE_NOOP("PositionsPanel", "Llama 3"),
    "yarn": QT_TRANSLATE_NOOP("PositionsPanel", "YaRN"),
}
REGION_NAMES = {
    "extrapolated": QT_TRANSLATE_NOOP("PositionsPanel", "kept"),
    "interpolated": QT_TRANSLATE_NOOP("PositionsPanel", "slowed by the factor"),
    "blended": QT_TRANSLATE_NOOP("PositionsPanel", "blended"),
}
#: How the pairs of the chosen method are marked on the extension plot (Okabe–Ito index).
REGION_SYMBOLS = {"extrapolated": "o", "blended": "t", "interpolated": "s"}
REGION_COLORS = {"extrapolated": 2, "blended": 4, "interpolated": 1}
#: Milliseconds between frames of the position animation.
PLAY_MS = 120
#: A docked panel shorter than this many lines of its font hides its settings at first.
COMPACT_LINES = 36


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


class PositionsPanel(FigurePanel):
    """RoPE's clock dial, relative-position invariance and context-extension scalings."""

    PANEL_ID = "positions"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, positions: each pair of dimensions turns like a clock hand, "
                "m·θ per position; the score sees only the angle between query and key."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addWidget(self._build_settings())
        layout.addLayout(self._build_positions())
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.dial = ClockDial()
        self.dial.setObjectName("clock_dial")
        self.dial.sigStep.connect(self._on_q_step)
        self.dial.set_height_for_width(False)
        self.splitter.addWidget(self.dial)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("position_plots")
        self.relative_plot = self._build_relative_plot()
        self.extension_plot = self._build_extension_plot()
        relative, self.relative_legend = with_legend_line(
            self.relative_plot, "relative_legend", spill=True
        )
        self.tabs.addTab(relative, self.tr("Relative position"))
        extension, self.extension_legend = with_legend_line(self.extension_plot, "extension_legend")
        self.tabs.addTab(extension, self.tr("Context extension"))
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.dial.setMinimumWidth(160)
        # Below this the panel scrolls rather than squeezing the dial and plots to a strip;
        # above it they take whatever height is left (their size hints are ignored, or a
        # wrapping label above them would make the panel ask for the plots' natural height).
        self.splitter.setMinimumHeight(160)
        self.splitter.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.tabs.setMinimumWidth(240)
        self.splitter.setSizes([400, 600])
        layout.addWidget(self.splitter, 1)
        self.figure = self.splitter  # what an export shows: the dial and the plots
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._on_q_tick)
        self.mirror("head_dim", self.head_dim)
        self.mirror("position", self.position, block=False)
        self.mirror("key_position", self.key_position)
        self.mirror("offset", self.offset)
        self.mirror("alibi_slope", self.alibi_slope)
        self.mirror("preset_id", self.preset)
        # Scrolls rather than forcing its width on the tab group at 1280×720.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_settings(self) -> QWidget:
        self.preset = QComboBox()
        self.preset.setObjectName("positions_preset")
        for pid in topic_preset_ids("positions"):
            self.preset.addItem(preset_text(load_topic_preset("positions", pid).title), pid)
        self.preset.setToolTip(self.tr("Settings of a real model or of a small teaching head"))
        self.preset.activated.connect(self._on_q_preset)
        self.head_dim = QSpinBox()
        self.head_dim.setRange(2, 1024)
        self.head_dim.setSingleStep(2)
        self.head_dim.setToolTip(self.tr("Rotated width of one head: head_dim / 2 clock hands"))
        self.head_dim.valueChanged.connect(lambda v: self._write(self.head_dim, head_dim=v))
        self.base = QDoubleSpinBox()
        self.base.setDecimals(0)
        self.base.setRange(2, 1e12)
        self.base.setToolTip(self.tr("θ_i = base^(−2i/head_dim): a larger base, slower hands"))
        self.base.valueChanged.connect(lambda v: self._write(self.base, base=float(v)))
        self.rope_type = QComboBox()
        self.rope_type.setObjectName("rope_type")
        for name in ROPE_TYPES:
            self.rope_type.addItem(_tr(METHOD_NAMES[name]), name)
        self.rope_type.setToolTip(
            self.tr("How the frequencies are rescaled to reach a longer context")
        )
        self.rope_type.activated.connect(
            lambda i: self._write(self.rope_type, rope_type=self.rope_type.itemData(i))
        )
        self.factor = QDoubleSpinBox()
        self.factor.setRange(1.0, 1024.0)
        self.factor.setDecimals(2)
        self.factor.setPrefix("× ")
        self.factor.setToolTip(self.tr("How many times longer the new context is"))
        self.factor.valueChanged.connect(lambda v: self._write(self.factor, factor=float(v)))
        self.original = QSpinBox()
        self.original.setRange(1, MAX_POSITION)
        self.original.setSingleStep(1024)
        self.original.setToolTip(self.tr("The context the model was trained at"))
        self.original.valueChanged.connect(lambda v: self._write(self.original, original_context=v))
        self.extra = {}
        for name, tip in (
            ("low_freq_factor", self.tr("Llama 3: wavelengths above original/low are slowed")),
            ("high_freq_factor", self.tr("Llama 3: wavelengths below original/high are kept")),
            ("beta_fast", self.tr("YaRN: pairs turning more often than this are kept")),
            ("beta_slow", self.tr("YaRN: pairs turning less often than this are slowed")),
        ):
            spin = QDoubleSpinBox()
            spin.setRange(0.001, 1e6)
            spin.setDecimals(3)
            spin.setToolTip(tip)
            spin.valueChanged.connect(lambda v, n=name, s=spin: self._write(s, **{n: float(v)}))
            self.extra[name] = spin
        # A flow: the settings wrap onto more lines in a narrow dock or with large fonts.
        self.settings_box = QWidget()
        box = QVBoxLayout(self.settings_box)
        box.setContentsMargins(0, 0, 0, 0)
        # The whole title ("…: a small teaching head" was cut): the flow gives a long one
        # a line of its own rather than eliding it.
        self.preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.settings_toggle = QToolButton()
        self.settings_toggle.setObjectName("settings_toggle")
        self.settings_toggle.setCheckable(True)
        self.settings_toggle.setChecked(True)
        self.settings_toggle.setText(self.tr("Settings"))
        self.settings_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.settings_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.settings_toggle.setToolTip(
            self.tr(
                "Show or hide the fields below the preset (scaling, base, head_dim, …). "
                "In a short dock they start hidden, so the dial and the plots keep their room"
            )
        )
        self.settings_toggle.toggled.connect(self._show_settings)
        self.settings_toggle.clicked.connect(self._on_q_settings_clicked)
        self._settings_chosen = False  # True once the user opens or closes them
        box.addLayout(flow_of(self.preset, self.settings_toggle))
        self.settings_fields = QWidget()
        self.settings_fields.setObjectName("settings_fields")
        flow = FlowLayout(self.settings_fields)
        flow.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.settings_fields)
        self.alibi_slope = QDoubleSpinBox()
        self.alibi_slope.setObjectName("alibi_slope")
        self.alibi_slope.setRange(0.0, MAX_SLOPE)
        self.alibi_slope.setDecimals(4)
        self.alibi_slope.setSingleStep(0.0625)
        self.alibi_slope.setKeyboardTracking(False)
        self.alibi_slope.setSpecialValueText(self.tr("off"))
        self.alibi_slope.setToolTip(
            self.tr(
                "Draw ALiBi beside RoPE: no rotation, each score loses slope·|m − n| "
                "(BLOOM's 8 heads use 1/2, 1/4, … 1/256). Off: not drawn"
            )
        )
        self.alibi_slope.valueChanged.connect(
            lambda v: self._write(self.alibi_slope, alibi_slope=float(v))
        )
        for text, widget in (
            (self.tr("Scaling"), self.rope_type),
            (self.tr("Factor"), self.factor),
            (self.tr("Trained at"), self.original),
            (self.tr("head_dim"), self.head_dim),
            (self.tr("Base"), self.base),
            (self.tr("ALiBi slope"), self.alibi_slope),
        ):
            flow.addWidget(self._pair(text, widget))
        names = {
            "low_freq_factor": self.tr("low"),
            "high_freq_factor": self.tr("high"),
            "beta_fast": self.tr("β fast"),
            "beta_slow": self.tr("β slow"),
        }
        self.extra_pairs = {}
        for name, spin in self.extra.items():
            self.extra_pairs[name] = self._pair(names[name], spin)
            flow.addWidget(self.extra_pairs[name])
        return self.settings_box

    def _show_settings(self, shown: bool) -> None:
        self.settings_fields.setVisible(shown)
        arrow = Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        self.settings_toggle.setArrowType(arrow)

    def _on_q_settings_clicked(self) -> None:
        self._settings_chosen = True  # from now on the panel's height no longer decides

    def _fit_settings_to_height(self) -> None:
        """In a dock shorter than :data:`COMPACT_LINES` lines of its font, the settings start
        hidden (the preset stays, and sets them all): at 1280×720 with Large Fonts they left
        the relative-position chart no height at all. Elsewhere (taller, focused, an export or
        a slide, or once the user chose) they show as the user left them."""
        if self._settings_chosen:
            return
        docked = isinstance(self.parentWidget(), QDockWidget)
        short = self.height() < COMPACT_LINES * self.fontMetrics().height()
        shown = not (docked and short)
        if self.settings_toggle.isChecked() != shown:
            self.settings_toggle.setChecked(shown)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_settings_to_height()

    @staticmethod
    def _pair(text: str, widget: QWidget) -> QWidget:
        label = QLabel(text)
        label.setBuddy(widget)
        return keep_together(label, widget)

    def _build_positions(self) -> FlowLayout:
        label = QLabel(self.tr("Query position &m"))
        self.position = LogSlider(1, 65536, integer=True)
        self.position.spin.setMinimum(0)
        self.position.slider.setMinimumWidth(120)  # never squeezed to a dot by large fonts
        self.position.setObjectName("position")
        self.position.setToolTip(
            self.tr("Drag to turn every hand: fast pairs spin, slow ones creep")
        )
        self.position.valueChanged.connect(lambda v: self._write(self.position, position=int(v)))
        label.setBuddy(self.position)
        self.play = QToolButton()
        self.play.setObjectName("play")
        self.play.setCheckable(True)
        self.play.setText(self.tr("Play"))
        self.play.setToolTip(self.tr("Move the query one position at a time (Space)"))
        self.play.toggled.connect(self._on_q_play)
        self.key_position = QSpinBox()
        self.key_position.setRange(0, MAX_POSITION)
        self.key_position.setPrefix("n = ")
        self.key_position.setToolTip(self.tr("Position of the key whose hands are drawn short"))
        self.key_position.valueChanged.connect(
            lambda v: self._write(self.key_position, key_position=int(v))
        )
        self.offset = QSpinBox()
        self.offset.setRange(0, MAX_POSITION)
        self.offset.setPrefix(self.tr("shift "))
        self.offset.setToolTip(
            self.tr("The relative curves are drawn again with both positions shifted by this")
        )
        self.offset.valueChanged.connect(lambda v: self._write(self.offset, offset=int(v)))
        # A flow, as the settings above: no wider than its widest piece.
        return flow_of(keep_together(label, self.position), self.play, self.key_position,
                       self.offset)  # fmt: skip

    def _build_relative_plot(self) -> ThemedPlot:
        plot = ThemedPlot()
        plot.setObjectName("relative_plot")
        plot.setLabel("bottom", self.tr("m − n (query position minus key position)"))
        plot.setLabel("left", self.tr("q_m · k_n"))
        self.relative_curves = [plot.plot([], []) for _ in range(3)]
        # ALiBi beside RoPE: no rotation, a penalty growing with the distance instead.
        self.alibi_curve = plot.plot([], [])
        self.relative_marker = pg.InfiniteLine(angle=90, movable=False)
        plot.addItem(self.relative_marker)
        return plot

    def _build_extension_plot(self) -> ThemedPlot:
        plot = ThemedPlot()
        plot.setObjectName("extension_plot")
        plot.setLogMode(x=False, y=True)
        plot.setLabel("bottom", self.tr("dimension pair i (fast → slow)"))
        plot.setLabel("left", self.tr("wavelength (tokens)"))
        self.method_curves = {n: plot.plot([], []) for n in METHOD_NAMES if n != "dynamic"}
        self.context_line = pg.InfiniteLine(angle=0, movable=False)
        plot.addItem(self.context_line)
        self.region_points = pg.ScatterPlotItem()
        plot.addItem(self.region_points)
        # Eight entries would cover a small plot: the legend is a line of text beneath it.
        plot.getPlotItem().legend.hide()
        return plot

    # --- model → view ------------------------------------------------------------------
    def _on_base_changed(self) -> None:
        with blocked(self.base):
            self.base.setValue(self.state.base)
        self.base.setToolTip(self.tr("Exact value: %1").replace("%1", repr(self.state.base)))

    def _on_rope_type_changed(self) -> None:
        kind = self.state.rope_type
        with blocked(self.rope_type):
            self.rope_type.setCurrentIndex(self.rope_type.findData(kind))
        self.factor.setEnabled(kind != "default")
        for name, box in self.extra_pairs.items():
            box.setVisible(kind == ("llama3" if "freq" in name else "yarn"))
        self._on_original_context_changed()

    def _on_factor_changed(self) -> None:
        with blocked(self.factor):
            self.factor.setValue(self.state.factor)
        self._on_original_context_changed()

    def _on_original_context_changed(self) -> None:
        with blocked(self.original):
            self.original.setValue(self.state.original_context)
        top = int(min(MAX_POSITION, max(64, 2 * self.state.context)))
        if top != self.position._max:
            self.position._max = float(top)
            self.position.spin.setMaximum(top)
            self.position.setValue(self.state.position)

    def _on_low_freq_factor_changed(self) -> None:
        for name, spin in self.extra.items():
            with blocked(spin):
                spin.setValue(self.state.get(name))

    _on_high_freq_factor_changed = _on_low_freq_factor_changed
    _on_beta_fast_changed = _on_beta_slow_changed = _on_low_freq_factor_changed

    def _on_results(self, res, _names: frozenset) -> None:
        s = self.state
        self.dial.set_frequencies(res.inv_freq)
        self.dial.set_positions(s.position, s.key_position)
        self._draw_relative(res)
        self._draw_extension(res)
        self._write_summary(res)

    def _draw_relative(self, res) -> None:
        plot = self.relative_plot
        for i, curve in enumerate(self.relative_curves):
            # Later curves dashed and thinner, so the ones beneath still show.
            curve.setData(res.distances, res.relative[i])
            curve.setPen(plot.pen(i, width=1.6 - 0.4 * i, dash=i > 0))
        plot.legend.clear()
        for curve, offset in zip(self.relative_curves, res.offsets, strict=True):
            plot.legend_entry(curve, self.tr("key at n = %1").replace("%1", str(offset)))
        lo, hi = float(res.relative.min()), float(res.relative.max())
        if res.alibi is None:
            self.alibi_curve.setData([], [])
        else:
            self.alibi_curve.setData(res.distances, res.alibi)
            self.alibi_curve.setPen(plot.pen(3, width=2.0))
            slope = fmt_g(self.state.alibi_slope, 4)
            plot.legend_entry(
                self.alibi_curve, self.tr("ALiBi: q·k − %1·|m − n|").replace("%1", slope)
            )
            lo, hi = min(lo, float(res.alibi.min())), max(hi, float(res.alibi.max()))
        span = max(hi - lo, 1e-9)
        # Head room above the curves for the legend.
        plot.setYRange(lo - 0.05 * span, hi + 0.45 * span, padding=0)
        plot.setXRange(float(res.distances[0]), float(res.distances[-1]), padding=0.02)
        d = self.state.position - self.state.key_position
        self.relative_marker.setValue(d)
        self.relative_marker.setPen(pg.mkPen(self._color("highlight"), width=2))
        self.relative_marker.setVisible(bool(abs(d) <= res.distances[-1]))

    def _draw_extension(self, res) -> None:
        plot = self.extension_plot
        pairs = np.arange(res.inv_freq.size)
        current = self.state.rope_type if self.state.rope_type != "dynamic" else "ntk"
        for i, (name, curve) in enumerate(self.method_curves.items()):
            regions = res.methods[name]
            curve.setData(pairs, regions.wavelength_after)
            bold = name == current
            dash = not bold and name != "default"
            curve.setPen(plot.pen(i, width=1.8 if bold else 0.8, dash=dash))
        self.context_line.setValue(np.log10(self.state.original_context))
        self.context_line.setPen(
            pg.mkPen(self._color("muted"), width=2, style=Qt.PenStyle.DashLine)
        )
        regions = res.regions
        size = max(6, round(self.plot_font().pixelSize() * 0.45))
        spots = [
            {
                "pos": (i, np.log10(w)),
                "symbol": REGION_SYMBOLS[r],
                "brush": pg.mkBrush(series_color(self._theme, REGION_COLORS[r])),
                "pen": pg.mkPen(None),
                "size": size,
            }
            for i, (w, r) in enumerate(zip(regions.wavelength_after, regions.region, strict=True))
        ]
        self.region_points.setData(spots)
        self._write_extension_legend(current)
        top = float(np.log10(max(regions.wavelength_after.max(), self.state.original_context)))
        bottom = float(np.log10(regions.wavelength_after.min()))
        plot.setYRange(bottom - 0.3, top + 0.3, padding=0)

    def _write_extension_legend(self, current: str) -> None:
        parts = []
        for i, name in enumerate(self.method_curves):
            color = series_color(self._theme, i).name()
            text = _tr(METHOD_NAMES[name])
            if name == current:
                text = f"<b>{text}</b>"
            parts.append(f'<span style="color:{color}">━</span> {text}')
        marks = {"extrapolated": "●", "blended": "▲", "interpolated": "■"}
        for region, mark in marks.items():
            color = series_color(self._theme, REGION_COLORS[region]).name()
            parts.append(f'<span style="color:{color}">{mark}</span> {_tr(REGION_NAMES[region])}')
        line = self.tr("dashed: the original context")
        self.extension_legend.setText("&nbsp;&nbsp; ".join(parts) + f"&nbsp;&nbsp; ┄ {line}")

    def _write_summary(self, res) -> None:
        counts = res.regions.counts()
        kind = self.state.rope_type
        parts = [
            self.tr("%1, %2")
            .replace("%1", counted(self.tr("%n pair(s)", "", res.inv_freq.size), res.inv_freq.size))
            .replace("%2", _tr(METHOD_NAMES[kind]))
        ]
        if kind != "default":
            parts.append(
                " · ".join(
                    f"{counts[r]} {_tr(REGION_NAMES[r])}"
                    for r in ("extrapolated", "blended", "interpolated")
                )
            )
            parts.append(
                self.tr("context %1 → %2 tokens")
                .replace("%1", grouped(self.state.original_context))
                .replace("%2", grouped(self.state.context))
            )
        if kind == "yarn":
            parts.append(
                self.tr("attention factor %1").replace("%1", fmt(res.regions.attention_factor, 4))
            )
        d = self.state.position - self.state.key_position
        parts.append(self.tr("m − n = %1").replace("%1", str(d)))
        self.summary.setText("   ·   ".join(parts))

    # --- style -------------------------------------------------------------------------
    def _color(self, name: str):
        from PySide6.QtGui import QColor

        if self._theme is None:
            return QColor("#888888")
        return QColor(getattr(self._theme, name))

    def _restyle(self, theme: Theme) -> None:
        """Restyle the dial and the plots for ``theme`` and the current font."""
        font = self.plot_font()
        self.dial.set_theme(theme)
        self.dial.set_font(font)
        self.relative_plot.set_style(theme, font)
        self.extension_plot.set_style(theme, font)
        self._redraw_styled()

    # --- view → model ------------------------------------------------------------------
    def _on_q_preset(self, index: int) -> None:
        pid = self.preset.itemData(index)
        self._write(self.preset, **load_topic_preset("positions", pid).fields)

    def _on_q_step(self, delta: int) -> None:
        self._write(self.dial, position=max(0, self.state.position + delta))

    def _on_q_play(self, on: bool) -> None:
        self.play.setText(self.tr("Pause") if on else self.tr("Play"))
        if on:
            self.timer.start()
        else:
            self.timer.stop()

    def _on_q_tick(self) -> None:
        if not self.shown:
            self.play.setChecked(False)
            return
        top = int(self.position._max)
        self._write(self.dial, position=(self.state.position + 1) % (top + 1))

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space:
            self.play.toggle()
            return
        super().keyPressEvent(event)
