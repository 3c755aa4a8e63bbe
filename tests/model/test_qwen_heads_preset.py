"""The lesson's 24 query / 4 KV heads as a preset, and its numbers in the memory panel's model."""

import numpy as np
import pytest

from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace


@pytest.fixture
def ws():
    w = Workspace()
    w.document.restore(document_preset_values("qwen-heads"))
    return w


def test_the_preset_has_the_lessons_24_query_and_4_kv_heads(ws):
    a = ws.document.attention
    assert (a.head, a.n_heads, a.n_kv_heads) == ("projections", 24, 4)
    assert a.n_heads // a.n_kv_heads == 6  # six query heads share each KV head
    layout = ws.resolver_for("memory").results.heads
    assert (layout.n_heads, layout.n_kv_heads) == (24, 4)
    # One layer caches K and V of the 4 KV heads only: 2 · 4 · d_head · 2 bytes, 1/6 of MHA.
    assert layout.bytes_per_token == 2 * 4 * a.d_k * 2
    assert layout.mha_bytes_per_token == 6 * layout.bytes_per_token


def test_w_k_has_the_columns_of_4_heads_and_w_q_of_24(ws):
    a = ws.document.attention
    w_k = panel_data(ws, "heads", "w_k").values
    assert w_k.shape == (a.d_model, 4 * a.d_k)  # four KV heads' columns, not 24
    assert panel_data(ws, "heads", "w_q").values.shape == (a.d_model, 24 * a.d_k)
    assert np.all(np.isfinite(w_k))


def test_the_memory_panel_shows_the_lessons_card_and_its_totals(ws):
    m = ws.document.memory
    assert (m.model, m.context) == ("qwen3.8-27b", 262_144)
    card = ws.resolver_for("memory").results.card
    assert (card.layers, card.attention_layers, card.n_heads, card.n_kv_heads) == (64, 16, 24, 4)
    assert card.head_dim == 256  # the lesson's d_k
    s = ws.resolver_for("memory").results.report["score_matrix"]
    assert s["entries"] == 262_144**2 == 68_719_476_736
    assert s["total_entries"] == 68_719_476_736 * 24 * 16 == 26_388_279_066_624


def test_the_preset_loads_without_its_memory_fields_elsewhere():
    p = load_preset("qwen-heads")
    assert p.projections["n_heads"] == 24 and p.projections["n_kv_heads"] == 4
    values = document_preset_values("qwen-heads")
    assert values["memory"] == {"model": "qwen3.8-27b", "context": 262_144}
    assert "memory" not in document_preset_values("heads")
