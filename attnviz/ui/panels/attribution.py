"""The attribution panel: why the head shown attends where it does.

*Split by pair*: the selected query's scaled score on each key split into the terms of
its rotary pairs, ``scale · (q_a k_a + q_b k_b)`` (keys × pairs, fastest pair first, each
column headed by its period in tokens, Σ the score), beside RoPE's clock dial with the
query's and the key's hands. A fast pair turns a lot from one token to the next, so its
term tells where a key is; a slow one barely turns over a sentence, so its term tells what
the key holds: a previous-token head lives in its fast pairs, a content head in its slow
ones (the presets ``previous-token-head`` and ``content-head``).

*Query–key map*: the head's queries and keys in one plane (``_attribution_map``).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.resolve.attribution import attribution, qk_map
from attnviz.model.resolve.result_names import ATTENTION, MASK, STEPS
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels._attribution_map import QKMap
from attnviz.ui.widgets.clock_dial import ClockDial, format_wavelength
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill

#: At most this many keys are drawn (the largest scores, in their order); the export
#: writes them all.
MAX_KEYS = 24
#: Tabs of the figure.
SPLIT, MAP = 0, 1


class AttributionPanel(FigurePanel):
    """The selected query's scores split by rotary pair, and the query–key map."""

    PANEL_ID = "attribution"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.att = None  # the drawn split (model.resolve.attribution.Attribution)
        self.shown_keys = np.zeros(0, int)  # the key of each drawn row
        self.proj = None
        self.tabs = QTabBar()
        self.tabs.setObjectName("attribution_tabs")
        self.tabs.addTab(self.tr("Split by rotary pair"))
        self.tabs.addTab(self.tr("Query–key map"))
        self.tabs.currentChanged.connect(self._on_q_tab)
        self.colour = QComboBox()
        self.colour.setObjectName("colour_by")
        self.colour.addItem(self.tr("colour by position"), "position")
        self.colour.addItem(self.tr("colour by token"), "token")
        self.colour.currentIndexChanged.connect(self._on_q_colour)
        self.colour.setVisible(False)
        # Whole tab names, never scroll arrows; the map's colour choice on a row of its own
        # (beside the tabs it squeezed them in a narrow dock).
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        top = QVBoxLayout()
        tabs_row = QHBoxLayout()
        tabs_row.addWidget(self.tabs)
        tabs_row.addStretch(1)
        top.addLayout(tabs_row)
        top.addWidget(self.colour, 0, Qt.AlignmentFlag.AlignLeft)
        self.figure = QStackedWidget()
        self.figure.addWidget(self._build_split())
        self.figure.addWidget(self._build_map())
        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        self.hover.setWordWrap(True)
        layout = QVBoxLayout()
        layout.addLayout(top)
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.hover)
        # Set explicitly: a figure's style sheet stops the stage's font (Large Fonts) from
        # reaching its lines, which a slide then drew in the window's small type.
        for label in (self.summary, self.map_summary, self.no_rope):
            self.scale_font(label, 1.0)
        self._finish(layout)

    def _build_split(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.matrix = MatrixView("T")
        self.matrix.setObjectName("terms")
        self.matrix.WRAP_TITLE = True  # the title names a token: wrap it, never cut it
        self.matrix.setMinimumSize(200, 160)
        self.matrix.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.matrix.sigHover.connect(self._on_cell)
        self.dial = ClockDial()
        self.dial.setObjectName("clock_dial")
        self.dial.set_height_for_width(False)
        self.dial.setMinimumWidth(150)
        self.no_rope = QLabel()
        self.no_rope.setObjectName("no_rope")
        self.no_rope.setWordWrap(True)
        self.no_rope.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.no_rope.setText(
            self.tr(
                "This head turns no pair (RoPE off, or a model without it): the columns are "
                "pairs of dimensions as they are, and no clock turns them."
            )
        )
        row.addWidget(self.matrix, 3)
        row.addWidget(self.dial, 2)
        row.addWidget(self.no_rope, 2)
        box.addLayout(row, 1)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        box.addWidget(self.summary)
        return page

    def _build_map(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        self.map = QKMap()
        self.map.setMinimumSize(200, 160)
        self.map.scene().sigMouseMoved.connect(self._on_q_map_mouse)
        box.addWidget(self.map, 1)
        self.map_summary = QLabel()
        self.map_summary.setObjectName("map_summary")
        self.map_summary.setWordWrap(True)
        box.addWidget(self.map_summary)
        return page

    # --- results → view ----------------------------------------------------------------
    def _on_results(self, results, names: frozenset) -> None:
        if not names & {ATTENTION, MASK, STEPS}:
            return  # a colour map or matrix choice: the same numbers
        self.att = attribution(self.workspace)
        self._draw_split()
        if names & {ATTENTION}:
            self.proj = qk_map(self.workspace)
        self._draw_map()

    def _keys_drawn(self) -> np.ndarray:
        att = self.att
        n = att.scores.shape[0]
        if n <= MAX_KEYS:
            return np.arange(n)
        ranked = np.where(att.allowed, att.scores, -np.inf)
        return np.sort(np.argsort(-ranked, kind="stable")[:MAX_KEYS])

    def _draw_split(self) -> None:
        att = self.att
        if att is None:
            return
        keys = self._keys_drawn()
        self.shown_keys = keys
        periods = att.periods
        cols = [format_wavelength(p) if np.isfinite(p) else "—" for p in periods]
        allowed = np.broadcast_to(att.allowed[keys, None], (keys.size, att.terms.shape[1]))
        self.matrix.set_matrix(
            att.terms[keys],
            allowed=allowed,
            rows=[att.keys[j] for j in keys],
            columns=cols,
            row_sums=att.scores[keys],
        )
        self.matrix.set_title(
            fill(self.tr("“%1”: its score per pair, tokens per turn fast → slow"), att.token)
        )
        turns = att.inv_freq.size > 0
        self.dial.setVisible(turns)
        self.no_rope.setVisible(not turns)
        top = self._top_key()
        if turns:
            self.dial.set_frequencies(att.inv_freq)
            self.dial.set_positions(att.query, top if top is not None else att.query)
        self.summary.setText(self._summary(top, keys.size))

    def _top_key(self) -> int | None:
        return self.att.top_key()

    def _summary(self, top: int | None, drawn: int) -> str:
        att = self.att
        if top is None:
            return fill(self.tr("“%1” may see no key."), att.token)
        share = att.top_fast_share()
        weights = self.workspace.resolver.results.steps.weights
        weight = float(weights[top]) if top < weights.shape[0] else float("nan")
        text = fill(
            self.tr(
                "“%1” reads “%2” most (weight %3, score %4): %5 % of that score's terms, "
                "by size, lie in the fastest half of the pairs."
            ),
            att.token,
            att.keys[top],
            fmt(weight, 2),
            fmt(float(att.scores[top]), 2),
            fmt(100 * share, 0) if np.isfinite(share) else "—",
        )
        if drawn < att.scores.shape[0]:
            text += " " + fill(
                self.tr("Drawn: the %1 keys of largest score of %2."), drawn, att.scores.shape[0]
            )
        return text

    def _draw_map(self) -> None:
        if self.proj is None or self.att is None:
            return
        tokens = self.att.keys
        top = self._top_key()
        self.map.set_map(self.proj, tokens, self.att.query, self.colour.currentData(), top)
        q = self.proj.queries[self.att.query]
        k = self.proj.keys
        text = fill(
            self.tr(
                "The plane holds %1 % of the rows' squared length. The arrow is the query of "
                "“%2”: a key's score with it is how far the key reaches along the arrow."
            ),
            fmt(100 * self.proj.kept, 1),
            self.att.token,
        )
        if top is not None:
            text += " " + fill(
                self.tr("It reaches furthest to “%1”: q·k = %2 in the plane, %3 in the head."),
                tokens[top],
                fmt(float(k[top] @ q), 3),
                fmt(float(self.att.scores[top] / self.att.scale), 3),
            )
        self.map_summary.setText(text)

    # --- the mouse ----------------------------------------------------------------------
    def _on_cell(self, row: int, col: int) -> None:
        att = self.att
        if att is None or not 0 <= row < self.shown_keys.size:
            self._say("")
            return
        j = int(self.shown_keys[row])
        if self.dial.isVisible():
            self.dial.set_positions(att.query, j)
        if col >= att.terms.shape[1]:
            self._say(
                fill(
                    self.tr("key “%1”: score %2, the sum of its %3 terms"),
                    att.keys[j],
                    fmt(float(att.scores[j]), 4),
                    att.terms.shape[1],
                )
            )
            return
        label = att.column_labels()[col]
        period = att.periods[col]
        self._say(
            fill(
                self.tr("key “%1”, dimensions %2 (period %3 tokens): term %4 of score %5"),
                att.keys[j],
                label,
                fmt(float(period), 1) if np.isfinite(period) else "—",
                fmt(float(att.terms[j, col]), 4),
                fmt(float(att.scores[j]), 4),
            )
        )

    def _on_q_map_mouse(self, pos) -> None:
        if self.proj is None or self.att is None:
            return
        view = self.map.getPlotItem().vb.mapSceneToView(pos)
        found = self.map.point_at(view.x(), view.y())
        if found is None:
            self._say("")
            return
        kind, row = found
        score = None
        if kind == "key":
            score = float(self.att.scores[row] / self.att.scale) if self.att.scale else None
        self._say(self.map.hover_text(kind, row, score))

    def _say(self, text: str) -> None:
        self.hover.setText(text or " ")
        self.sigHoverText.emit(text)

    # --- view → view --------------------------------------------------------------------
    def _on_q_tab(self, index: int) -> None:
        self.figure.setCurrentIndex(index)
        self.colour.setVisible(index == MAP)
        self._say("")

    def _on_q_colour(self, _index: int) -> None:
        self._draw_map()

    # --- look --------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        style_figure(self.figure, theme)
        font = self.plot_font()
        self.matrix.set_theme(theme)
        self.dial.set_theme(theme)
        self.dial.set_font(font)
        self.map.set_style(theme, font)
        self._redraw_styled()
