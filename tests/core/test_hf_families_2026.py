"""The models of 2026, opened by proof: a tiny random model of each family, built here.

Each family's config is built from transformers' own config class (the sizes made tiny,
both kinds of layer present in a hybrid), saved with the word-level tokenizer of
:mod:`tests.core.test_hf_capture`, opened through attnviz's capture and compared with
transformers' eager ``output_attentions`` (which lists a hybrid's softmax layers only);
then the proof the app runs must hold and every layer must be named with its kind. A
family this transformers does not have is skipped, naming it (CI's floor run).
"""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.hf_capture import language_model, load_model
from attnviz.model.model_proof import chunk_of, prove_capture

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.core.test_hf_capture import WORDS, save_word_tokenizer  # noqa: E402

V = len(WORDS) + 2
S, F, LIN = "sliding_attention", "full_attention", "linear_attention"
TEXT = "the cat sat on the bank of the river a dog ran"
COMMON = dict(
    vocab_size=V, hidden_size=32, intermediate_size=64, num_attention_heads=4,
    num_key_value_heads=2, head_dim=8, max_position_embeddings=64, bos_token_id=1,
    eos_token_id=1, pad_token_id=0,
)  # fmt: skip
MOE = dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16)
MLA = dict(q_lora_rank=16, kv_lora_rank=8, qk_rope_head_dim=4, qk_nope_head_dim=8, v_head_dim=6)
MAMBA = dict(mamba_n_heads=8, mamba_d_head=8, mamba_d_state=8, mamba_n_groups=1,
             mamba_chunk_size=4)  # fmt: skip
SIGLIP = dict(model_type="siglip_vision_model", hidden_size=16, intermediate_size=32,
              num_hidden_layers=1, num_attention_heads=2, image_size=28, patch_size=14)  # fmt: skip
#: A DSA model's tiny MLA and indexer: 3 keys a query, so the choice bites at 13 tokens.
DSA = dict(
    drop=("head_dim",), num_key_value_heads=4, **MLA, qk_head_dim=12, head_dim=4,
    n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16, n_group=2,
    topk_group=1, first_k_dense_replace=1, index_topk=3, index_head_dim=8, index_n_heads=2,
    mlp_layer_types=None,
)  # fmt: skip
QWEN_VIS = dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2, out_hidden_size=32,
                patch_size=16, num_position_embeddings=16)  # fmt: skip


def _config(model_type: str, layers: int = 2, drop=(), **extra):
    """transformers' config of ``model_type``: the tiny sizes it has a field for, then
    ``extra`` as given."""
    cls = transformers.CONFIG_MAPPING[model_type]
    fields = set(cls().to_dict())
    kw = {k: v for k, v in COMMON.items() if k in fields and k not in drop}
    if "num_hidden_layers" not in drop:
        kw["num_hidden_layers"] = layers
    return cls(**(kw | extra))


def _dict(model_type: str, layers: int = 2, **extra) -> dict:
    return _config(model_type, layers, **extra).to_dict()


def _qwen35_text(moe: bool = False) -> dict:
    kw = dict(
        layer_types=[LIN, F, LIN, F], linear_key_head_dim=8, linear_value_head_dim=8,
        linear_num_key_heads=2, linear_num_value_heads=4, linear_conv_kernel_dim=4,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                         "partial_rotary_factor": 0.5, "mrope_section": [1, 1, 0],
                         "mrope_interleaved": True},
    )  # fmt: skip
    if moe:
        kw |= MOE | dict(shared_expert_intermediate_size=16)
    return kw


#: family → (config builder, each layer's kind as attnviz names it). The builder runs only
#: where transformers has the family.
FAMILIES_2026 = {
    # Plain softmax families, once turned away by a list.
    "olmo3": (lambda: _config("olmo3", 4, sliding_window=4, layer_types=[S, F, S, F]), 4),
    "glm4": (lambda: _config("glm4"), 2),
    "glm4_moe": (lambda: _config("glm4_moe", n_routed_experts=4, num_experts_per_tok=2,
                                 moe_intermediate_size=16, first_k_dense_replace=1,
                                 num_nextn_predict_layers=0, use_qk_norm=True), 2),
    "minimax_m2": (lambda: _config("minimax_m2", num_local_experts=4, num_experts_per_tok=2), 2),
    "seed_oss": (lambda: _config("seed_oss"), 2),
    "apertus": (lambda: _config("apertus"), 2),
    "exaone4": (lambda: _config("exaone4", 4, sliding_window=4, layer_types=[S, F, S, F]), 4),
    "cohere2": (lambda: _config("cohere2", 4, sliding_window=4, layer_types=[S, F, S, F]), 4),
    "ernie4_5": (lambda: _config("ernie4_5"), 2),
    "arcee": (lambda: _config("arcee"), 2),
    "dots1": (lambda: _config("dots1", n_routed_experts=4, num_experts_per_tok=2,
                              n_shared_experts=1, moe_intermediate_size=16,
                              first_k_dense_replace=1, sliding_window=4,
                              layer_types=[S, F]), 2),
    "hunyuan_v1_dense": (lambda: _config("hunyuan_v1_dense"), 2),
    "phimoe": (lambda: _config("phimoe", num_local_experts=4, num_experts_per_tok=2), 2),
    "flex_olmo": (lambda: _config("flex_olmo", num_experts=4, num_experts_per_tok=2), 2),
    "ministral3": (lambda: _config("ministral3"), 2),
    "mistral4": (lambda: _config(
        "mistral4", drop=("head_dim",), num_key_value_heads=4, **MLA, qk_head_dim=12,
        head_dim=4, n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
        rope_parameters={"type": "yarn", "rope_type": "yarn", "rope_theta": 10000.0,
                         "factor": 4.0, "original_max_position_embeddings": 16,
                         "max_position_embeddings": 64, "beta_fast": 32.0, "beta_slow": 1.0,
                         "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1,
                         "partial_rotary_factor": 0.5}), 2),
    "longcat_flash": (lambda: _config(
        "longcat_flash", drop=("num_hidden_layers", "intermediate_size", "head_dim",
                               "num_key_value_heads"),
        num_layers=2, ffn_hidden_size=64, **MLA, head_dim=4, qk_head_dim=12,
        num_key_value_heads=4, moe_topk=2, n_routed_experts=4, zero_expert_num=2,
        expert_ffn_hidden_size=16), 4),
    "granite": (lambda: _config("granite", attention_multiplier=0.3), 2),
    "gemma3n_text": (lambda: _config(
        "gemma3n_text", 4, sliding_window=4, layer_types=[S, F, S, F],
        vocab_size_per_layer_input=V, hidden_size_per_layer_input=8, num_kv_shared_layers=2,
        laurel_rank=4, altup_num_inputs=2, activation_sparsity_pattern=[0.95, 0.0, 0.0, 0.0],
        intermediate_size=[64] * 4), 4),
    # Chunked attention every layer but a NoPE one (Llama 4): chunks of 4 tokens bite; the
    # NoPE layer's temperature tuning too (a floor of 2 positions, not 8,192), inside q.
    "llama4_text": (lambda: _config(
        "llama4_text", 4, intermediate_size_mlp=64, num_local_experts=2,
        num_experts_per_tok=1, no_rope_layers=[1, 1, 1, 0], attention_chunk_size=4,
        floor_scale=2, attn_scale=1.0),
        ("softmax", "softmax", "softmax", "softmax (NoPE)")),
    # Multimodal folders: their language model opens; the vision tower is not shown.
    "gemma3": (lambda: transformers.CONFIG_MAPPING["gemma3"](
        text_config=_dict("gemma3_text", 4, query_pre_attn_scalar=8, sliding_window=4,
                          layer_types=[S, F, S, F]),
        vision_config=SIGLIP, mm_tokens_per_image=4), 4),
    "mistral3": (lambda: transformers.CONFIG_MAPPING["mistral3"](
        text_config=_dict("mistral", sliding_window=None),
        vision_config=dict(model_type="pixtral", hidden_size=16, intermediate_size=32,
                           num_hidden_layers=1, num_attention_heads=2, image_size=28,
                           patch_size=14, head_dim=8)), 2),
    "qwen3_vl": (lambda: transformers.CONFIG_MAPPING["qwen3_vl"](
        text_config=_dict("qwen3_vl_text", rope_parameters={
            "rope_type": "default", "rope_theta": 5e5, "mrope_section": [1, 1, 2],
            "mrope_interleaved": True}),
        vision_config=dict(QWEN_VIS, deepstack_visual_indexes=[0])), 2),
    "gemma4": (lambda: transformers.CONFIG_MAPPING["gemma4"](
        text_config=_dict("gemma4_text", 4, sliding_window=4, layer_types=[S, F, S, F],
                          vocab_size_per_layer_input=V, hidden_size_per_layer_input=8,
                          global_head_dim=16),
        vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=2, head_dim=8,
                           patch_size=4, position_embedding_size=64)), 4),
    "qwen2_5_vl": (lambda: transformers.CONFIG_MAPPING["qwen2_5_vl"](
        text_config=_dict("qwen2_5_vl_text", rope_parameters={
            "rope_type": "default", "rope_theta": 1e6, "mrope_section": [1, 1, 2]}),
        vision_config=dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2,
                           out_hidden_size=32, patch_size=14, fullatt_block_indexes=[0],
                           window_size=28)), 2),
    "llama4": (lambda: transformers.CONFIG_MAPPING["llama4"](
        text_config=_dict("llama4_text", intermediate_size_mlp=64, num_local_experts=2,
                          num_experts_per_tok=1),
        vision_config=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                           num_attention_heads=2, image_size=28, patch_size=14,
                           vision_output_dim=32, projector_input_dim=32,
                           projector_output_dim=32)), 2),
    "hunyuan_v1_moe": (lambda: _config("hunyuan_v1_moe", num_experts=4, moe_topk=2,
                                       moe_intermediate_size=16), 2),
    "ernie4_5_moe": (lambda: _config("ernie4_5_moe", 3, moe_num_experts=4, moe_k=2,
                                     moe_intermediate_size=16, moe_num_shared_experts=1,
                                     moe_layer_start_index=1, moe_layer_end_index=2), 3),
    "glm": (lambda: _config("glm"), 2),
    "ministral": (lambda: _config("ministral", sliding_window=4, layer_types=[S, F]), 2),
    # DeepSeek Sparse Attention: each query reads the 3 keys its indexer picks (half-split
    # rotary in DeepSeek-V3.2's indexer, interleaved in GLM's).
    "deepseek_v32": (lambda: _config("deepseek_v32", **DSA), 2),
    "glm_moe_dsa": (lambda: _config("glm_moe_dsa", **DSA), 2),
    # Hybrids: their softmax layers exact, every other layer named.
    "qwen3_next": (lambda: _config("qwen3_next", 4, **(_qwen35_text(True) | {
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                            "partial_rotary_factor": 0.5}})),
        ("Gated DeltaNet", "softmax (gated output)") * 2),
    "qwen3_5": (lambda: transformers.CONFIG_MAPPING["qwen3_5"](
        text_config=_dict("qwen3_5_text", 4, **_qwen35_text()),
        vision_config=dict(QWEN_VIS)), ("Gated DeltaNet", "softmax (gated output)") * 2),
    "qwen3_5_moe": (lambda: transformers.CONFIG_MAPPING["qwen3_5_moe"](
        text_config=_dict("qwen3_5_moe_text", 4, **_qwen35_text(True)),
        vision_config=dict(QWEN_VIS)), ("Gated DeltaNet", "softmax (gated output)") * 2),
    "kimi_linear": (lambda: _config(
        "kimi_linear", 4, drop=("head_dim", "max_position_embeddings"),
        num_key_value_heads=4, kv_lora_rank=8, q_lora_rank=None, qk_rope_head_dim=4,
        qk_nope_head_dim=8, v_head_dim=6, qk_head_dim=12, head_dim=4, linear_head_dim=8,
        linear_num_heads=4, num_experts=4, num_experts_per_token=2, moe_intermediate_size=16,
        num_shared_experts=1, num_expert_group=1, topk_group=1,
        layer_types=[LIN, F, LIN, F], mlp_layer_types=None),
        ("KDA (Kimi Delta Attention)", "softmax") * 2),
    # Ling 2.5's hybrid: a delta rule with a forget gate (KDA-like) beside gated MLA.
    "bailing_hybrid": (lambda: _config(
        "bailing_hybrid", 4, drop=("head_dim", "max_position_embeddings"),
        num_key_value_heads=4, kv_lora_rank=8, q_lora_rank=None, qk_rope_head_dim=4,
        qk_nope_head_dim=8, v_head_dim=6, qk_head_dim=12, head_dim=4, linear_head_dim=8,
        linear_num_heads=4, num_experts=4, num_experts_per_token=2, moe_intermediate_size=16,
        num_shared_experts=1, num_expert_group=1, topk_group=1, first_k_dense_replace=1,
        num_nextn_predict_layers=0, layer_types=[LIN, F, LIN, F], mlp_layer_types=None,
        expert_swiglu_limit_list=[0] * 4, share_expert_swiglu_limit_list=[0] * 4),
        ("KDA (Kimi Delta Attention)", "softmax (gated output)") * 2),
    "olmo_hybrid": (lambda: _config(
        "olmo_hybrid", 4, layer_types=[LIN, F, LIN, F], linear_num_key_heads=4,
        linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=8),
        ("Gated DeltaNet", "softmax") * 2),
    "minimax": (lambda: _config("minimax", 4, num_local_experts=4, num_experts_per_tok=2,
                                layer_types=[F, LIN, F, LIN], block_size=4),
                ("softmax", "lightning attention") * 2),
    "granitemoehybrid": (lambda: _config(
        "granitemoehybrid", 4, layer_types=[LIN, F, LIN, F], **MAMBA, num_local_experts=4,
        num_experts_per_tok=2, shared_intermediate_size=16, attention_multiplier=0.3),
        ("Mamba-2", "softmax") * 2),
    "nemotron_h": (lambda: _config(
        "nemotron_h", 4, drop=("num_hidden_layers",), layers_block_type=[LIN, F, "mlp", F],
        mamba_num_heads=8, mamba_head_dim=8, n_groups=1, ssm_state_size=8, chunk_size=4,
        n_routed_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
        moe_shared_expert_intermediate_size=16, use_mamba_kernels=False),
        ("Mamba-2", "softmax", "no token mixing (MLP only)", "softmax")),
    "falcon_h1": (lambda: _config("falcon_h1", **MAMBA, mamba_d_ssm=64, key_multiplier=0.7,
                                  attention_in_multiplier=1.3),
                  ("softmax + Mamba-2",) * 2),
    "jamba": (lambda: _config(
        "jamba", 4, attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2,
        expert_layer_offset=1, num_experts=4, num_experts_per_tok=2, mamba_d_state=8,
        mamba_dt_rank=4, use_mamba_kernels=False), ("Mamba", "softmax") * 2),
    "zamba2": (lambda: _config(
        "zamba2", 4, drop=("head_dim",), num_key_value_heads=4,
        layers_block_type=["mamba", "hybrid", "mamba", "hybrid"], n_mamba_heads=8,
        mamba_d_state=8, chunk_size=4, adapter_rank=4, use_mamba_kernels=False),
        ("Mamba-2", "softmax + Mamba-2") * 2),
    "bamba": (lambda: _config("bamba", 4, attn_layer_indices=[1, 3], **MAMBA),
              ("Mamba-2", "softmax") * 2),
    "lfm2": (lambda: _config("lfm2", 4, full_attn_idxs=[1, 3], block_auto_adjust_ff_dim=False),
             ("short convolution", "softmax") * 2),
}  # fmt: skip


def _tiny(folder, family: str) -> None:
    """Build ``family``'s tiny model (weights of a scale that gives maps that look
    somewhere), save it with the word tokenizer."""
    build = FAMILIES_2026[family][0]
    base = family
    if base not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no model_type {base!r}")
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(build())
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
            elif name.endswith("sinks"):
                p.normal_(0.0, 1.0)
    model.save_pretrained(str(folder), safe_serialization=True)
    save_word_tokenizer(folder)


def _expected(family: str) -> tuple[str, ...]:
    kinds = FAMILIES_2026[family][1]
    return ("softmax",) * kinds if isinstance(kinds, int) else tuple(kinds)


def _oracle(loaded, ids, at: tuple[int, ...]) -> list[np.ndarray]:
    """transformers' own softmax weights of the same model, eager, ``output_attentions``:
    of the layers ``at`` when it lists every layer (MiniMax lists its lightning layers'
    own matrices too), as listed when it lists the softmax layers only."""
    model = loaded.model
    model.set_attn_implementation("eager")
    try:
        with torch.no_grad():
            out = language_model(model)(input_ids=torch.tensor([ids]), output_attentions=True)
    finally:
        model.set_attn_implementation("attnviz_capture")
    found = [a for a in out.attentions if a is not None]
    if len(found) > len(at):
        found = [found[i] for i in at]
    return [a[0].numpy().astype(np.float64) for a in found]


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES_2026))
def test_a_tiny_model_of_every_2026_family_opens_by_proof(tmp_path, family):
    _tiny(tmp_path, family)
    loaded = load_model(str(tmp_path), free_bytes=None)
    cap = loaded.capture(TEXT)
    kinds = _expected(family)
    assert cap.kinds == kinds
    softmax = [i for i, k in enumerate(kinds) if k.startswith("softmax")]
    assert cap.attention_at == tuple(softmax) and len(cap.layers) == len(softmax)
    prove_capture(cap)
    oracle = _oracle(loaded, list(cap.ids), cap.attention_at)
    assert len(oracle) == len(cap.layers)  # a hybrid lists its softmax layers only
    for lc, theirs in zip(cap.layers, oracle, strict=True):
        np.testing.assert_allclose(lc.weights, theirs, atol=1e-5)
    assert max(float(w.std()) for w in oracle) > 1e-3  # heads that look somewhere
    if transformers.CONFIG_MAPPING[family]().to_dict().get("text_config") is not None:
        assert cap.wrapper == family
    if family == "llama4_text":  # chunks of 4 tokens, drawn as the topic's chunk mask;
        # the NoPE layer attends to the whole sentence (causal)
        assert [chunk_of(lc) for lc in cap.layers] == [4, 4, 4, 0]
    if family in ("deepseek_v32", "glm_moe_dsa"):  # the indexer's choice bites, proven
        layouts = {"deepseek_v32": "half", "glm_moe_dsa": "interleaved"}
        for lc in cap.layers:
            assert lc.index_layout == layouts[family]
            assert lc.selected.sum(axis=1).max() == 3 and (lc.weights[:, -1] > 0).sum(-1).max() == 3
    # The second pass stops after the last softmax layer, with the same arrays.
    again = loaded.capture(TEXT)
    for a, b in zip(cap.layers, again.layers, strict=True):
        np.testing.assert_array_equal(a.weights, b.weights)


@pytest.mark.slow
def test_a_vision_tower_deeper_than_the_language_model_is_not_counted_as_its_layers(tmp_path):
    """The layer count is checked against the language model's weights only: a vision
    tower of 6 layers beside a text model of 4 (both named ``….layers.N.…``) opens."""
    if "gemma3" not in transformers.CONFIG_MAPPING:
        pytest.skip("no Gemma 3 in this transformers")
    build = FAMILIES_2026["gemma3"][0]

    def deep():
        config = build()
        config.vision_config.num_hidden_layers = 6
        return config

    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(deep())
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_word_tokenizer(tmp_path)
    cap = load_model(str(tmp_path), free_bytes=None).capture(TEXT)
    assert cap.kinds == ("softmax",) * 4 and cap.wrapper == "gemma3"


def test_every_family_the_app_lists_is_one_a_test_builds():
    """``attnviz models --families`` says what the tests prove: each listed family is a
    tiny model of tests/core/test_hf_families*.py, and each of those is listed."""
    from attnviz.core.hf_families import FAMILIES, SHOWS
    from tests.core.test_hf_families import TINY

    built = set(TINY) | set(FAMILIES_2026)
    # Built in tests/core/test_hf_capture.py (MiniLM, the tiny decoders),
    # tests/model/test_real_model.py and tests/model/test_state_space.py (the state-space
    # models): the families TINY does not repeat.
    elsewhere = {"llama", "mistral", "qwen3", "mamba", "mamba2", "falcon_mamba"}
    assert set(FAMILIES) == built | elsewhere
    assert all(SHOWS[name].strip() for name in FAMILIES)


def test_the_models_command_lists_the_families_and_proves_a_folder(tmp_path, capsys):
    import json

    from attnviz.cli import main
    from attnviz.core.hf_families import TABLE

    assert main(["models", "--families", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["model_type"] for r in rows} == set(TABLE)
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip("no Qwen3-Next in this transformers")
    _tiny(tmp_path, "qwen3_next")
    assert main(["models", str(tmp_path), "--text", TEXT, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["layers"] == list(_expected("qwen3_next"))
    assert set(out["seconds"]) == {"load", "capture", "proof"}
    (tmp_path / "config.json").write_text(
        json.dumps({"model_type": "t5", "is_encoder_decoder": True, "num_hidden_layers": 2})
    )
    assert main(["models", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "encoder–decoder" in err[0]
    with pytest.raises(SystemExit) as info:
        main(["models"])
    assert info.value.code == 2
