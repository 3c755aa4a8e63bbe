"""The heatmap panel: S, A or O of the whole sequence, read by rows, live.

Which matrix, which colormap and which levels come from the state (the controls panel
writes them); this panel only draws. A recompute (``attention`` or ``mask`` from the
resolver) sets new image data; a restyle key (colormap, levels) only restyles; token
labels are rebuilt only when the tokens change. The functions at the top describe a
heatmap for a state and are shared with the exporter, so a slide shows what the screen does.

Weights are probabilities: automatic levels of A are 0 to 1 (unless ``stretch_weights``),
so the matrices with and without the √d_k divisor can be compared by colour; S and O get
the range of their values.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QLabel, QVBoxLayout

from attnviz.model.resolve import Resolver, Results
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.panels import TITLES
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.colormaps import colormap
from attnviz.ui.widgets.heatmap_view import ENTROPY_COL, HeatmapView
from attnviz.ui.widgets.numbers import fmt, fmt_g
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.state_panel import StatePanel

_C = "HeatmapPanel"
#: pyqtgraph maps behind the state's colormap names; the diverging one is for scores.
PG_COLORMAPS = {"diverging": "CET-D1"}
SYMBOLS = {"scores": "S", "weights": "A", "output": "O"}
_NOTES = {
    "scores": QT_TRANSLATE_NOOP("HeatmapPanel", "how well each query matches each key"),
    "weights": QT_TRANSLATE_NOOP(
        "HeatmapPanel", "each row is a probability distribution over the keys"
    ),
    "output": QT_TRANSLATE_NOOP("HeatmapPanel", "each row is the query's mix of the values"),
    "sink": QT_TRANSLATE_NOOP(
        "HeatmapPanel",
        "each row gives part of its weight to the sink and spreads the rest "
        "over the keys: rows sum to less than 1",
    ),
}


@cache
def colormap_for(name: str) -> pg.ColorMap:
    """The pyqtgraph colour map behind a state colormap name (viridis, …, diverging)."""
    return colormap(PG_COLORMAPS.get(name, name))


def auto_levels(values: np.ndarray, allowed: np.ndarray | None, diverging: bool) -> tuple:
    """Levels spanning the visible (unmasked) values; symmetric about 0 when ``diverging``."""
    shown = values[allowed] if allowed is not None and allowed.shape == values.shape else values
    shown = shown[np.isfinite(shown)] if shown.dtype.kind == "f" else shown
    if shown.size == 0:
        return (-1.0, 1.0) if diverging else (0.0, 1.0)
    lo, hi = float(shown.min()), float(shown.max())
    if diverging:
        m = max(abs(lo), abs(hi)) or 1.0
        return (-m, m)
    if hi - lo < 1e-12:
        return (lo - 0.5, hi + 0.5)
    return (lo, hi)


#: Automatic levels of the weights: a probability is between 0 and 1.
WEIGHT_LEVELS = (0.0, 1.0)


def view_levels(state: AttentionState, values: np.ndarray, allowed) -> tuple[float, float]:
    """The colour levels the state asks for: its fixed ``levels``, or automatic ones.

    Automatic levels of A are 0 to 1 (a weight is a probability), or the weights' own range
    with ``stretch_weights``; those of S and O span their values.
    """
    if not state.levels_auto:
        return state.levels
    if state.matrix == "weights" and not state.stretch_weights:
        return WEIGHT_LEVELS
    return auto_levels(values, allowed, state.colormap == "diverging")


def picture_levels(state: AttentionState, pic) -> tuple[float, float]:
    """The colour levels of a :class:`~attnviz.model.resolve._display.Picture` as drawn:
    from the grid itself (pooled for a long sentence), hatched cells left out of S and A
    (O's columns are not keys)."""
    allowed = pic.allowed if state.matrix != "output" else None
    return view_levels(state, pic.values, allowed)


def column_labels(state: AttentionState, matrix: str, d_v: int) -> tuple[str, ...]:
    """Keys for S and A; the value dimensions (named when the preset names them) for O."""
    if matrix != "output":
        return state.tokens
    if len(state.value_labels) == d_v:
        return state.value_labels
    return tuple(f"v{j + 1}" for j in range(d_v))


def value_label_text(label: str) -> str:
    """A value dimension's name in the UI's language ("seat" → "assento").

    The names are data (a preset's, or typed by the user); the shipped ones are translated
    as preset strings, any other is shown as it is.
    """
    return preset_text(label)


def shown_column_labels(state: AttentionState, matrix: str, d_v: int) -> tuple[str, ...]:
    """:func:`column_labels` as the screen and slides show them (value names translated)."""
    labels = column_labels(state, matrix, d_v)
    if matrix == "output" and len(state.value_labels) == d_v:
        return tuple(value_label_text(label) for label in labels)
    return labels


def formula(state: AttentionState, matrix: str) -> str:
    """The formula of the matrix as the state computes it, e.g. ``S = QKᵀ / √d_k``."""
    terms = state.score_terms()
    if matrix == "scores":
        inner = "QKᵀ / √d_k" if state.scale else "QKᵀ"
        if state.temperature != 1.0:
            inner += " / T"
        if terms.softcap:
            cap = fmt_g(terms.softcap, 4)
            inner = f"{cap}·tanh({inner} / {cap})"
        if terms.alibi:
            inner += f" − {fmt_g(terms.alibi, 4)}·|i − j|"
        text = f"S = {inner}"
        if state.temperature != 1.0:
            text += f"   (T = {fmt_g(state.temperature, 6)})"
        return text
    if matrix == "weights":
        if terms.sink is not None:
            return f"A = e^S / (Σ e^S + e^{fmt_g(terms.sink, 4)})   (sink)"
        return "A = softmax(S)"
    return "O = A·V"


def rope_note(d_k: int) -> str:
    """What RoPE does to this head's Q and K (an odd d_k keeps its last dimension as it is)."""
    pairs = d_k // 2
    if pairs == 0:
        return QCoreApplication.translate(
            _C, "RoPE: d_k = 1 has no pair of dimensions to turn, so nothing moves"
        )
    text = QCoreApplication.translate(
        _C, "RoPE: Q and K turned by token position, %1 pairs of dimensions"
    ).replace("%1", str(pairs))
    if d_k % 2:
        text += QCoreApplication.translate(
            _C, " (d_k = %1 is odd: its last dimension has no partner and stays)"
        ).replace("%1", str(d_k))
    return text


def show_picture(view: HeatmapView, state: AttentionState, pic) -> None:
    """Draw ``pic`` (a :class:`~attnviz.model.resolve._display.Picture`: the matrix, its
    pooled grid, or a quick preview) in ``view``, with the state's levels."""
    allowed = pic.allowed if state.matrix != "output" else None
    view.set_matrix(
        pic.values,
        picture_levels(state, pic),
        allowed=allowed,
        entropy=pic.entropy,
        max_entropy=math.log(max(state.n, 1)),
        extent=pic.extent,
    )


def set_axis_titles(view: HeatmapView, state: AttentionState) -> None:
    """The words beside the axes of the matrix the state shows, in the view's style."""
    if state.matrix == "output":
        cols = QCoreApplication.translate("HeatmapPanel", "value dimension")
    else:
        cols = QCoreApplication.translate("HeatmapPanel", "key")
    view.set_axis_titles(
        QCoreApplication.translate("HeatmapPanel", "query"),
        cols,
        QCoreApplication.translate("HeatmapPanel", "entropy (nats)"),
    )


def configure_view(view: HeatmapView, state: AttentionState, results: Results) -> None:
    """Fill ``view`` with everything the state shows (used for exports and first paint)."""
    matrix = state.matrix
    width = results.picture(matrix).extent[1]
    view.set_colormap(colormap_for(state.colormap))
    view.set_labels(state.tokens, shown_column_labels(state, matrix, width))
    set_axis_titles(view, state)
    show_picture(view, state, results.picture(matrix))


class HeatmapPanel(StatePanel):
    """The matrix chosen in the state, with hover values and click-to-select a query."""

    PANEL_ID = "heatmap"
    TITLE = TITLES["heatmap"][1]
    #: The hover text (formatted), for the status bar; empty when the mouse leaves.
    sigHoverText = Signal(str)

    def __init__(self, state: AttentionState, resolver: Resolver, parent=None) -> None:
        super().__init__(state, resolver, parent)
        layout = QVBoxLayout()
        layout.setContentsMargins(2, 2, 2, 2)
        self.caption = QLabel()
        self.caption.setObjectName("caption")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        self.view = HeatmapView(self)
        self.view.setObjectName("heatmap_view")
        self.view.cache_frame()
        self.view.sigHover.connect(self._on_q_hover)
        self.view.sigClicked.connect(self._on_q_clicked)
        layout.addWidget(self.view, 1)
        self._theme: Theme | None = None
        self._finish(layout)
        bind(self, resolver.resolved, self._on_resolved)

    # --- model → view ------------------------------------------------------------------
    def _refresh(self, names) -> None:
        # A preset (or the first fill) changes tokens, matrix, colours and levels at once:
        # the view fits its labels and numbers once, after all of them.
        with self.view.held_fit():
            super()._refresh(names)

    def _on_resolved(self, _results, names: frozenset) -> None:
        if "attention" in names or "mask" in names:
            self._on_attention_changed()
        elif "preview" in names and self.resolver.preview is not None:
            # A long sentence: every few rows exact, at once; the whole matrix follows.
            show_picture(self.view, self.state, self.resolver.preview)

    def _on_attention_changed(self) -> None:
        show_picture(self.view, self.state, self.resolver.results.picture(self.state.matrix))

    def _on_matrix_changed(self) -> None:
        configure_view(self.view, self.state, self.resolver.results)
        self._on_scale_changed()

    def _on_tokens_changed(self) -> None:
        d_v = self.state.v.shape[1]
        cols = shown_column_labels(self.state, self.state.matrix, d_v)
        self.view.set_labels(self.state.tokens, cols)

    _on_value_labels_changed = _on_tokens_changed

    def _on_colormap_changed(self) -> None:
        self.view.set_colormap(colormap_for(self.state.colormap))
        self._on_levels_changed()

    def _on_levels_changed(self) -> None:
        # From the picture drawn, as a slider step does: never a pass over (or, for O, the
        # computing of) the whole matrix on the GUI thread at thousands of tokens.
        pic = self.resolver.results.picture(self.state.matrix)
        self.view.set_levels(picture_levels(self.state, pic))

    _on_levels_auto_changed = _on_stretch_weights_changed = _on_levels_changed

    def _on_selected_query_changed(self) -> None:
        self.view.set_selection(self.state.selected_query, self.state.selected_cell)

    _on_selected_cell_changed = _on_selected_query_changed

    def _on_scale_changed(self) -> None:
        matrix = self.state.matrix
        sunk = matrix == "weights" and self.state.sink
        note = QCoreApplication.translate(_C, _NOTES["sink" if sunk else matrix])
        text = f"<b>{formula(self.state, matrix)}</b> — {note}"
        if self.state.rope and matrix != "output":
            text += "<br>" + rope_note(self.state.d_k)
        if text != self.caption.text():
            self.caption.setText(text)

    _on_temperature_changed = _on_rope_changed = _on_d_k_changed = _on_scale_changed
    _on_softcap_changed = _on_alibi_changed = _on_scale_changed
    _on_sink_changed = _on_sink_logit_changed = _on_scale_changed

    # --- style -------------------------------------------------------------------------
    def apply_theme(self, theme: Theme) -> None:
        """Restyle the view for ``theme`` (colours and the panel's current font)."""
        self._theme = theme
        # The panel's own font, not the application's: presentation mode sizes it for the
        # back row of a hall without touching the main window.
        font = QFont(self.font())
        # A little larger than the interface font: these labels are read from a distance.
        font.setPixelSize(max(11, round(QFontInfo(font).pixelSize() * 1.15)))
        with self.view.held_fit():
            self.view.set_style(theme, font)
            # The matrix, labels and levels are the state's already (the panel follows
            # it): only the axis titles carry the theme's colour and the font's size.
            set_axis_titles(self.view, self.state)

    def _on_font_changed(self) -> None:
        if getattr(self, "_theme", None) is not None:
            self.apply_theme(self._theme)

    def highlight(self, kind: str | None, index=()) -> None:
        """Spotlight a ``"cell"`` (row, column), a ``"row"`` or a ``"column"`` of the
        matrix (a lesson step, the presenter's pointer); None clears it."""
        self.view.set_spotlight(kind, index)

    def focus_data(self, quoted: frozenset) -> None:
        """On a slide, the entropy strip only in a lesson that quotes an entropy (the
        lesson on the whole matrix reads it); elsewhere its room goes to the cells, so a
        5 × 5 map beside the steps keeps its numbers."""
        self.view.set_entropy_shown(any("entropy" in name for name in quoted))

    def highlight_step(self, step) -> None:
        """A lesson step's highlight (see :meth:`highlight`); None or no highlight clears."""
        h = None if step is None else step.highlight
        self.highlight(None if h is None else h.kind, () if h is None else h.index)

    # --- view → model ------------------------------------------------------------------
    def hover_text(self, row: int, col: int) -> str:
        """What the status bar and tooltip say about cell (``row``, ``col``), or about the
        row's entropy when ``col`` is :data:`ENTROPY_COL` (the strip beside the matrix)."""
        if row < 0 or row >= self.state.n:
            return ""  # a matrix still being recomputed for fewer or more tokens
        if col == ENTROPY_COL:
            return self.entropy_text(row)
        matrix = self.state.matrix
        symbol, query = SYMBOLS[matrix], self.state.tokens[row]
        value = self._exact_value(matrix, row, col)
        if matrix == "output":
            d_v = self.state.v.shape[1]
            dims = shown_column_labels(self.state, matrix, d_v)
            if not 0 <= col < len(dims):
                return ""
            text = self.tr("%1  query “%2”, dimension “%3” = %4")
            return fill(text, symbol, query, dims[col], fmt_g(value, 6))
        if not 0 <= col < self.state.n:
            return ""
        key = self.state.tokens[col]
        if math.isnan(value):
            text = self.tr("%1  query “%2” → key “%3”: masked (this query may not see this key)")
            return fill(text, symbol, query, key)
        text = self.tr("%1  query “%2” → key “%3” = %4")
        return fill(text, symbol, query, key, fmt_g(value, 6))

    def _exact_value(self, matrix: str, row: int, col: int) -> float:
        """The cell's exact value (a long sentence's grid shows block means), NaN if masked."""
        res = self.resolver.results
        if self.resolver.pending or res.rows != self.state.n:
            return self.view.value_at(row, col)  # the exact matrix is still on its way
        if not 0 <= row < res.rows:
            return math.nan
        values = res.row(matrix, row)  # one row: a long sentence keeps no n × n matrix
        if not 0 <= col < values.shape[0]:
            return math.nan
        if matrix != "output" and res.mask is not None and not res.mask[row, col]:
            return math.nan
        return float(values[col])

    def tooltip_text(self, row: int, col: int) -> str:
        """The tooltip of a cell: its hover text, then its row's entropy on a second line."""
        text = self.hover_text(row, col)
        if not text or col == ENTROPY_COL:
            return text
        entropy = self.entropy_text(row)
        return f"{text}\n{entropy}" if entropy else text

    def entropy_text(self, row: int) -> str:
        """The entropy of query ``row`` against its bounds 0 (one key) and ln n (uniform)."""
        res = self.resolver.results
        if not self.resolver.pending and res.attention.entropy.shape[0] == self.state.n:
            e = float(res.attention.entropy[row])
        else:
            e = self.view.entropy_at(row)
        if math.isnan(e):
            return ""
        n = self.state.n
        text = self.tr(
            "entropy of the row of “%1” = %2 nats   (0: one key takes all; "
            "ln %3 = %4: spread evenly)"
        )
        return fill(text, self.state.tokens[row], fmt(e, 3), n, fmt(self.view.max_entropy, 3))

    def _on_q_hover(self, row: int, col: int, _value: float) -> None:
        text = self.hover_text(row, col)
        if col == ENTROPY_COL:
            self.view.entropy_plot.setToolTip(text)
        else:
            # The status bar gets one line (value last); the tooltip adds the row's entropy.
            self.view.image.setToolTip(self.tooltip_text(row, col))
        self.sigHoverText.emit(text)

    def _on_q_clicked(self, row: int, col: int) -> None:
        square = self.state.matrix != "output" and col >= 0
        self._write(self.view, selected_query=row, selected_cell=(row, col) if square else None)
