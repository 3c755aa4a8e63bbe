"""Hugging Face config.json → ModelCard: real configs give the shipped cards' numbers.

The dicts below are the published config.json files (keys that play no part trimmed only
where noted); where a shipped card exists the whole report must agree with it, otherwise the
expected bytes are computed by hand in the test.
"""

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from attnviz.core.hf_config import MAX_CONFIG_BYTES, card_from_hf_config, load_hf_config
from attnviz.core.kvcache import kv_bytes_per_token, kv_cache_bytes, kv_report, model_card

GIB = 2**30

# meta-llama/Llama-3.1-8B
LLAMA_3_1_8B = json.loads(
    """
{"architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
"bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
"initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
"mlp_bias": false, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
"num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling":
{"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
"original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0,
"tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version":
"4.43.0.dev0", "use_cache": true, "vocab_size": 128256}
"""
)

# meta-llama/Llama-3.1-70B
LLAMA_3_1_70B = {
    **LLAMA_3_1_8B,
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
}

# mistralai/Mistral-7B-v0.1
MISTRAL_7B_V01 = json.loads(
    """
{"architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act":
"silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
"max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32,
"num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta":
10000.0, "sliding_window": 4096, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
"transformers_version": "4.34.0.dev0", "use_cache": true, "vocab_size": 32000}
"""
)

# Qwen/Qwen2.5-7B: a sliding_window is given, but use_sliding_window is false.
QWEN2_5_7B = json.loads(
    """
{"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
"eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584, "initializer_range": 0.02,
"intermediate_size": 18944, "max_position_embeddings": 131072, "max_window_layers": 28,
"model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28,
"num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window":
131072, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version":
"4.40.1", "use_cache": true, "use_mrope": false, "use_sliding_window": false, "vocab_size":
152064}
"""
)

# Qwen/Qwen3-8B (its own head_dim; max_position_embeddings 40960, the card says 32768)
QWEN3_8B = json.loads(
    """
{"architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
"bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
"hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 12288,
"max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
"num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps":
1e-06, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
"tie_word_embeddings": false, "torch_dtype": "bfloat16", "transformers_version": "4.51.0",
"use_cache": true, "use_sliding_window": false, "vocab_size": 151936}
"""
)

# google/gemma-2-9b: even layers slide over 4096 tokens, odd layers are global (no
# layer_types in this config: transformers' Gemma2 alternates by default).
GEMMA_2_9B = json.loads(
    """
{"architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
"attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid",
"eos_token_id": 1, "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act":
"gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584,
"initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 8192,
"model_type": "gemma2", "num_attention_heads": 16, "num_hidden_layers": 42,
"num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps":
1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096,
"torch_dtype": "float32", "transformers_version": "4.42.0.dev0", "use_cache": true,
"vocab_size": 256000}
"""
)

# google/gemma-3-12b-it: multimodal; the text_config lists only what differs from
# transformers' defaults (head_dim 256, one global layer in 6, 131072 positions).
GEMMA_3_12B_IT = json.loads(
    """
{"architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999,
"eoi_token_index": 256000, "eos_token_id": [1, 106], "image_token_index": 262144,
"initializer_range": 0.02, "mm_tokens_per_image": 256, "model_type": "gemma3", "text_config":
{"hidden_size": 3840, "intermediate_size": 15360, "model_type": "gemma3_text",
"num_attention_heads": 16, "num_hidden_layers": 48, "num_key_value_heads": 8, "rope_scaling":
{"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024}, "torch_dtype": "bfloat16",
"transformers_version": "4.50.0.dev0", "vision_config": {"hidden_size": 1152, "image_size":
896, "intermediate_size": 4304, "model_type": "siglip_vision_model", "num_attention_heads":
16, "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}}
"""
)

# deepseek-ai/DeepSeek-V3 (quantization_config and auto_map left out)
DEEPSEEK_V3 = json.loads(
    """
{"architectures": ["DeepseekV3ForCausalLM"], "attention_bias": false, "attention_dropout":
0.0, "bos_token_id": 0, "eos_token_id": 1, "ep_size": 1, "first_k_dense_replace": 3,
"hidden_act": "silu", "hidden_size": 7168, "initializer_range": 0.02, "intermediate_size":
18432, "kv_lora_rank": 512, "max_position_embeddings": 163840, "model_type": "deepseek_v3",
"moe_intermediate_size": 2048, "moe_layer_freq": 1, "n_group": 8, "n_routed_experts": 256,
"n_shared_experts": 1, "norm_topk_prob": true, "num_attention_heads": 128,
"num_experts_per_tok": 8, "num_hidden_layers": 61, "num_key_value_heads": 128,
"num_nextn_predict_layers": 1, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
"qk_rope_head_dim": 64, "rms_norm_eps": 1e-06, "rope_scaling": {"beta_fast": 32, "beta_slow":
1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings":
4096, "type": "yarn"}, "rope_theta": 10000, "routed_scaling_factor": 2.5, "scoring_func":
"sigmoid", "tie_word_embeddings": false, "topk_group": 4, "topk_method": "noaux_tc",
"torch_dtype": "bfloat16", "transformers_version": "4.33.1", "use_cache": true, "v_head_dim":
128, "vocab_size": 129280}
"""
)

# Qwen/Qwen3-Next-80B-A3B-Instruct: one full-attention layer in four, the rest Gated DeltaNet.
QWEN3_NEXT_80B = json.loads(
    """
{"architectures": ["Qwen3NextForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
"bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645,
"full_attention_interval": 4, "head_dim": 256, "hidden_act": "silu", "hidden_size": 2048,
"initializer_range": 0.02, "intermediate_size": 5120, "linear_conv_kernel_dim": 4,
"linear_key_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
"linear_value_head_dim": 128, "max_position_embeddings": 262144, "mlp_only_layers": [],
"model_type": "qwen3_next", "moe_intermediate_size": 512, "norm_topk_prob": true,
"num_attention_heads": 16, "num_experts": 512, "num_experts_per_tok": 10, "num_hidden_layers":
48, "num_key_value_heads": 2, "output_router_logits": false, "partial_rotary_factor": 0.25,
"rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 10000000, "router_aux_loss_coef":
0.001, "shared_expert_intermediate_size": 512, "tie_word_embeddings": false, "torch_dtype":
"bfloat16", "transformers_version": "4.57.0.dev0", "use_cache": true, "use_sliding_window":
false, "vocab_size": 151936}
"""
)

# The lesson's Qwen3.8-27B (the shipped card qwen3.8-27b) written as a Qwen3.5-style
# multimodal config: the language model under text_config, its layers listed by layer_types.
QWEN3_8_27B_STYLE = {
    "architectures": ["Qwen3_5ForConditionalGeneration"],
    "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text",
        "num_hidden_layers": 64,
        "num_attention_heads": 24,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "hidden_size": 5120,
        "full_attention_interval": 4,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 16,
        "max_position_embeddings": 262144,
        "linear_num_value_heads": 48,
        "linear_num_key_heads": 16,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
    },
    "vision_config": {"model_type": "qwen3_5_vision", "depth": 27},
}


def _same_report(card, shipped_id: str, context: int):
    """The card's report equals the shipped card's in everything but the card's own text."""
    shipped = model_card(shipped_id)
    mine, theirs = kv_report(card, context), kv_report(shipped, context)
    for key in ("kv_bytes_per_token", "kv_cache_bytes", "cached_tokens_per_layer", "variants"):
        assert mine[key] == theirs[key], key
    text = ("name", "id", "source", "notes", "context", "params")
    assert replace(card, **{k: getattr(shipped, k) for k in text}) == shipped


# --- real configs reproduce the shipped cards ---------------------------------------------------


def test_llama_3_1_8b_is_the_chapter_example():
    card = card_from_hf_config(LLAMA_3_1_8B)
    assert kv_bytes_per_token(card) == 131_072  # 128 KiB
    assert kv_cache_bytes(card, 131_072) == 16 * GIB
    assert card.context == 131_072 and card.attention_kind == "GQA"
    assert card.params == model_card("llama-3-8b").params == 8_030_261_248  # to the parameter
    _same_report(card, "llama-3-8b", 131_072)
    assert (
        kv_report(card, 131_072)["weights_bytes"]
        == kv_report(model_card("llama-3-8b"), 131_072)["weights_bytes"]
    )


def test_llama_3_1_70b():
    card = card_from_hf_config(LLAMA_3_1_70B)
    assert card.params == model_card("llama-3-70b").params == 70_553_706_496
    _same_report(card, "llama-3-70b", 131_072)


def test_mistral_7b_v01_slides_every_layer_over_4096_tokens():
    card = card_from_hf_config(MISTRAL_7B_V01)
    assert (card.sliding_window, card.sliding_layers) == (4096, 32)
    assert kv_bytes_per_token(card) == 131_072
    assert kv_cache_bytes(card, 131_072) == kv_cache_bytes(card, 4096) == 512 * 2**20
    assert card.params == model_card("mistral-7b").params == 7_241_732_096
    _same_report(card, "mistral-7b", 32_768)
    _same_report(card, "mistral-7b", 1000)


def test_qwen2_5_7b_ignores_its_disabled_window():
    card = card_from_hf_config(QWEN2_5_7B)
    assert card.sliding_window is None and card.sliding_layers == 0
    assert kv_bytes_per_token(card) == 28 * 2 * 4 * 128 * 2 == 57_344
    assert card.params == model_card("qwen2.5-7b").params == 7_615_616_512  # q/k/v biases
    _same_report(card, "qwen2.5-7b", 131_072)


def test_qwen2_window_from_max_window_layers():
    card = card_from_hf_config({**QWEN2_5_7B, "use_sliding_window": True, "sliding_window": 4096,
                                "max_window_layers": 20})  # fmt: skip
    assert (card.sliding_window, card.sliding_layers) == (4096, 8)  # layers 20..27


def test_qwen3_8b():
    card = card_from_hf_config(QWEN3_8B)
    assert card.params == model_card("qwen3-8b").params == 8_190_735_360  # q/k norms
    assert card.context == 40_960
    _same_report(card, "qwen3-8b", 32_768)


def test_deepseek_v3_mla():
    card = card_from_hf_config(DEEPSEEK_V3)
    assert card.attention_kind == "MLA"
    assert (card.kv_lora_rank, card.rope_head_dim, card.head_dim) == (512, 64, 128)
    assert kv_bytes_per_token(card) == 61 * (512 + 64) * 2 == 70_272
    assert card.params is None  # MoE + MLA: not estimated
    _same_report(card, "deepseek-v3", 131_072)


def test_qwen3_8_27b_as_a_nested_layer_types_config():
    card = card_from_hf_config(QWEN3_8_27B_STYLE)
    assert (card.layers, card.attention_layers) == (64, 16)
    assert kv_bytes_per_token(card) == 16 * 2 * 4 * 256 * 2 == 65_536
    assert card.params is None  # a vision tower too: not estimated
    _same_report(card, "qwen3.8-27b", 262_144)


# --- configs without a shipped card: hand-computed ------------------------------------------------


def test_gemma_2_alternates_sliding_and_global_layers():
    card = card_from_hf_config(GEMMA_2_9B)
    assert (card.layers, card.sliding_layers, card.sliding_window) == (42, 21, 4096)
    per_layer_token = 2 * 8 * 256 * 2  # 8192 bytes
    assert kv_bytes_per_token(card) == 42 * per_layer_token == 344_064
    # At 8192 tokens the 21 global layers hold 8192, the 21 sliding ones 4096.
    assert kv_cache_bytes(card, 8192) == (21 * 8192 + 21 * 4096) * per_layer_token
    assert card.params is None


def test_gemma_2_with_layer_types_gives_the_same_card():
    types = ["sliding_attention", "full_attention"] * 21
    listed = card_from_hf_config({**GEMMA_2_9B, "layer_types": types})
    assert listed == card_from_hf_config(GEMMA_2_9B)


def test_gemma_3_nested_uses_transformers_defaults():
    card = card_from_hf_config(GEMMA_3_12B_IT, "Gemma 3 12B")
    assert card.name == "Gemma 3 12B"
    assert (card.layers, card.n_heads, card.n_kv_heads, card.head_dim) == (48, 16, 8, 256)
    assert (card.sliding_layers, card.sliding_window) == (40, 1024)  # 5 of every 6 layers
    assert card.context == 131_072
    per_layer_token = 2 * 8 * 256 * 2
    assert kv_cache_bytes(card, 131_072) == (8 * 131_072 + 40 * 1024) * per_layer_token


def test_gemma_3_pattern_and_layer_types_agree():
    text = {**GEMMA_3_12B_IT["text_config"], "sliding_window_pattern": 6}
    types = (["sliding_attention"] * 5 + ["full_attention"]) * 8
    a = card_from_hf_config({**GEMMA_3_12B_IT, "text_config": text})
    b = card_from_hf_config({**GEMMA_3_12B_IT, "text_config": {**text, "layer_types": types}})
    assert a == b and a.sliding_layers == 40


def test_qwen3_next_keeps_a_cache_in_one_layer_of_four():
    card = card_from_hf_config(QWEN3_NEXT_80B)
    assert (card.layers, card.attention_layers, card.sliding_layers) == (48, 12, 0)
    assert kv_bytes_per_token(card) == 12 * 2 * 2 * 256 * 2 == 24_576
    assert kv_cache_bytes(card, 262_144) == 6 * GIB
    types = ["linear_attention"] * 3 + ["full_attention"]
    listed = {**QWEN3_NEXT_80B, "layer_types": types * 12}
    assert card_from_hf_config(listed) == card
    assert card.params is None


def test_jamba_and_nemotron_h_hybrids():
    jamba = {"model_type": "jamba", "num_hidden_layers": 32, "num_attention_heads": 32,
             "num_key_value_heads": 8, "hidden_size": 4096, "attn_layer_period": 8,
             "attn_layer_offset": 4, "sliding_window": None}  # fmt: skip
    card = card_from_hf_config(jamba)
    assert card.attention_layers == 4 and kv_bytes_per_token(card) == 4 * 2 * 8 * 128 * 2
    pattern = "M-M-M*-" * 4  # 28 layers, 4 with attention
    nemotron = {**BASE, "num_hidden_layers": 28, "hybrid_override_pattern": pattern}
    card = card_from_hf_config(nemotron)
    assert (card.layers, card.attention_layers) == (28, 4)


def test_gpt_oss_style_layer_types_and_defaults():
    cfg = {"model_type": "gpt_oss", "num_hidden_layers": 24, "num_attention_heads": 64,
           "num_key_value_heads": 8, "head_dim": 64, "sliding_window": 128,
           "layer_types": ["sliding_attention", "full_attention"] * 12}  # fmt: skip
    card = card_from_hf_config(cfg)
    assert (card.sliding_layers, card.sliding_window) == (12, 128)
    assert kv_cache_bytes(card, 1000) == (12 * 1000 + 12 * 128) * 2 * 8 * 64 * 2
    no_kv = card_from_hf_config({k: v for k, v in cfg.items() if k != "num_key_value_heads"})
    assert no_kv.n_kv_heads == 64  # default: one KV head per query head (MHA)
    assert card.name == "gpt_oss"


def test_head_dim_defaults_to_hidden_over_heads_and_names():
    cfg = {"num_hidden_layers": 2, "num_attention_heads": 12, "hidden_size": 768,
           "_name_or_path": "org/tiny-model"}  # fmt: skip
    card = card_from_hf_config(cfg)
    assert card.head_dim == 64 and card.name == "tiny-model" and card.context is None
    assert card.params is None  # no model_type: not estimated


def test_tied_embeddings_count_once():
    tied = card_from_hf_config({**LLAMA_3_1_8B, "tie_word_embeddings": True})
    assert tied.params == 8_030_261_248 - 128_256 * 4096


# --- refused configs ---------------------------------------------------------------------------

BASE = {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "head_dim": 128}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"num_hidden_layers": None}, "missing key 'num_hidden_layers'"),
        ({"num_attention_heads": None}, "missing key 'num_attention_heads'"),
        ({"num_hidden_layers": "32"}, 'num_hidden_layers must be an integer, got "32"'),
        ({"num_hidden_layers": 32.5}, "num_hidden_layers must be an integer"),
        ({"num_hidden_layers": True}, "num_hidden_layers must be an integer"),
        ({"num_hidden_layers": 0}, "num_hidden_layers must be from 1 to 100,000, got 0"),
        ({"num_hidden_layers": 10**400}, "num_hidden_layers must be from 1 to 100,000, got a "
                                         "number of about 401 digits"),
        ({"num_attention_heads": -4}, "num_attention_heads must be from 1"),
        ({"num_key_value_heads": 3}, r"num_key_value_heads \(3\) must divide num_attention_heads"),
        ({"head_dim": 70_000}, "head_dim must be from 1 to 65,536"),
        ({"head_dim": None}, "missing key 'head_dim' \\(or 'hidden_size'\\)"),
        ({"head_dim": None, "hidden_size": 16}, "hidden_size is smaller"),
        ({"sliding_window": 0}, "sliding_window must be from 1"),
        ({"sliding_window": [4096]}, "sliding_window must be an integer"),
        ({"max_position_embeddings": 2**41}, "max_position_embeddings must be from 1 to"),
        ({"layer_types": ["full_attention"] * 31}, "layer_types has 31 entries but "
                                                    "num_hidden_layers is 32"),
        ({"layer_types": ["full_attention"] * 31 + ["moe"]}, r"layer_types\[31\] is 'moe'"),
        ({"layer_types": "full_attention"}, "layer_types must be a list of strings"),
        ({"layer_types": ["sliding_attention"] * 32}, "sliding_window is not given"),
        ({"layer_types": ["linear_attention"] * 32}, "no attention layer"),
        ({"full_attention_interval": 0}, "full_attention_interval must be from 1 to 32"),
        ({"kv_lora_rank": 512}, "qk_rope_head_dim is missing"),
        ({"kv_lora_rank": "512"}, "kv_lora_rank must be an integer"),
        ({"hybrid_override_pattern": "M*"}, "hybrid_override_pattern must be a string of 32"),
    ],
)  # fmt: skip
def test_broken_configs_are_refused_with_one_line(change, match):
    cfg = {**BASE, **change}
    cfg = {k: v for k, v in cfg.items() if v is not None}
    with pytest.raises(ValueError, match=match) as err:
        card_from_hf_config(cfg, origin="x/config.json")
    message = str(err.value)
    assert message.startswith("x/config.json: ") and "\n" not in message and len(message) < 200


def test_a_window_pattern_of_one_leaves_every_layer_global():
    card = card_from_hf_config({**BASE, "sliding_window": 100, "sliding_window_pattern": 1})
    assert card.sliding_layers == 0 and card.sliding_window is None


def test_nested_keys_are_named_with_their_path():
    with pytest.raises(ValueError, match="text_config.num_key_value_heads must be an integer"):
        card_from_hf_config({"text_config": {**BASE, "num_key_value_heads": "8"}})
    with pytest.raises(ValueError, match="missing key 'num_hidden_layers'"):
        card_from_hf_config({"vision_config": BASE})
    with pytest.raises(ValueError, match="expected a JSON object, got list"):
        card_from_hf_config([BASE])


# --- files ---------------------------------------------------------------------------------------


def _write(tmp_path, data, name="config.json") -> str:
    folder = tmp_path / "Meta-Llama-3.1-8B"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)


def test_load_names_the_card_after_its_folder(tmp_path):
    card = load_hf_config(_write(tmp_path, LLAMA_3_1_8B))
    assert card.name == "Meta-Llama-3.1-8B" and kv_bytes_per_token(card) == 131_072
    assert "config.json" in card.source
    other = load_hf_config(_write(tmp_path, LLAMA_3_1_8B, "llama.json"), name="mine")
    assert other.name == "mine"
    assert load_hf_config(_write(tmp_path, LLAMA_3_1_8B, "llama.json")).name == ("LlamaForCausalLM")


def test_load_accepts_a_byte_order_mark_and_a_symlink(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(BASE).encode())
    assert load_hf_config(path).layers == 32
    link = tmp_path / "link.json"
    link.symlink_to(path)
    assert load_hf_config(link).layers == 32


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"num_hidden_layers": 32', "not valid JSON"),
        ("", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
        ('{"num_hidden_layers": ' + "9" * 5000 + "}", "not valid JSON"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        ("[1, 2]", "expected a JSON object, got list"),
        (json.dumps({**BASE, "num_key_value_heads": 5}), "must divide"),
    ],
)
def test_load_refuses_broken_files(tmp_path, content, match):
    path = tmp_path / "config.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=match) as err:
        load_hf_config(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)
    assert len(str(err.value)) < 300


def test_load_refuses_what_is_not_a_small_regular_file(tmp_path):
    with pytest.raises(ValueError, match="a folder without a config.json"):
        load_hf_config(tmp_path)
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ValueError, match="config.json: not a regular file"):
        load_hf_config(tmp_path)
    with pytest.raises(ValueError, match="cannot read it"):
        load_hf_config(tmp_path / "missing.json")
    big = tmp_path / "big.json"
    big.write_text(json.dumps({**BASE, "pad": "x" * MAX_CONFIG_BYTES}))
    with pytest.raises(ValueError, match="larger than 1 MiB"):
        load_hf_config(big)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.json"
        os.mkfifo(fifo)
        with pytest.raises(ValueError, match="not a regular file"):
            load_hf_config(fifo)  # refused before open(): a FIFO would block
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            load_hf_config("/dev/zero")


def test_a_model_folder_is_read_through_its_config(tmp_path):
    folder = tmp_path / "Llama-3.1-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_3_1_8B), encoding="utf-8")
    card = load_hf_config(folder)
    assert card == load_hf_config(folder / "config.json")
    assert card.name == "Llama-3.1-8B" and card.n_kv_heads == 8


BERT_BASE = {
    "architectures": ["BertForMaskedLM"], "hidden_size": 768, "intermediate_size": 3072,
    "max_position_embeddings": 512, "model_type": "bert", "num_attention_heads": 12,
    "num_hidden_layers": 12, "type_vocab_size": 2, "vocab_size": 30522,
}  # fmt: skip


@pytest.mark.parametrize(
    ("config", "encoder"),
    [
        (BERT_BASE, True),
        ({**BERT_BASE, "architectures": ["BertModel"]}, True),  # a bare model of a family
        ({**BERT_BASE, "model_type": "xlm-roberta", "architectures": None}, True),
        ({**LLAMA_3_1_8B, "architectures": ["LlamaForMaskedLM"]}, True),
        ({**BERT_BASE, "architectures": ["BertLMHeadModel"], "is_decoder": True}, False),
        ({**BERT_BASE, "is_decoder": True}, False),
        ({**BERT_BASE, "is_encoder_decoder": True}, False),
        (LLAMA_3_1_8B, False),
        (QWEN2_5_7B, False),
        ({"model_type": "llava", "text_config": {**LLAMA_3_1_8B}}, False),
        ("not a dict", False),
    ],
)
def test_an_encoder_only_config_is_told_from_one_that_generates(config, encoder):
    from attnviz.core.hf_config import is_encoder_config

    assert is_encoder_config(config) is encoder


def test_hf_config_imports_no_qt_model_or_ui():
    code = (
        "import sys, attnviz.core.hf_config\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'attnviz.model',"
        " 'attnviz.ui'))]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_gpt2_and_distilbert_names_for_the_shape_are_read():
    gpt2 = {
        "model_type": "gpt2",
        "n_layer": 12,
        "n_head": 12,
        "n_embd": 768,
        "n_positions": 1024,
        "vocab_size": 50257,
    }
    card = card_from_hf_config(gpt2, "gpt2")
    assert (card.layers, card.n_heads, card.head_dim, card.context) == (12, 12, 64, 1024)
    distil = {
        "model_type": "distilbert",
        "n_layers": 6,
        "n_heads": 12,
        "dim": 768,
        "hidden_dim": 3072,
        "max_position_embeddings": 512,
        "vocab_size": 30522,
    }
    card = card_from_hf_config(distil, "distilbert")
    assert (card.layers, card.n_heads, card.head_dim, card.context) == (6, 12, 64, 512)
