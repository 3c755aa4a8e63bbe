"""The layers panel's other views of a real model: its heads by type, and attention rollout
(:class:`LayersViewsMixin`, mixed into :class:`~attnviz.ui.panels.layers.LayersPanel`).

``display.layers_view`` chooses what the figure shows: every head's weights (the grid), the
heads by type (:class:`~attnviz.ui.widgets.head_type_grid.HeadTypeGrid`, scored by
:func:`attnviz.model.layer_analysis.model_head_types` on a worker: the induction score
runs the model once more) or rollout with one token's flow
(:class:`~attnviz.ui.widgets.rollout_view.RolloutView`, the token
``attention.selected_query``). Strings are translated in the ``LayersViews`` context.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.fields import StateError
from attnviz.model.head_type_table import DEFINITIONS, HEAD_TYPE_CHOICES, LAYERS_VIEWS, TYPES
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.layer_analysis import SEED, model_head_types, model_rollout, rollout_through
from attnviz.model.real_mixing import head_kind, softmax_heads
from attnviz.model.real_model import layer_kinds
from attnviz.model.resolve.work import LatestWork
from attnviz.ui.widgets.binding import bind, blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, flow_of, keep_together
from attnviz.ui.widgets.head_type_grid import HeadTypeGrid, type_label
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.rollout_view import RolloutView
from attnviz.ui.workers import run_in_pool

#: What each view is called in its box, and what its tooltip says.
VIEW_TEXTS = {
    "weights": (
        QT_TRANSLATE_NOOP("LayersViews", "Every head's weights"),
        QT_TRANSLATE_NOOP("LayersViews", "Each head as a small map of its attention weights"),
    ),
    "head_types": (
        QT_TRANSLATE_NOOP("LayersViews", "Heads by type"),
        QT_TRANSLATE_NOOP(
            "LayersViews",
            "Each head coloured by what it does: previous token, induction, sink, local, "
            "self, next token, [CLS], [SEP]",
        ),
    ),
    "rollout": (
        QT_TRANSLATE_NOOP("LayersViews", "Rollout"),
        QT_TRANSLATE_NOOP(
            "LayersViews",
            "Attention rollout (Abnar & Zuidema 2020): R = Â_L ··· Â_1 with "
            "Â = rownorm(0.5 · mean over heads of A + 0.5 · I), and one token's flow",
        ),
    ),
}


class LayersViewsMixin:
    """The view box, the type and token boxes, the stack of views, and what fills them."""

    def _build_views_row(self) -> FlowLayout:
        self._types_key = None  # (path, text) whose head types are shown or on their way
        runner = run_in_pool if self.workspace.runner is not None else None  # else in place
        self._rollout_work = LatestWork(self._on_rollout, runner, replace="cancel", cache_size=4)
        self.view = QComboBox()
        self.view.setObjectName("layers_view")
        for i, name in enumerate(LAYERS_VIEWS):
            text, tip = VIEW_TEXTS[name]
            self.view.addItem(QCoreApplication.translate("LayersViews", text), name)
            self.view.setItemData(
                i, QCoreApplication.translate("LayersViews", tip), Qt.ItemDataRole.ToolTipRole
            )
        self.view.setToolTip(
            QCoreApplication.translate("LayersViews", "What the figure shows of the model")
        )
        self.view.activated.connect(
            lambda _i: self._write_display(self.view, layers_view=self.view.currentData())
        )
        label = QLabel(QCoreApplication.translate("LayersViews", "&View"))
        label.setBuddy(self.view)
        self.type_pick = QComboBox()
        self.type_pick.setObjectName("head_type")
        self.type_pick.addItem(
            QCoreApplication.translate("LayersViews", "strongest type"), "strongest"
        )
        self.type_pick.setItemData(
            0,
            QCoreApplication.translate(
                "LayersViews",
                "Each head in the colour of its highest score, as strong as that score",
            ),
            Qt.ItemDataRole.ToolTipRole,
        )
        for i, name in enumerate(TYPES, start=1):
            self.type_pick.addItem(type_label(name), name)
            tip = QCoreApplication.translate("HeadTypes", DEFINITIONS[name])
            self.type_pick.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.type_pick.setToolTip(
            QCoreApplication.translate(
                "LayersViews", "Colour the heads by their strongest type or by one score"
            )
        )
        self.type_pick.activated.connect(
            lambda _i: self._write_display(self.type_pick, head_type=self.type_pick.currentData())
        )
        self.flow_token = QComboBox()
        self.flow_token.setObjectName("flow_token")
        self.flow_token.setToolTip(
            QCoreApplication.translate(
                "LayersViews", "The token whose flow across the layers is drawn"
            )
        )
        self.flow_token.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.flow_token.setMinimumContentsLength(8)
        self.flow_token.activated.connect(self._on_q_flow_token)
        bind(self, self.workspace.document["display"].changed, self._on_views_changed)
        return flow_of(keep_together(label, self.view), self.type_pick, self.flow_token)

    def _build_views_stack(self, grid) -> QWidget:
        self.types_grid = HeadTypeGrid()
        self.types_grid.setObjectName("head_type_grid")
        self.types_grid.sigPicked.connect(self._on_q_picked)
        self.types_grid.sigHovered.connect(self.types_grid.setToolTip)
        self.rollout_view = RolloutView()
        self.rollout_view.setObjectName("rollout_view")
        self.rollout_view.sigPickedToken.connect(self._on_q_flow_row)
        self.rollout_view.sigHovered.connect(self.rollout_view.setToolTip)
        self.views = QStackedWidget()
        for widget in (grid, self.types_grid, self.rollout_view):
            self.views.addWidget(widget)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.views, 1)
        self.views_note = QLabel()
        self.views_note.setObjectName("views_note")
        self.views_note.setWordWrap(True)
        layout.addWidget(self.views_note)
        return box

    # --- model → view ------------------------------------------------------------------
    def _display(self):
        return self.workspace.document["display"]

    def _on_views_changed(self, _names=None) -> None:
        d = self._display()
        with blocked(self.view):
            self.view.setCurrentIndex(LAYERS_VIEWS.index(d.layers_view))
        with blocked(self.type_pick):
            self.type_pick.setCurrentIndex(HEAD_TYPE_CHOICES.index(d.head_type))
        self.type_pick.setVisible(d.layers_view == "head_types")
        self.flow_token.setVisible(d.layers_view == "rollout")
        shown = LAYERS_VIEWS.index(d.layers_view)
        self.views.setCurrentIndex(shown)
        # A stack asks for its tallest page's room: the hidden pages give up theirs, or
        # the rollout's sixteen lines pushed a slide's type grid past the stage.
        for i in range(self.views.count()):
            policy = QSizePolicy.Policy.Preferred if i == shown else QSizePolicy.Policy.Ignored
            self.views.widget(i).setSizePolicy(policy, policy)
        self.views.updateGeometry()
        self.types_grid.set_chosen(d.head_type)
        self._refresh_views()

    def _on_selected_query_changed(self) -> None:
        self._refresh_views()

    def _model_capture(self):
        """The capture shown (None: no model, or a what-if away from it)."""
        return self._capture if self.state.head == "model" else None

    def _refresh_views(self) -> None:
        """Fill the view shown from the capture (the weights' grid fills itself)."""
        view = self._display().layers_view
        self.views_note.setVisible(view != "weights")
        cap = self._model_capture()
        if view == "weights":
            return
        if cap is None:
            text = QCoreApplication.translate(
                "LayersViews",
                "Open a model (File → Open Model…) to see its heads by type and rollout.",
            )
            self.types_grid.set_message(text)
            self.rollout_view.set_message(text)
            self.views_note.clear()
            return
        if view == "rollout":
            self._show_rollout(cap)
        else:
            self._show_types(cap)

    def _show_rollout(self, cap) -> None:
        tokens = tuple(self.state.tokens)
        with blocked(self.flow_token):
            self.flow_token.clear()
            for i, t in enumerate(tokens):
                self.flow_token.addItem(f"{i}: {t}", i)
            self.flow_token.setCurrentIndex(min(self.state.selected_query, len(tokens) - 1))
        through = rollout_through(cap)
        s = self.state
        key = (s.model_path, s.model_text, id(cap))
        if through and self._rollout_work.cached(key) is None:  # a pass and M per head
            self.rollout_view.set_message(
                QCoreApplication.translate(
                    "LayersViews",
                    "Rolling out through the hybrid's other layers: proving their mixing "
                    "matrices against the model's kernel…",
                )
            )
            self.views_note.clear()
        path, text = s.model_path, s.model_text

        def job(progress, cancel):
            return model_rollout(cap, path, text, progress, cancel.is_set)

        self._rollout_work.request(key, job, now=not through)

    def _on_rollout(self, key, result) -> None:
        cap = self._model_capture()
        if cap is None or key[2] != id(cap) or self._display().layers_view != "rollout":
            return  # another sentence or view since
        if isinstance(result, Exception):  # a long sentence, a matrix not proven: one line
            line = str(result).splitlines()[0]
            self.rollout_view.set_message(line)
            self.views_note.setText(line)
            return
        self.rollout_view.set_flow(result, tuple(self.state.tokens), self.state.selected_query)
        note = QCoreApplication.translate(
            "LayersViews",
            "Rollout counts the residual stream as half of each layer; it is a model of "
            "how tokens mix, not a proof of what the output depends on.",
        )
        through = rollout_through(cap)
        if through:
            layers = ", ".join(f"{layer} ({kind})" for layer, kind in through)
            note += " " + fill(
                QCoreApplication.translate(
                    "LayersViews",
                    "The heads of layers %1 that are not softmax attention enter the mean "
                    "over heads as |M|, their proven mixing matrix, each row scaled to sum to 1.",
                ),
                layers,
            )
        self.views_note.setText(note)

    def _show_types(self, cap) -> None:
        s = self.state
        key = (s.model_path, s.model_text)
        if key == self._types_key:
            return  # shown, or on its way
        self._types_key = key
        self.types_grid.set_message(
            QCoreApplication.translate("LayersViews", "Scoring every head…")
        )
        kinds = layer_kinds(cap)

        def done(result) -> None:
            if key != self._types_key:
                return  # another sentence since
            if isinstance(result, Exception):  # a model that cannot run the sequence
                self._types_key = None
                self.types_grid.set_message(str(result).splitlines()[0])
                return
            mixing = {
                layer: (softmax_heads(cap, layer), head_kind(cap, layer, softmax_heads(cap, layer)))
                for layer in result.mixing_layers
            }
            self.types_grid.set_scores(result.scores, kinds, mixing)
            self.types_grid.set_selected(s.layer, s.model_head)
            half = len(result.induction_text.split()) // 2
            note = fill(
                QCoreApplication.translate(
                    "LayersViews",
                    "Induction: scored on %1 random tokens of the model's vocabulary "
                    "(seed %2) written twice; the other types on the sentence shown. "
                    "Hover a head for every score.",
                ),
                half,
                SEED,
            )
            if mixing:  # a hybrid's other heads have no attention weights
                note += " " + fill(
                    QCoreApplication.translate(
                        "LayersViews",
                        "The heads of layers %1 that are not softmax attention are scored "
                        "on |M|, their proven mixing matrix, each row scaled to sum to 1.",
                    ),
                    ", ".join(str(layer) for layer in mixing),
                )
            self.views_note.setText(note)

        if self.workspace.runner is not None:
            run_in_pool(lambda: model_head_types(*key), done)
            return
        try:  # an export or a notebook: in place, so that its picture holds the scores
            result = model_head_types(*key)
        except Exception as exc:  # as the pool would hand it over: said in one line
            result = exc
        done(result)

    def _views_theme(self, theme, lut) -> None:
        for widget in (self.types_grid, self.rollout_view):
            widget.set_theme(theme)
            widget.set_lut(lut)

    # --- view → model ------------------------------------------------------------------
    def _write_display(self, widget, **values) -> None:
        self.show_error(None)
        try:
            self._display().update(**values)
        except StateError as exc:
            self.show_error(str(exc), widget)
            self._on_views_changed()

    def _on_q_flow_token(self, _index: int) -> None:
        token = self.flow_token.currentData()
        if token is not None:
            self._write(self.flow_token, selected_query=int(token))

    def _on_q_flow_row(self, row: int) -> None:
        if row != self.state.selected_query:
            self._write(self.rollout_view, selected_query=int(row))
