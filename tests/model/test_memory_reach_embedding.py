"""The memory, reach and embedding topics and resolvers: the documents' numbers, strictly.

Every figure is checked against the core (``kv_report``, ``gradient_reach``, the Zipf
sampler) or against the chapter's own numbers; the topics refuse bad values and change
nothing; sessions, undo and ``attnviz export`` carry the three topics.
"""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.cli import main as cli
from attnviz.core.embedding import zero_row_fraction, zipf_tokens
from attnviz.core.hf_config import load_hf_config
from attnviz.core.kvcache import (
    MAX_CONTEXT,
    kv_cache_bytes,
    kv_report,
    model_card,
    weights_bytes,
)
from attnviz.core.recurrence import fit_decay, gradient_reach
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.history import History
from attnviz.model.panel_data import data_names, panel_data
from attnviz.model.resolve.embedding import compute_embedding
from attnviz.model.resolve.reach import KINDS, REFERENCES, compute_reach
from attnviz.model.session import load_session, save_session
from attnviz.model.topics.embedding import EmbeddingState
from attnviz.model.topics.memory import CARD_FIELDS, CUSTOM, MemoryState, card_values
from attnviz.model.topics.reach import ReachState
from attnviz.model.workspace import Workspace

GIB = 2**30


@pytest.fixture
def ws():
    return Workspace()


def _memory(ws):
    return ws.resolver_for("memory").results


# --- memory: the chapter's and the lesson's numbers ----------------------------------------


def test_llama3_8b_reads_128_kib_per_token_16_gib_and_mha_four_times(ws):
    res = _memory(ws)
    assert ws.document.memory.model == "llama-3-8b" and ws.document.memory.context == 131_072
    assert res.report == kv_report(model_card("llama-3-8b"), 131_072)
    assert res.report["kv_bytes_per_token"] == 131_072 == 128 * 1024
    assert res.kv_bytes == 16 * GIB
    designs = {v["design"]: v for v in res.report["variants"]}
    assert designs["GQA"]["is_card"] and designs["GQA"]["kv_cache_bytes"] == 16 * GIB
    assert designs["MHA"]["kv_cache_bytes"] == 4 * 16 * GIB and designs["MHA"]["ratio"] == 4.0
    assert res.report["score_matrix"]["bytes"] == 34_359_738_368  # 34.36 GB per head per layer
    assert res.savings == ()


def test_qwen38_27b_hybrid_keeps_16_of_64_layers_and_shows_the_saving(ws):
    ws.document.set_field("memory.model", "qwen3.8-27b")
    ws.document.set_field("memory.context", 262_144)
    res = _memory(ws)
    card = model_card("qwen3.8-27b")
    assert res.report == kv_report(card, 262_144)
    assert (res.card.layers, res.card.attention_layers) == (64, 16)
    assert res.report["kv_bytes_per_token"] == 16 * 2 * 4 * 256 * 2
    assert res.report["score_matrix"]["entries"] == 68_719_476_736  # the lesson's ~69 billion
    (saving,) = res.savings
    assert saving.kind == "hybrid" and saving.ratio == 4.0
    assert saving.kv_cache_bytes == 4 * res.kv_bytes
    assert res.weights_bytes == 2 * 26_895_998_464
    # The lesson's total: ×24 heads ×16 full-attention layers.
    assert res.report["score_matrix"]["total_entries"] == 68_719_476_736 * 24 * 16
    assert res.report["recurrent_state_bytes"] == 48 * (786_432 + 40_960) * 2


def test_deepseek_v3_mla_equals_kv_report(ws):
    ws.document.set_field("memory.model", "deepseek-v3")
    res = _memory(ws)
    assert res.report == kv_report(model_card("deepseek-v3"), 131_072)
    assert res.report["attention"] == "MLA"
    assert res.report["kv_bytes_per_token"] == 61 * (512 + 64) * 2
    mla = next(v for v in res.report["variants"] if v["design"] == "MLA")
    assert mla["is_card"] and mla["latent"] == [512, 64]


def test_sliding_window_saving_and_unbounded_fit(ws):
    ws.document.set_field("memory.model", "mistral-7b")
    res = _memory(ws)
    (saving,) = res.savings
    assert saving.kind == "window" and saving.ratio == 131_072 / 4096
    assert res.unbounded and res.max_context == MAX_CONTEXT


@pytest.mark.parametrize("gpu_gb", [24.0, 48.0, 80.0, 141.0, 192.0])
def test_the_fit_point_is_exact_and_moves_with_the_gpu(ws, gpu_gb):
    ws.document.set_field("memory.gpu_gb", gpu_gb)
    res = _memory(ws)
    card = model_card("llama-3-8b")
    budget = gpu_gb * 1e9 - weights_bytes(card)
    n = res.max_context
    assert kv_cache_bytes(card, n) <= budget < kv_cache_bytes(card, n + 1)
    assert n == math.floor(budget / 131_072)


def test_a_bigger_gpu_fits_more_and_the_weights_alone_can_overflow(ws):
    fits = []
    for gb in (24.0, 80.0, 192.0):
        ws.document.set_field("memory.gpu_gb", gb)
        fits.append(_memory(ws).max_context)
    assert fits[0] < fits[1] < fits[2]
    ws.document.set_field("memory.gpu_gb", 16.0)  # Llama 3 8B's weights are 16.06 GB
    res = _memory(ws)
    assert res.max_context == 0 and not res.fits


def test_weights_dtype_is_its_own_and_batch_multiplies_the_cache(ws):
    ws.document.memory.update(dtype="fp8", weights_dtype="bf16", batch=4)
    res = _memory(ws)
    assert res.kv_bytes == 4 * 8 * GIB
    assert res.weights_bytes == 2 * 8_030_261_248


def test_bandwidth_gives_the_decode_ceiling_of_the_cli(ws, capsys):
    res = _memory(ws)  # Llama 3 8B at 131,072 tokens on 3,350 GB/s by default
    assert ws.document.memory.bandwidth_gbs == 3350.0
    assert round(res.decode["decode_tokens_per_s"], 1) == 100.8
    ws.document.set_field("memory.bandwidth_gbs", 4800.0)  # an H200
    res = _memory(ws)
    assert res.decode["decode_tokens_per_s"] == pytest.approx(4800e9 / 33_240_391_680, rel=1e-12)
    ws.document.memory.update(model="qwen3.8-27b", context=262_144, bandwidth_gbs=3350.0)
    res = _memory(ws)
    assert cli(["kv", "--model", "qwen3.8-27b", "--bandwidth", "3350", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert res.decode["decode_ceilings"] == printed["decode_ceilings"]
    assert res.decode["decode_tokens_per_s"] == printed["decode_tokens_per_s"]
    ws.document.set_field("memory.weights_dtype", "fp8")  # weights halve, the cache stays
    fp8 = _memory(ws).decode["decode_bytes_per_token"]
    assert fp8 == 26_895_998_464 + 16 * GIB + 48 * (786_432 + 40_960) * 2


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), 1e400, 2e6, "fast"])
def test_hostile_bandwidths_are_refused_and_nothing_changes(ws, bad):
    with pytest.raises(StateError):
        ws.document.set_field("memory.bandwidth_gbs", bad)
    assert ws.document.memory.bandwidth_gbs == 3350.0


@settings(max_examples=40, deadline=None)
@given(
    st.floats(0.001, 1e6),
    st.integers(1, 2**30),
    st.sampled_from(("llama-3-8b", "deepseek-v3", "qwen3.8-27b", "mistral-7b")),
)
def test_the_field_and_the_ceiling_agree_on_any_setting(bandwidth, context, model):
    m = MemoryState(model=model, context=context, bandwidth_gbs=bandwidth)
    d = m.decode()
    r = m.report()
    step = r["weights_bytes"] + r["kv_cache_bytes"] + r["recurrent_state_bytes"]
    assert d["decode_tokens_per_s"] == pytest.approx(bandwidth * 1e9 / step, rel=1e-12)
    # The recurrent state never depends on the context.
    assert (
        r["recurrent_state_bytes"]
        == MemoryState(model=model, context=1).report()["recurrent_state_bytes"]
    )


# --- memory: the topic's card rules ---------------------------------------------------------


def test_setting_kv_heads_makes_a_custom_card_from_the_shipped_one(ws):
    doc = ws.document
    doc.set_field("memory.kv_heads", 1)
    m = doc.memory
    assert m.model == CUSTOM and m.layers == 32 and m.heads == 32 and m.kv_heads == 1
    mqa = next(v for v in kv_report(model_card("llama-3-8b"), 131_072)["variants"]
               if v["design"] == "MQA")  # fmt: skip
    assert _memory(ws).kv_bytes == mqa["kv_cache_bytes"] == 2 * GIB
    doc.set_field("memory.model", "llama-3-8b")
    assert m.kv_heads == 8 and m.model == "llama-3-8b"


def test_choosing_a_card_fills_every_card_field():
    m = MemoryState()
    m.model = "deepseek-v3"
    assert {k: m.get(k) for k in (*CARD_FIELDS, "name")} == card_values(model_card("deepseek-v3"))
    assert m.card() == model_card("deepseek-v3")


def test_dependent_counts_follow_and_clashes_are_refused():
    m = MemoryState(model=CUSTOM)
    m.layers = 40
    assert m.attention_layers == 40  # "every layer" stays every layer
    m.sliding_window = 4096
    assert m.sliding_layers == 40  # a new window covers every attention layer
    m.sliding_window = 0
    assert m.sliding_layers == 0
    before = m.snapshot()
    for bad in ({"kv_heads": 3}, {"attention_layers": 41}, {"rope_head_dim": 64},
                {"sliding_layers": 5}, {"heads": 30}):  # fmt: skip
        with pytest.raises(StateError):
            m.update(**bad)
        assert m.snapshot() == before


def test_a_config_json_of_a_model_not_shipped_reads_into_the_topic(tmp_path):
    config = {
        "model_type": "gemma2",
        "num_hidden_layers": 42,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "hidden_size": 3584,
        "sliding_window": 4096,
        "sliding_window_pattern": 2,
    }
    path = tmp_path / "gemma-2-9b" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(config))
    card = load_hf_config(path)
    m = MemoryState()
    m.update(model=CUSTOM, **card_values(card))
    assert (m.name, m.layers, m.sliding_layers, m.sliding_window) == ("gemma-2-9b", 42, 21, 4096)
    assert (
        kv_report(m.card(), 131_072)["kv_cache_bytes"]
        == kv_report(card, 131_072)["kv_cache_bytes"]
        == 21 * (131_072 + 4096) * 2 * 8 * 256 * 2
    )


# --- reach ------------------------------------------------------------------------------------


def test_reach_at_256_matches_the_chapter_within_a_factor_of_two():
    res = compute_reach(256, 0, 1.0, 0.0)
    for kind, tokens, value in REFERENCES:
        got = res.curves[kind][tokens - 1]
        assert value / 2 <= got <= value * 2, (kind, tokens, got)
    np.testing.assert_array_equal(res.curves["attention"], np.ones(256))


def test_reach_lines_are_straight_on_a_log_scale_with_the_chapters_factors():
    res = compute_reach(256, 0, 1.0, 0.0)
    assert res.fits["rnn"].factor == pytest.approx(0.885, abs=0.01)
    assert res.fits["lstm"].factor == pytest.approx(0.95, abs=0.01)
    assert res.fits["attention"].factor == 1.0
    for kind in ("rnn", "lstm"):
        assert res.fits[kind].residual_rms < 0.1  # nats: a straight line
        # The same simulation, to the last bits but one: compute_reach's cache may hold the
        # curves a panel's worker thread computed, and a thread's floating-point state (a
        # library loaded on the main thread may flush denormals there) moves the last ulp.
        np.testing.assert_allclose(
            res.curves[kind], gradient_reach(256, kind, seed=0), rtol=1e-13, atol=0
        )


def test_reach_export_has_one_row_per_distance(ws):
    ws.document.reach.update(length=64, seed=3, score_std=1.0)
    data = panel_data(ws, "reach", "reach")
    assert data.values.shape == (64, 3) and data.columns == KINDS
    assert data.rows == tuple(str(t) for t in range(64))
    np.testing.assert_array_equal(
        data.values[:, 2], gradient_reach(64, "attention", score_std=1.0, seed=3)
    )
    assert fit_decay(data.values[:, 0]).factor < 0.95


# --- embedding --------------------------------------------------------------------------------


def test_counts_sum_to_the_batch_and_untouched_rows_have_norm_zero():
    res = compute_embedding(128_000, 8192, 1.0, 0, 4096)
    assert res.counts.sum() == 8192 and res.counts.shape == (128_000,)
    untouched = res.counts == 0
    assert np.all(res.row_norms[untouched] == 0) and np.all(res.row_norms[~untouched] > 0)
    ids = zipf_tokens(8192, 128_000, 1.0, 0)
    np.testing.assert_array_equal(res.counts, np.bincount(ids, minlength=128_000))
    assert res.untouched_fraction == zero_row_fraction(ids, 128_000) > 0.9
    assert res.counts[0] == res.counts.max()  # rank 1 is the most frequent


def test_the_chapters_parameter_count_and_the_tied_saving():
    res = compute_embedding(128_000, 16, 1.0, 0, 4096)
    assert res.table_parameters == 524_288_000  # ≈ 525 million
    assert res.parameters(False) == 2 * 524_288_000
    assert res.parameters(True) == 524_288_000 == res.tied_saving  # tying saves half


def test_embedding_exports(ws):
    ws.document.embedding.update(vocab_size=1000, batch_tokens=500, seed=2)
    counts = panel_data(ws, "embedding", "counts")
    norms = panel_data(ws, "embedding", "row_norms")
    assert data_names("embedding") == ("counts", "row_norms")
    assert counts.values.shape == norms.values.shape == (1000,)
    assert counts.values.sum() == 500 and np.all(norms.values[counts.values == 0] == 0)


# --- every topic: strict fields, sessions, undo, export --------------------------------------

BAD = st.one_of(
    st.integers(min_value=2**63, max_value=2**200),
    st.integers(max_value=-(2**40)),
    st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e300, -1e300]),
    st.text(max_size=8),
    st.sampled_from([None, [], {}, b"8", [1, 2]]),
)
NUMERIC = {
    MemoryState: ("context", "batch", "gpu_gb", "layers", "kv_heads", "params", "head_dim"),
    ReachState: ("length", "seed", "weight_scale", "score_std"),
    EmbeddingState: ("vocab_size", "batch_tokens", "exponent", "seed", "d_model"),
}


@settings(max_examples=150, deadline=None)
@given(
    cls=st.sampled_from(sorted(NUMERIC, key=lambda c: c.NAME)),
    index=st.integers(0, 6),
    value=BAD,
)
def test_bad_values_are_refused_and_change_nothing(cls, index, value):
    topic = cls()
    names = NUMERIC[cls]
    name = names[index % len(names)]
    before = topic.snapshot()
    with pytest.raises(StateError):
        topic.update(**{name: value})
    assert topic.snapshot() == before


@pytest.mark.parametrize(
    ("path", "value"),
    [("memory.model", "gpt-5"), ("memory.dtype", "fp4"), ("memory.context", "128k"),
     ("embedding.tied", "no"), ("embedding.color_by", 1), ("reach.length", 1025),
     ("reach.length", 1), ("embedding.vocab_size", 131_073)],
)  # fmt: skip
def test_set_field_refuses_with_the_fields_name(path, value):
    doc = Document()
    with pytest.raises(StateError, match=path.split(".")[1]):
        doc.set_field(path, value)


def test_sessions_and_undo_hold_the_three_topics(tmp_path):
    doc = Document()
    history = History(doc)
    doc.set_field("memory.kv_heads", 2)
    doc.set_field("reach.length", 512)
    doc.set_field("embedding.tied", True)
    save_session(doc, tmp_path / "s.attnviz")
    fresh = Document()
    load_session(fresh, tmp_path / "s.attnviz")
    assert fresh.memory.model == CUSTOM and fresh.memory.kv_heads == 2
    assert fresh.reach.length == 512 and fresh.embedding.tied
    for _ in range(3):
        history.undo()
    assert doc.memory.model == "llama-3-8b" and doc.memory.kv_heads == 8
    assert doc.reach.length == 256 and not doc.embedding.tied


def _csv(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_cli_exports_the_panels_data(tmp_path, capsys):
    out = tmp_path / "v.csv"
    assert cli(["export", "--panel", "memory", "--matrix", "variants", "--out", str(out)]) == 0
    rows = _csv(out)
    assert rows[0] == ["variants", "kv_bytes_per_token", "kv_cache_bytes"]
    table = {r[0]: (float(r[1]), float(r[2])) for r in rows[1:]}
    assert table["GQA"] == (131_072, 16 * GIB) and table["MHA"] == (4 * 131_072, 64 * GIB)
    out = tmp_path / "r.csv"
    args = ["export", "--panel", "reach", "--matrix", "reach", "--set", "reach.length=64"]
    assert cli([*args, "--out", str(out)]) == 0
    rows = _csv(out)
    assert rows[0] == ["reach", "rnn", "lstm", "attention"] and len(rows) == 65
    assert float(rows[64][1]) == compute_reach(64, 0, 1.0, 0.0).curves["rnn"][63]
    out = tmp_path / "c.npy"
    args = ["export", "--panel", "embedding", "--matrix", "counts",
            "--set", "embedding.batch_tokens=1000"]  # fmt: skip
    assert cli([*args, "--out", str(out)]) == 0
    assert np.load(out).sum() == 1000


def test_the_heads_panel_layout_reaches_the_memory_panel():
    from attnviz.model.topic_presets import document_preset_values
    from attnviz.model.workspace import Workspace

    ws = Workspace()
    resolver = ws.resolver_for("memory")
    assert resolver.results.heads is None  # typed vectors: no heads to count
    ws.document.restore(document_preset_values("heads"))
    a = ws.document.attention
    assert (a.n_heads, a.n_kv_heads, a.d_k) == (8, 2, 8)
    ws.document.memory.update(dtype="bf16", context=4096, batch=1)
    heads = resolver.results.heads
    assert heads.bytes_per_token == 2 * 2 * 8 * 2  # K and V, 2 KV heads, width 8, 2 bytes
    assert heads.mha_bytes_per_token == 2 * 8 * 8 * 2
    assert heads.cache_bytes == 64 * 4096
    a.update(n_kv_heads=1)  # MQA in the heads panel: half the bytes here
    assert resolver.results.heads.bytes_per_token == 32
