"""The steps panel: one query's path from scores to output, in four numbered steps, live.

① the raw score of the query with every key, ② the same divided by √d_k (and the
temperature), ③ the softmax weights, ④ the output as the weights' mix of the values,
with a verdict naming the output's largest component. While the gradient panel is open,
⑤ adds the way back: the gradient reaching the query, dq = Σⱼ dSᵢⱼ kⱼ / √d_k.

Steps ① to ④ and the verdict come first and the panel asks for the height they need
(:meth:`StepsPanel.minimumSizeHint`), so they stay in view in a 1280×720 window with
large fonts; the worked sum and the help text follow and may scroll.
"""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout

from attnviz.model.resolve import QuerySteps
from attnviz.model.resolve.attention_data import shown_steps, steps_softmax
from attnviz.model.resolve.result_names import STEPS
from attnviz.ui.heatmap_look import model_heading_html, not_softmax_note
from attnviz.ui.panel_base import Panel
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.widgets.binding import bind, blocked, scaled_font
from attnviz.ui.widgets.numbers import (
    all_short,
    fmt,
    fmt_g,
    fmt_row,
    fmt_short,
    fmt_vector,
    shown_decimals,
)
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.steps_table import StepsTable
from attnviz.ui.widgets.units import sci

#: Beyond this many keys the table keeps the ones with the largest weights.
MAX_KEYS = 48
#: Value dimensions shown in step ④ (the largest ones when there are more).
MAX_DIMS = 16
#: Step ④ shows at least this many, however narrow the panel (it then scrolls).
MIN_DIMS = 4
#: Entries of the query vector written out beside the query's name.
QUERY_DIMS = 4
#: Type sizes relative to the interface font: the steps are read from the back of a room,
#: but in large-font mode the interface font is already 1.5 times larger.
TABLE_SCALE = 1.3
HEADING_SCALE = 1.15
VERDICT_SCALE = 1.3
#: In large-font mode only this part of the extra size is kept (1.3 → 1.15).
LARGE_MODE_EXTRA = 0.5


#: The narrowest width the steps' wrapped lines are measured at for the panel's minimum.
MIN_TEXT_WIDTH = 420


def _exp_text(x: float) -> str:
    """An exponential or a sum of them as a reader checks it by hand: three significant
    digits, a power of ten from 10⁴ on, ∞ where it overflowed."""
    if not np.isfinite(x):
        return fmt(x)
    return sci(x, 3) if abs(x) >= 1e4 else fmt_g(x, 3)


class StepsPanel(Panel):
    """The four steps of the hand-worked example for the selected query."""

    PANEL_ID = "steps"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        layout = QVBoxLayout()
        # A real model's head: which model, layer and head the steps work through.
        self.model_line = QLabel()
        self.model_line.setObjectName("model_line")
        self.model_line.setWordWrap(True)
        self.model_line.hide()
        layout.addWidget(self.model_line)
        top = QHBoxLayout()
        self.query = QComboBox()
        self.query.setObjectName("query")
        self.scale_font(self.query, HEADING_SCALE)
        self.query.setToolTip(self.tr("The query whose row of attention is worked out below"))
        self.query.activated.connect(self._on_q_query)
        label = QLabel(self.tr("&Query"))
        self.scale_font(label, HEADING_SCALE)
        label.setBuddy(self.query)
        # As wide as its longest entry: "4: telhado" was cut to "4: telh" beside q.
        self.query.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.query_vector = QLabel()
        self.query_vector.setObjectName("query_vector")
        self.query_vector.setWordWrap(True)  # onto a second line rather than cut
        self.scale_font(self.query_vector, HEADING_SCALE)
        top.addWidget(label)
        top.addWidget(self.query)
        top.addWidget(self.query_vector, 1)
        layout.addLayout(top)

        self.table = StepsTable()
        self.table.setObjectName("steps_table")
        self.scale_font(self.table, TABLE_SCALE)
        layout.addWidget(self.table)
        # With a sink logit: what step ③ divides by, and the share no key gets.
        self.sink_line = QLabel()
        self.sink_line.setObjectName("sink_line")
        self.sink_line.setWordWrap(True)
        self.scale_font(self.sink_line, HEADING_SCALE)
        self.sink_line.hide()
        layout.addWidget(self.sink_line)

        # Step ④ is one more row of numbers, over the value dimensions instead of the keys.
        self.mix = StepsTable()
        self.mix.setObjectName("mix_table")
        self.scale_font(self.mix, TABLE_SCALE)
        layout.addWidget(self.mix)
        self.verdict = QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.scale_font(self.verdict, VERDICT_SCALE, bold=True)
        layout.addWidget(self.verdict)
        # Step ⑤, only while the gradient panel is open: the backward pass reaching q.
        self.grad = StepsTable()
        self.grad.setObjectName("grad_table")
        self.scale_font(self.grad, TABLE_SCALE)
        self.grad.hide()
        layout.addWidget(self.grad)
        self._gradient = None
        self._keys_note = ""  # what the keys' table leaves out, above step ④'s note
        self._essential = (self.model_line, top, self.table, self.sink_line, self.mix, self.verdict)
        # What the tables leave out of a long sentence: below the verdict, not before it.
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        self.formula = QLabel()
        self.formula.setObjectName("formula")
        self.formula.setWordWrap(True)
        self.scale_font(self.formula, HEADING_SCALE)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.formula)
        help_text = QLabel(
            self.tr(
                "① how strongly the query matches each key; ② divided so that the spread of "
                "the scores does not grow with d_k; ③ the softmax turns the scores into "
                "weights that are positive and add up to 1; ④ the output is the mix of the "
                "value vectors in those proportions."
            )
        )
        help_text.setWordWrap(True)
        help_text.setObjectName("help")
        layout.addWidget(help_text)
        layout.addStretch(1)
        self._content = layout
        self.mirror("selected_query", self.query)
        self._finish(layout, scroll=True)

    @classmethod
    def create(cls, workspace, parent=None):
        panel = cls(workspace, parent)
        # Step ⑤ shows only while someone watches the gradient, and watching it makes its
        # resolver: until then the steps wait for it instead of making it themselves.
        gradient = workspace.existing_resolver("gradient")
        if gradient is not None:
            panel.attach_gradient(gradient)
        else:
            bind(panel, workspace.resolver_created, panel._on_resolver_created)
        return panel

    def _on_resolver_created(self, name: str, resolver) -> None:
        if name == "gradient" and self._gradient is None:
            self.attach_gradient(resolver)

    def attach_gradient(self, resolver) -> None:
        """Show step ⑤ from the gradient panel's resolver while someone watches it."""
        self._gradient = resolver
        bind(self, resolver.resolved, self._on_gradient_resolved)
        bind(self, resolver.watching, self._on_gradient_watching)
        self._on_gradient_watching(resolver.watched)

    def _on_gradient_watching(self, on: bool) -> None:
        self.grad.setVisible(on)
        if on:
            self._show_gradient(self._gradient.results)

    def _on_gradient_resolved(self, results, _names: frozenset) -> None:
        if self.grad.isVisibleTo(self):
            self._show_gradient(results)

    def _show_gradient(self, res) -> None:
        chain = getattr(res, "chain", None)
        if chain is None:
            self.grad.hide()
            return
        i = min(self.state.selected_query, chain.dq.shape[0] - 1)
        dq = chain.dq[i]
        dims = np.arange(dq.size)
        if dims.size > MAX_DIMS:
            dims = np.sort(np.argsort(-np.abs(dq), kind="stable")[:MAX_DIMS])
        row = self.tr("⑤ gradient dq")
        self.grad.setToolTip(
            self.tr(
                "⑤ the way back: the gradient of the loss reaching the query of “%1”, "
                "dq = Σⱼ dSᵢⱼ kⱼ / √d_k (the gradient panel says where the loss comes from)"
            ).replace("%1", self.state.tokens[i])
        )
        self.grad.show_rows([f"q{d + 1}" for d in dims], [(row, dq[dims], None)], None)

    def _restyle(self, theme) -> None:
        """In large-font mode the steps' extra size shrinks: the interface font has grown
        already, and steps ① to ④ must still fit a 1280×720 window with the heatmap."""
        keep = LARGE_MODE_EXTRA if theme.font_scale > 1.0 else 1.0
        if not hasattr(self, "_base_factors"):
            self._base_factors = [factor for _w, factor, _b in self._scaled]
        self._scaled = [
            (widget, 1 + (base - 1) * keep, bold)
            for (widget, _f, bold), base in zip(self._scaled, self._base_factors, strict=True)
        ]
        for widget, factor, bold in self._scaled:
            widget.setFont(scaled_font(self.font(), factor, bold=bold))
        self.updateGeometry()

    def minimumSizeHint(self) -> QSize:
        """Tall enough for steps ① to ④ and the verdict; what follows them may scroll."""
        hint = super().minimumSizeHint()
        layout = self._content
        margins = layout.contentsMargins()
        # Before its first layout the panel may be a few pixels wide: wrapped lines measured
        # there would ask hundreds of pixels and grow a 720-pixel window past the screen.
        width = max(self.width() - margins.left() - margins.right(), MIN_TEXT_WIDTH)
        height = margins.top() + margins.bottom()
        shown = 0
        for part in self._essential:
            if isinstance(part, QHBoxLayout):
                height += part.sizeHint().height()
            elif part.isHidden():
                continue
            elif isinstance(part, StepsTable):
                height += part.minimumHeight()  # fixed to its rows by the table itself
            elif part.hasHeightForWidth():
                height += part.heightForWidth(width)
            else:
                height += part.sizeHint().height()
            shown += 1
        height += layout.spacing() * max(shown - 1, 0)
        if not self.message.isHidden():
            height += self.message.sizeHint().height()
        return QSize(hint.width(), max(hint.height(), height))

    # --- model → view ------------------------------------------------------------------
    def _on_results(self, results, names: frozenset) -> None:
        if STEPS in names:
            self._on_steps_changed(results.steps)

    def _on_head_changed(self) -> None:
        heading = model_heading_html(self.state)
        note = not_softmax_note(self.state)  # a hybrid's Gated DeltaNet, Mamba-2, … head
        if note:
            heading += f"<span style='color: #d62728'>{html.escape(note)}</span>"
        self.model_line.setText(heading.removesuffix("<br>"))
        self.model_line.setVisible(bool(heading))

    _on_layer_changed = _on_model_head_changed = _on_model_path_changed = _on_head_changed
    _on_model_text_changed = _on_head_changed

    def _on_tokens_changed(self) -> None:
        with blocked(self.query):
            self.query.clear()
            for i, tok in enumerate(self.state.tokens):
                self.query.addItem(f"{i}: {tok}", i)
            self.query.setCurrentIndex(self.state.selected_query)

    def _on_value_labels_changed(self) -> None:
        if self.results is not None:  # else the first results, just after, draw them
            self._on_steps_changed(self.resolver.results.steps)

    def _on_steps_changed(self, st: QuerySteps) -> None:
        st = shown_steps(self.state, st)  # a naive softmax's weights and mix, when on
        self._on_head_changed()  # a model's sentence may have come in: its layer's kind
        tokens = self.state.tokens
        q = st.q  # the vector the scores came from (turned by position when RoPE is on)
        shown = fmt_vector(q[:QUERY_DIMS])
        if q.size > QUERY_DIMS:
            # A wide head: its first entries, and its width (the lesson's d_k = 256).
            width = fill(self.tr("(d_k = %1)"), q.size).replace(" ", "\u00a0")  # one piece
            shown = shown[:-1] + ", …]   " + width
        self.query_vector.setText(f"q = {shown}")
        self.query_vector.setToolTip(f"q = {fmt_vector(q, 4)}")
        keys = np.arange(len(tokens))
        if keys.size > MAX_KEYS:
            keys = np.sort(np.argsort(-st.weights, kind="stable")[:MAX_KEYS])
            note = self.tr("Showing the %1 keys with the largest weights of %2.")
            self._keys_note = note.replace("%1", str(MAX_KEYS)).replace("%2", str(len(tokens)))
        else:
            self._keys_note = ""
        divisor = self._divisor_text(st)
        rows = [
            (self.tr("① score q·kⱼ"), st.raw[keys], fmt_row(st.raw[keys])),
            (self.tr("② scaled ÷ %1").replace("%1", divisor), st.scaled[keys], None),
            *self._term_rows(st, keys),
            *self._softmax_rows(st, keys),
        ]
        headers = [f"{int(j)}: {tokens[j]}" for j in keys]
        self.table.show_rows(headers, rows, st.allowed[keys], bars=True)
        self._show_sink(st)
        self._show_mix(st)

    def _softmax_rows(self, st: QuerySteps, keys: np.ndarray) -> list:
        """Step ③, with the row e^s and its sum before it when the state asks for it, and
        the naive softmax's weights (inf and NaN included) when that is on."""
        s = self.state
        if not (s.steps_exp or s.naive_softmax):
            return [(self.tr("③ weight aⱼ"), st.weights[keys], None)]
        row = steps_softmax(s, st)
        total = _exp_text(row.total)
        if row.naive:
            exp_label = self.tr("e^sⱼ in %1 (Σ = %2)").replace("%1", row.dtype)
            weight_label = self.tr("③ e^sⱼ / Σ, no max")
        else:
            exp_label = self.tr("e^sⱼ (Σ = %2)")
            weight_label = self.tr("③ weight aⱼ")
        exp_label = exp_label.replace("%2", total)
        exp = row.exp[keys]
        # e^s grows fast: past 10⁴ a power of ten reads better than a long row of digits.
        texts = [_exp_text(x) for x in exp] if np.nanmax(exp, initial=0) >= 1e4 else None
        return [(exp_label, exp, texts), (weight_label, row.weights[keys], None)]

    def _on_steps_exp_changed(self) -> None:
        if self.results is not None:
            self._on_steps_changed(self.resolver.results.steps)

    _on_naive_softmax_changed = _on_softmax_dtype_changed = _on_steps_exp_changed

    def _term_rows(self, st: QuerySteps, keys: np.ndarray) -> list:
        """The rows between ② and ③ when the scores are tuned, capped or biased (ALiBi)."""
        terms = st.terms
        rows = []
        if st.tuned is not None:
            label = self.tr("↳ tuned × τ = %1").replace("%1", fmt_g(st.tau, 6))
            rows.append((label, st.tuned[keys], None))
        if st.capped is not None:
            label = self.tr("↳ capped %1·tanh(s/%1)").replace("%1", fmt_g(terms.softcap, 4))
            rows.append((label, st.capped[keys], None))
        if terms.alibi:
            label = self.tr("↳ − %1·|i − j| (ALiBi)").replace("%1", fmt_g(terms.alibi, 4))
            rows.append((label, st.logits[keys], None))
        return rows

    def _show_sink(self, st: QuerySteps) -> None:
        """The softmax's denominator with the sink, and the share the sink takes."""
        sink = st.terms.sink
        if sink is None:
            self.sink_line.hide()
            return
        share = fmt(st.sink_weight, max(shown_decimals(st.weights), 4))
        if np.isfinite(st.denominator):
            text = self.tr(
                "③ divides by Σⱼ e^sⱼ + e^sink = %1 (sink %2): the sink takes %3, the keys %4"
            )
            text = text.replace("%1", fmt_g(st.denominator, 5))
        else:
            text = self.tr(
                "③ divides by Σⱼ e^sⱼ + e^sink (sink %2): the sink takes %3, the keys %4"
            )
        text = text.replace("%2", fmt_g(sink, 4)).replace("%3", share)
        self.sink_line.setText(text.replace("%4", fmt(1.0 - st.sink_weight, 4)))
        self.sink_line.show()

    def _divisor_text(self, st: QuerySteps) -> str:
        t = self.state.temperature
        parts = []
        if self.state.scale:
            parts.append(f"√{self.state.d_k}")
        if t != 1.0:
            parts.append(f"T {fmt_g(t, 4)}")
        if not parts:
            return "1"
        divisor = st.divisor
        shown = fmt_short(divisor) if all_short([divisor], 2) else fmt(divisor)  # 16, 1.41
        return " × ".join(parts) + f" = {shown}"

    def _show_mix(self, st: QuerySteps) -> None:
        labels = self._value_labels(st.output.size)
        dims = np.arange(st.output.size)
        limit = self._mix_limit(st, labels)
        self._mix_shown = limit
        if dims.size > limit:
            dims = np.sort(np.argsort(-st.output, kind="stable")[:limit])
            more = self.tr("④ shows the %1 largest of %2 output components.")
            more = more.replace("%1", str(limit)).replace("%2", str(st.output.size))
            self.note.setText(" ".join(filter(None, (self._keys_note, more))))
            self.note.setVisible(True)
        else:
            self.note.setText(self._keys_note)
            self.note.setVisible(bool(self._keys_note))
        out = st.output[dims]
        row = self.tr("④ output Σ aⱼ vⱼ")
        self.mix.setToolTip(
            self.tr("④ the output of “%1”: the values mixed in the proportions of ③").replace(
                "%1", st.token
            )
        )
        self.mix.show_rows([labels[d] for d in dims], [(row, out, None)], None)
        n, d_v = st.weights.size, st.output.size
        if n <= 4 and d_v <= 4:
            v = self.state.v
            d = shown_decimals(st.weights)
            terms = [f"{fmt(st.weights[j], d)}·{fmt_vector(v[j])}" for j in range(n)]
            self.formula.setText(" + ".join(terms) + f" = {fmt_vector(st.output)}")
        else:
            self.formula.setText("")
        self.formula.setVisible(bool(self.formula.text()))
        self.verdict.setText(self._verdict(st, labels))
        self.verdict.setToolTip(self.tr("Output: %1").replace("%1", fmt_vector(st.output, 4)))

    def _mix_limit(self, st: QuerySteps, labels: list[str]) -> int:
        """How many output components step ④ shows: up to :data:`MAX_DIMS`, and in a
        panel laid out on screen only as many as fit its width side by side (at least
        :data:`MIN_DIMS`), so that the row of ④ never runs past the panel's edge."""
        d_v = st.output.size
        limit = min(MAX_DIMS, d_v)
        area = self.room_note.area
        if not self.isVisible() or limit <= MIN_DIMS:
            return limit
        room = area.viewport().width() - self._content.contentsMargins().left()
        room -= self._content.contentsMargins().right() + 2 * self.mix.frameWidth()
        room -= self.mix.row_header_width([self.tr("④ output Σ aⱼ vⱼ")], tight=True)
        cells = zip(fmt_row(st.output), labels, strict=True)
        widths = sorted((self.mix.column_width([t], h, tight=True) for t, h in cells), reverse=True)
        fits, used = 0, 0
        for width in widths[:limit]:  # the widest first: what fits holds for any choice
            if used + width > room:
                break
            used, fits = used + width, fits + 1
        return max(MIN_DIMS, min(limit, fits))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # A narrower or wider panel shows fewer or more output components in step ④.
        if self.results is not None and event.size().width() != event.oldSize().width():
            steps = self.resolver.results.steps
            shown = self._mix_limit(steps, self._value_labels(steps.output.size))
            if shown != getattr(self, "_mix_shown", None):
                self._show_mix(steps)

    def needed_width(self) -> int:
        """Wide enough for every key of steps ① to ③, as the table shows them when narrow
        (the window's compact layout gives the steps this much of its width when it can)."""
        margins = self._content.contentsMargins()
        area = self.room_note.area
        bar = area.verticalScrollBar().sizeHint().width()
        inner = max(self.table.natural_width(tight=True), self._content.minimumSize().width())
        return inner + margins.left() + margins.right() + 2 * area.frameWidth() + bar

    def _value_labels(self, d_v: int) -> list[str]:
        labels = list(self.state.value_labels)
        if len(labels) == d_v:
            return [preset_text(label) for label in labels]  # "seat" → "assento"
        return [f"v{i + 1}" for i in range(d_v)]

    def _verdict(self, st: QuerySteps, labels: list[str]) -> str:
        if not np.isfinite(st.output).all():
            return self.tr("The softmax overflowed: the output is not a number.")
        if not np.any(st.weights):
            return self.tr("Every key is masked: the output is zero.")
        big = int(np.argmax(st.output))
        value = fmt(st.output[big], shown_decimals(st.output))
        if len(self.state.value_labels) == len(labels):
            text = self.tr("“%1” reads mostly as %2 (%3).")
            return text.replace("%1", st.token).replace("%2", labels[big]).replace("%3", value)
        text = self.tr("Largest component of the output: %1 = %2.")
        return text.replace("%1", labels[big]).replace("%2", value)

    def _on_font_changed(self) -> None:
        if hasattr(self, "verdict"):  # the panel may get a font before it is built
            self._on_steps_changed(self.resolver.results.steps)

    # --- view → model ------------------------------------------------------------------
    def _on_q_query(self, index: int) -> None:
        self._write(self.query, selected_query=index)

    def step_texts(self) -> list[list[str]]:
        """The texts of the steps table, one list per step (for tests and export)."""
        return self.table.texts()

    def tooltip_of(self, row: int, column: int) -> str:
        """The exact-value tooltip of one step cell."""
        return self.table.item(row, column).toolTip()
