"""The steps panel: one query's path from scores to output, in four numbered steps, live.

① the raw score of the query with every key, ② the same divided by √d_k (and the
temperature), ③ the softmax weights, ④ the output as the weights' mix of the values,
with a verdict naming the output's largest component.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout

from attnviz.model.resolve import QuerySteps
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import fmt, fmt_row, fmt_vector
from attnviz.ui.widgets.state_panel import StatePanel, blocked
from attnviz.ui.widgets.steps_table import StepsTable

#: Beyond this many keys the table keeps the ones with the largest weights.
MAX_KEYS = 48
#: Value dimensions shown in step ④ (the largest ones when there are more).
MAX_DIMS = 16
#: Entries of the query vector written out beside the query's name.
QUERY_DIMS = 4


class StepsPanel(StatePanel):
    """The four steps of the hand-worked example for the selected query."""

    PANEL_ID = "steps"
    ORDER = 30
    AREA = "bottom"
    TITLE = QT_TRANSLATE_NOOP("StepsPanel", "Steps for one query")

    def __init__(self, state, resolver, parent=None) -> None:
        super().__init__(state, resolver, parent)
        layout = QVBoxLayout()
        top = QHBoxLayout()
        self.query = QComboBox()
        self.query.setObjectName("query")
        self.scale_font(self.query, 1.3)
        self.query.setToolTip(self.tr("The query whose row of attention is worked out below"))
        self.query.activated.connect(self._on_q_query)
        label = QLabel(self.tr("&Query"))
        self.scale_font(label, 1.3)
        label.setBuddy(self.query)
        self.query_vector = QLabel()
        self.query_vector.setObjectName("query_vector")
        self.scale_font(self.query_vector, 1.3)
        top.addWidget(label)
        top.addWidget(self.query, 1)
        top.addWidget(self.query_vector, 1)
        layout.addLayout(top)

        self.table = StepsTable()
        self.table.setObjectName("steps_table")
        self.scale_font(self.table, 1.5)
        layout.addWidget(self.table)
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)

        self.mix_title = QLabel()
        self.mix_title.setWordWrap(True)
        self.scale_font(self.mix_title, 1.3, bold=True)
        layout.addWidget(self.mix_title)
        self.mix = StepsTable()
        self.mix.setObjectName("mix_table")
        self.scale_font(self.mix, 1.5)
        layout.addWidget(self.mix)
        self.formula = QLabel()
        self.formula.setObjectName("formula")
        self.formula.setWordWrap(True)
        self.scale_font(self.formula, 1.2)
        self.formula.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.formula)
        self.verdict = QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.setWordWrap(True)
        self.scale_font(self.verdict, 1.6, bold=True)
        layout.addWidget(self.verdict)
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
        bind(self, resolver.resolved, self._on_resolved)
        self._finish(layout, scroll=True)
        self._on_steps_changed(resolver.results.steps)

    # --- model → view ------------------------------------------------------------------
    def _on_resolved(self, results, names: frozenset) -> None:
        if "steps" in names:
            self._on_steps_changed(results.steps)

    def _on_tokens_changed(self) -> None:
        with blocked(self.query):
            self.query.clear()
            for i, tok in enumerate(self.state.tokens):
                self.query.addItem(f"{i}: {tok}", i)
            self.query.setCurrentIndex(self.state.selected_query)

    def _on_selected_query_changed(self) -> None:
        with blocked(self.query):
            self.query.setCurrentIndex(self.state.selected_query)

    def _on_value_labels_changed(self) -> None:
        self._on_steps_changed(self.resolver.results.steps)

    def _on_steps_changed(self, st: QuerySteps) -> None:
        tokens = self.state.tokens
        q = self.state.q[st.query]
        shown = fmt_vector(q[:QUERY_DIMS])
        if q.size > QUERY_DIMS:
            shown = shown[:-1] + ", …]"
        self.query_vector.setText(f"q = {shown}")
        self.query_vector.setToolTip(f"q = {fmt_vector(q, 4)}")
        keys = np.arange(len(tokens))
        if keys.size > MAX_KEYS:
            keys = np.sort(np.argsort(-st.weights, kind="stable")[:MAX_KEYS])
            note = self.tr("Showing the %1 keys with the largest weights of %2.")
            self.note.setText(note.replace("%1", str(MAX_KEYS)).replace("%2", str(len(tokens))))
        else:
            self.note.setText("")
        self.note.setVisible(bool(self.note.text()))
        divisor = self._divisor_text(st)
        rows = [
            (self.tr("① score q·kⱼ"), st.raw[keys], fmt_row(st.raw[keys])),
            (self.tr("② scaled ÷ %1").replace("%1", divisor), st.scaled[keys], None),
            (self.tr("③ weight aⱼ"), st.weights[keys], None),
        ]
        headers = [f"{int(j)}: {tokens[j]}" for j in keys]
        self.table.show_rows(headers, rows, st.allowed[keys], bars=True)
        self._show_mix(st)

    def _divisor_text(self, st: QuerySteps) -> str:
        t = self.state.temperature
        parts = []
        if self.state.scale:
            parts.append(f"√{self.state.d_k}")
        if t != 1.0:
            parts.append(f"T {fmt(t, 3).rstrip('0').rstrip('.')}")
        if not parts:
            return "1"
        return " × ".join(parts) + f" = {fmt(st.divisor)}"

    def _show_mix(self, st: QuerySteps) -> None:
        labels = self._value_labels(st.output.size)
        dims = np.arange(st.output.size)
        title = self.tr("④ mix = Σ aⱼ vⱼ, the output of “%1”").replace("%1", st.token)
        if dims.size > MAX_DIMS:
            dims = np.sort(np.argsort(-st.output, kind="stable")[:MAX_DIMS])
            more = self.tr("(the %1 largest of %2 components)")
            title += " " + more.replace("%1", str(MAX_DIMS)).replace("%2", str(st.output.size))
        self.mix_title.setText(title)
        out = st.output[dims]
        self.mix.show_rows([labels[d] for d in dims], [(self.tr("output"), out, None)], None)
        n, d_v = st.weights.size, st.output.size
        if n <= 4 and d_v <= 4:
            v = self.state.v
            terms = [f"{fmt(st.weights[j])}·{fmt_vector(v[j])}" for j in range(n)]
            self.formula.setText(" + ".join(terms) + f" = {fmt_vector(st.output)}")
        else:
            self.formula.setText("")
        self.formula.setVisible(bool(self.formula.text()))
        self.verdict.setText(self._verdict(st, labels))
        self.verdict.setToolTip(self.tr("Output: %1").replace("%1", fmt_vector(st.output, 4)))

    def _value_labels(self, d_v: int) -> list[str]:
        labels = list(self.state.value_labels)
        if len(labels) == d_v:
            return labels
        return [f"v{i + 1}" for i in range(d_v)]

    def _verdict(self, st: QuerySteps, labels: list[str]) -> str:
        if not np.any(st.weights):
            return self.tr("Every key is masked: the output is zero.")
        big = int(np.argmax(st.output))
        value = fmt(st.output[big])
        if list(self.state.value_labels) == labels:
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
