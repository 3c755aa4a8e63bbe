"""The families the tests prove open, and what attnviz shows of each (no Qt, no torch).

A model opens when its capture's proof holds, listed here or not; this table is what
``attnviz models --families`` says is known to open, each family a tiny random model built
in the tests (tests/core/test_hf_families*.py) and checked against transformers' own
weights. ``FAMILIES`` maps a ``model_type`` to ``"encoder"`` or ``"decoder"``;
:data:`SHOWS` says, in a few words, what is particular in what the heatmap shows of it.
"""

from __future__ import annotations

E, D = "encoder", "decoder"

#: model_type → (kind, what the heatmap shows beyond plain softmax attention).
TABLE: dict[str, tuple[str, str]] = {
    # Encoders.
    "bert": (E, "every pair"), "roberta": (E, "every pair"), "xlm-roberta": (E, "every pair"),
    "electra": (E, "every pair"), "distilbert": (E, "every pair"),
    "albert": (E, "one layer's weights shared by every layer"),
    "modernbert": (E, "local layers: a window looking both ways"),
    # Decoders of softmax attention.
    "llama": (D, "grouped KV heads"), "mistral": (D, "a sliding window"),
    "mixtral": (D, "a sliding window, experts"), "ministral": (D, "sliding and full layers"),
    "ministral3": (D, "grouped KV heads"), "qwen2": (D, "grouped KV heads"),
    "qwen3": (D, "q/k norms"), "qwen3_moe": (D, "q/k norms, experts"),
    "gemma": (D, "grouped KV heads"), "gemma2": (D, "score capping, sliding layers"),
    "gemma3_text": (D, "sliding and full layers, its own query scale"),
    "gemma3n_text": (D, "sliding and full layers, KV shared between layers"),
    "phi3": (D, "grouped KV heads"), "phimoe": (D, "experts"), "olmo": (D, "causal"),
    "olmo2": (D, "q/k norms"), "olmo3": (D, "sliding and full layers"),
    "flex_olmo": (D, "experts"), "granite": (D, "its own attention multiplier"),
    "smollm3": (D, "NoPE layers"), "gpt2": (D, "causal"), "gpt_neox": (D, "partial rotary"),
    "phi": (D, "partial rotary"), "stablelm": (D, "partial rotary"),
    "gptj": (D, "rotary on a part"), "opt": (D, "causal"), "cohere": (D, "grouped KV heads"),
    "cohere2": (D, "sliding and full layers"), "starcoder2": (D, "a sliding window"),
    "gpt_oss": (D, "attention sinks, sliding layers"), "bloom": (D, "ALiBi"),
    "falcon": (D, "multi-query or grouped KV heads"), "glm": (D, "partial rotary"),
    "glm4": (D, "partial rotary"), "glm4_moe": (D, "q/k norms, experts"),
    "minimax_m2": (D, "experts"), "seed_oss": (D, "grouped KV heads"),
    "apertus": (D, "grouped KV heads"), "exaone4": (D, "sliding and full layers"),
    "ernie4_5": (D, "grouped KV heads"), "ernie4_5_moe": (D, "experts"),
    "arcee": (D, "grouped KV heads"), "dots1": (D, "sliding and full layers, experts"),
    "hunyuan_v1_dense": (D, "q/k norms"), "hunyuan_v1_moe": (D, "q/k norms, experts"),
    "llama4_text": (D, "chunked attention, NoPE layers (temperature tuned)"),
    # Multi-head latent attention: each head's latent part (decompressed) and rotary part.
    "deepseek_v3": (D, "multi-head latent attention"),
    "mistral4": (D, "multi-head latent attention"),
    "longcat_flash": (D, "multi-head latent attention, two per block"),
    # DeepSeek Sparse Attention: an indexer's top-k keys, recomputed and drawn as a mask.
    "deepseek_v32": (D, "latent attention over the keys its indexer picks"),
    "glm_moe_dsa": (D, "latent attention over the keys its indexer picks"),
    # Multimodal folders: their language model (the vision tower is not shown).
    "gemma3": (D, "Gemma 3's language model"), "gemma4": (D, "Gemma 4's language model"),
    "mistral3": (D, "Mistral 3's language model"), "llama4": (D, "Llama 4's language model"),
    "qwen2_5_vl": (D, "Qwen2.5-VL's language model"), "qwen3_vl": (D, "Qwen3-VL's language model"),
    # Hybrids: the softmax layers shown exactly, every other layer as its proven M.
    "qwen3_next": (D, "hybrid: Gated DeltaNet, gated softmax layers"),
    "qwen3_5": (D, "hybrid: Gated DeltaNet, gated softmax layers (language model)"),
    "qwen3_5_moe": (D, "hybrid: Gated DeltaNet, gated softmax layers (language model)"),
    "kimi_linear": (D, "hybrid: KDA and latent attention"),
    "bailing_hybrid": (D, "hybrid: a gated delta rule and gated latent attention"),
    "olmo_hybrid": (D, "hybrid: Gated DeltaNet"), "minimax": (D, "hybrid: lightning attention"),
    "granitemoehybrid": (D, "hybrid: Mamba-2"), "nemotron_h": (D, "hybrid: Mamba-2, MLP layers"),
    "falcon_h1": (D, "hybrid: Mamba-2 beside attention in every layer"),
    "jamba": (D, "hybrid: Mamba"), "zamba2": (D, "hybrid: Mamba-2, a shared attention block"),
    "bamba": (D, "hybrid: Mamba-2"), "lfm2": (D, "hybrid: short convolutions"),
    # State-space models: no softmax layer; every layer drawn as its proven M.
    "mamba2": (D, "state-space: Mamba-2 in every layer"),
    "mamba": (D, "state-space: Mamba in every layer, a head per channel"),
    "falcon_mamba": (D, "state-space: Mamba in every layer, a head per channel"),
}  # fmt: skip
#: model_type → "encoder" or "decoder".
FAMILIES = {name: kind for name, (kind, _shows) in TABLE.items()}
#: model_type → what the heatmap shows of it beyond plain softmax attention.
SHOWS = {name: shows for name, (_kind, shows) in TABLE.items()}
