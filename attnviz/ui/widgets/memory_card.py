"""The memory panel's card editor: every number of a model card, editable.

Editing any of them turns a shipped card into a custom one that starts from its numbers
(the topic does that); the KV-head picker offers only the divisors of the query heads, so
the choice is always a valid MHA, GQA or MQA.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QLabel, QLineEdit, QSpinBox, QWidget

from attnviz.core.kvcache import CARD_LIMITS
from attnviz.ui.widgets.binding import blocked

_SPIN_MAX = 2**31 - 1  # a QSpinBox holds an int32


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` in increasing order."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small) | {n // d for d in small})


class CardEditor(QWidget):
    """Spin boxes for the card fields of the memory topic; writes through ``panel._write``."""

    #: (field, ModelCard limit key, minimum) of the spin boxes, in grid order.
    SPINS = (
        ("layers", "layers", 1),
        ("heads", "n_heads", 1),
        ("head_dim", "head_dim", 1),
        ("attention_layers", "attention_layers", 1),
        ("kv_lora_rank", "kv_lora_rank", 0),
        ("rope_head_dim", "rope_head_dim", 0),
        ("sliding_window", "sliding_window", 0),
        ("sliding_layers", "sliding_layers", 0),
        ("state_elements", "state_elements", 0),
        ("conv_elements", "conv_elements", 0),
    )
    #: Grid (row, column) of each spin box: four pairs a row, the last two beside the KV
    #: heads and the parameter count.
    PLACES = (*((i // 4, 2 * (i % 4)) for i in range(8)), (2, 4), (2, 6))

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel
        names = {
            "layers": self.tr("Layers"),
            "heads": self.tr("Query heads"),
            "head_dim": self.tr("head_dim"),
            "attention_layers": self.tr("With attention"),
            "kv_lora_rank": self.tr("MLA latent"),
            "rope_head_dim": self.tr("MLA RoPE dims"),
            "sliding_window": self.tr("Window"),
            "sliding_layers": self.tr("Window layers"),
            "state_elements": self.tr("State per layer"),
            "conv_elements": self.tr("Conv per layer"),
        }
        tips = {
            "attention_layers": self.tr("Layers that keep a KV cache (fewer: a hybrid)"),
            "kv_lora_rank": self.tr("MLA: width of the latent cached per layer (0: no MLA)"),
            "rope_head_dim": self.tr("MLA: width of the RoPE key cached beside the latent"),
            "sliding_window": self.tr("Tokens a sliding-window layer keeps (0: no window)"),
            "sliding_layers": self.tr("Attention layers that keep only the window"),
            "state_elements": self.tr(
                "Elements of recurrent state each layer without attention keeps per sequence "
                "(Gated DeltaNet: heads × d_k × d_v; Mamba-2: heads × head_dim × d_state)"
            ),
            "conv_elements": self.tr(
                "Elements of short-convolution state each layer without attention keeps per "
                "sequence (channels × kernel width)"
            ),
        }
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.spins: dict[str, QSpinBox] = {}
        for i, (field, limit, low) in enumerate(self.SPINS):
            spin = QSpinBox()
            spin.setObjectName(field)
            spin.setRange(low, min(CARD_LIMITS[limit], _SPIN_MAX))
            spin.setKeyboardTracking(False)
            spin.setToolTip(tips.get(field, ""))
            if low == 0:
                spin.setSpecialValueText(self.tr("none"))
            spin.valueChanged.connect(
                lambda v, f=field, s=spin: self.panel._write(s, **{f: int(v)})
            )
            self.spins[field] = spin
            self._pair(grid, *self.PLACES[i], names[field], spin)
        self.kv_heads = QComboBox()
        self.kv_heads.setObjectName("kv_heads")
        self.kv_heads.setToolTip(
            self.tr("Key/value heads: as many as the query heads (MHA), fewer (GQA) or one (MQA)")
        )
        self.kv_heads.activated.connect(
            lambda i: self.panel._write(self.kv_heads, kv_heads=self.kv_heads.itemData(i))
        )
        self._pair(grid, 2, 0, self.tr("KV heads"), self.kv_heads)
        self.params = QLineEdit()
        self.params.setObjectName("params")
        self.params.setPlaceholderText(self.tr("unknown"))
        self.params.setToolTip(self.tr("Parameter count, e.g. 8.03e9, for the weights' share"))
        self.params.editingFinished.connect(self._on_q_params)
        self._pair(grid, 2, 2, self.tr("Parameters"), self.params)
        for col in (1, 3, 5, 7):
            grid.setColumnStretch(col, 1)

    @staticmethod
    def _pair(grid: QGridLayout, row: int, col: int, text: str, widget: QWidget) -> None:
        label = QLabel(text)
        label.setBuddy(widget)
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        grid.addWidget(label, row, col)
        grid.addWidget(widget, row, col + 1)

    def show_values(self, state) -> None:
        """Write the topic's card fields into the controls (signals blocked)."""
        for field, spin in self.spins.items():
            with blocked(spin):
                spin.setValue(min(state.get(field), spin.maximum()))
        with blocked(self.kv_heads):
            self.kv_heads.clear()
            for d in divisors(state.heads):
                self.kv_heads.addItem(str(d), d)
            self.kv_heads.setCurrentIndex(self.kv_heads.findData(state.kv_heads))
        with blocked(self.params):
            p = state.params
            self.params.setText("" if not p else (f"{p:.0f}" if p < 1e16 else f"{p:g}"))

    def _on_q_params(self) -> None:
        text = self.params.text().strip().replace(",", "").replace("_", "")
        if text == ("" if not self.panel.state.params else f"{self.panel.state.params:.0f}"):
            return
        try:
            value = float(text) if text else 0.0
        except ValueError:
            self.panel.show_error(self.tr("The parameter count must be a number, e.g. 8.03e9"),
                                  self.params)  # fmt: skip
            self.show_values(self.panel.state)
            return
        self.panel._write(self.params, params=value)
