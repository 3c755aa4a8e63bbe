"""The heads panel's "Through W^O" tab: each head's term of the output and its switch.

O = concat(O_1 … O_h) · W^O = Σ_i O_i · W^O_i, exactly (a block product), so each head adds
its own term. A check per head switches it off: its slice of W^O's input is set to 0 (the
prediction's ``zero`` ablation) and O′, the output without it, is the sum of the other
terms. The table gives, per query row, the size of each head's term (‖O_i·W^O_i‖, shaded by
size), ‖O‖, ‖O′‖ and ‖O′ − O‖; each cell's tooltip has the exact value. This is arithmetic
on the synthetic heads' own numbers: a proof of how O is made, not an attribution.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.head_mixing import contribution_norms
from attnviz.ui.theme import LIGHT, Theme
from attnviz.ui.widgets.flow_layout import FlowLayout
from attnviz.ui.widgets.numbers import exact, fmt, fmt_g
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import series_color

# The least height of the table of terms (its header and about three rows).
MIN_TABLE_HEIGHT = 90
# The strongest shade of a term's cell (the largest term of the table).
MAX_SHADE = 0.45


class HeadSwitches(QWidget):
    """Switches for the heads and the table of their terms through W^O.

    ``sigSwitched(off)`` says which heads the user wants off (a sorted tuple).
    """

    sigSwitched = Signal(tuple)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._theme: Theme = LIGHT
        self._checks: list[QCheckBox] = []
        self._res = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "O = concat(O_1 … O_h)·W^O = Σ_i O_i·W^O_i: each head adds its own term. "
                "Switch a head off to set its slice of W^O's input to 0; O′ is the sum of "
                "the other terms. Exact arithmetic on synthetic heads: a proof, not an "
                "attribution."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        self.switch_row = QWidget()
        self.switch_row.setObjectName("head_switches")
        self.flow = FlowLayout(self.switch_row)
        layout.addWidget(self.switch_row)
        self.all_on = QPushButton(self.tr("All heads on"))
        self.all_on.setObjectName("all_heads_on")
        self.all_on.setToolTip(self.tr("Switch every head back on: O′ = O"))
        self.all_on.clicked.connect(lambda: self.sigSwitched.emit(()))
        self.table = QTableWidget(0, 0)
        self.table.setObjectName("contributions_table")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setWordWrap(False)
        # The table takes the height the tab has and scrolls, never asks for its rows' height:
        # asked, the tab was taller than the grid's, and a docked panel scrolled and said it
        # needed more room.
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.table.setMinimumHeight(MIN_TABLE_HEIGHT)
        layout.addWidget(self.table, 1)
        self.summary = QLabel()
        self.summary.setObjectName("through_summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)

    # --- switches ----------------------------------------------------------------------
    def _build_switches(self, h: int) -> None:
        if len(self._checks) == h:
            return
        while self.flow.count():
            item = self.flow.takeAt(0)
            if item.widget() is not None and item.widget() is not self.all_on:
                item.widget().deleteLater()
        self._checks = []
        for i in range(h):
            check = QCheckBox(fill(self.tr("head %1"), i))
            check.setObjectName(f"head_switch_{i}")
            check.setChecked(True)
            check.toggled.connect(self._on_toggled)
            self._checks.append(check)
            self.flow.addWidget(check)
        self.flow.addWidget(self.all_on)

    def _on_toggled(self, _on: bool) -> None:
        self.sigSwitched.emit(tuple(i for i, c in enumerate(self._checks) if not c.isChecked()))

    def set_off(self, off, d_head: int) -> None:
        """Show heads ``off`` switched off (without emitting ``sigSwitched``)."""
        off = set(off)
        for i, check in enumerate(self._checks):
            check.blockSignals(True)
            check.setChecked(i not in off)
            check.blockSignals(False)
            lo, hi = i * d_head, (i + 1) * d_head - 1
            check.setToolTip(
                fill(
                    self.tr(
                        "Head %1 is on: unchecked, columns %2…%3 of W^O's input are set to 0 "
                        "and its term leaves O"
                    )
                    if i not in off
                    else self.tr("Head %1 is off: columns %2…%3 of W^O's input are 0"),
                    i,
                    lo,
                    hi,
                )
            )
        self.all_on.setEnabled(bool(off))

    # --- results → view ----------------------------------------------------------------
    def set_results(self, res) -> None:
        """Show the heads resolver's results ``res`` (a message when there is no W^O)."""
        self._res = res
        usable = res is not None and res.contributions is not None
        self.switch_row.setEnabled(usable)
        if not usable:
            self.table.setRowCount(0)
            self.table.setColumnCount(0)
            self.summary.setText(self._why_not(res))
            return
        self._build_switches(res.n_heads)
        self.set_off(res.heads_off, res.d_head)
        self._fill_table(res)
        self._write_summary(res)

    def _why_not(self, res) -> str:
        if res is not None and res.model:
            return self.tr(
                "A real model's W^O is not captured here: switch its heads off in the "
                "Prediction panel (an ablation inside the model's own forward pass)."
            )
        if res is not None and res.too_large:
            return res.too_large
        return self.tr("Each head's term through W^O needs learned projections.")

    def _fill_table(self, res) -> None:
        norms = contribution_norms(res.contributions)  # (n, h)
        out = np.linalg.norm(res.output, axis=1)
        switched = np.linalg.norm(res.output_switched, axis=1)
        delta = np.linalg.norm(res.output_switched - res.output, axis=1)
        n, h = norms.shape
        off = set(res.heads_off)
        t = self.table
        t.setRowCount(n)
        t.setColumnCount(h + 3)
        heads = [
            fill(self.tr("head %1 (off)") if i in off else self.tr("head %1"), i) for i in range(h)
        ]
        t.setHorizontalHeaderLabels([*heads, "‖O‖", "‖O′‖", "‖O′ − O‖"])
        t.setVerticalHeaderLabels(list(res.tokens))
        top = float(norms.max(initial=0.0)) or 1.0
        shade = series_color(self._theme, 0)
        muted = QColor(self._theme.muted)
        for row in range(n):
            token = res.tokens[row]
            for i in range(h):
                value = float(norms[row, i])
                tip = fill(self.tr("“%1”, head %2: ‖O_%2·W^O_%2‖ = %3"), token, i, exact(value))
                if i in off:
                    tip += " " + self.tr("(switched off: not in O′)")
                item = self._cell(row, i, fmt(value, 3), tip)
                color = QColor(shade)
                color.setAlphaF(MAX_SHADE * value / top)
                item.setBackground(QBrush(color))
                font = QFont(self.font())
                font.setItalic(i in off)
                item.setFont(font)
                # The table's own text colour for heads that are on (it follows the window's
                # palette); the muted one marks a head that is off.
                item.setData(Qt.ItemDataRole.ForegroundRole, QBrush(muted) if i in off else None)
            for j, (value, tip) in enumerate(
                (
                    (out[row], self.tr("“%1”: ‖O‖ = %2, all heads on")),
                    (switched[row], self.tr("“%1”: ‖O′‖ = %2, the heads switched off removed")),
                    (delta[row], self.tr("“%1”: ‖O′ − O‖ = %2, the switched-off heads' terms")),
                ),
                start=h,
            ):
                item = self._cell(row, j, fmt(value, 3), fill(tip, token, exact(float(value))))
                item.setFont(self.font())

    def _cell(self, row: int, col: int, text: str, tip: str) -> QTableWidgetItem:
        item = self.table.item(row, col)
        if item is None:
            item = QTableWidgetItem()
            self.table.setItem(row, col, item)
        item.setText(text)
        item.setToolTip(tip)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item

    def _write_summary(self, res) -> None:
        gap = float(np.abs(res.contributions.sum(axis=0) - res.output).max(initial=0.0))
        text = fill(self.tr("Σ_i O_i·W^O_i − O: largest entry %1 (rounding only)."), fmt_g(gap, 2))
        if res.heads_off:
            change = float(np.abs(res.output_switched - res.output).max(initial=0.0))
            text += " " + fill(
                self.tr("Heads off: %1; O′ − O is minus their terms, largest entry %2."),
                ", ".join(str(i) for i in res.heads_off),
                fmt_g(change, 4),
            )
        else:
            text += " " + self.tr("Every head is on: O′ = O.")
        self.summary.setText(text)

    # --- look --------------------------------------------------------------------------
    def set_theme(self, theme: Theme) -> None:
        """Shade the terms in ``theme``'s colours."""
        self._theme = theme
        if self._res is not None:
            self.set_results(self._res)

    def compact_rows(self) -> None:
        """Rows as tall as the font needs (an export's slide font included)."""
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
