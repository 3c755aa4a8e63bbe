"""A Hugging Face ``config.json`` read into a :class:`~attnviz.core.kvcache.ModelCard`.

The card holds what the KV cache depends on, and each family of models spells it its own way:

- plain and grouped-query models: ``num_hidden_layers``, ``num_attention_heads``,
  ``num_key_value_heads`` (default: one per query head) and ``head_dim`` (default
  ``hidden_size // num_attention_heads``, as transformers computes it);
- sliding windows: ``layer_types`` (``"sliding_attention"`` / ``"full_attention"``, as recent
  Qwen, Gemma and GPT-OSS configs list them), else Gemma-2/3's ``sliding_window_pattern`` (every
  p-th layer is global), else Qwen2's ``use_sliding_window`` with ``max_window_layers``, else a
  single ``sliding_window`` for every layer (Mistral 7B v0.1);
- hybrids, whose linear-attention or state-space layers keep no per-token cache: ``layer_types``
  with ``"linear_attention"`` (Qwen3-Next, Qwen3.5), ``full_attention_interval`` (every k-th
  layer is full attention), Jamba's ``attn_layer_period``/``attn_layer_offset``, Bamba's
  ``attn_layer_indices`` and
  Nemotron-H's ``hybrid_override_pattern`` (``*`` marks an attention layer);
- the fixed state of those layers (:func:`state_sizes`): Gated DeltaNet's ``linear_*`` keys
  (Qwen3-Next, Qwen3.5), Mamba-2's heads, head width and ``d_state`` (Nemotron-H, Bamba,
  Granite 4, Falcon-H1), Jamba's Mamba-1 and LFM2's short convolutions;
- MLA (DeepSeek-V2/V3): ``kv_lora_rank`` and ``qk_rope_head_dim``;
- multimodal configs: the language model's part under ``text_config`` (or ``llm_config``,
  ``language_config``), where transformers leaves out the values equal to its defaults.

``params`` is computed exactly for the dense Llama, Mistral, Qwen2 and Qwen3 layouts (it gives
the shipped cards' counts to the parameter) and left unknown for every other layout.
Every refusal is a ``ValueError`` of one line that names the file and the key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from attnviz.core._files import read_json_file
from attnviz.core.kvcache import CARD_LIMITS, MAX_CONTEXT, MAX_PARAMS, ModelCard, show_number
from attnviz.core.wording import counted

#: Largest config.json read (real ones are a few kB).
MAX_CONFIG_BYTES = 1 << 20
#: Where a multimodal config keeps its language model.
NESTED_KEYS = ("text_config", "llm_config", "language_config")
#: ``layer_types`` entries by what the layer caches per token.
FULL_TYPES = frozenset({"full_attention", "attention", "global_attention"})
WINDOW_TYPES = {"sliding_attention": "sliding_window", "chunked_attention": "attention_chunk_size"}
STATE_TYPES = frozenset({"linear_attention", "mamba", "mamba2", "conv", "recurrent"})
#: Defaults of transformers' config classes for keys a saved config may leave out (a nested
#: text_config only lists what differs from them).
MODEL_DEFAULTS: dict[str, dict[str, int]] = {
    "gemma2": {"head_dim": 256, "num_key_value_heads": 4, "sliding_window": 4096,
               "sliding_window_pattern": 2, "max_position_embeddings": 8192},
    "gemma3_text": {"head_dim": 256, "num_key_value_heads": 4, "sliding_window": 4096,
                    "sliding_window_pattern": 6, "max_position_embeddings": 131072},
    "cohere2": {"sliding_window_pattern": 4},
    "qwen3_next": {"head_dim": 256, "num_key_value_heads": 2, "full_attention_interval": 4},
}  # fmt: skip
MODEL_DEFAULTS["gemma3"] = MODEL_DEFAULTS["gemma3_text"]
#: Dense layouts whose parameter count is computed: model_type → (q/k/v bias, o bias, q/k norm).
_DENSE = {"llama": None, "mistral": None, "qwen2": (True, False, False), "qwen3": None}
_WIDE = 1 << 24  # bound of hidden_size, intermediate_size
_VOCAB = 1 << 27


#: Older names some families' configs give the keys read here.
_ALIASES = {
    "num_hidden_layers": ("n_layer", "n_layers", "num_layers"),
    "num_attention_heads": ("n_head", "n_heads"),
    "hidden_size": ("n_embd", "dim", "d_model"),
    "intermediate_size": ("n_inner", "hidden_dim", "ffn_dim"),
    "max_position_embeddings": ("n_positions", "n_ctx"),
}


class _Reader:
    """Typed, bounded reads of one config dict; every message names the file and the key."""

    def __init__(self, data: dict, origin: str, prefix: str, defaults: dict):
        self.data, self.origin, self.prefix, self.defaults = data, origin, prefix, defaults

    def fail(self, message: str):
        raise ValueError(f"{self.origin}: {message}")

    def _key(self, key: str) -> str:
        """``key``, or the name this config gives it (GPT-2's n_layer, DistilBERT's dim)."""
        if self.data.get(key) is not None:
            return key
        return next((a for a in _ALIASES.get(key, ()) if self.data.get(a) is not None), key)

    def has(self, key: str) -> bool:
        return self.data.get(self._key(key)) is not None or key in self.defaults

    def raw(self, key: str):
        value = self.data.get(self._key(key))
        return self.defaults.get(key) if value is None else value

    def int(self, key: str, high: int, low: int = 1, default=None) -> int | None:
        value = self.raw(key)
        if value is None:
            return default
        name = self.prefix + key
        if isinstance(value, bool) or not isinstance(value, int):
            text = json.dumps(value)
            self.fail(f"{name} must be an integer, got {text[:40]}{'…' if len(text) > 40 else ''}")
        if not low <= value <= high:
            self.fail(f"{name} must be from {low:,} to {high:,}, got {show_number(value)}")
        return value

    def need(self, key: str, high: int) -> int:
        value = self.int(key, high)
        if value is None:
            self.fail(f"missing key {self.prefix + key!r}")
        return value


def _language_part(data: dict) -> tuple[dict, str]:
    """The dict that holds the language model's shape, and its key path for messages."""
    if "num_hidden_layers" not in data:
        for key in NESTED_KEYS:
            if isinstance(data.get(key), dict):
                return data[key], key + "."
    return data, ""


def _layer_kinds(r: _Reader, layers: int) -> tuple[list[str], int | None]:
    """Per layer ``"full"``, ``"window"`` or ``"state"``, and the window of the window layers."""
    types = r.data.get("layer_types")
    if types is not None:
        return _from_layer_types(r, types, layers)
    kinds = ["full"] * layers
    if r.has("full_attention_interval"):
        k = r.int("full_attention_interval", layers)
        kinds = ["full" if (i + 1) % k == 0 else "state" for i in range(layers)]
    elif r.data.get("hybrid_override_pattern") is not None:
        pattern = r.data["hybrid_override_pattern"]
        if not isinstance(pattern, str) or len(pattern) != layers:
            r.fail(f"{r.prefix}hybrid_override_pattern must be a string of {layers} characters")
        kinds = ["full" if c == "*" else "state" for c in pattern]
    elif r.data.get("attn_layer_indices") is not None:  # Bamba, Granite 4 hybrids
        indices = r.data["attn_layer_indices"]
        if not isinstance(indices, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < layers for i in indices
        ):
            r.fail(f"{r.prefix}attn_layer_indices must list layers from 0 to {layers - 1}")
        kinds = ["full" if i in set(indices) else "state" for i in range(layers)]
    elif r.data.get("attn_layer_period") is not None:
        period = r.int("attn_layer_period", layers)
        offset = r.int("attn_layer_offset", period - 1, low=0, default=0)
        kinds = ["full" if i % period == offset else "state" for i in range(layers)]
    window = r.int("sliding_window", CARD_LIMITS["sliding_window"])
    if window is None or r.data.get("use_sliding_window") is False:
        return kinds, None
    attention = [i for i, kind in enumerate(kinds) if kind == "full"]
    if r.has("sliding_window_pattern"):
        p = r.int("sliding_window_pattern", CARD_LIMITS["layers"])
        sliding = [i for i in attention if (i + 1) % p]  # every p-th layer stays global
    elif r.data.get("use_sliding_window") is True and r.has("max_window_layers"):
        # Qwen2: the layers from max_window_layers on use the window.
        first = r.int("max_window_layers", CARD_LIMITS["layers"], low=0)
        sliding = [i for i in attention if i >= first]
    else:
        sliding = attention  # one window for every layer (Mistral 7B v0.1)
    for i in sliding:
        kinds[i] = "window"
    return kinds, window if sliding else None


def _from_layer_types(r: _Reader, types, layers: int) -> tuple[list[str], int | None]:
    key = r.prefix + "layer_types"
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        r.fail(f"{key} must be a list of strings")
    if len(types) != layers:
        r.fail(f"{key} has {len(types)} entries but num_hidden_layers is {layers}")
    kinds, windows = [], {}
    for i, t in enumerate(types):
        if t in FULL_TYPES:
            kinds.append("full")
        elif t in STATE_TYPES:
            kinds.append("state")
        elif t in WINDOW_TYPES:
            size_key = WINDOW_TYPES[t]
            if size_key not in windows:
                windows[size_key] = r.int(size_key, CARD_LIMITS["sliding_window"])
                if windows[size_key] is None:
                    r.fail(f"{key} has {t!r} layers but {r.prefix + size_key} is not given")
            kinds.append("window")
        else:
            known = sorted(FULL_TYPES | STATE_TYPES | set(WINDOW_TYPES))
            r.fail(f"{key}[{i}] is {t[:40]!r}, not a known layer type ({', '.join(known)})")
    sizes = set(windows.values())
    if len(sizes) > 1:
        r.fail(f"{key}: windows of different sizes ({', '.join(map(str, sorted(sizes)))})")
    return kinds, (sizes.pop() if sizes else None)


#: Mamba-2 spellings, (heads, head width, d_state, groups, kernel): Nemotron-H's, then
#: Bamba's, Granite 4's and Falcon-H1's.
_MAMBA2_KEYS = (
    ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel"),
    ("mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_n_groups", "mamba_d_conv"),
)


def state_sizes(r: _Reader) -> tuple[int, int]:
    """``(state_elements, conv_elements)`` one linear or state-space layer keeps per
    sequence, as transformers' cache holds them (0, 0 when the config names no family
    read here):

    - Gated DeltaNet (``linear_num_value_heads``, ``linear_key_head_dim``,
      ``linear_value_head_dim``, ``linear_num_key_heads``, ``linear_conv_kernel_dim``): a
      d_k × d_v state per value head; the convolution over q, k and v
      (2 · key heads · d_k + value heads · d_v channels) keeps the kernel's width of inputs;
    - Mamba-2: heads × head_dim × d_state, and a convolution over x, B and C (heads ·
      head_dim + 2 · groups · d_state channels);
    - Mamba-1 (Jamba): expand · hidden × d_state, and expand · hidden channels;
    - LFM2's short convolutions: hidden_size channels × ``conv_L_cache``.
    """
    big = CARD_LIMITS["head_dim"]
    if r.has("linear_num_value_heads") and r.has("linear_key_head_dim"):
        nv, dk = r.int("linear_num_value_heads", big), r.int("linear_key_head_dim", big)
        dv = r.int("linear_value_head_dim", big, default=dk)
        nk = r.int("linear_num_key_heads", big, default=nv)
        kernel = r.int("linear_conv_kernel_dim", big, default=4)
        return nv * dk * dv, (2 * nk * dk + nv * dv) * kernel
    for heads_key, dim_key, state_key, groups_key, kernel_key in _MAMBA2_KEYS:
        if r.has(heads_key) and r.has(state_key):
            heads, d_state = r.int(heads_key, big), r.int(state_key, big)
            dim = r.int(dim_key, big, default=64)
            groups = r.int(groups_key, big, default=1)
            kernel = r.int(kernel_key, big, default=4)
            return heads * dim * d_state, (heads * dim + 2 * groups * d_state) * kernel
    if r.has("mamba_d_state") and r.has("hidden_size"):  # Jamba's Mamba-1
        inner = r.int("mamba_expand", big, default=2) * r.int("hidden_size", _WIDE)
        return inner * r.int("mamba_d_state", big), inner * r.int("mamba_d_conv", big, default=4)
    if r.has("conv_L_cache") and r.has("hidden_size"):  # LFM2
        return 0, r.int("hidden_size", _WIDE) * r.int("conv_L_cache", big)
    return 0, 0


def _dense_params(r: _Reader, model_type, heads: int, kv_heads: int, head_dim: int, layers: int):
    """The exact parameter count of a dense Llama/Mistral/Qwen2/Qwen3 layout, else None."""
    if model_type not in _DENSE or not all(
        r.has(k) for k in ("hidden_size", "intermediate_size", "vocab_size")
    ):
        return None
    h = r.int("hidden_size", _WIDE)
    inter = r.int("intermediate_size", _WIDE)
    vocab = r.int("vocab_size", _VOCAB)
    q, kv = heads * head_dim, kv_heads * head_dim
    attention_bias = r.data.get("attention_bias") is True
    qkv_bias, o_bias, qk_norm = _DENSE[model_type] or (
        attention_bias,
        attention_bias,
        model_type == "qwen3",
    )
    per_layer = h * q + 2 * h * kv + q * h + 3 * h * inter + 2 * h
    per_layer += (q + 2 * kv) * qkv_bias + h * o_bias + 2 * head_dim * qk_norm
    if r.data.get("mlp_bias") is True:
        per_layer += 2 * inter + h
    tied = r.data.get("tie_word_embeddings") is True
    total = layers * per_layer + vocab * h * (1 if tied else 2) + h
    return total if total <= MAX_PARAMS else None


def _default_name(data: dict, model_type) -> str:
    path, archs = data.get("_name_or_path"), data.get("architectures")
    if isinstance(path, str) and path.strip("/"):
        return path.rstrip("/").rsplit("/", 1)[-1]
    if isinstance(archs, list) and archs and isinstance(archs[0], str):
        return archs[0]
    return model_type if isinstance(model_type, str) else "config.json"


def card_from_hf_config(
    data: dict, name: str | None = None, *, origin: str = "config.json"
) -> ModelCard:
    """A :class:`ModelCard` from the dict of a Hugging Face ``config.json``.

    Parameters
    ----------
    data : the parsed config (a multimodal one may nest the language model under
        ``text_config``)
    name : the card's display name (default: ``_name_or_path``, the architecture or the
        model type given in the config)
    origin : where the config came from, the first word of every error message

    Raises
    ------
    ValueError
        one line naming ``origin`` and the key: a missing or non-integer key, a value out of
        range (the limits of :data:`attnviz.core.kvcache.CARD_LIMITS`), KV heads that do not
        divide the query heads, an unknown ``layer_types`` entry, no attention layer at all
    """
    if not isinstance(data, dict):
        raise ValueError(f"{origin}: expected a JSON object, got {type(data).__name__}")
    part, prefix = _language_part(data)
    model_type = part.get("model_type") or data.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(
            f"{origin}: {prefix}model_type must be text, got {type(model_type).__name__}"
        )
    defaults = MODEL_DEFAULTS.get(model_type, {})
    r = _Reader(part, origin, prefix, defaults)
    layers = r.need("num_hidden_layers", CARD_LIMITS["layers"])
    heads = r.need("num_attention_heads", CARD_LIMITS["n_heads"])
    kv_heads = r.int("num_key_value_heads", CARD_LIMITS["n_kv_heads"], default=heads)
    if heads % kv_heads:
        r.fail(
            f"{prefix}num_key_value_heads ({kv_heads}) must divide "
            f"{prefix}num_attention_heads ({heads})"
        )
    mla = r.int("kv_lora_rank", CARD_LIMITS["kv_lora_rank"])
    rope = None
    if mla is not None:
        rope = r.int("qk_rope_head_dim", CARD_LIMITS["rope_head_dim"], low=0)
        if rope is None:
            r.fail(f"{prefix}kv_lora_rank is set (MLA) but {prefix}qk_rope_head_dim is missing")
    head_keys = ("qk_nope_head_dim", "v_head_dim", "head_dim") if mla else ("head_dim",)
    head_dim = next(
        (r.int(k, CARD_LIMITS["head_dim"]) for k in head_keys if r.has(k)),
        None,
    )
    if head_dim is None:
        if not r.has("hidden_size"):
            r.fail(f"missing key {prefix + 'head_dim'!r} (or {prefix + 'hidden_size'!r})")
        head_dim = r.int("hidden_size", _WIDE) // heads
        if head_dim < 1:
            r.fail(f"{prefix}hidden_size is smaller than {prefix}num_attention_heads ({heads})")
    kinds, window = _layer_kinds(r, layers)
    attention = sum(kind != "state" for kind in kinds)
    if attention == 0:
        r.fail(
            "no attention layer: a model of linear-attention or state-space layers only "
            "has no per-token KV cache"
        )
    context = r.int("max_position_embeddings", MAX_CONTEXT)
    state, conv = state_sizes(r) if attention < layers else (0, 0)
    params = None
    if not prefix and mla is None:  # a multimodal model also has a vision tower
        params = _dense_params(r, model_type, heads, kv_heads, head_dim, layers)
    if name is None:
        name = _default_name(data, model_type)
    shape = (
        f"{counted(layers, 'layer')}, {counted(heads, 'head')}, {counted(kv_heads, 'KV head')}, "
        f"head_dim {head_dim}"
    )
    if mla:
        shape += f", MLA latent {mla} + {rope}"
    if attention < layers:
        shape += f", {attention} of the layers with attention"
    if window:
        shape += f", {kinds.count('window')} with a {window:,}-token window"
    if state or conv:
        shape += f", each other layer keeps {state:,} + {conv:,} state elements"
    try:
        return ModelCard(
            name=str(name)[:200],
            layers=layers,
            n_heads=heads,
            n_kv_heads=kv_heads,
            head_dim=head_dim,
            kv_lora_rank=mla,
            rope_head_dim=rope,
            attention_layers=attention,
            sliding_window=window,
            sliding_layers=kinds.count("window"),
            params=params,
            state_elements=state,
            conv_elements=conv,
            source=f"Hugging Face config {origin} ({model_type or 'no model_type'}): {shape}",
            context=context,
        )
    except ValueError as exc:
        raise ValueError(f"{origin}: {exc}") from None


#: Families that are encoders only: they read a whole sequence at once and generate no
#: token, so they keep no KV cache between steps (their configs name a bare model as often
#: as a head, ``BertModel``).
ENCODER_TYPES = frozenset({
    "albert", "bert", "big_bird", "camembert", "canine", "convbert", "data2vec-text",
    "deberta", "deberta-v2", "distilbert", "electra", "ernie", "esm", "flaubert", "funnel",
    "ibert", "layoutlm", "layoutlmv2", "layoutlmv3", "longformer", "luke", "megatron-bert",
    "mobilebert", "modernbert", "mpnet", "nezha", "nomic_bert", "nystromformer", "rembert",
    "roberta", "roberta-prelayernorm", "roc_bert", "roformer", "squeezebert", "xlm",
    "xlm-roberta", "xlm-roberta-xl", "xmod", "yoso",
})  # fmt: skip
#: Heads of a model that generates (a decoder, or an encoder–decoder's decoder).
_GENERATING_HEADS = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration",
                     "ForImageTextToText", "ForSeq2SeqLM")  # fmt: skip


def is_encoder_config(data: dict) -> bool:
    """True when a config describes an encoder only (BERT, RoBERTa, a masked language
    model): no model that generates, by its architectures, ``is_decoder`` or an
    encoder–decoder layout, and an encoder family or a masked-LM head."""
    if not isinstance(data, dict):
        return False
    part, _prefix = _language_part(data)
    names = data.get("architectures")
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    if any(n.endswith(_GENERATING_HEADS) for n in names):
        return False
    if True in (data.get("is_encoder_decoder"), part.get("is_decoder"), data.get("is_decoder")):
        return False
    model_type = part.get("model_type") or data.get("model_type")
    return model_type in ENCODER_TYPES or any(n.endswith("ForMaskedLM") for n in names)


def config_file(path: str | os.PathLike) -> Path:
    """The ``config.json`` that ``path`` names: the file itself, or the one in the model
    folder ``path`` (ValueError naming the folder when it has none)."""
    p = Path(path)
    try:
        is_dir = p.is_dir()
    except OSError:
        # A name too long or otherwise unstatable: the JSON read says why in one line.
        return p
    if is_dir:
        inside = p / "config.json"
        if not (inside.exists() or inside.is_symlink()):
            raise ValueError(
                f"{p}: a folder without a config.json (give the model's folder or its config.json)"
            )
        return inside
    return p


def read_hf_config(path: str | os.PathLike) -> tuple[dict, str, str | None]:
    """``(data, origin, name)`` of the ``config.json`` at ``path`` (a file or a model
    folder): the parsed JSON, the file as messages name it, and the folder's name when the
    file is called ``config.json`` (``Meta-Llama-3-8B``). One-line ValueError otherwise
    (see :func:`load_hf_config`)."""
    p = config_file(path)
    origin = str(p)
    try:
        data = read_json_file(p, MAX_CONFIG_BYTES)
    except ValueError as exc:
        raise ValueError(f"{origin}: {exc}") from None
    name = None
    if p.name == "config.json" and p.resolve().parent.name:
        name = p.resolve().parent.name
    return data, origin, name


def load_hf_config(path: str | os.PathLike, name: str | None = None) -> ModelCard:
    """Read a Hugging Face ``config.json`` (the file, or a model folder holding it) into a
    :class:`ModelCard`.

    The name defaults to the folder of a file called ``config.json`` (``Meta-Llama-3-8B``),
    else to what the config says. Refuses, with a one-line ``ValueError`` naming the file,
    anything but a regular file of at most :data:`MAX_CONFIG_BYTES` of UTF-8 JSON (a folder
    without one), and every config :func:`card_from_hf_config` refuses.
    """
    data, origin, folder_name = read_hf_config(path)
    return card_from_hf_config(data, name or folder_name, origin=origin)
