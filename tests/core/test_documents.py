"""Every number of the documents' digest (000, 003 items 3 and 5, 004), from the presets."""

import numpy as np
import pytest

from attnviz.core.attention import attention, attention_backward, scaled_scores, softmax
from attnviz.model.presets import load_preset


def test_banco_query_of_banco_four_steps():
    p = load_preset("banco")
    i = p.selected_query
    assert p.tokens[i] == "banco"
    raw = scaled_scores(p.q, p.k, scale=False)[i]
    np.testing.assert_array_equal(raw, [1, 3, 4])
    res = attention(p.q, p.k, p.v, scale=p.scale)
    np.testing.assert_allclose(res.scores[i].round(2), [0.71, 2.12, 2.83])
    np.testing.assert_allclose(res.weights[i].round(2), [0.07, 0.31, 0.62])
    np.testing.assert_allclose(res.output[i].round(2), [0.85, 0.15])
    # value dims read as [seat, money]: "banco" here is a bench
    assert p.value_labels[int(np.argmax(res.output[i]))] == "seat"


def test_banco_all_three_queries():
    p = load_preset("banco")
    res = attention(p.q, p.k, p.v)
    np.testing.assert_allclose(
        res.weights.round(2), [[0.45, 0.45, 0.11], [0.07, 0.31, 0.62], [0.14, 0.28, 0.58]]
    )
    np.testing.assert_allclose(res.output.round(2), [[0.78, 0.22], [0.85, 0.15], [0.86, 0.14]])


def test_banco_experiment_praca_money_flips_verdict_keeps_weights():
    p = load_preset("banco")
    before = attention(p.q, p.k, p.v)
    e = p.with_experiment("praca-money")
    after = attention(e.q, e.k, e.v)
    np.testing.assert_allclose(after.output[1].round(2), [0.23, 0.77])
    np.testing.assert_array_equal(after.weights, before.weights)
    assert p.value_labels[int(np.argmax(after.output[1]))] == "money"


def test_banco_experiment_query_1_0():
    e = load_preset("banco").with_experiment("query-1-0")
    w = attention(e.q, e.k, e.v).weights[1]
    np.testing.assert_allclose(w.round(2), [0.40, 0.40, 0.20])


def test_banco_experiment_zero_query_is_uniform():
    e = load_preset("banco").with_experiment("zero-query")
    w = attention(e.q, e.k, e.v).weights[1]
    np.testing.assert_allclose(w, [1 / 3] * 3, atol=1e-15)


def test_lesson_scores_and_their_softmax():
    p = load_preset("lesson-sqrt-dk")
    assert p.d_k == 256
    raw = scaled_scores(p.q, p.k, scale=False)
    scaled = scaled_scores(p.q, p.k, scale=True)
    for row in raw:
        np.testing.assert_allclose(row, [8, 4, 0])
    for row in scaled:
        np.testing.assert_allclose(row, [0.5, 0.25, 0])
    np.testing.assert_allclose(softmax(raw[0]).round(4), [0.9817, 0.0180, 0.0003])
    np.testing.assert_allclose(softmax(scaled[0]).round(3), [0.419, 0.326, 0.254])
    # "about 98% on the first key" without the divisor
    unscaled = attention(p.q, p.k, p.v, scale=False)
    assert round(float(unscaled.weights[0, 0]), 2) == 0.98


def test_lesson_divisor_is_a_temperature():
    p = load_preset("lesson-sqrt-dk")
    by_divisor = attention(p.q, p.k, p.v, scale=True).weights
    by_temperature = attention(p.q, p.k, p.v, scale=False, temperature=np.sqrt(256)).weights
    np.testing.assert_allclose(by_divisor, by_temperature, rtol=1e-14)


def test_blog_orthogonal_query_key_scores_zero():
    p = load_preset("blog-2d")
    s = scaled_scores(p.q, p.k, scale=False)
    assert s[0, 1] == 0.0  # Q1 = [1, 0] · K2 = [0, 1]
    assert s[0, 0] == 1.0


def test_blog_without_divisor_softmax_goes_one_hot():
    p = load_preset("blog-2d")
    big = 60.0 * p.q
    w = attention(big, p.k, p.v, scale=False).weights
    np.testing.assert_allclose(w, np.eye(2), atol=1e-20)


def test_backward_reference_run():
    p = load_preset("backward-reference")
    res = attention(p.q, p.k, p.v)
    np.testing.assert_allclose(
        res.weights.round(3),
        [[0.226, 0.475, 0.298], [0.144, 0.598, 0.259], [0.668, 0.235, 0.097]],
    )
    g = attention_backward(p.d_output, p.q, p.k, p.v)
    np.testing.assert_allclose(g.dq[0].round(3), [0.456, 0.354, 0.099, 0.209])
    np.testing.assert_allclose(g.dscores.sum(axis=-1), 0, atol=1e-15)


def test_backward_reference_matches_its_own_draw():
    rng = np.random.default_rng(0)
    q, k, v, d_o = (rng.normal(size=(3, 4)) for _ in range(4))
    p = load_preset("backward-reference")
    for a, b in ((q, p.q), (k, p.k), (v, p.v), (d_o, p.d_output)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("d_k", [128])
def test_unscaled_large_dk_is_a_hard_argmax(d_k):
    # Chapter: with d_k = 128 and no divisor, score std ≈ 11, and the softmax saturates.
    rng = np.random.default_rng(1)
    q = rng.normal(size=(64, d_k))
    k = rng.normal(size=(64, d_k))
    s = scaled_scores(q, k, scale=False)
    assert 10 < s.std() < 12.5
    v = rng.normal(size=(64, 4))
    hard = attention(q, k, v, scale=False)
    soft = attention(q, k, v, scale=True)
    assert np.median(hard.weights.max(axis=-1)) > 0.9
    assert np.median(soft.weights.max(axis=-1)) < 0.5
    assert hard.entropy.mean() < soft.entropy.mean() / 3
    assert np.exp(-20) == pytest.approx(2e-9, rel=0.04)
