"""The mask controls of the controls panel: causal, padding, document segments, window."""

from __future__ import annotations

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
)

from attnviz.model.topics.attention import MAX_TOKENS
from attnviz.ui.widgets.state_panel import StatePanel, blocked
from attnviz.ui.widgets.token_checklist import TokenChecklist


def parse_segments(text: str) -> tuple[int, ...]:
    """Read document ids such as ``"0 0 1 1 1"`` (spaces or commas); raise ValueError."""
    parts = text.replace(",", " ").split()
    values = tuple(int(p) for p in parts)
    if any(v < 0 for v in values):
        raise ValueError("document ids must be ≥ 0")
    return values


class MaskBox(QGroupBox):
    """Every mask kind with its parameters; writes through ``panel._write``."""

    def __init__(self, panel: StatePanel) -> None:
        super().__init__(QCoreApplication.translate("MaskBox", "Masks"))
        self.panel = panel
        self.state = panel.state
        form = QFormLayout(self)
        self.causal = QCheckBox(self.tr("&Causal: each token sees only itself and earlier ones"))
        self.causal.toggled.connect(self._on_q_causal)
        form.addRow(self.causal)

        self.padding = TokenChecklist()
        self.padding.setObjectName("padding")
        self.padding.setToolTip(self.tr("Checked tokens are padding: no query may attend to them"))
        self.padding.sigFlagsEdited.connect(self._on_q_padding)
        label = QLabel(self.tr("&Padding"))
        label.setBuddy(self.padding)
        form.addRow(label, self.padding)

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
        row = QHBoxLayout()
        row.addWidget(self.segments, 1)
        row.addWidget(split)
        row.addWidget(merge)
        label = QLabel(self.tr("&Documents"))
        label.setBuddy(self.segments)
        form.addRow(label, row)

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

    # --- model → view ------------------------------------------------------------------
    def refresh(self) -> None:
        """Show the state's mask settings (signals blocked)."""
        s = self.state
        with blocked(self.causal, self.segments, self.window, self.window_symmetric):
            self.causal.setChecked(s.causal)
            if not self.segments.hasFocus() or not self.segments.isModified():
                self.segments.setText(" ".join(str(x) for x in s.segments))
                self.segments.setModified(False)
            self.window.setValue(s.window)
            self.window_symmetric.setChecked(not s.window_causal)
        self.padding.set_tokens(s.tokens, [not valid for valid in s.padding])

    # --- view → model ------------------------------------------------------------------
    def _on_q_causal(self, on: bool) -> None:
        self.panel._write(self.causal, causal=on)

    def _on_q_padding(self, flags: tuple) -> None:
        self.panel._write(self.padding, padding=tuple(not f for f in flags))

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
            message = self.tr("%1 document ids for %2 tokens: give one per token")
            message = message.replace("%1", str(len(values))).replace("%2", str(self.state.n))
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
