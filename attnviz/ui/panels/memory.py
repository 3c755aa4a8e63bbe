"""The memory panel: the KV cache of a real model against a GPU, and what n² would cost.

A gauge, not a form: pick a model card (or read a Hugging Face ``config.json``), drag the
context, and watch

- the gauge: weights and KV cache stacked against the GPU's memory, the longest context
  that fits beside the weights marked on a token scale;
- the attention designs side by side for the same model (MHA, GQA, MQA, MLA), with what the
  card's hybrid layers or sliding windows save drawn as hatched bars;
- the price of n²: one head's score matrix if it were materialized against the O(n)
  working memory of a tiled kernel, on one log chart;
- the decode ceiling at the GPU's memory bandwidth: tokens/s at batch 1 when each token
  reads the weights, the cache and the recurrent state once, and what GQA, MQA, MLA, fp8
  and a hybrid's linear layers make of it.

Every number is :func:`attnviz.core.kvcache.kv_report`'s (``attnviz kv`` prints the same).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
)

from attnviz.core.hf_config import load_hf_config
from attnviz.core.kvcache import DTYPE_BYTES, MAX_BATCH, model_cards
from attnviz.model.topics.memory import CUSTOM, card_values
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.theme import Theme
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.flow_layout import FlowLayout, flow_of, keep_together
from attnviz.ui.widgets.memory_card import CardEditor
from attnviz.ui.widgets.memory_figure import MemoryFigure, bandwidth_label, gpu_label
from attnviz.ui.widgets.numbers import counted
from attnviz.ui.widgets.token_slider import TokenSlider
from attnviz.ui.widgets.units import binary_bytes

_C = "MemoryPanel"
#: The GPUs offered in the picker, in GB (any other size can be typed).
GPU_SIZES = (24.0, 48.0, 80.0, 141.0, 192.0)
#: Memory bandwidths offered, in GB/s, with the GPU each is (any other can be typed).
BANDWIDTHS = (
    (1008.0, "RTX 4090"),
    (2039.0, "A100 80GB"),
    (3350.0, "H100 SXM"),
    (4800.0, "H200"),
    (8000.0, "B200"),
)
DTYPE_TIPS = {
    "bf16": QT_TRANSLATE_NOOP("MemoryPanel", "bf16: 2 bytes per element"),
    "fp16": QT_TRANSLATE_NOOP("MemoryPanel", "fp16: 2 bytes per element"),
    "fp8": QT_TRANSLATE_NOOP("MemoryPanel", "fp8: 1 byte per element"),
    "fp32": QT_TRANSLATE_NOOP("MemoryPanel", "fp32: 4 bytes per element"),
    "int4": QT_TRANSLATE_NOOP("MemoryPanel", "int4: half a byte per element"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


class MemoryPanel(FigurePanel):
    """KV-cache gauge on model cards, the attention variants and the n² price."""

    PANEL_ID = "memory"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, the KV cache and the price of O(n²): every token keeps its keys "
                "and values in every attention layer; GQA, MLA, windows and hybrids shrink them."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_model_row())
        layout.addLayout(self._build_setting_row())
        layout.addLayout(self._build_serving_row())
        self.card_editor = CardEditor(self)
        self.card_editor.setVisible(False)
        layout.addWidget(self.card_editor)
        self.figure = MemoryFigure()
        self.figure.setObjectName("memory_figure")
        layout.addWidget(self.figure, 1)
        # The heads panel's own layer, when its heads come from projections.
        self.heads_line = QLabel()
        self.heads_line.setObjectName("heads_line")
        self.heads_line.setWordWrap(True)
        self.heads_line.hide()
        layout.addWidget(self.heads_line)
        self.mirror("context", self.context, block=False)
        self.mirror("batch", self.batch)
        # Scrolls rather than squeezing the charts below a readable height at 1280×720.
        self._finish(layout, scroll=True)

    # --- building ----------------------------------------------------------------------
    def _build_model_row(self) -> FlowLayout:
        label = QLabel(self.tr("&Model"))
        self.model = QComboBox()
        self.model.setObjectName("model")
        for cid, card in sorted(model_cards().items()):
            self.model.addItem(card.name, cid)
        self.model.addItem(self.tr("Custom card"), CUSTOM)
        self.model.setToolTip(self.tr("A real model's attention shape, or your own card"))
        self.model.activated.connect(
            lambda i: self._write(self.model, model=self.model.itemData(i))
        )
        label.setBuddy(self.model)
        self.gpu = QComboBox()
        self.gpu.setObjectName("gpu_gb")
        self.gpu.setEditable(True)
        for gb in GPU_SIZES:
            self.gpu.addItem(gpu_label(gb), gb)
        self.gpu.setToolTip(self.tr("GPU memory in GB (10⁹ bytes): pick one or type a size"))
        self.gpu.activated.connect(self._on_q_gpu)
        self.gpu.lineEdit().editingFinished.connect(self._on_q_gpu)
        self.bandwidth = QComboBox()
        self.bandwidth.setObjectName("bandwidth_gbs")
        self.bandwidth.setEditable(True)
        for i, (gbs, gpu) in enumerate(BANDWIDTHS):
            self.bandwidth.addItem(bandwidth_label(gbs), gbs)
            self.bandwidth.setItemData(i, gpu, Qt.ItemDataRole.ToolTipRole)
        self.bandwidth.setToolTip(
            self.tr(
                "GPU memory bandwidth in GB/s: 3,350 for an H100 SXM, 4,800 for an H200. "
                "It sets the decode ceiling: pick one or type a number"
            )
        )
        self.bandwidth.activated.connect(self._on_q_bandwidth)
        self.bandwidth.lineEdit().editingFinished.connect(self._on_q_bandwidth)
        self.config_button = QPushButton(self.tr("From config.json…"))
        self.config_button.setObjectName("from_config")
        self.config_button.setToolTip(
            self.tr("Read layers, heads, KV heads, windows and MLA from a Hugging Face config")
        )
        self.config_button.clicked.connect(self._on_q_config)
        self.card_button = QToolButton()
        self.card_button.setObjectName("edit_card")
        self.card_button.setCheckable(True)
        self.card_button.setText(self.tr("Edit the card"))
        self.card_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.card_button.setArrowType(Qt.ArrowType.RightArrow)
        self.card_button.toggled.connect(self._on_q_card_toggled)
        self.model.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.model.setMinimumContentsLength(14)  # long card names must not widen the dock
        self.from_model = QPushButton(self.tr("From the open model"))
        self.from_model.setObjectName("from_model")
        self.from_model.setToolTip(self.tr("The card of the model opened with File → Open Model…"))
        self.from_model.clicked.connect(self._on_q_from_model)
        self.from_model.setEnabled(False)
        self.tiles_link = QToolButton()
        self.tiles_link.setObjectName("tiles_link")
        self.tiles_link.setText(self.tr("FlashAttention's tiles →"))
        self.tiles_link.setToolTip(
            self.tr("How a tiled kernel gets by with O(n) memory: the tiles panel, step by step")
        )
        self.tiles_link.clicked.connect(self._on_q_tiles_link)
        # A flow, not a row: in a dock beside the steps its buttons go onto a second line
        # rather than widen the panel past the window.
        return flow_of(
            keep_together(label, self.model),
            self.config_button,
            self.from_model,
            self.card_button,
            self.tiles_link,
        )

    def _build_setting_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        label = QLabel(self.tr("&Context"))
        self.context = TokenSlider()
        self.context.setObjectName("context")
        self.context.setToolTip(self.tr("Tokens per sequence held in the cache"))
        self.context.valueEdited.connect(lambda v: self._write(self.context, context=int(v)))
        self.context.textRejected.connect(lambda m: self.show_error(m, self.context.box))
        label.setBuddy(self.context)
        self.batch = QSpinBox()
        self.batch.setRange(1, MAX_BATCH)
        self.batch.setPrefix(self.tr("batch "))
        self.batch.setToolTip(self.tr("Sequences served at once, each with its own cache"))
        self.batch.valueChanged.connect(lambda v: self._write(self.batch, batch=int(v)))
        self.dtype = self._dtype_combo(self.tr("Element type of the KV cache"), "dtype")
        self.weights_dtype = self._dtype_combo(self.tr("Element type of the weights"),
                                               "weights_dtype")  # fmt: skip
        row.addWidget(label)
        row.addWidget(self.context, 1)
        return row

    def _build_serving_row(self) -> FlowLayout:
        pieces = [self.batch]
        for text, widget in (
            (self.tr("cache"), self.dtype),
            (self.tr("weights"), self.weights_dtype),
            (self.tr("GPU"), self.gpu),
            (self.tr("bandwidth"), self.bandwidth),
        ):
            label = QLabel(text)
            label.setBuddy(widget)  # named for screen readers; leaves a slide with it
            pieces.append(keep_together(label, widget))
        return flow_of(*pieces)

    def _dtype_combo(self, tip: str, field: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(field)
        for i, name in enumerate(DTYPE_BYTES):
            combo.addItem(name, name)
            combo.setItemData(i, _tr(DTYPE_TIPS[name]), Qt.ItemDataRole.ToolTipRole)
        combo.setToolTip(tip)
        combo.activated.connect(lambda i: self._write(combo, **{field: combo.itemData(i)}))
        return combo

    # --- model → view ------------------------------------------------------------------
    def _on_model_changed(self) -> None:
        with blocked(self.model):
            self.model.setCurrentIndex(self.model.findData(self.state.model))
        self._on_name_changed()

    def _on_name_changed(self) -> None:
        i = self.model.findData(CUSTOM)
        custom = self.state.model == CUSTOM
        text = (
            self.tr("Custom: %1").replace("%1", self.state.name)
            if custom
            else self.tr("Custom card")
        )
        self.model.setItemText(i, text)

    def _on_dtype_changed(self) -> None:
        for combo, field in ((self.dtype, "dtype"), (self.weights_dtype, "weights_dtype")):
            with blocked(combo):
                combo.setCurrentIndex(combo.findData(self.state.get(field)))

    _on_weights_dtype_changed = _on_dtype_changed

    def _on_gpu_gb_changed(self) -> None:
        with blocked(self.gpu):
            i = self.gpu.findData(self.state.gpu_gb)
            if i >= 0:
                self.gpu.setCurrentIndex(i)
            self.gpu.setEditText(gpu_label(self.state.gpu_gb))

    def _on_bandwidth_gbs_changed(self) -> None:
        with blocked(self.bandwidth):
            i = self.bandwidth.findData(self.state.bandwidth_gbs)
            if i >= 0:
                self.bandwidth.setCurrentIndex(i)
            self.bandwidth.setEditText(bandwidth_label(self.state.bandwidth_gbs))

    def _on_layers_changed(self) -> None:
        self.card_editor.show_values(self.state)

    _on_heads_changed = _on_kv_heads_changed = _on_head_dim_changed = _on_layers_changed
    _on_kv_lora_rank_changed = _on_rope_head_dim_changed = _on_layers_changed
    _on_attention_layers_changed = _on_sliding_window_changed = _on_layers_changed
    _on_sliding_layers_changed = _on_params_changed = _on_layers_changed
    _on_state_elements_changed = _on_conv_elements_changed = _on_layers_changed

    def _on_results(self, res, _names: frozenset) -> None:
        self.figure.show_results(res, self.state)
        self.from_model.setEnabled(bool(self.workspace.document.attention.model_path))
        heads = res.heads
        self.heads_line.setVisible(heads is not None)
        if heads is not None:
            text = self.tr(
                "The heads panel's layer: %1 %2 of width %3 → %4 per token per layer (%5 "
                "with one KV head per query head); %6 at this context."
            )
            query, kv = heads.n_heads, heads.n_kv_heads
            for i, value in enumerate(
                (
                    counted(self.tr("%n query head(s) (shares|share)", "", query), query),
                    counted(self.tr("%n KV head(s)", "", kv), kv),
                    heads.d_head,
                    binary_bytes(heads.bytes_per_token),
                    binary_bytes(heads.mha_bytes_per_token),
                    binary_bytes(heads.cache_bytes),
                ),
                1,
            ):
                text = text.replace(f"%{i}", str(value))
            self.heads_line.setText(text)

    # --- view → model ------------------------------------------------------------------
    def _on_q_gpu(self, *_args) -> None:
        text = self.gpu.currentText().strip()
        for unit in ("GB", "gb", "G", "g"):
            text = text.removesuffix(unit).strip()
        try:
            value = float(text.replace(",", "."))
        except ValueError:
            self.show_error(self.tr("GPU memory must be a number of GB, e.g. 80 or 141"), self.gpu)
            self._on_gpu_gb_changed()
            return
        self._write(self.gpu, gpu_gb=value)

    def _on_q_bandwidth(self, *_args) -> None:
        text = self.bandwidth.currentText().strip()
        for unit in ("GB/s", "gb/s", "GB", "gb"):
            text = text.removesuffix(unit).strip()
        try:
            # "3,350" is a thousands comma; "3350,5" a decimal one.
            grouped_thousands = "," in text and len(text.rsplit(",", 1)[1]) == 3
            value = float(text.replace(",", "" if grouped_thousands else "."))
        except ValueError:
            self.show_error(
                self.tr("The bandwidth must be a number of GB/s, e.g. 3350 or 4800"),
                self.bandwidth,
            )
            self._on_bandwidth_gbs_changed()
            return
        self._write(self.bandwidth, bandwidth_gbs=value)

    def _on_q_from_model(self) -> None:
        from attnviz.ui.model_loader import controller_for

        controller = controller_for(self)
        if controller is not None:
            controller.fill_memory_card()

    def _on_q_tiles_link(self) -> None:
        dock = getattr(self.window(), "docks", {}).get("tiles")
        if dock is not None:
            dock.show()
            dock.raise_()

    def _on_q_card_toggled(self, on: bool) -> None:
        self.card_editor.setVisible(on)
        self.card_button.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)

    def _on_q_config(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(
            self, self.tr("Read a Hugging Face config.json"), "",
            self.tr("Model configs (*.json);;All files (*)"),
        )  # fmt: skip
        if path:
            self.load_config(path)

    def load_config(self, path) -> bool:
        """Read the ``config.json`` at ``path`` into a custom card; False (shown) if refused."""
        try:
            card = load_hf_config(path)
        except ValueError as exc:
            self.show_error(str(exc), self.config_button)
            return False
        return self._write(self.config_button, model=CUSTOM, **card_values(card))

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme: Theme) -> None:
        """Restyle the gauge, the bars and the chart for ``theme`` and the current font."""
        self.figure.set_style(theme, self.font())
        self._redraw_styled()
