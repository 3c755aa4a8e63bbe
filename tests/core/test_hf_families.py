"""Every family attnviz opens, as a tiny random model built here, against transformers.

Each is built from its config class (``from_config``, ``save_pretrained``, the word-level
tokenizer of :mod:`tests.core.test_hf_capture`), captured through attnviz's attention
implementation and compared with transformers' eager ``output_attentions``; then the
proof the app runs (the heatmap's own recomputation from q, k, mask and scale) must pass.
The refused families are refused before anything is built, each naming its cause.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from attnviz.core.hf_capture import (
    FAMILIES,
    FAMILY_SINCE,
    ModelError,
    _version,
    inspect_folder,
    load_model,
)
from attnviz.core.score_terms import alibi_slopes
from attnviz.model.model_proof import layer_difference, prove_capture

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.core.test_hf_capture import (  # noqa: E402
    WORDS,
    _folder,
    _safetensors,
    oracle_attentions,
    save_word_tokenizer,
)

V = len(WORDS) + 2
BASE = dict(
    vocab_size=V,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    max_position_embeddings=64,
    bos_token_id=1,
)
#: model_type → a tiny config of the family (partial rotary, GQA, windows where it has them).
TINY = {
    "gpt2": lambda: transformers.GPT2Config(
        vocab_size=V, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=1
    ),
    "gpt_neox": lambda: transformers.GPTNeoXConfig(**BASE, rotary_pct=0.5),
    "phi": lambda: transformers.PhiConfig(**BASE, partial_rotary_factor=0.5),
    "stablelm": lambda: transformers.StableLmConfig(
        **BASE, num_key_value_heads=2, partial_rotary_factor=0.25
    ),
    "gptj": lambda: transformers.GPTJConfig(
        vocab_size=V, n_embd=32, n_layer=2, n_head=4, n_positions=64, rotary_dim=4, bos_token_id=1
    ),
    "opt": lambda: transformers.OPTConfig(
        vocab_size=V,
        hidden_size=32,
        ffn_dim=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
        word_embed_proj_dim=32,
        bos_token_id=1,
    ),
    "olmo": lambda: transformers.OlmoConfig(**BASE),
    "olmo2": lambda: transformers.Olmo2Config(**BASE, num_key_value_heads=2),
    "cohere": lambda: transformers.CohereConfig(**BASE, num_key_value_heads=2),
    "starcoder2": lambda: transformers.Starcoder2Config(
        **BASE, num_key_value_heads=2, sliding_window=4
    ),
    "llama4_text": lambda: transformers.Llama4TextConfig(
        **BASE,
        num_key_value_heads=2,
        head_dim=8,
        intermediate_size_mlp=64,
        num_local_experts=2,
        num_experts_per_tok=1,
        no_rope_layers=[1, 0],
    ),
    "phi3": lambda: transformers.Phi3Config(**BASE, num_key_value_heads=2, pad_token_id=0),
    "granite": lambda: transformers.GraniteConfig(
        **BASE, num_key_value_heads=2, attention_multiplier=0.3
    ),
    "qwen2": lambda: transformers.Qwen2Config(**BASE, num_key_value_heads=2),
    "gemma": lambda: transformers.GemmaConfig(**BASE, num_key_value_heads=2, head_dim=8),
    # Score capping (a cap of 2 bites at these weights) and a sliding window every other layer.
    "gemma2": lambda: transformers.Gemma2Config(
        **BASE,
        num_key_value_heads=2,
        head_dim=8,
        attn_logit_softcapping=2.0,
        query_pre_attn_scalar=8,
        sliding_window=4,
    ),
    "gemma3_text": lambda: transformers.Gemma3TextConfig(
        **BASE, num_key_value_heads=2, head_dim=8, query_pre_attn_scalar=8, sliding_window=4
    ),
    # ALiBi, in an attention module of its own (captured by a hook), with a non-power-of-two
    # number of heads (the slopes interleave two sequences).
    "bloom": lambda: transformers.BloomConfig(
        vocab_size=V, hidden_size=36, n_layer=2, n_head=6, bos_token_id=1
    ),
    # Falcon's rotary attention, also outside the AttentionInterface: multi-query (one KV
    # head) and the new architecture's grouped KV heads.
    "falcon": lambda: transformers.FalconConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        multi_query=True,
        bos_token_id=1,
    ),
    # Attention sinks, windows every other layer, experts.
    "gpt_oss": lambda: transformers.GptOssConfig(
        **BASE,
        num_key_value_heads=2,
        head_dim=8,
        num_local_experts=2,
        num_experts_per_tok=1,
        sliding_window=4,
    ),
    # Multi-head latent attention: q and k of a latent and a rotary part (d_k 12), values
    # narrower (6), experts after the first layer, YaRN's mscale in the layer's scale.
    "deepseek_v3": lambda: transformers.DeepseekV3Config(
        **BASE,
        moe_intermediate_size=16,
        num_key_value_heads=4,
        q_lora_rank=16,
        kv_lora_rank=8,
        qk_rope_head_dim=4,
        qk_nope_head_dim=8,
        v_head_dim=6,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_group=2,
        topk_group=1,
        first_k_dense_replace=1,
        rope_scaling={
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 16,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
        },
    ),
    "qwen3_moe": lambda: transformers.Qwen3MoeConfig(
        **BASE,
        num_key_value_heads=2,
        head_dim=8,
        num_experts=2,
        num_experts_per_tok=1,
        moe_intermediate_size=32,
    ),
    "smollm3": lambda: transformers.SmolLM3Config(**BASE, num_key_value_heads=2, pad_token_id=0),
    "xlm-roberta": lambda: transformers.XLMRobertaConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=70,
        pad_token_id=0,
    ),
    "bert": lambda: transformers.BertConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    ),
    "mixtral": lambda: transformers.MixtralConfig(
        **BASE, num_key_value_heads=2, num_local_experts=2, num_experts_per_tok=1
    ),
    "albert": lambda: transformers.AlbertConfig(
        vocab_size=V,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    ),
    "electra": lambda: transformers.ElectraConfig(
        vocab_size=V,
        embedding_size=16,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=64,
    ),
    "roberta": lambda: transformers.RobertaConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=70,
        pad_token_id=0,
    ),
    "modernbert": lambda: transformers.ModernBertConfig(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        max_position_embeddings=64,
        local_attention=4,
        global_attn_every_n_layers=2,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=1,
        sep_token_id=1,
        cls_token_id=1,
    ),
    "distilbert": lambda: transformers.DistilBertConfig(
        vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=64
    ),
}
TEXT = "the cat sat on the bank of the river a dog ran"


def _tiny(folder, model_type: str) -> str:
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(TINY[model_type]())
    with torch.no_grad():  # small random weights would give near-uniform maps
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
            elif name.endswith("sinks"):  # sinks of a few units, as trained ones are
                p.normal_(0.0, 1.0)
    model.save_pretrained(str(folder), safe_serialization=True)
    save_word_tokenizer(folder)
    return str(folder)


def test_every_tiny_family_is_one_attnviz_opens():
    assert set(TINY) <= set(FAMILIES)


def _recomputed(lc, q, k, head: int) -> np.ndarray:
    """A head's weights from its captured q and k, written out here as the models write
    them: scale, tanh cap, ALiBi's slope·j, the mask, a sink column dropped after."""
    scores = q @ k.T * lc.scaling
    if lc.softcap:
        scores = lc.softcap * np.tanh(scores / lc.softcap)
    if lc.alibi is not None:
        scores = scores + lc.alibi[head] * np.arange(k.shape[0])[None, :]
    scores = np.where(lc.allowed, scores, -np.inf)
    if lc.sinks is not None:
        scores = np.concatenate([scores, np.full((q.shape[0], 1), lc.sinks[head])], axis=1)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    w = e / e.sum(axis=1, keepdims=True)
    return w[:, : k.shape[0]]


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(TINY))
def test_a_tiny_model_of_every_family_is_captured_exactly(tmp_path, model_type):
    since = FAMILY_SINCE.get(model_type)
    if since is not None and _version(transformers.__version__) < since:
        # An older transformers (CI's floor run): the family is refused naming the version.
        (tmp_path / "config.json").write_text(
            json.dumps({"model_type": model_type, "num_hidden_layers": 1})
        )
        (tmp_path / "model.safetensors").write_bytes(_safetensors())
        save_word_tokenizer(tmp_path)
        with pytest.raises(
            ModelError, match=f"open with transformers {since[0]}.{since[1]} or newer"
        ):
            load_model(str(tmp_path), free_bytes=None)
        return
    path = _tiny(tmp_path, model_type)
    assert json.loads((tmp_path / "config.json").read_text())["model_type"] == model_type
    cap = load_model(path, free_bytes=None).capture(TEXT)
    _, attentions, _ = oracle_attentions(path, TEXT)
    assert len(cap.layers) == len(attentions) >= 2
    last = cap.n_heads - 1
    for layer, lc in enumerate(cap.layers):
        np.testing.assert_allclose(lc.weights, attentions[layer], atol=1e-5)
        # q and k as captured give the model's weights with its own scale and mask.
        group = cap.n_heads // cap.n_kv_heads
        q = lc.q[last].astype(np.float64)
        k = lc.k[last // group].astype(np.float64)
        np.testing.assert_allclose(_recomputed(lc, q, k, last), attentions[layer][last], atol=1e-5)
        assert layer_difference(cap, layer)[0] < 1e-5
    prove_capture(cap)
    assert attentions[0][last].std() > 1e-3  # a head that looks somewhere, not uniform
    if model_type == "gemma2":  # the cap is recorded, and it bites at these weights
        lc = cap.layers[0]
        assert lc.softcap == 2.0
        free = np.where(lc.allowed, lc.q[last].astype(np.float64) @ lc.k[1].T * lc.scaling, -np.inf)
        free = np.exp(free - free.max(1, keepdims=True))
        assert np.abs(free / free.sum(1, keepdims=True) - attentions[0][last]).max() > 1e-2
    if model_type == "bloom":  # every head its slope; the bias bites at these weights
        assert all(np.allclose(lc.alibi, alibi_slopes(6)) for lc in cap.layers)
        lc = cap.layers[0]
        q, k = lc.q[last].astype(np.float64), lc.k[last].astype(np.float64)
        free = _recomputed(dataclasses.replace(lc, alibi=None), q, k, last)
        assert np.abs(free - attentions[0][last]).max() > 1e-2
    if model_type == "gpt_oss":  # every head's sink, and rows that sum to less than 1
        assert all(lc.sinks is not None and lc.sinks.shape == (cap.n_heads,) for lc in cap.layers)
        assert attentions[0][last].sum(-1).min() < 0.9


#: Two stacks, the decoder cross-attending to the encoder's output: refused by the config's
#: own word (is_encoder_decoder), before anything is built, whatever the type is called.
ENCODER_DECODERS = ("t5", "mt5", "bart", "whisper", "some_future_seq2seq")


@pytest.mark.parametrize("model_type", ENCODER_DECODERS)
def test_an_encoder_decoder_is_refused_by_its_mechanism_not_its_name(tmp_path, model_type):
    config = {
        "model_type": model_type,
        "is_encoder_decoder": True,
        "num_hidden_layers": 1,
        "num_attention_heads": 1,
        "hidden_size": 4,
    }
    _folder(tmp_path, config, {"model.safetensors": _safetensors(), "vocab.txt": b"[UNK]\n"})
    with pytest.raises(ModelError) as info:
        inspect_folder(tmp_path, free_bytes=None)
    message = str(info.value)
    assert "encoder–decoder" in message and model_type in message and "\n" not in message


#: Families whose attention does not run through the interface attnviz captures (relative
#: position scores of their own), and one whose class makes it two stacks by default.
UNCAPTURED = {
    "deberta-v2": lambda: transformers.DebertaV2Config(
        vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=64, relative_attention=True,
        pos_att_type=["c2p", "p2c"],
    ),
    "xlnet": lambda: transformers.XLNetConfig(
        vocab_size=V, d_model=32, n_layer=2, n_head=4, d_inner=64
    ),
    "t5": lambda: transformers.T5Config(
        vocab_size=V, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
        decoder_start_token_id=0,
    ),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("model_type", sorted(UNCAPTURED))
def test_a_family_outside_the_capture_is_refused_naming_the_mechanism(tmp_path, model_type):
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(UNCAPTURED[model_type]())
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_word_tokenizer(tmp_path)
    with pytest.raises(ModelError) as info:
        load_model(str(tmp_path), free_bytes=None).capture(TEXT)
    message = str(info.value)
    assert "\n" not in message and "not a family" not in message
    if model_type == "t5":
        assert "encoder–decoder" in message
    else:
        assert "no layer ran its attention through the interface attnviz captures" in message


#: Falcon's other layouts: Falcon-40B's grouped KV heads, and plain multi-head attention.
FALCON_VARIANTS = {
    "grouped": dict(num_kv_heads=2, new_decoder_architecture=True),
    "multi_head": dict(multi_query=False, parallel_attn=False, bias=True),
}


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(FALCON_VARIANTS))
def test_falcons_other_layouts_are_captured_exactly(tmp_path, monkeypatch, variant):
    def config():
        return transformers.FalconConfig(
            vocab_size=V,
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            bos_token_id=1,
            **FALCON_VARIANTS[variant],
        )

    monkeypatch.setitem(TINY, "falcon", config)
    test_a_tiny_model_of_every_family_is_captured_exactly(tmp_path, "falcon")


def test_falcon_with_alibi_is_refused_naming_its_cause(tmp_path):
    config = {
        "model_type": "falcon",
        "alibi": True,
        "num_hidden_layers": 1,
        "num_attention_heads": 1,
        "hidden_size": 4,
    }
    _folder(tmp_path, config, {"model.safetensors": _safetensors(), "vocab.txt": b"[UNK]\n"})
    with pytest.raises(ModelError, match="ALiBi biases rounded to bfloat16"):
        inspect_folder(tmp_path, free_bytes=None)
