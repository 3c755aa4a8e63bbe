"""Multi-head attention from X and W: head blocks, GQA/MQA, seeded projections and FLOPs."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.attention import attention
from attnviz.core.heads import projection_weight, seeded_projection, token_embeddings
from attnviz.core.multihead import (
    attention_flops,
    fit_projection,
    kv_groups,
    kv_head_of,
    multi_head_attention,
    project_head,
    project_heads,
    projection_shape,
    repeat_kv,
    split_heads,
)


def _torch():
    return pytest.importorskip("torch")


def _model(n=6, d_model=12, h=4, h_kv=2, d=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w_q = rng.normal(size=(d_model, h * d))
    w_k = rng.normal(size=(d_model, h_kv * d))
    w_v = rng.normal(size=(d_model, h_kv * d))
    w_o = rng.normal(size=(h * d, d_model))
    return x, w_q, w_k, w_v, w_o


def test_query_heads_read_their_kv_head():
    assert [kv_head_of(i, 8, 2) for i in range(8)] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert [kv_head_of(i, 8, 1) for i in range(8)] == [0] * 8
    assert [kv_head_of(i, 8, 8) for i in range(8)] == list(range(8))
    assert kv_groups(6, 3) == ((0, 1), (2, 3), (4, 5))
    with pytest.raises(ValueError, match="does not divide"):
        kv_groups(8, 3)
    with pytest.raises(ValueError, match="outside"):
        kv_head_of(8, 8, 2)


def test_one_head_is_its_column_block():
    x, w_q, w_k, w_v, _ = _model()
    q_all, k_all, v_all = project_heads(x, w_q, w_k, w_v, n_heads=4, n_kv_heads=2)
    assert q_all.shape == (4, 6, 3) and k_all.shape == (2, 6, 3)
    for head in range(4):
        q, k, v = project_head(x, w_q, w_k, w_v, head, n_heads=4, n_kv_heads=2)
        np.testing.assert_array_equal(q, x @ w_q[:, 3 * head : 3 * head + 3])
        np.testing.assert_allclose(q, q_all[head], rtol=0, atol=1e-12)
        np.testing.assert_allclose(k, k_all[head // 2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(v, v_all[head // 2], rtol=0, atol=1e-12)


@pytest.mark.parametrize("h_kv", [1, 2, 4])  # MQA, GQA, MHA
def test_multi_head_equals_torch_sdpa_with_gqa(h_kv):
    torch = _torch()
    x, w_q, w_k, w_v, w_o = _model(n=7, d_model=16, h=4, h_kv=h_kv, d=4, seed=h_kv)
    out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=4, n_kv_heads=h_kv)
    q, k, v = (
        torch.from_numpy(a)[None]
        for a in project_heads(x, w_q, w_k, w_v, n_heads=4, n_kv_heads=h_kv)
    )
    sdpa = torch.nn.functional.scaled_dot_product_attention
    heads = sdpa(q, k, v, enable_gqa=True)[0].numpy()
    # V = identity gives the weights themselves: A·I = A.
    eye = torch.eye(7, dtype=torch.float64).expand(1, h_kv, 7, 7)
    ref_w = sdpa(q, k, eye, enable_gqa=True)[0].numpy()
    ref_out = np.concatenate(list(heads), axis=1) @ w_o
    np.testing.assert_allclose(weights, ref_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out, ref_out, rtol=0, atol=1e-12)


def test_mqa_is_gqa_with_the_kv_head_repeated():
    x, w_q, w_k, w_v, w_o = _model(h_kv=1)
    _, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=4, n_kv_heads=1)
    q, k, v = project_heads(x, w_q, w_k, w_v, n_heads=4, n_kv_heads=1)
    ref = attention(q, repeat_kv(k, 4), repeat_kv(v, 4)).weights
    np.testing.assert_allclose(weights, ref, rtol=0, atol=1e-15)


def test_the_chapters_split_and_equal_flops():
    # d = 4096, h = 32 → 128 dimensions per head; same FLOPs as one head of width 4096.
    n = 1024
    narrow = attention_flops(n, 4096, 32, 32, 128)
    wide = attention_flops(n, 4096, 1, 1, 4096)
    assert 4096 // 32 == 128
    assert narrow.total == wide.total == 8 * n * 4096 * 4096 + 4 * n * n * 4096
    assert narrow.q_proj == wide.q_proj == 2 * n * 4096 * 4096
    assert narrow.scores == wide.scores == 2 * n * n * 4096
    # The softmax is not free: 32 score matrices instead of one.
    assert narrow.score_entries == 32 * wide.score_entries == 32 * n * n


@pytest.mark.parametrize(
    ("n", "d_model", "h", "d"), [(12, 64, 8, 8), (3, 2, 2, 1), (100, 96, 12, 8)]
)
def test_h_heads_of_width_d_cost_one_head_of_width_hd(n, d_model, h, d):
    assert (
        attention_flops(n, d_model, h, h, d).total == attention_flops(n, d_model, 1, 1, h * d).total
    )


def test_gqa_shrinks_only_the_kv_projections_and_the_cache():
    mha = attention_flops(12, 64, 8, 8, 8)
    gqa = attention_flops(12, 64, 8, 2, 8)
    assert (mha.q_proj, mha.scores, mha.mix, mha.out_proj) == (
        gqa.q_proj,
        gqa.scores,
        gqa.mix,
        gqa.out_proj,
    )
    assert mha.k_proj == 4 * gqa.k_proj == 98_304
    assert (mha.kv_cache, gqa.kv_cache) == (128, 32)
    assert mha.total == 430_080 and gqa.total == 282_624


def test_seeded_embeddings_belong_to_tokens():
    x = token_embeddings(["o", "banco", "O", "praça"], 8, seed=3)
    np.testing.assert_array_equal(x[0], x[2])  # equal words (any case) share a row
    assert not np.allclose(x[0], x[1])
    again = token_embeddings(["praça", "o"], 8, seed=3)
    np.testing.assert_array_equal(again[0], x[3])
    wider = token_embeddings(["o"], 12, seed=3)
    np.testing.assert_array_equal(wider[0, :8], x[0])  # growing d_model keeps the start
    assert not np.allclose(token_embeddings(["o"], 8, seed=4), x[:1])


def test_seeded_weights_keep_heads_when_heads_are_added():
    w4 = projection_weight("w_q", 16, 4, 4, 4, seed=1)
    w8 = projection_weight("w_q", 16, 8, 8, 4, seed=1)
    assert w4.shape == (16, 16) and w8.shape == (16, 32)
    np.testing.assert_array_equal(w8[:, :16], w4)
    k2 = projection_weight("w_k", 16, 8, 2, 4, seed=1)
    k1 = projection_weight("w_k", 16, 8, 1, 4, seed=1)
    np.testing.assert_array_equal(k2[:, :4], k1)  # MQA keeps KV head 0
    o = projection_weight("w_o", 16, 8, 2, 4, seed=1)
    assert o.shape == (32, 16)
    # Variance 1/fan-in: Q keeps the scale of X (with the gain √2 of W_Q and W_K).
    big = projection_weight("w_v", 400, 4, 4, 50, seed=0)
    assert abs(big.var() * 400 - 1) < 0.05


def test_seeded_projection_is_cached_and_read_only():
    a = seeded_projection("w_q", ("a",), 8, 2, 1, 4, 5)
    b = seeded_projection("w_q", ("b", "c"), 8, 2, 1, 4, 5)  # W does not depend on tokens
    assert a is b and not a.flags.writeable
    x = seeded_projection("x", ("a", "b"), 8, 2, 1, 4, 5)
    assert x.shape == (2, 8) and seeded_projection("x", ("a", "b"), 8, 2, 1, 4, 5) is x


def test_projection_shapes_and_errors():
    assert projection_shape("x", 5, 64, 8, 2, 8) == (5, 64)
    assert projection_shape("w_q", 5, 64, 8, 2, 8) == (64, 64)
    assert projection_shape("w_k", 5, 64, 8, 2, 8) == (64, 16)
    assert projection_shape("w_o", 5, 64, 8, 2, 8) == (64, 64)
    x, w_q, w_k, w_v, w_o = _model()
    with pytest.raises(ValueError, match="w_k must have n_kv_heads"):
        project_heads(x, w_q, w_k[:, :5], w_v, n_heads=4, n_kv_heads=2)
    with pytest.raises(ValueError, match="does not divide"):
        project_head(x, w_q, w_k, w_v, 0, n_heads=4, n_kv_heads=3)


def test_a_typed_matrix_keeps_its_head_blocks_when_heads_change():
    typed = np.arange(4 * 6, dtype=float).reshape(4, 6)  # d_model 4, 2 heads of width 3
    seeded = np.full((4, 12), -1.0)  # 3 heads of width 4
    out = fit_projection("w_q", typed, seeded, (2, 3), (3, 4))
    np.testing.assert_array_equal(out[:, 0:3], typed[:, 0:3])  # head 0 stays head 0
    np.testing.assert_array_equal(out[:, 4:7], typed[:, 3:6])  # head 1 stays head 1
    assert np.all(out[:, 3] == -1) and np.all(out[:, 8:] == -1)  # new parts from the seed
    rows = fit_projection("w_o", typed.T, np.full((12, 4), -1.0), (2, 3), (3, 4))
    np.testing.assert_array_equal(rows[4:7], typed.T[3:6])
    x = fit_projection("x", np.ones((2, 3)), np.zeros((3, 2)))
    np.testing.assert_array_equal(x, [[1, 1], [1, 1], [0, 0]])


def test_split_heads_matches_a_view_of_n_h_d():
    x = np.arange(3 * 8, dtype=float).reshape(3, 8)
    np.testing.assert_array_equal(split_heads(x, 2), x.reshape(3, 2, 4).transpose(1, 0, 2))
