"""The prediction panel: what the open real model predicts at a position, and what moves it.

The bars are the most likely tokens of the sampling distribution (temperature, then top-k,
then top-p, renormalised) with the interventions applied, each beside the clean run's
probability of the same token; the target is marked and its change written under the
plot. Switching a head off (zero, or its clean mean over the sentence) is an undoable edit
of ``prediction.ablate``. Under the bars, the ablation map: layers × heads of Δ log p(target)
with that one head zero-ablated, in diverging colours centred on 0 (hatched: a layer that is
not softmax attention), computed on the worker pool with its progress and a Cancel, its cost
said first when it is more than a few seconds; a click on a cell switches that head off (or
on again); the map lives in :mod:`attnviz.ui.panels._prediction_map`. Under the map, each
head's direct effect on the target's logit, an attribution
(:mod:`attnviz.ui.panels._prediction_heads`). Without a real
model, or with one that predicts no token (the packaged MiniLM is an encoder without a
language-model head), the panel says so in one line.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from attnviz.model.topics.prediction import (
    ABLATIONS,
    MAX_INDEX,
    MAX_TEMPERATURE,
    MAX_TOP_K,
    MIN_TEMPERATURE,
    VIEWS,
)
from attnviz.ui.panel_base import FigurePanel, figure_box
from attnviz.ui.panels._prediction_generate import GenerationMixin
from attnviz.ui.panels._prediction_heads import HeadLogitsBox
from attnviz.ui.panels._prediction_map import EXCEPTION_NAME, AblationMapMixin
from attnviz.ui.panels._prediction_pages import PicturePagesMixin
from attnviz.ui.presentation_form import OFF_STAGE
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.flow_layout import FlowLayout, keep_together
from attnviz.ui.widgets.numbers import counted, fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color
from attnviz.ui.widgets.steady_plot import SteadyPlot

_C = "PredictionPanel"
#: Bars drawn: the most likely tokens of the intervened run (and the target, if not among them).
SHOWN = 10
#: The width of one of a token's two bars.
BAR = 0.38
VIEW_NAMES = {
    "all": QT_TRANSLATE_NOOP("PredictionPanel", "show all"),
    "bars": QT_TRANSLATE_NOOP("PredictionPanel", "show the bars"),
    "map": QT_TRANSLATE_NOOP("PredictionPanel", "show the ablation map"),
    "heads": QT_TRANSLATE_NOOP("PredictionPanel", "show the heads' direct effects"),
}
ABLATION_NAMES = {
    "zero": QT_TRANSLATE_NOOP("PredictionPanel", "zero"),
    "mean": QT_TRANSLATE_NOOP("PredictionPanel", "clean mean"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def shown_tokens(results, count: int = SHOWN) -> list[int]:
    """The token ids the bars show: the ``count`` most likely of the intervened run, then
    the target if it is not among them."""
    ids = [int(i) for i in results.top(count)]
    if results.target not in ids:
        ids.append(int(results.target))
    return ids


class PredictionPanel(PicturePagesMixin, GenerationMixin, AblationMapMixin, FigurePanel):
    """Top tokens of a real model's prediction, clean beside intervened."""

    PANEL_ID = "prediction"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.ids: list[int] = []  # the token ids of the bars drawn
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self._build_interventions_toggle()
        layout.addLayout(self._build_sampling())
        layout.addLayout(self._build_generation())
        layout.addWidget(self._build_interventions())
        self.plot = SteadyPlot()
        self.plot.setObjectName("prediction_plot")
        self.plot.setLabel("left", self.tr("probability"))
        self.plot.getAxis("left").enableAutoSIPrefix(False)  # never "probability (x0.001)"
        self.plot.setLabel("bottom", self.tr("token"))
        self.clean_bars = pg.BarGraphItem(x=[], height=[], width=BAR)
        self.bars = pg.BarGraphItem(x=[], height=[], width=BAR)
        self.plot.addItem(self.clean_bars)
        self.plot.addItem(self.bars)
        self.plot.legend_entry(self.clean_bars, self.tr("clean"))
        self.plot.legend_entry(self.bars, self.tr("intervened (heads or links off)"))
        self.plot.scene().sigMouseMoved.connect(self._on_q_mouse)
        self.plot.scene().sigMouseClicked.connect(self._on_q_bar_clicked)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.figure = figure_box(self.plot, self.summary, stretch=(1,))
        self.figure.setMinimumHeight(220)

        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        self.map_box = self._build_map()
        self.head_logits = HeadLogitsBox(self)  # heads through W^O: an attribution
        self._build_pages()
        layout.addWidget(self.pictures, 1)
        layout.addWidget(self.busy)
        # Set explicitly: the figures' style sheets stop a font set on the panel (the
        # stage's, Large Fonts) from reaching their labels.
        for label in (self.summary, self.map_note, self.head_logits.note):
            self.scale_font(label, 1.0)
        # What the lecturer's hands need, not the audience: off the stage.
        for widget in (self.kv_bar, self.gen_note, self.hover, self.map_progress):
            widget.setProperty(OFF_STAGE, True)
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_sampling(self) -> FlowLayout:
        # Flows: with Large Fonts in a tab at 1280×720 the fields go onto a second line
        # rather than widen the panel past its dock.
        row = FlowLayout()
        self.temperature = QDoubleSpinBox()
        self.temperature.setObjectName("temperature")
        self.temperature.setDecimals(3)
        self.temperature.setRange(MIN_TEMPERATURE, MAX_TEMPERATURE)
        self.temperature.setSingleStep(0.1)
        self.temperature.setPrefix(self.tr("T "))
        self.temperature.setToolTip(self.tr("Temperature: the logits are divided by it"))
        self.temperature.valueChanged.connect(
            lambda v: self._write(self.temperature, temperature=float(v))
        )
        self.top_k = QSpinBox()
        self.top_k.setObjectName("top_k")
        self.top_k.setRange(0, MAX_TOP_K)
        self.top_k.setPrefix(self.tr("top-k "))
        self.top_k.setSpecialValueText(self.tr("top-k off"))
        self.top_k.setToolTip(self.tr("Keep only the k most likely tokens (0: off)"))
        self.top_k.valueChanged.connect(lambda v: self._write(self.top_k, top_k=int(v)))
        self.top_p = QDoubleSpinBox()
        self.top_p.setObjectName("top_p")
        self.top_p.setDecimals(3)
        self.top_p.setRange(0.001, 1.0)
        self.top_p.setSingleStep(0.05)
        self.top_p.setPrefix(self.tr("top-p "))
        self.top_p.setToolTip(
            self.tr("Keep the fewest most likely tokens whose mass reaches p (1: off)")
        )
        self.top_p.valueChanged.connect(lambda v: self._write(self.top_p, top_p=float(v)))
        self.position = QSpinBox()
        self.position.setObjectName("position")
        self.position.setRange(-1, MAX_INDEX)
        self.position.setPrefix(self.tr("position "))
        self.position.setSpecialValueText(self.tr("last token / [MASK]"))
        self.position.setToolTip(
            self.tr("The token whose next token is predicted (an encoder: the masked one)")
        )
        self.position.valueChanged.connect(lambda v: self._write(self.position, position=int(v)))
        for spin in (self.temperature, self.top_k, self.top_p, self.position):
            row.addWidget(spin)
        self.view = QComboBox()
        self.view.setObjectName("view")
        for name in VIEWS:
            self.view.addItem(_tr(VIEW_NAMES[name]), name)
        self.view.setToolTip(self.tr("Which of the panel's pictures show"))
        self.view.currentIndexChanged.connect(
            lambda _i: self._write(self.view, view=self.view.currentData())
        )
        self.mirror("view", self.view)
        row.addWidget(self.view)
        row.addWidget(self.interventions_toggle)
        self.mirror("temperature", self.temperature)
        self.mirror("top_k", self.top_k)
        self.mirror("top_p", self.top_p)
        self.mirror("position", self.position)
        return row

    def _build_ablation(self) -> FlowLayout:
        row = FlowLayout()
        label = QLabel(self.tr("Switch off: layer"))
        self.layer = QSpinBox()
        self.layer.setObjectName("ablate_layer")
        self.layer.setRange(0, MAX_INDEX)
        label.setBuddy(self.layer)
        self.head = QSpinBox()
        self.head.setObjectName("ablate_head")
        self.head.setRange(0, MAX_INDEX)
        self.head.setPrefix(self.tr("head "))
        self.add = QPushButton(self.tr("&Add"))
        self.add.setObjectName("ablate_add")
        self.add.setToolTip(self.tr("Switch this head off in the forward pass (undoable)"))
        self.add.clicked.connect(self._on_q_add)
        self.clear = QPushButton(self.tr("C&lear"))
        self.clear.setObjectName("ablate_clear")
        self.clear.setToolTip(self.tr("Switch every head on again"))
        self.clear.clicked.connect(lambda: self._write(self.clear, ablate=()))
        self.ablation = QComboBox()
        self.ablation.setObjectName("ablation")
        for name in ABLATIONS:
            self.ablation.addItem(_tr(ABLATION_NAMES[name]), name)
        self.ablation.setToolTip(
            self.tr("What replaces a switched-off head's output: zeros, or its clean mean")
        )
        self.ablation.currentIndexChanged.connect(
            lambda _i: self._write(self.ablation, ablation=self.ablation.currentData())
        )
        self.mirror("ablation", self.ablation)
        self.ablated = QLabel()
        self.ablated.setObjectName("ablated")
        self.ablated.setWordWrap(True)
        row.addWidget(keep_together(label, self.layer, self.head))
        row.addWidget(keep_together(self.add, self.clear))
        row.addWidget(self.ablation)
        row.addWidget(self.ablated)
        return row

    def _build_knockout(self) -> FlowLayout:
        # A flow: four numbers and two buttons go onto a second line in a narrow dock.
        row = FlowLayout()
        self.cut_layer = self._index_spin("cut_layer", 0, self.tr("layer "))
        self.cut_head = self._index_spin("cut_head", -1, self.tr("head "))
        self.cut_head.setSpecialValueText(self.tr("all heads"))
        self.cut_head.setValue(-1)
        self.cut_query = self._index_spin("cut_query", 0, self.tr("query "))
        self.cut_key = self._index_spin("cut_key", 0, self.tr("key "))
        label = QLabel(self.tr("Cut a link:"))
        label.setBuddy(self.cut_layer)
        self.cut = QPushButton(self.tr("C&ut"))
        self.cut.setObjectName("knockout_add")
        self.cut.setToolTip(
            self.tr(
                "Set this query's score for this key to −∞ before the softmax, in the forward "
                "pass (the row renormalises over the other keys; undoable)"
            )
        )
        self.cut.clicked.connect(self._on_q_cut)
        self.uncut = QPushButton(self.tr("&Restore links"))
        self.uncut.setObjectName("knockout_clear")
        self.uncut.setToolTip(self.tr("Put every cut link back"))
        self.uncut.clicked.connect(lambda: self._write(self.uncut, knockout=()))
        self.knocked = QLabel()
        self.knocked.setObjectName("knocked")
        self.knocked.setWordWrap(True)
        target_label = QLabel(self.tr("&Target:"))
        self.target = QLineEdit()
        self.target.setObjectName("target")
        self.target.setPlaceholderText(self.tr("clean top-1"))
        self.target.setToolTip(
            self.tr(
                "The token whose probability is followed, as the vocabulary writes it "
                "(empty: the clean run's most likely; a click on a bar chooses its token)"
            )
        )
        self.target.setClearButtonEnabled(True)
        self.target.editingFinished.connect(self._on_q_target)
        target_label.setBuddy(self.target)
        self.target_completer = QCompleter([], self.target)
        self.target_completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.target.setCompleter(self.target_completer)
        row.addWidget(keep_together(label, self.cut_layer, self.cut_head))
        row.addWidget(keep_together(self.cut_query, self.cut_key))
        row.addWidget(keep_together(self.cut, self.uncut))
        row.addWidget(self.knocked)
        row.addWidget(keep_together(target_label, self.target))
        return row

    def _index_spin(self, name: str, lo: int, prefix: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setObjectName(name)
        spin.setRange(lo, MAX_INDEX)
        spin.setPrefix(prefix)
        return spin

    # --- view → model ------------------------------------------------------------------
    def _on_q_cut(self) -> None:
        cut = tuple(
            int(w.value()) for w in (self.cut_layer, self.cut_head, self.cut_query, self.cut_key)
        )
        if cut in self.state.knockout:
            return
        self._write(self.cut, knockout=(*self.state.knockout, cut))

    def _on_q_target(self) -> None:
        text = self.target.text().strip()
        if text != self.state.target:
            self._write(self.target, target=text)

    def _on_q_bar_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self.ids:
            return
        vb = self.plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        col = round(vb.mapSceneToView(event.scenePos()).x())
        res = self.results
        if res is None or not 0 <= col < len(self.ids):
            return
        token = res.names.get(self.ids[col])
        if token is not None and token != self.state.target:
            self._write(self.plot, target=token)

    def _on_q_add(self) -> None:
        pair = (int(self.layer.value()), int(self.head.value()))
        if pair in self.state.ablate:
            return
        self._write(self.add, ablate=(*self.state.ablate, pair))

    # --- model → view ------------------------------------------------------------------
    def _on_ablate_changed(self) -> None:
        heads = self.state.ablate
        self.map_view.set_marked(heads)
        self.clear.setEnabled(bool(heads))
        self.ablated.setVisible(bool(heads))
        if not heads:
            self.ablated.setText(self.tr("every head on"))
            return
        names = ", ".join(fill(self.tr("L%1 H%2"), layer, head) for layer, head in heads)
        self.ablated.setText(fill(self.tr("off: %1"), names))

    def _on_view_changed(self) -> None:
        view = self.state.view
        self.figure.setVisible(view in ("all", "bars"))
        self.hover.setVisible(view in ("all", "bars"))
        self.map_box.setVisible(view in ("all", "map"))
        self.head_logits.setVisible(view in ("all", "heads"))
        if self._compact:
            # As pages: "all" offers the three, one picture shows alone.
            for i, name in enumerate(("bars", "map", "heads")):
                self.picture_pages.setTabVisible(i, view in ("all", name))
            if view != "all":
                self.picture_pages.setCurrentIndex(("bars", "map", "heads").index(view))
        res = self.results_if_drawn()
        if res is not None:  # a picture shown again follows the current inputs
            self._follow_pictures(res)

    def _follow_pictures(self, res) -> None:
        """The map and the heads' effects follow ``res``' inputs where they are shown (a
        hidden one computes nothing)."""
        if self.map_box.isVisibleTo(self):
            self._update_map(res)
        if self.head_logits.isVisibleTo(self):
            self.head_logits.follow()

    def _on_knockout_changed(self) -> None:
        cuts = self.state.knockout
        self.uncut.setEnabled(bool(cuts))
        self.knocked.setVisible(bool(cuts))
        if not cuts:
            self.knocked.setText(self.tr("every link on"))
            return
        names = ", ".join(self._cut_name(*cut) for cut in cuts)
        self.knocked.setText(fill(self.tr("cut: %1"), names))

    def _cut_name(self, layer: int, head: int, query: int, key: int) -> str:
        if head < 0:
            return fill(self.tr("L%1 all %2→%3"), layer, query, key)
        return fill(self.tr("L%1 H%2 %3→%4"), layer, head, query, key)

    def _on_target_changed(self) -> None:
        if not self.target.hasFocus() or not self.target.isModified():
            self.target.setText(self.state.target)
            self.target.setModified(False)

    def _on_failed(self, message: str) -> None:
        # The exception's name adds nothing to the line ("the prediction needs a real model").
        reason = EXCEPTION_NAME.sub("", message, count=1)
        super()._on_failed(reason)
        self._clear_plot(reason)
        self.resolver.cancel_map()
        self._clear_map(self.tr("No map: see the line below."))
        self.head_logits.clear(self.tr("No attribution: see the line below."))

    def _clear_plot(self, reason: str = "") -> None:
        self.ids = []
        self.clean_bars.setOpts(x=[], height=[])
        self.bars.setOpts(x=[], height=[])
        self.plot.getAxis("bottom").setTicks(None)
        # An exported picture has no error line under it: its figure says why. In the
        # window the line says it (once).
        exported = self.testAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
        if reason and exported:
            self.summary.setText(fill(self.tr("No prediction: %1"), reason))
        else:
            self.summary.setText(self.tr("No prediction: see the line below."))

    def _on_results(self, res, _names: frozenset) -> None:
        heads = res.heads
        self.layer.setMaximum(max(len(heads) - 1, 0))
        self.head.setMaximum(max(max(heads, default=1) - 1, 0))
        self.cut_layer.setMaximum(max(len(heads) - 1, 0))
        self.cut_head.setMaximum(max(max(heads, default=1) - 1, 0))
        for spin in (self.cut_query, self.cut_key):
            spin.setMaximum(max(len(res.tokens) - 1, 0))
        self.target_completer.model().setStringList(sorted(set(res.names.values())))
        self._show_kv(res, len(res.tokens))
        self._draw_bars(res)
        self.summary.setText(self._summary(res))
        self._follow_pictures(res)

    def _draw_bars(self, res) -> None:
        """The bars of as many top tokens as the plot's width names (the target's too)."""
        self.ids = shown_tokens(res, self._bars_that_fit(res))
        x = np.arange(len(self.ids), dtype=float)
        clean = res.clean[self.ids]
        probs = res.probs[self.ids]
        theme = self._theme
        target_pen = pg.mkPen(theme.foreground if theme else "k", width=2.5)
        pens = [target_pen if i == res.target else None for i in self.ids]
        self.clean_bars.setOpts(
            x=x - BAR / 2, height=clean, width=BAR, brush=series_color(theme, 0), pens=pens
        )
        self.bars.setOpts(
            x=x + BAR / 2, height=probs, width=BAR, brush=series_color(theme, 1), pens=pens
        )
        ticks = [(float(j), self._tick(res, i)) for j, i in enumerate(self.ids)]
        self.plot.getAxis("bottom").setTicks([ticks])
        top = max(float(clean.max(initial=0.0)), float(probs.max(initial=0.0)), 0.05)
        self.plot.setXRange(-0.6, len(self.ids) - 0.4, padding=0.02)
        self.plot.setYRange(0.0, min(1.0, top) * 1.35, padding=0)

    def _bars_that_fit(self, res) -> int:
        """The most bars (at most :data:`SHOWN`, at least 3) whose token names all fit
        under them side by side: pyqtgraph drops tick labels that would overlap, and the
        target's could be the one dropped."""
        axis = self.plot.getAxis("bottom")
        metrics = QFontMetricsF(axis.style.get("tickFont") or self.plot.font())
        room = max(self.plot.width() - axis.x() - 24, 1.0)
        for count in range(SHOWN, 3, -1):
            ids = shown_tokens(res, count)
            widest = max(metrics.horizontalAdvance(self._tick(res, i)) for i in ids)
            if room / len(ids) >= widest + 8:
                return count
        return 3

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange(self.compact())
        res = self.results_if_drawn()
        if res is not None and len(shown_tokens(res, self._bars_that_fit(res))) != len(self.ids):
            self._draw_bars(res)

    def _tick(self, res, token_id: int) -> str:
        text = res.names.get(token_id, str(token_id))
        return f"★{text}" if token_id == res.target else text

    def _summary(self, res) -> str:
        target = res.target_token
        before, after = float(res.clean[res.target]), float(res.probs[res.target])
        where = fill(
            self.tr("%1 at position %2 (“%3”)"),
            res.model,
            res.position,
            res.tokens[res.position] if 0 <= res.position < len(res.tokens) else "",
        )
        if not res.intervened:
            return fill(
                self.tr("%1: p(★“%2”) = %3 with nothing switched off."),
                where,
                target,
                fmt(before, 4),
            )
        if before > 0 and after > 0:
            change = fmt(math.log(after) - math.log(before), 3)
        else:
            change = "−∞" if after == 0 < before else ("+∞" if before == 0 < after else "0")
        top_clean = res.names.get(int(res.top(1, clean=True)[0]), "")
        now = int(res.top(1)[0])
        top_now = res.names.get(now, "")
        return fill(
            self.tr(
                "%1: p(★“%2”) %3 → %4 (Δ log p %5) with %6 switched off; most likely “%7” → "
                "“%8” (%9)."
            ),
            where,
            target,
            fmt(before, 4),
            fmt(after, 4),
            change,
            self._interventions(res),
            top_clean,
            top_now,
            fmt(float(res.probs[now]), 4),
        )

    def _interventions(self, res) -> str:
        parts = []
        if res.ablate:
            parts.append(
                fill(
                    self.tr("%1 (%2)"),
                    ", ".join(fill(self.tr("L%1 H%2"), a, b) for a, b in res.ablate),
                    _tr(ABLATION_NAMES.get(res.ablation, res.ablation)),
                )
            )
        if res.knockout:
            n = len(res.knockout)
            parts.append(counted(self.tr("%n link(s)", "", n), n))
        return "; ".join(parts)

    # --- showing and hiding (the map follows) ------------------------------------------
    def showEvent(self, event) -> None:
        self._arrange(self.compact())
        super().showEvent(event)
        res = self.results_if_drawn()
        stale = res is not None and self.map_key != self.resolver.map_key()
        if stale and self.map_box.isVisibleTo(self):
            self._update_map(res)

    def results_if_drawn(self):
        """The results drawn, when they are the current inputs' (None otherwise)."""
        return self.results if self.ids and self.current else None

    def hideEvent(self, event) -> None:
        # A hidden panel costs nothing: its map stops (and starts again when shown).
        self.poll.stop()
        if self.resolver.cancel_map():
            self.map_key = None
        super().hideEvent(event)

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape and self.resolver.map_running:
            self.resolver.cancel_map()
            return
        super().keyPressEvent(event)

    # --- hover -------------------------------------------------------------------------
    def _on_q_mouse(self, pos) -> None:
        vb = self.plot.getPlotItem().vb
        col = round(vb.mapSceneToView(pos).x())
        res = self.results
        if res is None or not self.ids or not 0 <= col < len(self.ids):
            self.hover.setText(" ")
            self.sigHoverText.emit("")
            return
        token = self.ids[col]
        text = fill(
            self.tr("“%1” (id %2): clean %3, intervened %4"),
            res.names.get(token, str(token)),
            token,
            fmt(float(res.clean[token]), 4),
            fmt(float(res.probs[token]), 4),
        )
        self.hover.setText(text)
        self.sigHoverText.emit(text)

    # --- look --------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        style_figure(self.figure, theme)
        style_figure(self.map_figure, theme)
        self.map_view.set_theme(theme)
        self.head_logits.restyle(theme)
        self.plot.set_style(theme, self.plot_font())
        self._redraw_styled()
