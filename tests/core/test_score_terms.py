"""Capping, ALiBi and sink logits: against torch written as the models write them, finite
differences, and the properties each term must keep."""

import math

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import (
    attention,
    attention_backward,
    attention_from_scores,
    finite_difference_check,
    row_entropy,
    score_scale,
)
from attnviz.core.score_terms import PLAIN, ScoreTerms, alibi_bias, alibi_slopes


def _qkv(n=6, d=4, seed=3):
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(size=(n, d)) * 2 for _ in range(4))


def test_plain_terms_change_nothing_bit_for_bit():
    q, k, v, _ = _qkv()
    a = attention(q, k, v, mask=masks.causal_mask(6))
    b = attention(q, k, v, mask=masks.causal_mask(6), terms=ScoreTerms())
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.scores, b.scores)
    assert PLAIN.plain and not ScoreTerms(sink=0.0).plain


def test_softcap_matches_gemma2_written_in_torch():
    torch = pytest.importorskip("torch")
    q, k, v, _ = _qkv()
    cap = 1.5
    res = attention(q, k, v, mask=masks.causal_mask(6), terms=ScoreTerms(softcap=cap))
    tq, tk = torch.tensor(q), torch.tensor(k)
    s = tq @ tk.T / math.sqrt(4)
    s = torch.tanh(s / cap) * cap  # Gemma 2's eager attention
    s = s.masked_fill(~torch.tensor(masks.causal_mask(6)), float("-inf"))
    assert np.max(np.abs(torch.softmax(s, -1).numpy() - res.weights)) < 1e-14
    assert np.all(np.abs(res.scores) < cap)


def test_sink_matches_gpt_oss_written_in_torch():
    torch = pytest.importorskip("torch")
    q, k, v, _ = _qkv()
    sink = 0.7
    res = attention(q, k, v, mask=masks.causal_mask(6), terms=ScoreTerms(sink=sink))
    s = torch.tensor(q) @ torch.tensor(k).T / 2.0
    s = s.masked_fill(~torch.tensor(masks.causal_mask(6)), float("-inf"))
    combined = torch.cat([s, torch.full((6, 1), sink, dtype=s.dtype)], dim=-1)
    probs = torch.softmax(combined - combined.max(-1, keepdim=True).values, -1)
    assert np.max(np.abs(probs[:, :-1].numpy() - res.weights)) < 1e-14
    # The rows sum to less than one: the rest is the sink's.
    total = res.weights.sum(-1)
    assert np.all(total < 1) and np.allclose(total + probs[:, -1].numpy(), 1)
    # The entropy is the whole distribution's, the sink included.
    full = np.concatenate([res.weights, probs[:, -1:].numpy()], axis=1)
    assert np.allclose(res.entropy, row_entropy(full), atol=1e-12)


def test_alibi_equals_bloom_on_causal_rows():
    """BLOOM adds slope·j (the key's position); attnviz draws −slope·|i−j|: on a causal
    row they differ by slope·i, the same for every key, which the softmax cancels."""
    q, k, v, _ = _qkv(n=7)
    slope = 0.25
    causal = masks.causal_mask(7)
    ours = attention(q, k, v, mask=causal, terms=ScoreTerms(alibi=slope)).weights
    bloom = (q @ k.T) / 2.0 + slope * np.arange(7)[None, :]
    bloom = np.where(causal, bloom, -np.inf)
    bloom = np.exp(bloom - bloom.max(-1, keepdims=True))
    bloom /= bloom.sum(-1, keepdims=True)
    assert np.max(np.abs(ours - bloom)) < 1e-14
    # Symmetric and zero on the diagonal.
    bias = alibi_bias(5, 5, slope)
    assert np.array_equal(bias, bias.T) and not bias.diagonal().any()
    assert bias[4, 0] == -1.0
    # Blocks of a long map see the same bias as the whole matrix.
    assert np.array_equal(alibi_bias(2, 3, slope, 3, 1), alibi_bias(5, 5, slope)[3:5, 1:4])


def test_alibi_slopes_are_blooms():
    assert np.allclose(alibi_slopes(8), 2.0 ** -np.arange(1, 9))
    torch = pytest.importorskip("torch")
    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    for h in (1, 3, 8, 12, 16, 20):
        want = bloom._get_alibi_slopes(h, torch.device("cpu")).double().numpy()
        assert np.allclose(alibi_slopes(h), want, rtol=1e-6), h


def test_from_scores_agrees_with_attention():
    q, k, v, _ = _qkv()
    terms = ScoreTerms(softcap=2.0, alibi=0.5, sink=-0.3)
    a = attention(q, k, v, temperature=0.7, terms=terms)
    b = attention_from_scores((q @ k.T) * score_scale(4, True, 0.7), v, terms=terms)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.output, b.output)


@pytest.mark.parametrize(
    "terms",
    [
        ScoreTerms(softcap=1.2),
        ScoreTerms(alibi=0.3),
        ScoreTerms(sink=0.4),
        ScoreTerms(softcap=0.8, alibi=0.2, sink=-1.0),
        ScoreTerms(tuning=0.4, tuning_floor=2),
        ScoreTerms(tuning=0.4, tuning_floor=2, softcap=1.1, alibi=0.2, sink=0.3),
    ],
)
@pytest.mark.parametrize("mask_kind", [None, "causal"])
def test_finite_differences_with_terms(terms, mask_kind):
    q, k, v, d_o = _qkv(n=5, d=3)
    m = None if mask_kind is None else masks.causal_mask(5)
    check = finite_difference_check(q, k, v, d_o, mask=m, temperature=0.8, terms=terms)
    assert check.max_error <= 1e-8


def test_capped_gradient_is_smaller_where_scores_saturate():
    q, k, v, d_o = _qkv(n=5, d=3, seed=9)
    q = q * 10  # large scores: tanh saturates
    free = attention_backward(d_o, q, k, v)
    capped = attention_backward(d_o, q, k, v, terms=ScoreTerms(softcap=0.5))
    assert np.abs(capped.dq).max() < np.abs(free.dq).max()


def test_sink_takes_a_fully_masked_row():
    q, k, v, _ = _qkv(n=3)
    m = np.ones((3, 3), bool)
    m[1] = False
    res = attention(q, k, v, mask=m, terms=ScoreTerms(sink=2.0))
    assert not res.weights[1].any() and res.entropy[1] == 0 and res.fully_masked[1]
    assert np.isfinite(res.weights).all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"softcap": -1.0},
        {"alibi": float("nan")},
        {"sink": float("inf")},
        {"softcap": 1e400},
        {"alibi": "0.5"},
        {"sink": True},
        {"softcap": 1e4},
        {"alibi": 17.0},
        {"sink": -101.0},
    ],
)
def test_bad_terms_are_refused(kwargs):
    with pytest.raises(ValueError):
        ScoreTerms(**kwargs)


def test_terms_must_be_score_terms():
    q, k, v, _ = _qkv()
    with pytest.raises(ValueError, match="ScoreTerms"):
        attention(q, k, v, terms={"softcap": 1.0})


@pytest.mark.parametrize("h", [0, -2, 2.5, True])
def test_bad_slope_counts(h):
    with pytest.raises(ValueError):
        alibi_slopes(h)
