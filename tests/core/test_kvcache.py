"""KV-cache arithmetic: the chapter's and the lesson's numbers, MLA, hybrids, windows, errors."""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.kvcache import (
    CARD_LIMITS,
    DTYPE_BYTES,
    MAX_BATCH,
    MAX_CONTEXT,
    ModelCard,
    attention_variants,
    card_from_dict,
    dtype_bytes,
    kv_bytes_per_token,
    kv_cache_bytes,
    kv_report,
    model_card,
    model_cards,
    parse_tokens,
    score_matrix_bytes,
    score_matrix_entries,
    weights_bytes,
)
from attnviz.paths import resource

GIB = 2**30
IDS = (
    "llama-3-8b",
    "llama-3-70b",
    "mistral-7b",
    "qwen2.5-7b",
    "qwen3-8b",
    "qwen3.8-27b",
    "deepseek-v3",
)


@pytest.fixture
def llama():
    return model_card("llama-3-8b")


# --- the documents' figures -------------------------------------------------------------


def test_llama3_8b_per_token_is_128_kib(llama):
    assert kv_bytes_per_token(llama) == 131_072 == 128 * 1024
    assert kv_bytes_per_token(llama) == 2 * 32 * 8 * 128 * 2  # the chapter's formula


def test_llama3_8b_at_128k_tokens_is_exactly_16_gib(llama):
    assert kv_cache_bytes(llama, 131_072) == 16 * GIB
    assert kv_cache_bytes(llama, 131_072, bytes_per_element="bf16") == 16 * GIB


def test_llama3_8b_as_mha_is_four_times_larger(llama):
    mha = attention_variants(llama)["MHA"]
    assert mha.n_kv_heads == 32 and mha.attention_kind == "MHA"
    assert kv_bytes_per_token(mha) == 4 * kv_bytes_per_token(llama)
    assert kv_cache_bytes(mha, 131_072) == 64 * GIB


def test_score_matrix_at_128k_is_34_36_gb():
    assert score_matrix_entries(131_072) == 17_179_869_184  # 1.7e10 in the chapter
    assert score_matrix_bytes(131_072) == 34_359_738_368
    assert round(score_matrix_bytes(131_072) / 1e9, 2) == 34.36


def test_lesson_score_entries_at_262k():
    assert score_matrix_entries(262_144) == 68_719_476_736
    assert score_matrix_entries(model_card("qwen3.8-27b").context) == 68_719_476_736


def test_weights_of_llama3_8b_are_about_the_cache_at_128k(llama):
    assert weights_bytes(llama) == 8_030_261_248 * 2
    assert weights_bytes(llama, "fp8") == 8_030_261_248
    # "as much as the weights, for one user": within 10 %.
    assert abs(kv_cache_bytes(llama, 131_072) / weights_bytes(llama) - 1) < 0.1


# --- MLA, hybrids, sliding windows, batch, dtype ------------------------------------------


def test_mla_caches_one_latent_without_factor_two():
    ds = model_card("deepseek-v3")
    assert ds.attention_kind == "MLA"
    assert kv_bytes_per_token(ds) == 61 * (512 + 64) * 2 == 70_272
    assert kv_cache_bytes(ds, 1000) == 1000 * 70_272
    # The same shapes with per-head K and V (MHA, head_dim 128): 2·128·128 elements per layer.
    assert kv_bytes_per_token(attention_variants(ds)["MHA"]) == 61 * 2 * 128 * 128 * 2


def test_hybrid_counts_only_its_attention_layers():
    q = model_card("qwen3.8-27b")
    assert (q.layers, q.attention_layers, q.n_heads, q.n_kv_heads, q.head_dim) == (
        64,
        16,
        24,
        4,
        256,
    )
    assert kv_bytes_per_token(q) == 16 * 2 * 4 * 256 * 2 == 65_536
    all_attention = ModelCard("dense", 64, 24, 4, 256)
    assert kv_bytes_per_token(all_attention) == 4 * kv_bytes_per_token(q)
    assert kv_cache_bytes(q, 262_144) == 16 * GIB


def test_sliding_window_caps_mistral_at_4096_tokens():
    m = model_card("mistral-7b")
    per_token = kv_bytes_per_token(m)
    assert per_token == 131_072
    assert kv_cache_bytes(m, 1000) == 1000 * per_token
    assert kv_cache_bytes(m, 4096) == 4096 * per_token
    assert kv_cache_bytes(m, 131_072) == kv_cache_bytes(m, 4096) == 512 * 2**20


def test_mixed_sliding_and_full_layers():
    card = ModelCard("mix", 12, 8, 2, 64, attention_layers=10, sliding_window=100, sliding_layers=4)
    per_layer_token = 2 * 2 * 64 * 2
    assert kv_cache_bytes(card, 1000) == (6 * 1000 + 4 * 100) * per_layer_token
    assert kv_cache_bytes(card, 50) == 10 * 50 * per_layer_token
    assert kv_bytes_per_token(card) == 10 * per_layer_token


@pytest.mark.parametrize("model_id", IDS)
def test_batch_scales_linearly(model_id):
    card = model_card(model_id)
    one = kv_cache_bytes(card, 10_000)
    assert kv_cache_bytes(card, 10_000, batch=7) == 7 * one


def test_dtypes(llama):
    assert DTYPE_BYTES == {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4, "int4": 0.5}
    base = kv_bytes_per_token(llama)
    assert kv_bytes_per_token(llama, "fp32") == 2 * base
    assert kv_bytes_per_token(llama, "fp8") == base // 2
    assert kv_bytes_per_token(llama, "int4") == base // 4
    assert isinstance(kv_bytes_per_token(llama, "int4"), int)
    assert dtype_bytes("fp16") == 2


@settings(max_examples=60, deadline=None)
@given(
    layers=st.integers(1, 100),
    groups=st.integers(1, 8),
    n_kv=st.integers(1, 16),
    head_dim=st.integers(1, 256),
    context=st.integers(1, 10**6),
    window=st.integers(1, 10**5),
)
def test_cache_is_linear_until_the_window(layers, groups, n_kv, head_dim, context, window):
    full = ModelCard("f", layers, n_kv * groups, n_kv, head_dim)
    assert kv_cache_bytes(full, context) == context * kv_bytes_per_token(full)
    slid = ModelCard("s", layers, n_kv * groups, n_kv, head_dim, sliding_window=window,
                     sliding_layers=layers)  # fmt: skip
    assert kv_cache_bytes(slid, context) == min(context, window) * kv_bytes_per_token(slid)


# --- variants -------------------------------------------------------------------------------


def test_variants_of_a_gqa_card(llama):
    v = attention_variants(llama)
    assert list(v) == ["MHA", "GQA", "MQA", "MLA"]
    assert [v[k].attention_kind for k in v] == ["MHA", "GQA", "MQA", "MLA"]
    assert v["GQA"].n_kv_heads == 8 and v["MQA"].n_kv_heads == 1
    assert kv_bytes_per_token(v["MQA"]) == kv_bytes_per_token(llama) // 8
    assert kv_bytes_per_token(v["MLA"]) == 32 * (512 + 64) * 2
    assert all(c.layers == 32 and c.n_heads == 32 for c in v.values())


def test_variants_keep_hybrid_and_window_structure():
    for model_id in ("qwen3.8-27b", "mistral-7b"):
        card = model_card(model_id)
        for variant in attention_variants(card).values():
            assert variant.attention_layers == card.attention_layers
            assert variant.sliding_layers == card.sliding_layers


def test_variants_of_mha_and_mla_cards():
    mha = ModelCard("m", 4, 32, 32, 64)
    assert attention_variants(mha)["GQA"].n_kv_heads == 8
    assert attention_variants(ModelCard("m", 4, 12, 12, 64))["GQA"].n_kv_heads == 6
    assert "GQA" not in attention_variants(ModelCard("tiny", 2, 2, 2, 8))
    ds = model_card("deepseek-v3")
    v = attention_variants(ds)
    assert kv_bytes_per_token(v["MLA"]) == kv_bytes_per_token(ds)
    assert v["GQA"].n_kv_heads == 8 and v["GQA"].kv_lora_rank is None


# --- the shipped cards --------------------------------------------------------------------


def test_every_card_is_shipped_with_its_source():
    cards = model_cards()
    assert set(IDS) <= set(cards)
    for model_id, card in cards.items():
        assert card.id == model_id
        assert len(card.source) > 40, model_id
        assert card.context and card.context >= 8192
        assert resource("models", f"{model_id}.json").is_file()


@pytest.mark.parametrize(
    ("model_id", "shape"),
    [
        ("llama-3-8b", (32, 32, 8, 128)),
        ("llama-3-70b", (80, 64, 8, 128)),
        ("mistral-7b", (32, 32, 8, 128)),
        ("qwen2.5-7b", (28, 28, 4, 128)),
        ("qwen3-8b", (36, 32, 8, 128)),
        ("qwen3.8-27b", (64, 24, 4, 256)),
        ("deepseek-v3", (61, 128, 128, 128)),
    ],
)
def test_card_shapes_follow_the_issue(model_id, shape):
    c = model_card(model_id)
    assert (c.layers, c.n_heads, c.n_kv_heads, c.head_dim) == shape


def test_model_cards_returns_a_copy():
    model_cards().clear()
    assert "llama-3-8b" in model_cards()


def test_card_round_trips_through_json(llama):
    again = card_from_dict(json.loads(json.dumps(llama.to_dict())))
    assert again == llama


def test_numpy_ints_are_accepted_and_stored_as_ints():
    card = ModelCard("np", np.int64(4), np.int64(8), np.int64(2), np.int64(16))
    assert type(card.layers) is int
    json.dumps(card.to_dict())


def test_report(llama):
    r = kv_report(llama, 131_072)
    assert r["kv_bytes_per_token"] == 131_072 and r["kv_cache_bytes"] == 16 * GIB
    assert r["score_matrix"]["bytes"] == 34_359_738_368
    ratios = {v["design"]: v["ratio"] for v in r["variants"]}
    assert ratios == {"MHA": 4.0, "GQA": 1.0, "MQA": 0.125, "MLA": 576 / 2048}
    assert [v["design"] for v in r["variants"] if v["is_card"]] == ["GQA"]
    assert kv_report(replace(llama, params=None), 100)["weights_bytes"] is None
    json.dumps(r)


# --- parsing and errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("131072", 131_072), ("128k", 131_072), ("128K", 131_072), ("131,072", 131_072),
     ("131_072", 131_072), ("1M", 2**20), ("0.5k", 512), (4096, 4096)],
)  # fmt: skip
def test_parse_tokens(text, value):
    assert parse_tokens(text) == value


@pytest.mark.parametrize(
    "text",
    ["", "abc", "0", "-5", "1.5", "12q", "1e5", True, "1" + "0" * 400, "9" * 5000,
     "1099511627777", "1048577M", 2**40 + 1, pytest.param(10**5000, id="10**5000")],
)  # fmt: skip
def test_parse_tokens_rejects(text):
    with pytest.raises(ValueError) as err:
        parse_tokens(text)
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)


def test_parse_tokens_upper_bound_is_2_pow_40():
    assert parse_tokens("1048576M") == parse_tokens(str(2**40)) == MAX_CONTEXT == 2**40
    with pytest.raises(ValueError, match="1,099,511,627,776"):
        parse_tokens("1048577M")


@pytest.mark.parametrize("field", ["layers", "n_heads", "head_dim", "attention_layers"])
@pytest.mark.parametrize("exponent", [0, 400, 5000])
def test_card_fields_have_upper_bounds(field, exponent):
    base = {"name": "x", "layers": 4, "n_heads": 4, "n_kv_heads": 4, "head_dim": 8}
    value = CARD_LIMITS[field] + 10**exponent
    with pytest.raises(ValueError, match=f"{field} must be from 1 to") as err:
        ModelCard(**{**base, field: value})
    assert len(str(err.value)) < 120


def test_huge_values_are_refused_not_overflowed(llama):
    for bad in (10**400, 1e400, 2e15):
        with pytest.raises(ValueError, match="params"):
            ModelCard("x", 4, 4, 4, 8, params=bad)
    with pytest.raises(ValueError, match="context must be from 1 to 1,099,511,627,776"):
        kv_cache_bytes(llama, 10**400)
    with pytest.raises(ValueError, match="batch must be from 1 to 1,000,000"):
        kv_cache_bytes(llama, 10, batch=MAX_BATCH + 1)
    with pytest.raises(ValueError, match="bytes_per_element"):
        kv_bytes_per_token(llama, 10**400)
    with pytest.raises(ValueError, match="n must be"):
        score_matrix_entries(10**400)


def test_the_largest_card_stays_exact_and_finite():
    top = ModelCard(
        "top", CARD_LIMITS["layers"], CARD_LIMITS["n_heads"], CARD_LIMITS["n_kv_heads"],
        CARD_LIMITS["head_dim"], params=1e15,
    )  # fmt: skip
    r = kv_report(top, MAX_CONTEXT, batch=MAX_BATCH, dtype="fp32")
    assert r["kv_cache_bytes"] == 2 * 100_000 * 65_536**2 * 2**40 * 10**6 * 4
    json.dumps(r, allow_nan=False)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"layers": 0}, "layers"),
        ({"n_heads": -4}, "n_heads"),
        ({"head_dim": 1.5}, "head_dim"),
        ({"n_kv_heads": 3}, "divide"),
        ({"n_kv_heads": 64}, "divide"),
        ({"attention_layers": 40}, "exceeds layers"),
        ({"attention_layers": 0}, "attention_layers"),
        ({"sliding_layers": 4}, "sliding_window"),
        ({"sliding_window": 4096}, "sliding_layers"),
        ({"sliding_window": 0, "sliding_layers": 1}, "sliding_window"),
        ({"sliding_window": 10, "sliding_layers": 40}, "exceeds attention_layers"),
        ({"rope_head_dim": 64}, "kv_lora_rank"),
        ({"kv_lora_rank": 0}, "kv_lora_rank"),
        ({"params": 0}, "params"),
        ({"params": float("nan")}, "params"),
        ({"params": "8B"}, "params"),
        ({"context": 0}, "context"),
    ],
)
def test_bad_cards_raise(kwargs, match):
    base = {"name": "x", "layers": 32, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128}
    with pytest.raises(ValueError, match=match):
        ModelCard(**{**base, **kwargs})


def test_bad_arguments_raise(llama):
    with pytest.raises(ValueError, match="unknown dtype 'int8'.*'bf16'"):
        kv_bytes_per_token(llama, "int8")
    for bad in (0, -2, float("inf"), None):
        with pytest.raises(ValueError, match="bytes_per_element"):
            kv_bytes_per_token(llama, bad)
    for context in (0, -1, 1.5, "128k"):
        with pytest.raises(ValueError, match="context"):
            kv_cache_bytes(llama, context)
    with pytest.raises(ValueError, match="batch"):
        kv_cache_bytes(llama, 10, batch=0)
    with pytest.raises(ValueError, match="n must be"):
        score_matrix_entries(0)
    with pytest.raises(ValueError, match="parameter count"):
        weights_bytes(replace(llama, params=None))


def test_unknown_model_lists_the_known_ids():
    with pytest.raises(ValueError, match="unknown model 'gpt-5'") as err:
        model_card("gpt-5")
    assert all(model_id in str(err.value) for model_id in IDS)


def test_malformed_card_files_are_refused():
    base = {"name": "x", "layers": 2, "n_heads": 2, "n_kv_heads": 2, "head_dim": 8}
    with pytest.raises(ValueError, match="unknown field.*colour"):
        card_from_dict({**base, "colour": "red"}, "x.json")
    with pytest.raises(ValueError, match="format 2"):
        card_from_dict({**base, "format": 2})
    with pytest.raises(ValueError, match="x.json.*head_dim"):
        card_from_dict({k: v for k, v in base.items() if k != "head_dim"}, "x.json")
    with pytest.raises(ValueError, match="x.json.*divide"):
        card_from_dict({**base, "n_kv_heads": 3}, "x.json")


def test_kvcache_imports_no_qt_model_or_ui():
    code = (
        "import sys, attnviz.core.kvcache as k; k.model_cards()\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'attnviz.model',"
        " 'attnviz.ui'))]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# --- the memory panel's helpers: the fit point and the tiled kernel's working memory ----------


def test_max_context_is_the_exact_fit_point(llama):
    from attnviz.core.kvcache import max_context

    budget = 80e9 - weights_bytes(llama)
    n = max_context(llama, budget)
    assert n == 487_819 == int(budget // 131_072)
    assert kv_cache_bytes(llama, n) <= budget < kv_cache_bytes(llama, n + 1)
    assert max_context(llama, budget, batch=4) == int(budget // (4 * 131_072))
    assert max_context(llama, budget, bytes_per_element="fp8") == int(budget // 65_536)
    assert max_context(llama, 131_071) == 0 and max_context(llama, -1.0) == 0
    # A cache that stops growing (every layer windowed) fits any context.
    assert max_context(model_card("mistral-7b"), 1e9) == MAX_CONTEXT
    with pytest.raises(ValueError, match="budget_bytes"):
        max_context(llama, float("nan"))
    with pytest.raises(ValueError, match="budget_bytes"):
        max_context(llama, "80e9")


def test_tiled_score_bytes_grow_linearly_and_stay_far_below_the_matrix():
    from attnviz.core.kvcache import tiled_score_bytes

    assert tiled_score_bytes(131_072) == 4 * 128 * 128 + 8 * 131_072 == 1_114_112
    assert tiled_score_bytes(2 * 131_072) - tiled_score_bytes(131_072) == 8 * 131_072
    assert score_matrix_bytes(131_072) / tiled_score_bytes(131_072) > 30_000
    assert tiled_score_bytes(10, block_q=64, block_k=32) == 4 * 64 * 32 + 80
    with pytest.raises(ValueError, match="n must be"):
        tiled_score_bytes(0)
