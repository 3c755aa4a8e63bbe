"""The decode ceiling: bandwidth / (weights + KV cache + recurrent state), by hand."""

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.decode import (
    MAX_BANDWIDTH_GBS,
    bytes_per_step,
    check_bandwidth,
    decode_ceilings,
    decode_report,
    decode_tokens_per_s,
)
from attnviz.core.kvcache import (
    MAX_CONTEXT,
    kv_report,
    model_card,
    recurrent_state_bytes,
    score_entries_total,
)

H100 = 3350  # GB/s, an H100 SXM's HBM3
#: The lesson's hybrid, each linear layer: 48 value heads of a 128 × 128 state, and the
#: short convolution over q, k, v (2·16·128 + 48·128 = 10,240 channels) of width 4.
QWEN_STATE = 48 * 128 * 128 + (2 * 16 * 128 + 48 * 128) * 4


def test_llama_3_8b_at_128k_on_an_h100_is_about_100_8_tokens_per_s():
    # bf16 weights (2 bytes × 8,030,261,248) and a bf16 cache of 131,072 tokens
    # (128 KiB each): 16.06 GB + 17.18 GB read per token.
    card = model_card("llama-3-8b")
    step = 2 * 8_030_261_248 + 131_072 * (2 * 32 * 8 * 128 * 2)
    assert bytes_per_step(card, 131_072) == step == 33_240_391_680
    rate = decode_tokens_per_s(card, 131_072, H100)
    assert rate == pytest.approx(3350e9 / step, rel=1e-12)
    assert round(rate, 1) == 100.8
    assert recurrent_state_bytes(card) == 0


def test_deepseek_v3_mla_reads_all_671b_weights_and_a_small_latent_cache():
    card = model_card("deepseek-v3")
    latent = 61 * (512 + 64)  # one latent and one RoPE key per layer and token
    bf16 = 2 * 671e9 + 131_072 * latent * 2
    assert decode_tokens_per_s(card, 131_072, H100) == pytest.approx(3350e9 / bf16, rel=1e-12)
    fp8 = 671e9 + 131_072 * latent
    rate = decode_tokens_per_s(card, 131_072, H100, dtype="fp8")
    assert rate == pytest.approx(3350e9 / fp8, rel=1e-12)
    assert round(rate, 2) == 4.96


def test_the_lessons_hybrid_reads_16_layers_of_cache_and_48_fixed_states():
    card = model_card("qwen3.8-27b")
    assert card.state_elements + card.conv_elements == QWEN_STATE == 827_392
    state = 48 * QWEN_STATE * 2
    assert recurrent_state_bytes(card) == state == 79_429_632
    kv = 262_144 * 16 * 2 * 4 * 256 * 2  # 16 GiB
    step = 2 * 26_895_998_464 + kv + state
    assert bytes_per_step(card, 262_144) == step
    rate = decode_tokens_per_s(card, 262_144, H100)
    assert rate == pytest.approx(3350e9 / step, rel=1e-12)
    assert round(rate, 1) == 47.1


def test_the_lessons_score_entries_times_24_heads_times_16_layers():
    card = model_card("qwen3.8-27b")
    total = score_entries_total(card, 262_144)
    assert total == 262_144**2 * 24 * 16 == 68_719_476_736 * 384 == 26_388_279_066_624
    r = kv_report(card, 262_144)["score_matrix"]
    assert (r["entries"], r["heads"], r["full_layers"]) == (68_719_476_736, 24, 16)
    assert r["total_entries"] == total


def test_a_window_caps_what_its_layers_score():
    mistral = model_card("mistral-7b")  # every layer slides over 4,096 tokens
    assert score_entries_total(mistral, 10_000) == 32 * 32 * 10_000 * 4096
    assert score_entries_total(mistral, 100) == 32 * 32 * 100 * 100


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, MAX_CONTEXT),
    st.integers(1, MAX_CONTEXT),
    st.sampled_from(("bf16", "fp8", "fp32", "int4")),
)
def test_recurrent_state_is_the_same_at_every_context(n1, n2, dtype):
    card = model_card("qwen3.8-27b")
    a, b = kv_report(card, n1, dtype=dtype), kv_report(card, n2, dtype=dtype)
    assert a["recurrent_state_bytes"] == b["recurrent_state_bytes"] > 0
    # ...while the cache grows with the context, and the ceiling falls.
    lo, hi = sorted((n1, n2))
    assert decode_tokens_per_s(card, lo, H100, dtype=dtype) >= decode_tokens_per_s(
        card, hi, H100, dtype=dtype
    )


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, MAX_BANDWIDTH_GBS), st.integers(1, 2**24))
def test_the_ceiling_is_proportional_to_the_bandwidth(bandwidth, n):
    card = model_card("llama-3-8b")
    rate = decode_tokens_per_s(card, n, bandwidth)
    assert rate == pytest.approx(bandwidth * 1e9 / bytes_per_step(card, n), rel=1e-12)
    assert math.isfinite(rate) and rate > 0


def test_each_design_raises_or_lowers_the_ceiling_as_its_bytes_say():
    card = model_card("qwen3.8-27b")
    rows = {c["kind"]: c for c in decode_ceilings(card, 262_144, H100)}
    assert list(rows) == ["card", "MHA", "MQA", "MLA", "fp8", "dense"]
    weights = 2 * 26_895_998_464
    state = 48 * QWEN_STATE * 2
    kv = {"MHA": 16 * 2 * 24 * 256, "MQA": 16 * 2 * 1 * 256, "MLA": 16 * (512 + 64)}
    for kind, per_token in kv.items():
        step = weights + 262_144 * per_token * 2 + state
        assert rows[kind]["bytes_per_step"] == step, kind
        assert rows[kind]["tokens_per_s"] == pytest.approx(3350e9 / step, rel=1e-12)
    assert rows["fp8"]["bytes_per_step"] == rows["card"]["bytes_per_step"] / 2
    # Every layer with attention: 64 layers of cache and no recurrent state.
    assert rows["dense"]["bytes_per_step"] == weights + 262_144 * 64 * 2 * 4 * 256 * 2
    assert rows["MQA"]["tokens_per_s"] > rows["card"]["tokens_per_s"] > rows["MHA"]["tokens_per_s"]
    assert rows["card"]["tokens_per_s"] > rows["dense"]["tokens_per_s"]  # the hybrid's gain
    assert decode_ceilings(replace(card, params=None), 1000, H100) == []


def test_the_report_keys_and_an_unknown_weight():
    card = model_card("llama-3-8b")
    r = kv_report(card, 131_072)
    d = decode_report(r, card, H100)
    assert d["decode_tokens_per_s"] == decode_tokens_per_s(card, 131_072, H100)
    assert d["decode_bytes_per_token"] == 33_240_391_680 and d["bandwidth_gbs"] == 3350.0
    none = decode_report(r, replace(card, params=None), H100)
    assert none["decode_tokens_per_s"] is None and none["decode_ceilings"] == []


@pytest.mark.parametrize(
    "bad", [0, -1, -0.0, float("nan"), float("inf"), 1e400, 10**400, 2e6, "3350", None, True]
)
def test_hostile_bandwidths_are_refused_in_one_line(bad):
    with pytest.raises(ValueError, match="bandwidth") as err:
        check_bandwidth(bad)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="bandwidth"):
        decode_tokens_per_s(model_card("llama-3-8b"), 100, bad)


def test_state_fields_are_checked():
    card = model_card("llama-3-8b")
    for bad in (-1, 1.5, MAX_CONTEXT + 1, True):
        with pytest.raises(ValueError, match="state_elements"):
            replace(card, state_elements=bad)
