"""The prediction panel's heads through W^O: each head's direct effect on the target's logit.

Layers × heads of what each head writes to the residual stream at the predicted position,
through its columns of W^O, the final norm with its scale frozen at the clean run and the
target's unembedding row minus the vocabulary's mean (before a final softcap):
:func:`attnviz.core.hf_head_logits.head_logits`. Diverging colours centred on 0 (red:
the head raises the logit, blue: lowers it; hatched: a layer that is not softmax
attention); titled as what it is, an attribution and not a proof (switching the head off,
the ablation map above, is the measurement). One forward pass, in the resolver's
background; the picture is the ``head_logits`` array of an export.

:class:`HeadLogitsBox` is a part of :class:`~attnviz.ui.panels.prediction.PredictionPanel`:
the panel hands it its results (:meth:`HeadLogitsBox.follow`), its failures and its theme.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from attnviz.ui.panel_base import figure_box
from attnviz.ui.panels._prediction_map import EXCEPTION_NAME
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.numbers import exact, fmt
from attnviz.ui.widgets.placeholders import fill


class HeadLogitsView(MatrixView):
    """Each head's direct effect on the target's logit, (layers, heads); NaN hatched."""

    WRAP_TITLE = True  # it names the target token and says what kind of number it is

    def __init__(self, parent=None) -> None:
        super().__init__("DLA", parent)
        self.setObjectName("head_logits_map")
        self.target = ""
        self.total = 0.0  # the logit the terms add up to

    def set_terms(self, values: np.ndarray, target: str, total: float) -> None:
        """Show ``values`` (layers × heads, NaN: not softmax attention) for ``target``."""
        values = np.asarray(values, dtype=np.float64)
        self.target, self.total = target, float(total)
        layers, heads = values.shape
        self.set_matrix(
            values,
            allowed=np.isfinite(values),
            rows=[fill(self.tr("L%1"), i) for i in range(layers)],
            columns=[fill(self.tr("H%1"), h) for h in range(heads)],
        )

    def clear_terms(self) -> None:
        """Show nothing (no attribution for the current inputs)."""
        self.target = ""
        self.set_title("")
        self.set_matrix(np.zeros((0, 0)))

    def hover_text(self, row: int, col: int) -> str:
        values = self.values()
        if values.size == 0 or not (0 <= row < values.shape[0] and 0 <= col < values.shape[1]):
            return ""
        value = float(values[row, col])
        if not math.isfinite(value):
            return fill(self.tr("layer %1, head %2: not softmax attention, no head"), row, col)
        return fill(
            self.tr(
                "layer %1, head %2: direct effect %3 on logit(“%4”) − mean, of %5 in all "
                "(an attribution, not a proof)"
            ),
            row,
            col,
            exact(value),
            self.target,
            fmt(self.total, 4),
        )


class HeadLogitsBox(QWidget):
    """The attribution's picture and its note, following the panel's results."""

    def __init__(self, panel) -> None:
        super().__init__()
        self.setObjectName("head_logits")
        self.panel = panel
        self.resolver = panel.resolver
        self.key = None  # the inputs of the terms drawn
        self.found = None  # the HeadLogits drawn
        self.view = HeadLogitsView()
        self.view.setMinimumHeight(160)
        self.view.sigHover.connect(self._on_q_hover)
        self.note = QLabel(" ")
        self.note.setObjectName("head_logits_note")
        self.note.setWordWrap(True)
        self.figure = figure_box(self.view, self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.figure)
        bind(panel, self.resolver.head_logits_ready, self._on_ready)
        bind(panel, self.resolver.head_logits_failed, self._on_failed)

    # --- results → view ----------------------------------------------------------------
    def follow(self) -> None:
        """The terms of the current inputs: kept, or asked for (in place when the panel is
        its own window, an offscreen export)."""
        key = self.resolver.map_key()
        if key == self.key:
            return
        self.key = None
        self.view.clear_terms()
        self.note.setText(self.tr("Computing each head's direct effect…"))
        kept = self.resolver.request_head_logits(now=self.panel._is_synchronous())
        if kept is not None:
            self._show(key, kept)

    def clear(self, note: str) -> None:
        """Show no terms, and ``note`` why."""
        self.key, self.found = None, None
        self.view.clear_terms()
        self.note.setText(note)

    def _on_ready(self, key, found) -> None:
        if key == self.resolver.map_key():
            self._show(key, found)

    def _on_failed(self, key, exc) -> None:
        if key == self.resolver.map_key():
            self.clear(EXCEPTION_NAME.sub("", f"{type(exc).__name__}: {exc}", count=1))

    def _show(self, key, found) -> None:
        self.key, self.found = key, found
        self.view.set_terms(found.values, found.target_token, found.logit)
        self.view.set_title(
            fill(
                self.tr("Direct effect on logit(★“%1”) − mean — an attribution, not a proof"),
                found.target_token,
            )
        )
        heads = float(np.nansum(found.values))
        rest = found.total() - heads - float(found.mlp.sum()) - found.embeddings
        note = fill(
            self.tr(
                "Each head's output through its columns of W^O, the final norm with its scale "
                "frozen at the clean run, and the row of ★“%1” in the unembedding minus the "
                "vocabulary's mean; red raises the logit, blue lowers it. Heads %2, MLPs %3, "
                "embeddings %4, the rest %5: %6 in all, the model's logit."
            ),
            found.target_token,
            fmt(heads, 3),
            fmt(float(found.mlp.sum()), 3),
            fmt(found.embeddings, 3),
            fmt(rest, 3),
            fmt(found.logit, 3),
        )
        if found.softcap:
            note += " " + fill(
                self.tr("Before the final softcap %1 · tanh(z / %1), which is not linear."),
                fmt(found.softcap, 1),
            )
        if not np.isfinite(found.values).all():
            note += " " + self.tr("Hatched: not softmax attention (its share is in the rest).")
        self.note.setText(note)

    def _on_q_hover(self, row: int, col: int) -> None:
        text = self.view.hover_text(row, col) if row >= 0 else ""
        self.panel.hover.setText(text or " ")
        self.panel.sigHoverText.emit(text)

    # --- look --------------------------------------------------------------------------
    def restyle(self, theme) -> None:
        """Colours of ``theme``."""
        style_figure(self.figure, theme)
        self.view.set_theme(theme)
