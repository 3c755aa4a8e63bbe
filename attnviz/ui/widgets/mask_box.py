"""The mask controls of the controls panel: causal, padding, document segments, window,
chunks.

Padding works at any length: a range editor hides or shows keys ``i`` to ``j`` (and says
which ranges are hidden), and short sentences also get one check box per token. A preset
that asks for it (``"next_token_examples": true``, the chapter's "o gato subiu no
telhado") lists the next-token training examples one causal pass gives.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.presets import load_preset, preset_ids
from attnviz.model.topics.attention import MAX_TOKENS
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.numbers import counted
from attnviz.ui.widgets.token_checklist import TokenChecklist

#: Up to this many tokens the padding flags are also shown as one check box per token.
MAX_CHIPS = 48
#: Training examples listed at most (a long causal sentence has n − 1 of them).
MAX_EXAMPLES = 12
#: Hidden ranges named at most in the summary under the range editor.
MAX_RANGES = 6


def parse_segments(text: str) -> tuple[int, ...]:
    """Read document ids such as ``"0 0 1 1 1"`` (spaces or commas); raise ValueError."""
    parts = text.replace(",", " ").split()
    values = tuple(int(p) for p in parts)
    if any(v < 0 for v in values):
        raise ValueError("document ids must be ≥ 0")
    return values


def hidden_ranges(valid) -> list[tuple[int, int]]:
    """The runs of hidden keys as inclusive ``(first, last)`` pairs, in order."""
    flags = np.zeros(len(valid) + 2, dtype=np.int8)
    flags[1:-1] = ~np.asarray(valid, dtype=bool)
    edges = np.diff(flags)
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    return [(int(a), int(b) - 1) for a, b in zip(starts, ends, strict=True)]


def next_token_examples(tokens) -> list[tuple[str, str]]:
    """What one causal pass over ``tokens`` trains: every prefix and the token after it."""
    return [(" ".join(tokens[: i + 1]), tokens[i + 1]) for i in range(len(tokens) - 1)]


@cache
def _lists_examples(preset_id: str) -> bool:
    if preset_id not in preset_ids():
        return False
    return bool(load_preset(preset_id).extra.get("next_token_examples", False))


class MaskBox(QGroupBox):
    """Every mask kind with its parameters; writes through ``panel._write`` (``panel``: the
    controls, a :class:`~attnviz.ui.panel_base.Panel`)."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__(QCoreApplication.translate("MaskBox", "Masks"))
        self.panel = panel
        self.state = panel.state
        form = QFormLayout(self)
        # A narrow dock (or Portuguese labels) puts a label above its field instead of
        # scrolling sideways.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.causal = QCheckBox(self.tr("&Causal"))
        self.causal.toggled.connect(self._on_q_causal)
        # The explanation wraps beside the box: a long check box text cannot, and would set
        # the panel's width in large type.
        explained = QLabel(self.tr("each token sees only itself and earlier ones"))
        explained.setWordWrap(True)
        explained.setBuddy(self.causal)
        row = QHBoxLayout()
        row.addWidget(self.causal)
        row.addWidget(explained, 1)
        form.addRow(row)
        self.examples = QLabel()
        self.examples.setObjectName("next_token_examples")
        self.examples.setWordWrap(True)
        form.addRow(self.examples)

        label = QLabel(self.tr("&Padding"))
        form.addRow(label, self._build_padding())
        label.setBuddy(self.hide_from)

        self.segments = QLineEdit()
        self.segments.setObjectName("segments")
        self.segments.setPlaceholderText(self.tr("one document id per token, e.g. 0 0 1 1 1"))
        self.segments.setToolTip(
            self.tr("Packed documents: a token attends only within its own document")
        )
        self.segments.editingFinished.connect(self._on_q_segments)
        split = QPushButton(self.tr("Split after query"))
        split.setToolTip(self.tr("Start a new document after the selected query token"))
        split.clicked.connect(self._on_q_split)
        merge = QPushButton(self.tr("One document"))
        merge.clicked.connect(
            lambda: self.panel._write(self.segments, segments=(0,) * self.state.n)
        )
        buttons = QHBoxLayout()
        buttons.addWidget(split)
        buttons.addWidget(merge)
        buttons.addStretch(1)
        column = QVBoxLayout()
        column.addWidget(self.segments)
        column.addLayout(buttons)
        label = QLabel(self.tr("&Documents"))
        label.setBuddy(self.segments)
        form.addRow(label, column)

        self.window = QSpinBox()
        self.window.setObjectName("window")
        self.window.setRange(0, MAX_TOKENS)
        self.window.setSpecialValueText(self.tr("off"))
        self.window.setKeyboardTracking(False)
        self.window.setToolTip(self.tr("Each query sees only keys fewer than this many steps away"))
        self.window.valueChanged.connect(self._on_q_window)
        self.window_symmetric = QCheckBox(self.tr("look both ways"))
        self.window_symmetric.setToolTip(
            self.tr("Off: only earlier keys (causal window); on: |i − j| < size")
        )
        self.window_symmetric.toggled.connect(self._on_q_window_symmetric)
        row = QHBoxLayout()
        row.addWidget(self.window, 1)
        row.addWidget(self.window_symmetric)
        label = QLabel(self.tr("Sliding &window"))
        label.setBuddy(self.window)
        form.addRow(label, row)

        self.chunk = QSpinBox()
        self.chunk.setObjectName("chunk")
        self.chunk.setRange(0, MAX_TOKENS)
        self.chunk.setSpecialValueText(self.tr("off"))
        self.chunk.setKeyboardTracking(False)
        self.chunk.setToolTip(
            self.tr(
                "Chunked attention (Llama 4): the sentence is cut into chunks of this many "
                "tokens and a query sees only the keys of its own chunk"
            )
        )
        self.chunk.valueChanged.connect(lambda size: self.panel._write(self.chunk, chunk=size))
        label = QLabel(self.tr("C&hunks"))
        label.setBuddy(self.chunk)
        form.addRow(label, self.chunk)

    def _build_padding(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        self.hide_from, self.hide_to = QSpinBox(), QSpinBox()
        self.hide_from.setObjectName("hide_from")
        self.hide_to.setObjectName("hide_to")
        for spin in (self.hide_from, self.hide_to):
            spin.setKeyboardTracking(False)
        range_row = QHBoxLayout()
        range_row.addWidget(QLabel(self.tr("keys")))
        range_row.addWidget(self.hide_from, 1)
        range_row.addWidget(QLabel(self.tr("to")))
        range_row.addWidget(self.hide_to, 1)
        column.addLayout(range_row)
        buttons = QHBoxLayout()
        for key, text, tip, hide in (
            ("hide", self.tr("Hide"), self.tr("Hide these keys from every query"), True),
            ("show", self.tr("Show"), self.tr("Let every query see these keys again"), False),
        ):
            button = QPushButton(text)
            button.setObjectName(f"padding_{key}")
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, h=hide: self._on_q_hide_range(h))
            buttons.addWidget(button)
        show_all = QPushButton(self.tr("Show all"))
        show_all.setObjectName("padding_show_all")
        show_all.clicked.connect(
            lambda: self.panel._write(self.padding, padding=(True,) * self.state.n)
        )
        buttons.addWidget(show_all)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.hidden_summary = QLabel()
        self.hidden_summary.setObjectName("hidden_summary")
        self.hidden_summary.setWordWrap(True)
        column.addWidget(self.hidden_summary)
        self.padding = TokenChecklist()
        self.padding.setObjectName("padding")
        self.padding.setToolTip(self.tr("Checked tokens are padding: no query may attend to them"))
        self.padding.sigFlagsEdited.connect(self._on_q_padding)
        column.addWidget(self.padding)
        return box

    # --- model → view ------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the state's mask settings (signals blocked)."""
        s = self.state
        with blocked(self.causal, self.segments, self.window, self.window_symmetric, self.chunk):
            self.causal.setChecked(s.causal)
            if not self.segments.hasFocus() or not self.segments.isModified():
                self.segments.setText(" ".join(str(x) for x in s.segments))
                self.segments.setModified(False)
            self.window.setValue(s.window)
            self.window_symmetric.setChecked(not s.window_causal)
            self.chunk.setValue(s.chunk)
        for spin in (self.hide_from, self.hide_to):
            with blocked(spin):
                spin.setRange(0, s.n - 1)
        chips = s.n <= MAX_CHIPS
        self.padding.setVisible(chips)
        if chips:
            self.padding.set_tokens(s.tokens, [not valid for valid in s.padding])
        elif self.padding.count():
            self.padding.set_tokens((), ())  # thousands of check boxes would be unusable
        self._show_hidden()
        self._show_examples()

    def _show_hidden(self) -> None:
        runs = hidden_ranges(self.state.padding)
        if not runs:
            self.hidden_summary.setText(self.tr("No key is hidden."))
            return
        hidden = sum(b - a + 1 for a, b in runs)
        names = [str(a) if a == b else f"{a}–{b}" for a, b in runs[:MAX_RANGES]]
        if len(runs) > MAX_RANGES:
            names.append("…")
        text = self.tr("%1 of %2 keys hidden: %3")
        text = text.replace("%1", str(hidden)).replace("%2", str(self.state.n))
        self.hidden_summary.setText(text.replace("%3", ", ".join(names)))

    def _show_examples(self) -> None:
        s = self.state
        if not (s.causal and _lists_examples(s.preset_id)):
            self.examples.hide()
            self.examples.clear()
            return
        pairs = next_token_examples(s.tokens)
        title = self.tr("One causal pass trains %1 next-token predictions at once:")
        lines = [f"{prefix} → {target}" for prefix, target in pairs[:MAX_EXAMPLES]]
        if len(pairs) > MAX_EXAMPLES:
            lines.append("…")
        self.examples.setText(
            title.replace("%1", str(len(pairs))) + "\n" + "\n".join(f"   {x}" for x in lines)
        )
        self.examples.show()

    def example_lines(self) -> list[str]:
        """The training examples listed now, one per line (empty when none are shown)."""
        if self.examples.isHidden():
            return []
        return [line.strip() for line in self.examples.text().splitlines()[1:]]

    # --- view → model ------------------------------------------------------------------
    def _on_q_causal(self, on: bool) -> None:
        self.panel._write(self.causal, causal=on)

    def _on_q_padding(self, flags: tuple) -> None:
        self.panel._write(self.padding, padding=tuple(not f for f in flags))

    def _on_q_hide_range(self, hide: bool) -> None:
        lo, hi = sorted((self.hide_from.value(), self.hide_to.value()))
        valid = list(self.state.padding)
        valid[lo : hi + 1] = [not hide] * (hi + 1 - lo)
        self.panel._write(self.hide_from, padding=tuple(valid))

    def _on_q_segments(self) -> None:
        if not self.segments.isModified():
            return
        self.segments.setModified(False)
        try:
            values = parse_segments(self.segments.text())
        except ValueError:
            self.panel.show_error(
                self.tr("Document ids must be whole numbers ≥ 0, one per token"), self.segments
            )
            return
        if len(values) != self.state.n:
            given, n = len(values), self.state.n
            message = (
                self.tr("%1 for %2: give one per token")
                .replace("%1", counted(self.tr("%n document id(s)", "", given), given))
                .replace("%2", counted(self.tr("%n token(s)", "", n), n))
            )
            self.panel.show_error(message, self.segments)
            return
        self.panel._write(self.segments, segments=values)

    def _on_q_split(self) -> None:
        q = self.state.selected_query
        segs = list(self.state.segments)
        for j in range(q + 1, len(segs)):
            segs[j] += 1
        self.panel._write(self.segments, segments=tuple(segs))

    def _on_q_window(self, size: int) -> None:
        self.panel._write(self.window, window=size)

    def _on_q_window_symmetric(self, on: bool) -> None:
        self.panel._write(self.window_symmetric, window_causal=not on)
