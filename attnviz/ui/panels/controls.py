"""The controls panel: the scores (d_k, the √d_k divisor, the temperature), the matrix
shown, colours, levels and masks.

Every control writes the state and nothing else; the heatmap and the steps follow from
the state's events. Slider drags are throttled so the state is written at most about
60 times a second, always with the latest value.

The "Scores" group keeps together what sets the softmax's temperature: d_k, the divisor
(which *is* a fixed temperature T = √d_k) and the temperature slider, and it shows the
spread (standard deviation) of the scores the softmax receives — the number that decides
whether the weights are smooth or a hard argmax.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
)

from attnviz.core.attention import score_scale
from attnviz.core.score_terms import MAX_CAP, MAX_SINK, MAX_SLOPE, MAX_TUNING, MAX_TUNING_FLOOR
from attnviz.model.resolve.result_names import ATTENTION, MASK
from attnviz.model.topics._attention_limits import SOFTMAX_DTYPES
from attnviz.model.topics.attention import COLORMAPS, MATRICES, MAX_D_K, TEMPERATURE_RANGE
from attnviz.ui.heatmap_look import picture_levels
from attnviz.ui.panel_base import Panel
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.log_slider import LogSlider
from attnviz.ui.widgets.mask_box import MaskBox
from attnviz.ui.widgets.numbers import fmt, fmt_g

# QT_TRANSLATE_NOOP below spells the context out: pyside6-lupdate does not resolve _C.
_C = "ControlsPanel"
_MATRIX_TEXT = {
    "scores": (
        QT_TRANSLATE_NOOP("ControlsPanel", "S  scores  QKᵀ / √d_k"),
        QT_TRANSLATE_NOOP("ControlsPanel", "S: the scaled score of every query with every key"),
    ),
    "weights": (
        QT_TRANSLATE_NOOP("ControlsPanel", "A  weights  softmax(S)"),
        QT_TRANSLATE_NOOP(
            "ControlsPanel", "A: each row is a probability distribution over the keys"
        ),
    ),
    "output": (
        QT_TRANSLATE_NOOP("ControlsPanel", "O  output  A·V"),
        QT_TRANSLATE_NOOP("ControlsPanel", "O: each query's weighted mix of the values"),
    ),
    "mixing": (
        QT_TRANSLATE_NOOP("ControlsPanel", "M  mixing  out = M·V"),
        QT_TRANSLATE_NOOP(
            "ControlsPanel",
            "M: every token mixer's matrix; a softmax head's is A, a hybrid's other layers "
            "(Gated DeltaNet, …) their own, proven against the model",
        ),
    ),
}
_COLORMAP_TEXT = {"diverging": QT_TRANSLATE_NOOP("ControlsPanel", "diverging (for scores)")}


def score_spread(scores: np.ndarray, allowed: np.ndarray | None) -> float:
    """Standard deviation of the scores the softmax sees (masked pairs left out)."""
    shown = scores if allowed is None or allowed.shape != scores.shape else scores[allowed]
    if shown.size == 0:
        return 0.0
    return float(np.std(shown, dtype=np.float64))


#: The attention fields each group of the panel edits (a slide shows the groups it needs).
SCORE_FIELDS = frozenset({"d_k", "scale", "temperature", "rope", "rope_dims"})
TERM_FIELDS = frozenset({"softcap", "alibi", "sink", "sink_logit", "tuning", "tuning_floor"})
VIEW_FIELDS = frozenset({"matrix", "colormap", "levels_auto", "levels", "stretch_weights"})
SOFTMAX_FIELDS = frozenset({"steps_exp", "naive_softmax", "softmax_dtype"})
MASK_FIELDS = frozenset({"causal", "padding", "segments", "window", "window_causal", "chunk"})


class ControlsPanel(Panel):
    """d_k, √d_k on/off, temperature, matrix, colormap, levels and every mask kind."""

    PANEL_ID = "controls"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        # (q, k, mask) the spread was measured for, and the spread of q·kᵀ itself: the
        # scores are q·kᵀ times one factor, so a temperature or divisor change costs nothing.
        self._spread_key: tuple = (None, None, None)
        self._raw_spread = math.nan
        self._terms_spread = math.nan
        layout = QVBoxLayout()
        self.scores_box = self._build_scores()
        self.terms_box = self._build_terms()
        self.view_box = self._build_view()
        self.softmax_box = self._build_softmax()
        layout.addWidget(self.scores_box)
        layout.addWidget(self.terms_box)
        layout.addWidget(self.view_box)
        layout.addWidget(self.softmax_box)
        self.masks = MaskBox(self)
        layout.addWidget(self.masks)
        layout.addStretch(1)
        self._write_temperature = self.throttled(self._write_temperature_now)
        self._write_d_k = self.throttled(self._write_d_k_now)
        self._write_levels = self.throttled(self._write_levels_now)
        self.mirror("rope", self.rope)
        self.mirror("rope_dims", self.rope_dims)
        for name in TERM_FIELDS:
            self.mirror(name, getattr(self, name))
        self.mirror("colormap", self.colormap)
        for name in SOFTMAX_FIELDS:
            self.mirror(name, getattr(self, name))
        self._finish(layout, scroll=True)
        self._measure_spread()

    def focus_fields(self, in_lesson, so_far=(), step=()) -> None:
        """Show only the groups that hold the fields a slide is about: those ``step`` sets,
        else those of the lesson (``in_lesson``: its masks, or its d_k and divisor), or
        every group when none of them does."""
        groups = {
            self.scores_box: SCORE_FIELDS,
            self.terms_box: TERM_FIELDS,
            self.view_box: VIEW_FIELDS,
            self.softmax_box: SOFTMAX_FIELDS,
            self.masks: MASK_FIELDS,
        }
        wanted = {box for box, names in groups.items() if names & set(step)}
        if not wanted:
            wanted = {box for box, names in groups.items() if names & set(in_lesson)}
        for box in groups:
            box.setVisible(not wanted or box in wanted)

    # --- building ----------------------------------------------------------------------
    def _build_scores(self) -> QGroupBox:
        box = QGroupBox(self.tr("Scores"))
        box.setObjectName("scores_group")
        form = QFormLayout(box)
        # A narrow dock (or Portuguese labels) puts a label above its field instead of
        # scrolling sideways.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.d_k = LogSlider(1, MAX_D_K, integer=True, powers_of_two=True)
        self.d_k.setObjectName("d_k")
        self.d_k.slider.setPageStep(1)  # one power of two per Page Up, wheel notch or click
        self.d_k.valueChanged.connect(self._on_q_d_k)
        self.d_k.slider.sliderReleased.connect(self._on_q_d_k_released)
        d_k_label = QLabel(self.tr("&d_k"))
        d_k_label.setBuddy(self.d_k)
        d_k_label.setToolTip(
            self.tr(
                "Width of the queries and keys: the slider stops at powers of two, the box "
                "takes any whole number"
            )
        )
        form.addRow(d_k_label, self.d_k)
        self.scale = QCheckBox(self.tr("Divide scores by √d_k"))
        self.scale.setToolTip(
            self.tr("Without the divisor, large d_k makes the softmax a hard argmax")
        )
        self.scale.toggled.connect(self._on_q_scale)
        form.addRow(self.scale)
        self.divisor_note = QLabel()
        self.divisor_note.setObjectName("divisor_note")
        self.divisor_note.setWordWrap(True)
        form.addRow(self.divisor_note)
        lo, hi = TEMPERATURE_RANGE
        self.temperature = LogSlider(lo, hi, decimals=3)
        self.temperature.spin.setPrefix("T = ")
        self.temperature.valueChanged.connect(self._on_q_temperature)
        reset = QToolButton()
        reset.setText(self.tr("T = 1"))
        reset.setToolTip(self.tr("Back to the plain softmax (temperature 1)"))
        reset.clicked.connect(lambda: self._write(self.temperature, temperature=1.0))
        row = QHBoxLayout()
        row.addWidget(self.temperature, 1)
        row.addWidget(reset)
        label = QLabel(self.tr("Te&mperature"))
        label.setBuddy(self.temperature)
        label.setToolTip(self.tr("Scores are divided by T: below 1 sharpens, above 1 flattens"))
        form.addRow(label, row)
        self.spread = QLabel()
        self.spread.setObjectName("spread")
        self.spread.setWordWrap(True)
        self.spread.setToolTip(
            self.tr(
                "Standard deviation of the scores S over the pairs the softmax sees. "
                "Scores 20 apart give weights in the ratio e⁻²⁰ ≈ 2·10⁻⁹: a hard "
                "argmax, and a gradient of zero."
            )
        )
        form.addRow(self.spread)
        self.rope = QCheckBox(self.tr("Rotate Q and K by position (RoPE)"))
        self.rope.setObjectName("rope")
        self.rope.setToolTip(
            self.tr(
                "Each pair of dimensions of a query or key turns by its position times its own "
                "speed (base and scaling from the positions panel): the scores then depend on "
                "where the tokens are, not only on what they are"
            )
        )
        self.rope.toggled.connect(lambda on: self._write(self.rope, rope=on))
        self.rope_dims = QSpinBox()
        self.rope_dims.setObjectName("rope_dims")
        self.rope_dims.setRange(0, MAX_D_K)
        self.rope_dims.setSpecialValueText(self.tr("all"))
        self.rope_dims.setKeyboardTracking(False)
        self.rope_dims.setToolTip(
            self.tr(
                "Partial rotary: only the first dimensions turn (GPT-NeoX, Phi); the rest "
                "carry content alone. 0 turns them all"
            )
        )
        self.rope_dims.valueChanged.connect(lambda v: self._write(self.rope_dims, rope_dims=int(v)))
        row = QHBoxLayout()
        row.addWidget(self.rope)
        row.addWidget(self.rope_dims)
        form.addRow(row)
        return box

    def _term_spin(self, name: str, lo: float, hi: float, decimals: int, tip: str):
        spin = QDoubleSpinBox()
        spin.setObjectName(name)
        spin.setRange(lo, hi)
        spin.setDecimals(decimals)
        spin.setSingleStep(10.0 ** -(decimals - 1) if decimals > 1 else 1.0)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v: self._write(spin, **{name: float(v)}))
        setattr(self, name, spin)
        return spin

    def _build_terms(self) -> QGroupBox:
        """What real models add after the scale: a cap, ALiBi's distance penalty, a sink."""
        box = QGroupBox(self.tr("Score terms"))
        box.setObjectName("terms_group")
        box.setToolTip(
            self.tr("What some models do to the scores besides the scale; all off by default")
        )
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        for name, hi, decimals, text, tip in (
            (
                "softcap",
                MAX_CAP,
                2,
                self.tr("Ca&p"),
                self.tr(
                    "Scores pass through cap·tanh(s / cap): none leaves (−cap, cap) "
                    "(Gemma 2 uses 50). 0 = off"
                ),
            ),
            (
                "alibi",
                MAX_SLOPE,
                4,
                self.tr("ALiBi &slope"),
                self.tr(
                    "ALiBi: each score loses slope·|i − j|, so far keys weigh less "
                    "(BLOOM's heads use 1/2, 1/4, …). 0 = off"
                ),
            ),
        ):
            spin = self._term_spin(name, 0.0, hi, decimals, tip)
            spin.setSpecialValueText(self.tr("off"))
            label = QLabel(text)
            label.setBuddy(spin)
            form.addRow(label, spin)
        self._build_tuning(form)
        self.sink = QCheckBox(self.tr("Sin&k logit"))
        self.sink.setObjectName("sink")
        self.sink.setToolTip(
            self.tr(
                "Every softmax denominator gains e^sink, a key that is no token: a query "
                "may then give little weight to all (gpt-oss)"
            )
        )
        self.sink.toggled.connect(lambda on: self._write(self.sink, sink=on))
        logit = self._term_spin(
            "sink_logit",
            -MAX_SINK,
            MAX_SINK,
            3,
            self.tr("The sink logit, compared with the scores"),
        )
        form.addRow(self.sink, logit)
        return box

    def _build_tuning(self, form: QFormLayout) -> None:
        """Temperature tuning: its scale (0 = off) and the positions per step of its log."""
        tuning = self._term_spin(
            "tuning",
            0.0,
            MAX_TUNING,
            4,
            self.tr(
                "Query i's scores times τ = 1 + tuning·ln(⌊(i + 1) / floor⌋ + 1): attention "
                "sharpens far into a long context (Llama 4's NoPE layers: 0.1). 0 = off"
            ),
        )
        tuning.setSpecialValueText(self.tr("off"))
        self.tuning_floor = QSpinBox()
        self.tuning_floor.setObjectName("tuning_floor")
        self.tuning_floor.setRange(1, MAX_TUNING_FLOOR)
        self.tuning_floor.setKeyboardTracking(False)
        self.tuning_floor.setPrefix(self.tr("floor "))
        self.tuning_floor.setToolTip(
            self.tr("Positions per step of the tuning's logarithm (Llama 4: 8192)")
        )
        self.tuning_floor.valueChanged.connect(
            lambda v: self._write(self.tuning_floor, tuning_floor=int(v))
        )
        label = QLabel(self.tr("&Tuning"))
        label.setBuddy(tuning)
        row = QHBoxLayout()
        row.addWidget(tuning, 1)
        row.addWidget(self.tuning_floor, 1)
        form.addRow(label, row)

    def _build_view(self) -> QGroupBox:
        box = QGroupBox(self.tr("Show"))
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.matrix = QButtonGroup(self)
        col = QVBoxLayout()
        for i, name in enumerate(MATRICES):
            text, tip = _MATRIX_TEXT[name]
            button = QRadioButton(QCoreApplication.translate(_C, text))
            button.setToolTip(QCoreApplication.translate(_C, tip))
            button.setObjectName(f"matrix_{name}")
            self.matrix.addButton(button, i)
            col.addWidget(button)
        self.matrix.idClicked.connect(self._on_q_matrix)
        form.addRow(self.tr("Matrix"), col)
        self.colormap = QComboBox()
        for name in COLORMAPS:
            self.colormap.addItem(
                QCoreApplication.translate(_C, _COLORMAP_TEXT.get(name, name)), name
            )
        self.colormap.activated.connect(self._on_q_colormap)
        label = QLabel(self.tr("&Colormap"))
        label.setBuddy(self.colormap)
        form.addRow(label, self.colormap)
        self.levels_auto = QCheckBox(self.tr("Automatic levels"))
        self.levels_auto.setToolTip(
            self.tr("A: 0 to 1, as probabilities are; S and O: their range. Off: fixed below")
        )
        self.levels_auto.toggled.connect(self._on_q_levels_auto)
        form.addRow(self.levels_auto)
        self.stretch_weights = QCheckBox(self.tr("Stretch A's colours to its range"))
        self.stretch_weights.setObjectName("stretch_weights")
        self.stretch_weights.setToolTip(
            self.tr(
                "Off: a weight's colour means the same probability in every picture, so "
                "the matrices with and without √d_k compare. On: small differences show."
            )
        )
        self.stretch_weights.toggled.connect(self._on_q_stretch_weights)
        form.addRow(self.stretch_weights)
        self.level_low, self.level_high = QDoubleSpinBox(), QDoubleSpinBox()
        for spin, prefix in (
            (self.level_low, self.tr("low ")),
            (self.level_high, self.tr("high ")),
        ):
            spin.setRange(-1e6, 1e6)
            spin.setDecimals(3)
            spin.setSingleStep(0.05)
            spin.setPrefix(prefix)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._on_q_levels)
        self._on_font_changed()
        row = QHBoxLayout()
        row.addWidget(self.level_low)
        row.addWidget(self.level_high)
        form.addRow(self.tr("Levels"), row)
        return box

    def _build_softmax(self) -> QGroupBox:
        """The steps panel's softmax written out: the row e^s, and the naive softmax that
        skips subtracting the row's maximum, in a chosen number format."""
        box = QGroupBox(self.tr("Softmax in the steps"))
        box.setObjectName("softmax_group")
        form = QFormLayout(box)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.steps_exp = QCheckBox(self.tr("Show e^s and its sum"))
        self.steps_exp.setObjectName("steps_exp")
        self.steps_exp.setToolTip(
            self.tr("The steps panel shows each e^s and their sum, which step ③ divides by")
        )
        self.steps_exp.toggled.connect(lambda on: self._write(self.steps_exp, steps_exp=on))
        form.addRow(self.steps_exp)
        self.naive_softmax = QCheckBox(self.tr("Naive, without the max"))
        self.naive_softmax.setObjectName("naive_softmax")
        self.naive_softmax.setToolTip(
            self.tr(
                "e^s / Σ e^s as written, without first subtracting the row's largest score: "
                "past e^11 in float16 (e^88 in float32) a number overflows to ∞ and the "
                "weights become NaN. The heatmap keeps the stable softmax"
            )
        )
        self.naive_softmax.toggled.connect(
            lambda on: self._write(self.naive_softmax, naive_softmax=on)
        )
        self.softmax_dtype = QComboBox()
        self.softmax_dtype.setObjectName("softmax_dtype")
        for name in SOFTMAX_DTYPES:
            self.softmax_dtype.addItem(name, name)
        self.softmax_dtype.setToolTip(self.tr("The number format of the naive softmax"))
        self.softmax_dtype.activated.connect(
            lambda i: self._write(self.softmax_dtype, softmax_dtype=self.softmax_dtype.itemData(i))
        )
        form.addRow(self.naive_softmax, self.softmax_dtype)
        return box

    def _on_font_changed(self) -> None:
        if not hasattr(self, "level_high"):
            return  # a font before the panel is built
        for spin in (self.level_low, self.level_high):
            # Wide enough for the usual levels; the range (±10⁶) would make it twice that.
            text = spin.prefix() + "−00.000"
            spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance(text) + 36)

    # --- model → view ------------------------------------------------------------------
    def _on_d_k_changed(self) -> None:
        # Not while the handle is held: a throttled, older value would pull it back under
        # the mouse. The release shows the state's value again.
        if not self.d_k.slider.isSliderDown():
            self.d_k.setValue(self.state.d_k)
        self._show_divisor()

    def _on_scale_changed(self) -> None:
        with blocked(self.scale):
            self.scale.setChecked(self.state.scale)
        self._show_divisor()

    def _on_temperature_changed(self) -> None:
        self.temperature.setValue(self.state.temperature)
        self._show_divisor()

    def _show_divisor(self) -> None:
        s = self.state
        root = fmt(math.sqrt(s.d_k))
        if s.scale:
            text = self.tr("÷ √d_k = %1 — a fixed temperature T = √d_k").replace("%1", root)
            if s.temperature != 1.0:
                total = self.tr("with T = %1: ÷ %2 in all")
                total = total.replace("%1", fmt_g(s.temperature, 4))
                text += "; " + total.replace("%2", fmt_g(math.sqrt(s.d_k) * s.temperature, 4))
        else:
            text = self.tr("No divisor: the spread of the scores grows like √d_k = %1")
            text = text.replace("%1", root)
            if s.temperature != 1.0:
                text += "; " + self.tr("÷ T = %1").replace("%1", fmt_g(s.temperature, 4))
        self.divisor_note.setText(text)
        self._show_spread()

    def _on_matrix_changed(self) -> None:
        with blocked(self.matrix):
            self.matrix.button(MATRICES.index(self.state.matrix)).setChecked(True)

    def _on_levels_auto_changed(self) -> None:
        auto = self.state.levels_auto
        with blocked(self.levels_auto, self.stretch_weights):
            self.levels_auto.setChecked(auto)
            self.stretch_weights.setChecked(self.state.stretch_weights)
        self.stretch_weights.setEnabled(auto)
        self.level_low.setEnabled(not auto)
        self.level_high.setEnabled(not auto)

    _on_stretch_weights_changed = _on_levels_auto_changed

    def _on_levels_changed(self) -> None:
        lo, hi = self.state.levels
        with blocked(self.level_low, self.level_high):
            self.level_low.setValue(lo)
            self.level_high.setValue(hi)
        for spin, value in ((self.level_low, lo), (self.level_high, hi)):
            spin.setToolTip(self.tr("Exact value: %1").replace("%1", repr(value)))

    def _on_tokens_changed(self) -> None:
        self.masks.refresh()

    _on_causal_changed = _on_padding_changed = _on_segments_changed = _on_tokens_changed
    _on_window_changed = _on_window_causal_changed = _on_chunk_changed = _on_tokens_changed
    _on_preset_id_changed = _on_tokens_changed

    def _on_results(self, _results, names: frozenset) -> None:
        if ATTENTION in names or MASK in names:
            self._measure_spread()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._measure_spread()

    def _measure_spread(self) -> None:
        """Measure the spread of q·kᵀ when Q, K or the mask are new (O(n²), numpy only)."""
        res = self.resolver.results
        if self.resolver.pending or not self.isVisible():
            return  # older results than the state, or nobody to see it: measure later
        key = (res.q, res.k, res.mask)
        old = self._spread_key
        gathered = getattr(res.attention, "score_spread", None)  # a long sentence's, by blocks
        if not self.state.score_terms().plain:
            # Capped or biased scores are not q·kᵀ times one factor: measure them as they are.
            self._terms_spread = (
                score_spread(res.attention.scores, res.mask) if gathered is None else gathered
            )
            self._spread_key = (None, None, None)
        elif not all(a is b for a, b in zip(key, old, strict=True)):
            c = abs(score_scale(self.state.d_k, self.state.scale, self.state.temperature))
            spread = score_spread(res.attention.scores, res.mask) if gathered is None else gathered
            self._raw_spread = spread / c if c > 0 else math.nan
            self._spread_key = key
        self._show_spread()

    def _show_spread(self) -> None:
        if math.isnan(self.spread_value()):
            self.spread.setText("")
            return
        text = self.tr("Spread of the scores: σ = %1").replace("%1", fmt(self.spread_value()))
        self.spread.setText(text)

    def spread_value(self) -> float:
        """The standard deviation of the scores as the panel computes it (for tests)."""
        s = self.state
        if not s.score_terms().plain:
            return self._terms_spread
        return self._raw_spread * abs(score_scale(s.d_k, s.scale, s.temperature))

    # --- view → model ------------------------------------------------------------------
    def _on_q_d_k(self, value: float) -> None:
        self._write_d_k(int(value))

    def _write_d_k_now(self, value: int) -> None:
        self._write(self.d_k, d_k=value)

    def _on_q_d_k_released(self) -> None:
        self._write_d_k.flush()
        self.d_k.setValue(self.state.d_k)

    def _on_q_scale(self, on: bool) -> None:
        self._write(self.scale, scale=on)

    def _on_q_temperature(self, value: float) -> None:
        self._write_temperature(value)

    def _write_temperature_now(self, value: float) -> None:
        self._write(self.temperature, temperature=value)

    def _on_q_matrix(self, index: int) -> None:
        self._write(self.matrix.button(index), matrix=MATRICES[index])

    def _on_q_colormap(self, index: int) -> None:
        self._write(self.colormap, colormap=self.colormap.itemData(index))

    def _on_q_levels_auto(self, on: bool) -> None:
        if on:
            self._write(self.levels_auto, levels_auto=True)
            return
        # Fix the levels where automatic ones were, so the picture does not jump: those of
        # the picture drawn (a long sentence's pooled grid; it keeps no n × n matrix).
        lo, hi = picture_levels(self.state, self.resolver.results.picture(self.state.matrix))
        new = {"levels_auto": False}
        if np.isfinite(lo) and np.isfinite(hi) and lo < hi:
            new["levels"] = (float(lo), float(hi))
        self._write(self.levels_auto, **new)

    def _on_q_stretch_weights(self, on: bool) -> None:
        self._write(self.stretch_weights, stretch_weights=on)

    def _on_q_levels(self, _value: float) -> None:
        self._write_levels(self.level_low.value(), self.level_high.value())

    def _write_levels_now(self, low: float, high: float) -> None:
        self._write(self.level_high, levels=(low, high))
