"""The layers panel: a real model's every layer and head as small maps, to find and pick one.

After File → Open Model… (or ``attnviz --model DIR``) the sentence has gone through the
model once; this panel shows the tokens as the model's tokenizer made them (special tokens
marked), every head of every layer as a small map of its own weights, and a link finder:
choose a query token and a key token ("bank" → "river") and each tile is filled with that
one weight, so the heads that carry the link stand out; "Show the strongest" picks the
head with the largest. Picking a tile makes it the head the heatmap, steps, gradient and
heads panels show. A new sentence runs through the model on a worker.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.real_mixing import is_softmax_head
from attnviz.model.real_model import (
    STORE,
    display_tokens,
    hybrid_summary,
    kv_head,
    layer_choices,
    layer_kinds,
    layer_maps,
    link_strength,
)
from attnviz.ui import compare_view as _compare
from attnviz.ui.heatmap_look import colormap_for
from attnviz.ui.model_loader import controller_for
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels._layers_mixing import LayersMixingMixin
from attnviz.ui.panels._layers_views import LayersViewsMixin
from attnviz.ui.presentation_form import OFF_STAGE
from attnviz.ui.theme import LIGHT, Theme, palette_for
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, flow_of, keep_together
from attnviz.ui.widgets.layer_grid import LayerGrid
from attnviz.ui.widgets.numbers import counted, fmt
from attnviz.ui.widgets.placeholders import fill


class LayersPanel(LayersMixingMixin, LayersViewsMixin, FigurePanel):
    """Every layer × head of a real model; a link finder; picks the head shown."""

    PANEL_ID = "layers"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self._theme: Theme = LIGHT
        self._capture = None
        self._detached = None  # the capture a what-if left, to go back to with a click
        self._compare_line = ""  # before / after: what the grid shows, or why it cannot
        self._init_mixing()
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self._build_model_row())
        layout.addLayout(self._build_link_row())
        layout.addLayout(self._build_views_row())  # weights, heads by type, rollout
        self.grid = LayerGrid()
        self.grid.setObjectName("layer_grid")
        self.grid.sigPicked.connect(self._on_q_picked)
        self.grid.sigHovered.connect(self.grid.setToolTip)
        self.figure = QWidget()
        figure = QVBoxLayout(self.figure)
        figure.setContentsMargins(6, 4, 6, 4)
        self.caption = QLabel()
        self.caption.setObjectName("layers_caption")
        self.caption.setWordWrap(True)
        figure.addWidget(self.caption)
        figure.addWidget(self._build_views_stack(self.grid), 1)
        layout.addWidget(self.figure, 1)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        # Scrolls only in a window smaller than 1280×720: its controls must not set the
        # window's minimum size.
        self._finish(layout, scroll=True)
        _compare.watch(self, self._on_compare_changed)
        self._on_views_changed()

    # --- building ----------------------------------------------------------------------
    def _build_model_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.open = QPushButton(self.tr("Open Model…"))
        self.open.setObjectName("open_model")
        self.open.setToolTip(self.tr("A local Hugging Face model folder (safetensors)"))
        self.open.clicked.connect(self._on_q_open)
        row.addWidget(self.open)
        label = QLabel(self.tr("&Sentence"))
        self.text = QLineEdit()
        self.text.setObjectName("model_text")
        self.text.setToolTip(
            self.tr("Runs through the model once; its tokenizer makes the tokens (Enter)")
        )
        self.text.returnPressed.connect(self._on_q_run)
        label.setBuddy(self.text)
        row.addWidget(label)
        row.addWidget(self.text, 1)
        self.run = QPushButton(self.tr("Run"))
        self.run.setObjectName("run_text")
        self.run.clicked.connect(self._on_q_run)
        row.addWidget(self.run)
        return row

    def _build_link_row(self) -> FlowLayout:
        label = QLabel(self.tr("&Link"))
        self.query = QComboBox()
        self.query.setObjectName("link_query")
        self.query.setToolTip(self.tr("The query token (the row)"))
        self.key = QComboBox()
        self.key.setObjectName("link_key")
        self.key.setToolTip(self.tr("The key token it looks at (the column)"))
        label.setBuddy(self.query)
        for combo in (self.query, self.key):
            # Narrow when the dock is: long tokens are cut in the box, whole in the list.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(8)
            combo.activated.connect(self._on_q_link)
        self.by_link = QCheckBox(self.tr("&Colour by the link"))
        self.by_link.setObjectName("by_link")
        self.by_link.setToolTip(self.tr("Fill each head with its weight from the query to the key"))
        self.by_link.toggled.connect(self._on_selected_cell_changed)
        self.strongest = QPushButton(self.tr("Show the &strongest"))
        self.strongest.setObjectName("show_strongest")
        self.strongest.clicked.connect(self._on_q_strongest)
        # A flow: in the left column beside the heatmap the link's parts go onto a second
        # line rather than widen the panel past it.
        arrow = QLabel("→")
        arrow.setProperty(OFF_STAGE, True)  # without its boxes, a lone arrow on a slide
        return flow_of(
            keep_together(label, self.query, arrow, self.key), self.by_link, self.strongest
        )

    # --- model → view ------------------------------------------------------------------
    def _on_head_changed(self) -> None:
        model = self.state.head == "model"
        for w in (self.query, self.key, self.by_link, self.strongest):
            w.setEnabled(model)
        self.run.setEnabled(bool(self.state.model_path))
        if not model:
            self._capture = None
            self._show_empty()

    def _on_model_text_changed(self) -> None:
        if self.text.text() != self.state.model_text:
            with blocked(self.text):
                self.text.setText(self.state.model_text)

    _on_model_path_changed = _on_head_changed

    def _on_tokens_changed(self) -> None:
        tokens = self.state.tokens
        for combo in (self.query, self.key):
            with blocked(combo):
                combo.clear()
                for i, t in enumerate(tokens):
                    combo.addItem(f"{i}: {t}", i)
        self._on_selected_cell_changed()

    def _on_selected_cell_changed(self) -> None:
        cell = self.state.selected_cell
        if cell is not None:
            for combo, index in ((self.query, cell[0]), (self.key, cell[1])):
                with blocked(combo):
                    combo.setCurrentIndex(index)
        model = self.state.head == "model" and self._capture is not None
        self.grid.set_link(cell if model else None, self.by_link.isChecked())
        self._write_summary()

    def _on_layer_changed(self) -> None:
        self.grid.set_selected(self.state.layer, self.state.model_head)
        self.types_grid.set_selected(self.state.layer, self.state.model_head)
        self._write_summary()

    _on_model_head_changed = _on_layer_changed

    def _on_colormap_changed(self) -> None:
        self._restyle_views()

    def _restyle_views(self) -> None:
        if self.grid.span is not None:  # a difference: signed, centred on 0
            self.grid.set_style(self._theme, _compare.diverging_lut())
            return
        name = self.state.colormap if self.state.colormap != "diverging" else "viridis"
        lut = colormap_for(name).getLookupTable(0.0, 1.0, 256, alpha=False)
        self.grid.set_style(self._theme, np.asarray(lut))
        self._views_theme(self._theme, np.asarray(lut))

    def _on_results(self, res, _names: frozenset) -> None:
        cap = res.capture
        if cap is None:
            self._capture = None
            self._show_empty()
            return
        self._show_capture(cap)

    def _show_capture(self, cap) -> None:
        """Draw every view of ``cap`` (its maps again only when it is a new capture)."""
        if cap is not self._capture:
            self._capture = cap
            self._show_maps(cap)
        self._on_layer_changed()
        self._on_selected_cell_changed()
        self._write_caption(cap)
        self._refresh_views()

    def _on_failed(self, message: str) -> None:
        # The heads of a hybrid's other layer (a Gated DeltaNet…) are not softmax heads, so
        # the heads topic refuses them; the grid needs only the capture, and draws on.
        s = self.state
        try:
            cap = s.capture() if s.head == "model" and s.model_path else None
        except ValueError:  # the model cannot run the sentence: the message says why
            cap = None
        if cap is None or cap.captured(s.layer) is not None:
            super()._on_failed(message)
            return
        self.show_error(None)
        self._show_capture(cap)

    # --- before / after (display.compare) ----------------------------------------------
    def _on_compare_changed(self, _names=None) -> None:
        if self._capture is not None:
            self._show_maps(self._capture)
            self._write_caption(self._capture)

    def _compare_maps(self):
        """``(maps, span, symbol, note)`` of ``display.compare`` (None maps: the clean
        capture's), with the caption's line saying what is shown or why it cannot be."""
        mode = _compare.compare_mode(self.workspace)
        self._compare_line = ""
        if mode == "clean":
            return None, None, "A", ""
        try:
            c = _compare.compared_now(self.workspace, self._on_compare_changed)
        except ValueError as exc:  # no intervention, a refused proof: one line
            self._compare_line = str(exc)
            return None, None, "A", ""
        maps = c.layer_maps(mode)
        before = _compare.layers_before(c.first, mode)
        if mode == "intervened":
            line = self.tr("After: every head with the prediction's interventions.")
            self._compare_line = f"{line} {before}" if before else line
            return maps, None, "A′", self.tr("A′ after the interventions")
        span = max(_compare.span(m) for m in maps if m is not None)
        line = self.tr("Before / after: intervened − clean, blue below 0, red above.")
        self._compare_line = f"{line} {before}" if before else line
        return maps, span, "ΔA", self.tr("ΔA = intervened − clean, 0 in the middle")

    def _show_maps(self, cap) -> None:
        maps, span, symbol, note = self._compare_maps()
        value = None
        if maps is None:
            maps, value = layer_maps(cap)
        self.grid.set_span(span, symbol, note)
        self._restyle_views()
        selected = (self.state.layer, self.state.model_head)
        self.grid.set_data(
            maps, self.state.tokens, selected, value, layer_kinds(cap), layer_choices(cap)
        )
        self._request_mixing(cap)

    def _show_empty(self) -> None:
        s = self.state
        if s.model_path and STORE.loaded(s.model_path) is not None:
            text = self.tr(
                "The head shown is not the model's (a what-if, or another head "
                "source). Click a head to show the model's again."
            )
            cap = STORE.cached(s.model_path, s.model_text)
            if cap is not None:
                self._capture = None
                self.grid.set_span(None)
                self._restyle_views()
                maps, value = layer_maps(cap)
                selected = (s.layer, s.model_head)
                self.grid.set_data(
                    maps, display_tokens(cap), selected, value, layer_kinds(cap), layer_choices(cap)
                )
                self._request_mixing(cap)
                self.grid.set_link(None, False)
                self._detached = cap
                self.caption.setText(text)
                self.summary.clear()
                return
        self._detached = None
        self._request_mixing(None)
        self._refresh_views()
        self.grid.set_message(
            self.tr(
                "Open a Hugging Face model folder (File → Open Model… "
                "or attnviz --model DIR) to see every head of every "
                "layer here."
            )
        )
        self.caption.clear()
        self.summary.clear()

    def _write_caption(self, cap) -> None:
        special = [t for t, s in zip(self.state.tokens, cap.special, strict=False) if s]
        layers = counted(self.tr("%n layer(s)", "", cap.layer_count), cap.layer_count)
        tokens = counted(self.tr("%n token(s)", "", len(cap.tokens)), len(cap.tokens))
        if cap.layers:
            text = self.tr("%1 · %2 · %3 × %4 (%5 KV) · d_head %6 · %7 as the model sees them")
            text = fill(
                text, cap.name, cap.kind, layers,
                counted(self.tr("%n head(s)", "", cap.n_heads), cap.n_heads), cap.n_kv_heads,
                cap.head_dim, tokens,
            )  # fmt: skip
        else:  # a state-space model: no softmax heads to count
            text = fill(
                self.tr("%1 · %2 · %3 · %4 as the model sees them"), cap.name, cap.kind, layers,
                tokens,
            )  # fmt: skip
        if special:
            text += self.tr("; special: %1").replace("%1", " ".join(special))
        mixed = hybrid_summary(cap)
        if mixed and not cap.layers:
            text += "\n" + fill(
                self.tr(
                    "A state-space model (%1): no softmax attention; every layer is drawn as "
                    "its mixing matrices M (out_t = Σ_s M[t, s] v_s), each proven against the "
                    "model's own kernel."
                ),
                mixed,
            )
        elif mixed:
            text += "\n" + fill(
                self.tr(
                    "A hybrid: %1; its other layers are drawn as their mixing matrices M "
                    "(out_t = Σ_s M[t, s] v_s), each proven against the model's own kernel."
                ),
                mixed,
            )
        if self._mixing_line:
            text += "\n" + self._mixing_line
        if cap.wrapper:
            text += "\n" + fill(
                self.tr("The language model of a %1 folder; its vision tower is not shown."),
                cap.wrapper,
            )
        if self._compare_line:
            text += "\n" + self._compare_line
        self.caption.setText(text)

    def _write_summary(self) -> None:
        cap, s = self._capture, self.state
        if cap is None or s.head != "model":
            return
        if is_softmax_head(cap, s.layer, s.model_head):
            text = fill(
                self.tr("Shown: layer %1, head %2 (KV head %3)."),
                s.layer,
                s.model_head,
                kv_head(cap, s.model_head, s.layer),
            )
        else:  # a Gated DeltaNet's head has no KV head: it keeps a state
            text = fill(self.tr("Shown: layer %1, head %2."), s.layer, s.model_head)
        if 0 <= s.layer < cap.layer_count:  # the layer's kind: softmax, NoPE, gated, …
            text += " " + fill(self.tr("Kind: %1."), cap.layer_kind(s.layer))
        cell = s.selected_cell
        if cell is not None:
            a = link_strength(cap, *cell)
            # A hybrid's other layers are NaN: last in the order, never the strongest.
            order = np.argsort(np.nan_to_num(a, nan=-1.0), axis=None)[::-1][:3]
            best = ", ".join(
                fill(self.tr("L%1·h%2 %3"), i, j, fmt(a[i, j], 2))
                for i, j in (np.unravel_index(o, a.shape) for o in order)
            )
            text += fill(
                self.tr(" “%1” → “%2”: A = %3 here; strongest %4."),
                s.tokens[cell[0]],
                s.tokens[cell[1]],
                fmt(a[s.layer, s.model_head], 2),
                best,
            )
        self.summary.setText(text)

    # --- view → model ------------------------------------------------------------------
    def _on_q_picked(self, layer: int, head: int) -> None:
        s = self.state
        if s.head == "model":
            if (layer, head) != (s.layer, s.model_head):
                self._write(self.grid, layer=layer, model_head=head)
        elif self._detached is not None:
            self._write(self.grid, head="model", layer=layer, model_head=head)

    def _on_q_link(self, _index: int) -> None:
        q, k = self.query.currentData(), self.key.currentData()
        if q is not None and k is not None:
            self._write(self.query, selected_cell=(q, k), selected_query=q)

    def _on_q_strongest(self) -> None:
        cap, cell = self._capture, self.state.selected_cell
        if cap is None or cell is None:
            self.show_error(self.tr("Choose a link first: a query token and a key token."))
            return
        a = link_strength(cap, *cell)
        layer, head = np.unravel_index(int(np.nanargmax(a)), a.shape)
        self._write(self.strongest, layer=int(layer), model_head=int(head))

    def _on_q_open(self) -> None:
        controller = controller_for(self)
        if controller is not None:
            controller.open_dialog()

    def _on_q_run(self) -> None:
        controller = controller_for(self)
        if controller is not None:
            controller.run_text(self.text.text())

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme: Theme) -> None:
        """Restyle the grid for ``theme`` and the panel's font."""
        # An exported figure is a window of its own: it needs the theme's colours, and
        # the panel's font by hand (a panel with a style sheet does not pass it on).
        self.figure.setPalette(palette_for(theme))
        self.figure.setAutoFillBackground(self.autoFillBackground())
        self._on_font_changed()
        self._restyle_views()

    def _on_font_changed(self) -> None:
        for widget in (
            self.grid,
            self.caption,
            self.types_grid,
            self.rollout_view,
            self.views_note,
        ):
            widget.setFont(self.font())
