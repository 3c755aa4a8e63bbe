"""The heatmap panel: S, A or O of the whole sequence, read by rows, live.

Which matrix, which colormap and which levels come from the state (the controls panel
writes them); this panel only draws. A recompute (``attention`` or ``mask`` from the
resolver) sets new image data; a restyle key (colormap, levels) only restyles; token
labels are rebuilt only when the tokens change. What a heatmap of a state looks like is
:mod:`attnviz.ui.heatmap_look`, shared with the slide figure, so a slide shows what the
screen does.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QLabel, QVBoxLayout

from attnviz.model.resolve.result_names import ATTENTION, MASK, PREVIEW
from attnviz.ui import compare_view as _compare
from attnviz.ui.heatmap_look import (
    _C,
    NOTES,
    SYMBOLS,
    colormap_for,
    configure_view,
    formula,
    model_heading_html,
    picture_levels,
    rope_note,
    set_axis_titles,
    show_picture,
    shown_column_labels,
)
from attnviz.ui.panel_base import Panel
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.heatmap_view import ENTROPY_COL, HeatmapView
from attnviz.ui.widgets.numbers import fmt, fmt_g
from attnviz.ui.widgets.placeholders import fill


def _compares(workspace) -> bool:
    """True when the heatmap draws before / after (a real model's weights) instead."""
    shown = workspace.document["attention"].matrix == "weights"
    return shown and _compare.compare_mode(workspace) != "clean"


class HeatmapPanel(Panel):
    """The matrix chosen in the state, with hover values and click-to-select a query."""

    PANEL_ID = "heatmap"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self._drawn_picture = None  # the Picture object the view shows now
        self._compare = None  # the before / after map drawn instead (display.compare)
        self._entropy_wanted = True  # the strip as focus_data asks (hidden in before / after)
        layout = QVBoxLayout()
        layout.setContentsMargins(2, 2, 2, 2)
        self.caption = QLabel()
        self.caption.setObjectName("caption")
        self.caption.setWordWrap(True)
        layout.addWidget(self.caption)
        # Before / after: what the colours mean, or why it cannot be shown (one line).
        self.compare_note = QLabel()
        self.compare_note.setObjectName("compare_note")
        self.compare_note.setWordWrap(True)
        self.compare_note.hide()
        layout.addWidget(self.compare_note)
        self.view = HeatmapView(self)
        self.view.setObjectName("heatmap_view")
        self.view.cache_frame()
        self.view.sigHover.connect(self._on_q_hover)
        self.view.sigClicked.connect(self._on_q_clicked)
        layout.addWidget(self.view, 1)
        self._finish(layout)
        _compare.watch(self, self._on_compare_changed)

    @classmethod
    def render_picture(cls, workspace, spec):
        """The heatmap's slide figure (:mod:`attnviz.ui.export`), not the panel's widgets;
        None in before / after, whose picture is the panel's own (its legend with it)."""
        if _compares(workspace):
            return None
        from attnviz.ui.export import render_image

        return render_image(workspace.state, workspace.resolver.results, spec)

    @classmethod
    def write_picture(cls, workspace, path, spec):
        """Write the slide figure (PNG or SVG) to ``path`` (None in before / after)."""
        if _compares(workspace):
            return None
        from attnviz.ui.export import export

        return export(workspace.state, workspace.resolver.results, path, spec)

    # --- model → view ------------------------------------------------------------------
    def _refresh(self, names) -> None:
        # A preset (or the first fill) changes tokens, matrix, colours and levels at once:
        # the view fits its labels and numbers once, after all of them.
        with self.view.held_fit():
            super()._refresh(names)
            if self._compare is not None or _compare.compare_mode(self.workspace) != "clean":
                self._apply_compare()  # a new head, layer, matrix or colour map

    def _on_results(self, results, names: frozenset) -> None:
        if ATTENTION in names or MASK in names:
            self._on_attention_changed()
        elif PREVIEW in names and self.resolver.preview is not None:
            # A long sentence: every few rows exact, at once; the whole matrix follows.
            self._show(self.resolver.preview)
        if self._compare is not None or _compare.compare_mode(self.workspace) != "clean":
            self._apply_compare()

    # --- before / after (display.compare) ----------------------------------------------
    def _on_compare_changed(self, _names=None) -> None:
        self._apply_compare()

    def _apply_compare(self) -> None:
        """Draw the intervened run or its difference where ``display.compare`` asks (the
        weights of a real model's head), else the clean matrix as always."""
        shown, note = None, ""
        try:
            if self.state.matrix == "weights":
                shown = _compare.shown_head(self.workspace, self._on_compare_changed)
            elif _compare.compare_mode(self.workspace) != "clean":
                note = self.tr("Before / after shows the weights A: choose A to see it.")
        except ValueError as exc:  # no intervention, a refused proof: one line
            note = str(exc)
        if shown is None:
            if self._compare is not None:  # back to the clean heatmap
                self._compare = None
                self.view.set_entropy_shown(self._entropy_wanted)
                self.view.set_colormap(colormap_for(self.state.colormap))
                self._show(self.resolver.results.picture(self.state.matrix))
        else:
            self._compare = shown
            self.view.set_entropy_shown(False)  # the entropies are the clean rows'
            diverging = shown.mode == "difference"
            cmap = _compare.DIVERGING if diverging else self.state.colormap
            self.view.set_colormap(colormap_for(cmap))
            pic = self.resolver.results.picture("weights")
            allowed = pic.allowed if pic.values.shape == shown.values.shape else None
            if shown.kept is not None:  # a knocked-out link is hatched as a masked one
                allowed = shown.kept if allowed is None else allowed & shown.kept
            n = shown.values.shape[0]
            self.view.set_matrix(
                shown.values, shown.levels, allowed=allowed, max_entropy=math.log(max(n, 1))
            )
            self._drawn_picture = None  # the clean picture is drawn again when it comes
            note = shown.legend()
        self.compare_note.setText(note)
        self.compare_note.setVisible(bool(note))

    def _on_attention_changed(self) -> None:
        self._on_scale_changed()  # a model's sentence may have come in: its layer's kind
        pic = self.resolver.results.picture(self.state.matrix)
        if pic is not self._drawn_picture:  # the first results: drawn with the fields
            self._show(pic)

    def _show(self, pic) -> None:
        self._fit_strip(pic)
        show_picture(self.view, self.state, pic)
        self._drawn_picture = pic

    def _fit_strip(self, pic) -> None:
        """The entropy strip where the picture has row entropies (a hybrid's Gated
        DeltaNet or Mamba-2 M has no softmax rows: its room goes to the matrix)."""
        want = self._entropy_wanted and self._compare is None and pic.entropy is not None
        if getattr(self.view, "entropy_shown", True) != want:
            self.view.set_entropy_shown(want)

    def _on_matrix_changed(self) -> None:
        configure_view(self.view, self.state, self.resolver.results)
        self._drawn_picture = self.resolver.results.picture(self.state.matrix)
        self._fit_strip(self._drawn_picture)
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
        if self._compare is not None:
            return  # the before / after map keeps its own levels (redrawn after the fields)
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
        note = QCoreApplication.translate(_C, NOTES["sink" if sunk else matrix])
        text = f"<b>{formula(self.state, matrix)}</b> — {note}"
        if self.state.rope and matrix != "output":
            text += "<br>" + rope_note(self.state.d_k)
        text = model_heading_html(self.state) + text  # a real model's: which head this is
        if text != self.caption.text():
            self.caption.setText(text)

    _on_head_changed = _on_layer_changed = _on_model_head_changed = _on_scale_changed
    _on_model_path_changed = _on_model_text_changed = _on_scale_changed
    _on_temperature_changed = _on_rope_changed = _on_d_k_changed = _on_scale_changed
    _on_softcap_changed = _on_alibi_changed = _on_scale_changed
    _on_sink_changed = _on_sink_logit_changed = _on_scale_changed
    _on_tuning_changed = _on_tuning_floor_changed = _on_scale_changed

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme: Theme) -> None:
        """Restyle the view for ``theme`` (colours and the panel's current font)."""
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

    def highlight(self, kind: str | None, index=()) -> None:
        """Spotlight a ``"cell"`` (row, column), a ``"row"`` or a ``"column"`` of the
        matrix (a lesson step, the presenter's pointer); None clears it."""
        self.view.set_spotlight(kind, index)

    def focus_data(self, quoted: frozenset) -> None:
        """On a slide, the entropy strip only in a lesson that quotes an entropy (the
        lesson on the whole matrix reads it); elsewhere its room goes to the cells, so a
        5 × 5 map beside the steps keeps its numbers."""
        self._entropy_wanted = any("entropy" in name for name in quoted)
        self.view.set_entropy_shown(self._entropy_wanted and self._compare is None)

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
        if self._compare is not None and matrix == "weights":
            symbol = self._compare.symbol
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
        shown = self._compare
        if shown is not None and matrix == "weights":
            n = shown.values.shape[0]
            if not (0 <= row < n and 0 <= col < n):
                return math.nan
            mask = res.mask
            if mask is not None and mask.shape == shown.values.shape and not mask[row, col]:
                return math.nan
            if shown.kept is not None and not shown.kept[row, col]:
                return math.nan
            return float(shown.values[row, col])
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
        self.sigPointed.emit(row, col)

    def _on_q_clicked(self, row: int, col: int) -> None:
        square = self.state.matrix != "output" and col >= 0
        self._write(self.view, selected_query=row, selected_cell=(row, col) if square else None)
