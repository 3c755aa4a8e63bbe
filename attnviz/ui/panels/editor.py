"""The token and vector editor: the sentence, its tokens, and every token's q, k and v.

A sentence typed here is tokenized on whitespace and punctuation; tokens can be renamed,
added, removed and reordered, and Q/K/V rows travel with their tokens. Vectors are typed
into a table, or dragged as arrows when d_k = 2. A synthetic head (content, previous
token, distance decay) generates Q/K/V from the tokens, d_k and the seed instead. (d_k
itself is set in the controls panel, beside the √d_k divisor and the temperature.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.heads import token_embeddings
from attnviz.model.presets import load_preset, preset_ids, preset_state_values, tokenize
from attnviz.model.topics.attention import HEAD_SOURCES
from attnviz.ui.panel_base import Panel
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.flow_layout import FlowLayout
from attnviz.ui.widgets.token_list import TokenList
from attnviz.ui.widgets.vector_plot import VectorPlot
from attnviz.ui.widgets.vector_table import MAX_SHOWN, VectorTable

if TYPE_CHECKING:
    from attnviz.ui.widgets.projection_editor import ProjectionEditor

# QT_TRANSLATE_NOOP below spells the context out: pyside6-lupdate does not resolve _C.
_C = "EditorPanel"
_HEAD_TEXT = {
    "manual": QT_TRANSLATE_NOOP("EditorPanel", "manual (typed vectors)"),
    "content": QT_TRANSLATE_NOOP("EditorPanel", "content matching"),
    "previous": QT_TRANSLATE_NOOP("EditorPanel", "previous token"),
    "decay": QT_TRANSLATE_NOOP("EditorPanel", "distance decay"),
    "projections": QT_TRANSLATE_NOOP("EditorPanel", "projections X·W (heads panel)"),
    "model": QT_TRANSLATE_NOOP("EditorPanel", "a real model's head (layers panel)"),
}
#: Beyond this many tokens the arrows would be a hedge, and slow to drag; the table remains.
MAX_ARROWS = 64


def reorder_values(state, tokens: list[str], origins: list[int | None]) -> dict:
    """State fields for a token edit that keep each token's vectors, flags and selection.

    ``origins[i]`` is the previous index of new token ``i`` (None for a new token).
    """
    values: dict = {"tokens": tuple(tokens), "selected_cell": None}
    if state.head == "manual":
        for name in ("q", "k", "v"):
            old = getattr(state, name)
            rows = [old[o] if o is not None else np.zeros(old.shape[1]) for o in origins]
            values[name] = np.array(rows, dtype=float).reshape(len(tokens), old.shape[1])
    if state.head == "projections" and state.x is not None:
        # Typed embeddings follow their tokens; a new token gets its seeded row.
        x = state.x
        values["x"] = np.array(
            [
                x[o] if o is not None else token_embeddings([t], x.shape[1], seed=state.seed)[0]
                for t, o in zip(tokens, origins, strict=True)
            ]
        )
    values["padding"] = tuple(state.padding[o] if o is not None else True for o in origins)
    segments, last = [], state.segments[0] if state.segments else 0
    for o in origins:
        last = state.segments[o] if o is not None else last
        segments.append(last)
    values["segments"] = tuple(segments)
    selected = state.selected_query
    values["selected_query"] = origins.index(selected) if selected in origins else 0
    return values


class EditorPanel(Panel):
    """Sentence, tokens, head type, seed, the Q/K/V table and the 2-D arrows."""

    PANEL_ID = "editor"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        # While a refresh runs, what to draw once it ends ("vectors" or "arrows").
        self._batching = False
        self._drawing_due: str | None = None
        layout = QVBoxLayout()
        layout.addLayout(self._build_sentence())
        layout.addLayout(self._build_head())
        # A flow layout: the experiment buttons wrap onto a second line in a narrow dock.
        self.experiment_box = QWidget()
        self.experiments = FlowLayout(self.experiment_box)
        self.experiments.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.experiment_box)

        self.tokens = TokenList()
        self.tokens.sigEdited.connect(self._on_q_tokens_edited)
        self.tokens.sigCurrentChanged.connect(self._on_q_token_picked)
        self.table = VectorTable()
        self.table.setObjectName("vectors")
        self.table.vectors.sigEdited.connect(self._on_q_cell_edited)
        self.table.vectors.modelReset.connect(self._on_q_table_reset)
        self.table_note = QLabel()
        self.table_note.setObjectName("table_note")
        # Wrapped: one long line would set the dock's minimum width (more so in Portuguese).
        self.table_note.setWordWrap(True)
        self.plot = VectorPlot()
        self.plot.sigDragged.connect(self._on_q_arrow_dragged)
        self.plot_note = QLabel(self.tr("Arrows are drawn when d_k = 2."))
        self.plot_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.plot_note.setWordWrap(True)
        right = QSplitter(Qt.Orientation.Vertical)
        self.table_box = _with_note(self.table, self.table_note)
        right.addWidget(self.table_box)
        right.addWidget(_with_note(self.plot, self.plot_note))
        # X and the W matrices, shown when Q, K, V come from learned projections: made the
        # first time they are (five tables and a plot cost the window's start otherwise).
        self.projections: ProjectionEditor | None = None
        right.setStretchFactor(1, 2)  # the arrows want the room; a few rows of numbers do not
        self._vertical = right
        self._fitted_rows = -1
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.tokens)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        # Tokens are short words: give the width to the numbers and the arrows.
        self._token_split = split
        split.setSizes([self.fontMetrics().horizontalAdvance("M" * 5), 10 * 80])
        layout.addWidget(split, 1)
        self._write_arrow = self.throttled(self._write_arrow_now)
        self.mirror("seed", self.seed)
        self._finish(layout)

    # --- building ----------------------------------------------------------------------
    def _build_sentence(self) -> QHBoxLayout:
        self.sentence = QLineEdit()
        self.sentence.setObjectName("sentence")
        self.sentence.setPlaceholderText(self.tr("Type a sentence and press Enter"))
        self.sentence.setToolTip(self.tr("Split on spaces and punctuation into tokens"))
        self.sentence.returnPressed.connect(self._on_q_sentence)
        label = QLabel(self.tr("&Sentence"))
        label.setBuddy(self.sentence)
        go = QPushButton(self.tr("Tokenize"))
        go.clicked.connect(self._on_q_sentence)
        row = QHBoxLayout()
        row.addWidget(label)
        row.addWidget(self.sentence, 1)
        row.addWidget(go)
        return row

    def _build_head(self) -> QFormLayout:
        form = QFormLayout()
        self.head = QComboBox()
        self.head.setObjectName("head")
        for name in HEAD_SOURCES:
            self.head.addItem(QCoreApplication.translate(_C, _HEAD_TEXT.get(name, name)), name)
        self.head.setToolTip(
            self.tr("Type the vectors yourself, or let a synthetic head make them")
        )
        self.head.activated.connect(self._on_q_head)
        self.seed = QSpinBox()
        self.seed.setObjectName("seed")
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setKeyboardTracking(False)
        self.seed.setToolTip(self.tr("The random draw behind a synthetic head"))
        self.seed.valueChanged.connect(self._on_q_seed)
        head_label = QLabel(self.tr("&Head"))
        head_label.setBuddy(self.head)
        form.addRow(head_label, self.head)
        # A row of its own, shown only for a synthetic head: beside the head type it set
        # the dock's minimum width (a ten-digit spin box), and typed vectors have no seed.
        seed_label = QLabel(self.tr("S&eed"))
        seed_label.setBuddy(self.seed)
        form.addRow(seed_label, self.seed)
        self._head_form = form
        return form

    # --- model → view ------------------------------------------------------------------
    def _fit_token_list(self) -> None:
        """The token list as wide as its words (the table's rows name them too): the rest
        of the width goes to the numbers, so q, k and v fit beside it."""
        metrics = self.tokens.fontMetrics()
        words = max((metrics.horizontalAdvance(t) for t in self.state.tokens[:200]), default=0)
        scroll = self.tokens.list.verticalScrollBar().sizeHint().width()
        want = min(
            max(words + scroll + 16, metrics.horizontalAdvance("M" * 4)),
            metrics.horizontalAdvance("M" * 10),
        )
        sizes = self._token_split.sizes()
        if len(sizes) == 2 and sum(sizes) > 0 and sizes[0] != want:
            self._token_split.setSizes([want, max(sum(sizes) - want, 0)])

    def _on_tokens_changed(self) -> None:
        self._fit_token_list()
        self.tokens.set_tokens(self.state.tokens)
        self.tokens.set_current(self.state.selected_query)
        with blocked(self.sentence):
            if not self.sentence.hasFocus():
                self.sentence.setText(" ".join(self.state.tokens))
                self.sentence.setCursorPosition(0)
        self._refresh_vectors()

    def _on_head_changed(self) -> None:
        with blocked(self.head):
            self.head.setCurrentIndex(self.head.findData(self.state.head))
        synthetic = self.state.head != "manual"
        self.seed.setEnabled(synthetic)
        self._head_form.setRowVisible(self.seed, synthetic)
        shown = self.state.head == "projections"
        if shown and self.projections is None:
            # Its module too only now: five tables and a plot no start-up needs.
            from attnviz.ui.widgets.projection_editor import ProjectionEditor

            self.projections = ProjectionEditor(self.state, self, write=self._write)
            self._vertical.addWidget(self.projections)
        if self.projections is not None:
            self.projections.setVisible(shown)

    def _refresh(self, names) -> None:
        # Tokens, vectors and the selected query mostly change together (the first fill, a
        # preset, a new sentence): their handlers only note what to draw, and the table
        # and the arrows are drawn once, after all of them ran.
        if self._batching:  # a handler's write came back: the outer refresh draws
            super()._refresh(names)
            return
        self._batching = True
        try:
            super()._refresh(names)
        finally:
            self._batching = False
        due, self._drawing_due = self._drawing_due, None
        if due == "vectors":
            self._draw_vectors()
        elif due == "arrows":
            self._draw_arrows()

    def _refresh_vectors(self) -> None:
        """Draw the table and the arrows again (at the end of a refresh, during one)."""
        if self._batching:
            self._drawing_due = "vectors"
        else:
            self._draw_vectors()

    def _draw_vectors(self) -> None:
        s = self.state
        self.table.vectors.set_data(s.tokens, s.q, s.k, s.v, s.value_labels)
        widths = (s.d_k, s.v.shape[1])
        if max(widths) > MAX_SHOWN:
            note = self.tr("Showing the first %1 dimensions of q and k (of %2) and of v (of %3).")
            note = note.replace("%1", str(MAX_SHOWN)).replace("%2", str(widths[0]))
            self.table_note.setText(note.replace("%3", str(widths[1])))
        else:
            self.table_note.setText(self.tr("Double-click or type into a cell to edit it."))
        two_d = s.d_k == 2 and s.n <= MAX_ARROWS
        self.plot.setVisible(two_d)
        self.plot_note.setVisible(not two_d)
        if (s.n if two_d else -2) != self._fitted_rows:
            self._fit_table()
        if s.d_k == 2 and not two_d:
            note = self.tr("Arrows are drawn for up to %1 tokens.").replace("%1", str(MAX_ARROWS))
            self.plot_note.setText(note)
        else:
            self.plot_note.setText(self.tr("Arrows are drawn when d_k = 2."))
        if two_d:
            self.plot.set_vectors(s.tokens, s.q, s.k, s.selected_query)

    def _fit_table(self) -> None:
        """Give the table the height of its rows (at most half), the arrows the rest; without
        arrows, all but the line that says why."""
        total = sum(self._vertical.sizes())
        if total <= 0:
            return  # not laid out yet: the next resize fits it
        if not self.plot.isVisibleTo(self):
            self._fitted_rows = -2
            note = self.plot_note.sizeHint().height()
            self._vertical.setSizes([total - note, note])
            return
        self._fitted_rows = self.state.n
        table = self.table
        rows = table.verticalHeader().defaultSectionSize() * (table.vectors.rowCount() + 1)
        extra = table.horizontalScrollBar().sizeHint().height() + 2 * table.frameWidth() + 4
        note = self.table_note.sizeHint().height()
        want = min(rows + extra + note, total // 2)
        self._vertical.setSizes([want, total - want])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_token_list()
        self._fit_table()

    def needed_width(self) -> int:
        """Wide enough for q, k and v side by side (the window's compact layout gives the
        editor this when it can; narrower, the table stacks them)."""
        margins = self.layout().contentsMargins()
        wide = self.table.wide_width() + margins.left() + margins.right()
        return max(super().needed_width(), wide)

    def _on_q_table_reset(self) -> None:
        # The table chooses wide or stacked rows on the turn after a resize (VectorTable):
        # in a dock, fit the split to its new rows then, not at the dock's next resize (a
        # panel built at its dock's size may get none). An exported panel keeps the
        # split it was laid out with, as its pictures always had.
        if isinstance(self.parentWidget(), QDockWidget):
            self._fit_table()

    def focus_fields(self, in_lesson=(), so_far=(), step=()) -> None:
        """On a slide, the q/k/v table only where the audience can read it, or where it is
        the point: vectors at most :data:`SLIDE_DIMS` wide, or a lesson that edits them
        (``in_lesson``). Eight random dimensions beside a word-order experiment are noise."""
        edits = {"attention.q", "attention.k", "attention.v", "attention.d_k"} & set(
            f"attention.{name}" for name in in_lesson
        )
        s = self.state
        self.table_box.setVisible(bool(edits) or max(s.d_k, s.v.shape[1]) <= SLIDE_DIMS)

    def _on_font_changed(self) -> None:
        if not hasattr(self, "_vertical"):
            return  # a font before the panel is built
        self._fitted_rows = -1
        self._refresh_vectors()

    _on_q_changed = _on_k_changed = _on_v_changed = _refresh_vectors
    _on_value_labels_changed = _refresh_vectors

    def _on_selected_query_changed(self) -> None:
        self.tokens.set_current(self.state.selected_query)
        if self._batching:
            self._drawing_due = self._drawing_due or "arrows"
        else:
            self._draw_arrows()

    def _draw_arrows(self) -> None:
        s = self.state
        if s.d_k == 2 and s.n <= MAX_ARROWS:
            self.plot.set_vectors(s.tokens, s.q, s.k, s.selected_query)

    def _on_preset_id_changed(self) -> None:
        while self.experiments.count():
            item = self.experiments.takeAt(0)
            if item.widget() is not None:
                item.widget().hide()  # at once: deletion waits for the event loop
                item.widget().deleteLater()
        pid = self.state.preset_id
        preset = load_preset(pid) if pid in preset_ids() else None
        if preset is None:
            self.experiment_box.hide()
            return
        self.experiments.addWidget(QLabel(self.tr("Try:")))
        for exp in preset.experiments:
            button = QPushButton(preset_text(exp.title))
            button.setObjectName(f"experiment_{exp.id}")
            button.setToolTip(self.tr("Apply this change to the example, all else as shipped"))
            button.clicked.connect(lambda _=False, e=exp.id: self.apply_experiment(e))
            self.experiments.addWidget(button)
        permuted = preset.extra.get("permuted_tokens")
        if permuted:
            swap = QPushButton(self.tr("Swap the word order"))
            swap.setObjectName("experiment_swap_order")
            swap.setToolTip(
                self.tr("“%1” ⇄ “%2”: without positions the rows and columns only trade places")
                .replace("%1", " ".join(preset.tokens))
                .replace("%2", " ".join(permuted))
            )
            swap.clicked.connect(lambda _=False, p=tuple(permuted): self.swap_order(p))
            self.experiments.addWidget(swap)
        reset = QPushButton(self.tr("Reset example"))
        reset.setObjectName("experiment_reset")
        reset.clicked.connect(lambda: self.apply_experiment(None))
        self.experiments.addWidget(reset)
        self.experiment_box.show()

    # --- view → model ------------------------------------------------------------------
    def apply_experiment(self, experiment_id: str | None) -> bool:
        """Show the current preset with one of its experiments (None: as shipped)."""
        preset = load_preset(self.state.preset_id)
        if experiment_id is not None:
            preset = preset.with_experiment(experiment_id)
        return self._write(self.experiment_box, **preset_state_values(preset))

    def swap_order(self, other: tuple[str, ...]) -> bool:
        """Toggle the sentence between its order and ``other`` (the same tokens, reordered);
        each token keeps its vectors, so only positions can tell the two apart."""
        current = list(self.state.tokens)
        target = (
            list(other)
            if current != list(other)
            else list(load_preset(self.state.preset_id).tokens)
        )
        if sorted(target) != sorted(current):
            return False  # the sentence was edited: there is nothing to swap
        pool = list(range(len(current)))
        origins = []
        for token in target:
            i = next(j for j in pool if current[j] == token)
            pool.remove(i)
            origins.append(i)
        return self._write(self.experiment_box, **reorder_values(self.state, target, origins))

    def _on_q_sentence(self) -> None:
        tokens = tokenize(self.sentence.text())
        if not tokens:
            self.show_error(self.tr("The sentence has no tokens."), self.sentence)
            return
        self._write(self.sentence, tokens=tuple(tokens), selected_cell=None)

    def _on_q_tokens_edited(self, tokens: list, origins: list) -> None:
        self._write(self.tokens, **reorder_values(self.state, tokens, origins))

    def _on_q_token_picked(self, row: int) -> None:
        if row != self.state.selected_query:
            self._write(self.tokens, selected_query=row)

    def _on_q_cell_edited(self, name: str, row: int, dim: int, value: float) -> None:
        arr = getattr(self.state, name).copy()
        arr[row, dim] = value
        # Typing a vector takes it out of the synthetic head's hands.
        self._write(self.table, head="manual", **{name: arr})

    def _on_q_arrow_dragged(self, name: str, row: int, x: float, y: float) -> None:
        self._write_arrow(name, row, x, y)

    def _write_arrow_now(self, name: str, row: int, x: float, y: float) -> None:
        arr = getattr(self.state, name).copy()
        arr[row, :2] = (x, y)
        self._write(self.plot, head="manual", **{name: arr})

    def _on_q_head(self, index: int) -> None:
        self._write(self.head, head=self.head.itemData(index))

    def _on_q_seed(self, value: int) -> None:
        self._write(self.seed, seed=value)


#: The widest vectors a slide's q/k/v table shows (every column legible at 1280×720).
SLIDE_DIMS = 4


def _with_note(widget: QWidget, note: QWidget) -> QWidget:
    """``widget`` taking the room, with its explanatory ``note`` underneath."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(widget, 1)
    layout.addWidget(note)
    return box
