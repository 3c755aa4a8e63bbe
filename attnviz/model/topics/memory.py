"""The ``memory`` topic: a model card, a context, a batch, a cache dtype and a GPU.

The GPU is its memory (``gpu_gb``) and its memory bandwidth (``bandwidth_gbs``): the first
says what fits, the second how fast a token can be generated
(:func:`attnviz.core.decode.decode_tokens_per_s`).

The card is held as fields (``layers``, ``heads``, ``kv_heads``, ``head_dim``, the MLA
latent, the hybrid and sliding-window layer counts, ``params``), so a session, an undo
step and ``attnviz export --set memory.kv_heads=1`` all see the same numbers the panel
shows. ``model`` names a shipped card (:func:`attnviz.core.kvcache.model_cards`) or
``custom``:

- choosing a shipped card fills the card fields with its numbers;
- changing any card field of a shipped card makes it ``custom`` (starting from that card's
  numbers), so ``--set memory.kv_heads=1`` turns Llama 3 8B into its multi-query twin;
- a card read from a Hugging Face ``config.json`` is stored as ``custom`` with its name.

Zero means "none" for the optional card fields: no MLA latent (``kv_lora_rank``), no
window (``sliding_window``), unknown parameter count (``params``).
"""

from __future__ import annotations

from attnviz.core.decode import MAX_BANDWIDTH_GBS, decode_report
from attnviz.core.kvcache import (
    CARD_LIMITS,
    DTYPE_BYTES,
    MAX_BATCH,
    MAX_CONTEXT,
    MAX_PARAMS,
    ModelCard,
    kv_report,
    model_cards,
)
from attnviz.model.fields import MAX_TEXT, Field, StateError
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

CUSTOM = "custom"
DEFAULT_MODEL = "llama-3-8b"
#: Fields that describe the card (ModelCard's names in brackets where they differ).
CARD_FIELDS = (
    "layers",
    "heads",  # n_heads
    "kv_heads",  # n_kv_heads
    "head_dim",
    "kv_lora_rank",
    "rope_head_dim",
    "attention_layers",
    "sliding_window",
    "sliding_layers",
    "params",
    "state_elements",
    "conv_elements",
)
#: Largest GPU memory offered, in GB (10^9 bytes): a whole rack's worth.
MAX_GPU_GB = 1e6


def card_values(card: ModelCard) -> dict:
    """The topic's card fields (and ``name``) for ``card``; absent values become 0."""
    return {
        "name": card.name[:MAX_TEXT],
        "layers": card.layers,
        "heads": card.n_heads,
        "kv_heads": card.n_kv_heads,
        "head_dim": card.head_dim,
        "kv_lora_rank": card.kv_lora_rank or 0,
        "rope_head_dim": card.rope_head_dim or 0,
        "attention_layers": card.attention_layers,
        "sliding_window": card.sliding_window or 0,
        "sliding_layers": card.sliding_layers,
        "params": float(card.params or 0.0),
        "state_elements": card.state_elements,
        "conv_elements": card.conv_elements,
    }


def card_from_values(v: dict, model_id: str | None = None) -> ModelCard:
    """The :class:`ModelCard` the field values describe (``ValueError`` when they clash)."""
    rank = v["kv_lora_rank"] or None
    return ModelCard(
        name=v["name"] or "custom",
        layers=v["layers"],
        n_heads=v["heads"],
        n_kv_heads=v["kv_heads"],
        head_dim=v["head_dim"],
        kv_lora_rank=rank,
        rope_head_dim=v["rope_head_dim"] if rank else None,
        attention_layers=v["attention_layers"],
        sliding_window=v["sliding_window"] or None,
        sliding_layers=v["sliding_layers"],
        params=v["params"] or None,
        state_elements=v["state_elements"],
        conv_elements=v["conv_elements"],
        id=None if model_id in (None, CUSTOM) else model_id,
    )


def _shipped() -> dict[str, ModelCard]:
    return model_cards()


_DEFAULT = card_values(_shipped()[DEFAULT_MODEL])

FIELDS = (
    Field("model", "choice", DEFAULT_MODEL, choices=(*sorted(_shipped()), CUSTOM),
          doc="a shipped model card, or custom (the card fields below)",
          label=QT_TRANSLATE_NOOP("UndoController", "Model card")),
    Field("name", "text", _DEFAULT["name"], doc="the card's display name",
          label=QT_TRANSLATE_NOOP("UndoController", "Model name")),
    Field("layers", "int", _DEFAULT["layers"], 1, CARD_LIMITS["layers"],
          doc="every layer of the model, attention or not",
          label=QT_TRANSLATE_NOOP("UndoController", "Layers")),
    Field("heads", "int", _DEFAULT["heads"], 1, CARD_LIMITS["n_heads"], doc="query heads",
          label=QT_TRANSLATE_NOOP("UndoController", "Query heads")),
    Field("kv_heads", "int", _DEFAULT["kv_heads"], 1, CARD_LIMITS["n_kv_heads"],
          doc="key/value heads (divides heads: = heads MHA, 1 MQA, between GQA)",
          label=QT_TRANSLATE_NOOP("UndoController", "KV heads")),
    Field("head_dim", "int", _DEFAULT["head_dim"], 1, CARD_LIMITS["head_dim"],
          doc="width of one head", label=QT_TRANSLATE_NOOP("UndoController", "Head width")),
    Field("kv_lora_rank", "int", 0, 0, CARD_LIMITS["kv_lora_rank"],
          doc="MLA latent width cached per layer and token (0: not MLA)",
          label=QT_TRANSLATE_NOOP("UndoController", "MLA latent")),
    Field("rope_head_dim", "int", 0, 0, CARD_LIMITS["rope_head_dim"],
          doc="MLA: width of the shared RoPE key cached beside the latent",
          label=QT_TRANSLATE_NOOP("UndoController", "Rotary head width")),
    Field("attention_layers", "int", _DEFAULT["attention_layers"], 1,
          CARD_LIMITS["attention_layers"],
          doc="layers that keep a per-token KV cache (fewer than layers: a hybrid)",
          label=QT_TRANSLATE_NOOP("UndoController", "Attention layers")),
    Field("sliding_window", "int", 0, 0, CARD_LIMITS["sliding_window"],
          doc="tokens a sliding-window layer keeps (0: no window)",
          label=QT_TRANSLATE_NOOP("UndoController", "Window")),
    Field("sliding_layers", "int", 0, 0, CARD_LIMITS["sliding_layers"],
          doc="attention layers that keep only the window",
          label=QT_TRANSLATE_NOOP("UndoController", "Window layers")),
    Field("params", "float", _DEFAULT["params"], 0.0, MAX_PARAMS,
          doc="parameter count, for the weights' share (0: unknown)",
          label=QT_TRANSLATE_NOOP("UndoController", "Parameter count")),
    Field("state_elements", "int", 0, 0, CARD_LIMITS["state_elements"],
          doc="recurrent state each non-attention layer keeps per sequence, in elements",
          label=QT_TRANSLATE_NOOP("UndoController", "Recurrent state")),
    Field("conv_elements", "int", 0, 0, CARD_LIMITS["conv_elements"],
          doc="convolution state each non-attention layer keeps per sequence, in elements",
          label=QT_TRANSLATE_NOOP("UndoController", "Convolution state")),
    Field("context", "int", 131_072, 1, MAX_CONTEXT, doc="tokens per sequence",
          label=QT_TRANSLATE_NOOP("UndoController", "Context length")),
    Field("batch", "int", 1, 1, MAX_BATCH, doc="sequences held at once",
          label=QT_TRANSLATE_NOOP("UndoController", "Batch")),
    Field("dtype", "choice", "bf16", choices=tuple(DTYPE_BYTES), doc="KV-cache element type",
          label=QT_TRANSLATE_NOOP("UndoController", "Cache dtype")),
    Field("weights_dtype", "choice", "bf16", choices=tuple(DTYPE_BYTES),
          doc="element type of the weights",
          label=QT_TRANSLATE_NOOP("UndoController", "Weights dtype")),
    Field("gpu_gb", "float", 80.0, 0.001, MAX_GPU_GB,
          doc="GPU memory in GB (10^9 bytes): 24, 48, 80, 141, 192, ...",
          label=QT_TRANSLATE_NOOP("UndoController", "GPU memory")),
    Field("bandwidth_gbs", "float", 3350.0, 0.001, MAX_BANDWIDTH_GBS,
          doc="GPU memory bandwidth in GB/s: 3350 (H100 SXM), 4800 (H200), 8000 (B200), ...",
          label=QT_TRANSLATE_NOOP("UndoController", "Memory bandwidth")),
)  # fmt: skip


class MemoryState(Topic):
    """A model card and the serving setting whose memory the memory panel shows."""

    NAME = "memory"
    ORDER = 20
    FIELDS = FIELDS

    def card(self) -> ModelCard:
        """The current card: the shipped one itself (with its source), or the custom one."""
        if self.model != CUSTOM:
            return _shipped()[self.model]
        return card_from_values(self._values, self.model)

    def report(self) -> dict:
        """:func:`attnviz.core.kvcache.kv_report` of the current card and setting."""
        return kv_report(
            self.card(),
            self.context,
            batch=self.batch,
            dtype=self.dtype,
            weights_dtype=self.weights_dtype,
        )

    def decode(self, report: dict | None = None) -> dict:
        """:func:`attnviz.core.decode.decode_report` at ``bandwidth_gbs``: what ``attnviz kv
        --bandwidth`` adds to the report."""
        report = self.report() if report is None else report
        return decode_report(report, self.card(), self.bandwidth_gbs)

    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        if "model" in given and new["model"] != CUSTOM:
            shipped = card_values(_shipped()[new["model"]])
            for name, value in shipped.items():
                if name not in given:
                    new[name] = value
        else:
            _follow_dependents(new, old, given)
        if new["model"] != CUSTOM:
            shipped = card_values(_shipped()[new["model"]])
            if any(new[name] != shipped[name] for name in shipped):
                # An edited shipped card is a custom card that starts from it.
                new["model"] = CUSTOM

    def _check(self, v: dict, old: dict) -> None:
        if v["heads"] % v["kv_heads"]:
            raise StateError(
                f"kv_heads ({v['kv_heads']}) must divide heads ({v['heads']}): "
                "each KV head serves a whole group of query heads"
            )
        if v["attention_layers"] > v["layers"]:
            raise StateError(
                f"attention_layers ({v['attention_layers']}) cannot exceed layers ({v['layers']})"
            )
        if v["sliding_layers"] > v["attention_layers"]:
            raise StateError(
                f"sliding_layers ({v['sliding_layers']}) cannot exceed attention_layers "
                f"({v['attention_layers']})"
            )
        if bool(v["sliding_window"]) != bool(v["sliding_layers"]):
            raise StateError(
                "sliding_window and sliding_layers go together: give both, or set both to 0"
            )
        if v["rope_head_dim"] and not v["kv_lora_rank"]:
            raise StateError("rope_head_dim is only used with an MLA latent (kv_lora_rank > 0)")
        try:
            card_from_values(v)
        except ValueError as exc:  # anything the checks above do not name
            raise StateError(str(exc)) from None


def _follow_dependents(new: dict, old: dict, given: set[str]) -> None:
    """Keep "all of them" meaning all: counts that equalled their bound follow it."""
    all_layers = old["attention_layers"] == old["layers"]
    if (
        "layers" in given
        and "attention_layers" not in given
        and (all_layers or new["attention_layers"] > new["layers"])
    ):
        new["attention_layers"] = new["layers"]
    if "heads" in given and "kv_heads" not in given and old["kv_heads"] == old["heads"]:
        new["kv_heads"] = new["heads"]  # MHA stays MHA
    if "sliding_layers" not in given:
        if "sliding_window" in given and not new["sliding_window"]:
            new["sliding_layers"] = 0
        elif new["sliding_window"] and (
            not old["sliding_window"] or old["sliding_layers"] == old["attention_layers"]
        ):
            # A new window, or one that covered every attention layer, covers them all.
            new["sliding_layers"] = new["attention_layers"]
        new["sliding_layers"] = min(new["sliding_layers"], new["attention_layers"])
    if "kv_lora_rank" in given and not new["kv_lora_rank"] and "rope_head_dim" not in given:
        new["rope_head_dim"] = 0


def card_values_from_folder(path: str) -> dict:
    """Fields of the memory topic for the model in ``path`` (its config, counted weights)."""
    # Here, not at the top: every document imports this topic at start-up, and the folder
    # reader (20 ms of imports) is needed only when a model's card is asked for.
    from attnviz.core.builtin_models import resolve_model_path
    from attnviz.core.hf_capture import inspect_folder
    from attnviz.core.hf_config import card_from_hf_config

    info = inspect_folder(resolve_model_path(path), free_bytes=None)  # builtin:NAME too
    card = card_from_hf_config(info.config, info.name, origin=f"{info.name}/config.json")
    values = card_values(card)
    values["params"] = float(card.params or info.params)
    values["model"] = CUSTOM
    floats = [d for d in info.dtypes if d.startswith(("F", "BF"))]
    dtype = {"F32": "fp32", "F16": "fp16", "BF16": "bf16"}.get(
        floats[0] if len(floats) == 1 else ""
    )
    if dtype is not None:
        values["weights_dtype"] = dtype
    return values
