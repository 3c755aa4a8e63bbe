"""Tiny random models with their language-model heads, saved as folders attnviz opens:
Llama (grouped-query attention), Qwen3, Gemma 3, GPT-2, a BERT masked-LM and a bare BERT
encoder, with a word-level tokenizer putting [BOS] in front (shared by the prediction
tests of the core, the model and the panel)."""

from __future__ import annotations

import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

WORDS = ["i", "sat", "on", "the", "bank", "of", "river", "a", "cat", "dog", "ran"]
SENTENCE = "the cat sat on the bank of the river"
MASKED = "the cat sat on the [MASK] of the river"


def save_tokenizer(folder) -> None:
    """A word-level tokenizer putting [BOS] in front, with a [MASK] token."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {"[UNK]": 0, "[BOS]": 1, "[MASK]": 2} | {w: i + 3 for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", 1)]
    )
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", bos_token="[BOS]", mask_token="[MASK]"
    )
    fast.save_pretrained(str(folder))


def make_model(folder, family: str, layers: int = 2) -> str:
    """A random ``family`` model with its language-model head, saved as safetensors."""
    torch.manual_seed(1)
    vocab = len(WORDS) + 3
    gqa = dict(
        vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
        bos_token_id=1,
    )  # fmt: skip
    if family == "llama":
        model = transformers.LlamaForCausalLM(
            transformers.LlamaConfig(**gqa, tie_word_embeddings=False)
        )
    elif family == "qwen3":  # q/k norms, tied embeddings
        model = transformers.Qwen3ForCausalLM(
            transformers.Qwen3Config(**gqa, tie_word_embeddings=True)
        )
    elif family == "gemma3_text":  # a sliding layer, its own query scale, a final softcap
        config = transformers.Gemma3TextConfig(
            **gqa, query_pre_attn_scalar=16, sliding_window=4, final_logit_softcapping=3.0,
            layer_types=["sliding_attention", "full_attention"][:layers],
        )  # fmt: skip
        model = transformers.Gemma3ForCausalLM(config)
    elif family == "gpt2":
        config = transformers.GPT2Config(
            vocab_size=vocab, n_embd=32, n_layer=layers, n_head=4, n_positions=64,
            bos_token_id=1, eos_token_id=1,
        )  # fmt: skip
        model = transformers.GPT2LMHeadModel(config)
    elif family == "bert":
        config = transformers.BertConfig(
            vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
            num_attention_heads=4, max_position_embeddings=64,
        )  # fmt: skip
        model = transformers.BertForMaskedLM(config)
    elif family == "bare_bert":
        config = transformers.BertConfig(
            vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=layers,
            num_attention_heads=4, max_position_embeddings=64,
        )  # fmt: skip
        model = transformers.BertModel(config)
    else:
        raise ValueError(family)
    with torch.no_grad():  # small random weights would give near-uniform predictions
        for _name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
    model.save_pretrained(str(folder), safe_serialization=True)
    save_tokenizer(folder)
    return str(folder)
