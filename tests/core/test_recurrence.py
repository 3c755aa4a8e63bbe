"""Gradient reach: the chapter's RNN / LSTM / attention figures from seeded simulations."""

import math

import numpy as np
import pytest

from attnviz.core.recurrence import decay_factor, fit_decay, gradient_reach

# the textbook chapter: (kind, T, stated gradient share of the first token)
CHAPTER = [("rnn", 64, 5e-4), ("rnn", 256, 1e-14), ("lstm", 64, 4e-2), ("lstm", 256, 2e-6)]


@pytest.mark.parametrize("kind, T, stated", CHAPTER)
def test_defaults_reproduce_the_chapter_within_a_factor_of_three(kind, T, stated):
    g = gradient_reach(T, kind)
    first = g[T - 1]
    assert stated / 3 <= first <= stated * 3, f"{kind} at T={T}: {first:.3g} vs {stated:g}"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("kind, T, stated", CHAPTER)
def test_other_seeds_also_land_within_a_factor_of_three(kind, T, stated, seed):
    first = gradient_reach(T, kind, seed=seed)[T - 1]
    assert stated / 3 <= first <= stated * 3


@pytest.mark.parametrize("kind", ["rnn", "lstm", "attention"])
def test_shape_and_the_last_token_gets_all_of_its_own_gradient(kind):
    g = gradient_reach(50, kind)
    assert g.shape == (50,) and g.dtype == np.float64
    assert g[0] == 1.0
    assert np.all(np.isfinite(g)) and np.all(g >= 0)
    assert gradient_reach(1, kind).tolist() == [1.0]


@pytest.mark.parametrize("kind", ["rnn", "lstm"])
def test_recurrent_reach_decays_monotonically(kind):
    # orthogonal W at scale 1 and tanh' ≤ 1: each step can only shrink; forget gates are < 1
    g = gradient_reach(256, kind)
    assert np.all(np.diff(g) <= 0)
    assert g[-1] < 1e-5


@pytest.mark.parametrize("kind, factor", [("rnn", 0.885), ("lstm", 0.95)])
def test_reach_is_a_straight_line_on_a_log_plot(kind, factor):
    fit = fit_decay(gradient_reach(256, kind))
    assert fit.residual_rms < 0.15  # nats: visibly a straight line over 32 decades
    assert fit.factor == pytest.approx(factor, abs=0.006)
    assert abs(fit.log_intercept) < 0.3
    assert decay_factor(gradient_reach(256, kind)) == fit.factor


def test_attention_reaches_every_token_in_one_step():
    np.testing.assert_array_equal(gradient_reach(256, "attention"), np.ones(256))
    g = gradient_reach(256, "attention", score_std=1.0, seed=4)
    assert g[0] == 1.0
    # content moves individual tokens, but there is no trend with distance
    fit = fit_decay(g)
    assert abs(math.log(fit.factor)) < 0.005
    assert fit_decay(np.ones(10)).factor == 1.0 and fit_decay(np.ones(10)).half_life == math.inf


def test_same_seed_same_curve_other_seed_other_curve():
    a = gradient_reach(100, "rnn", seed=7)
    np.testing.assert_array_equal(a, gradient_reach(100, "rnn", seed=7))
    assert not np.array_equal(a, gradient_reach(100, "rnn", seed=8))
    b = gradient_reach(100, "lstm", seed=7)
    np.testing.assert_array_equal(b, gradient_reach(100, "lstm", seed=7))


def test_the_knobs_move_the_curve_the_right_way():
    base = gradient_reach(128, "rnn")[-1]
    assert gradient_reach(128, "rnn", input_scale=0.5)[-1] < base  # deeper into tanh's tails
    assert gradient_reach(128, "rnn", input_scale=0.05)[-1] > base
    assert gradient_reach(128, "rnn", weight_scale=0.5)[-1] < base
    lstm = gradient_reach(128, "lstm")[-1]
    assert gradient_reach(128, "lstm", forget_bias=5.0)[-1] > lstm
    assert gradient_reach(128, "lstm", forget_bias=1.0)[-1] < lstm


def test_lstm_rms_is_the_vector_norm_and_never_below_the_typical_unit():
    geo = gradient_reach(256, "lstm")
    rms = gradient_reach(256, "lstm", reduce="rms")
    assert rms[0] == 1.0
    assert np.all(rms >= geo * (1 - 1e-12))  # power-mean inequality


def test_long_sequences_do_not_overflow_or_warn():
    for kind in ("rnn", "lstm"):
        g = gradient_reach(3000, kind, hidden=16)
        assert np.all(np.isfinite(g)) and g[-1] < 1e-60
    grow = gradient_reach(400, "rnn", hidden=16, weight_scale=3.0, input_scale=0.0)
    assert np.all(np.isfinite(grow)) and grow[-1] > 1.0
    assert gradient_reach(20, "rnn", weight_scale=0.0)[1:].max() == 0.0


def test_fit_decay_on_an_exact_exponential():
    t = np.arange(40)
    fit = fit_decay(0.9**t)
    assert fit.factor == pytest.approx(0.9, rel=1e-12)
    assert fit.residual_rms < 1e-12
    assert fit.half_life == pytest.approx(math.log(0.5) / math.log(0.9))
    # underflowed zeros are left out, and start skips the head
    g = np.concatenate([0.5 ** np.arange(5), [0.0, 0.0]])
    assert fit_decay(g).factor == pytest.approx(0.5)
    assert fit_decay(np.r_[1.0, 0.8 ** np.arange(1, 20) * 0.1], start=1).factor == pytest.approx(
        0.8
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"T": 0}, "T"),
        ({"T": 2.5}, "integer"),
        ({"T": 10, "kind": "gru"}, "lstm"),
        ({"T": 10, "hidden": 0}, "hidden"),
        ({"T": 10, "weight_scale": -1.0}, "weight_scale"),
        ({"T": 10, "input_scale": float("nan")}, "finite"),
        ({"T": 10, "kind": "lstm", "forget_bias": float("inf")}, "finite"),
        ({"T": 10, "reduce": "max"}, "geometric"),
        ({"T": 10, "seed": -1}, "seed"),
        ({"T": 10, "burn_in": -5}, "burn_in"),
        ({"T": 10, "kind": "attention", "score_std": -1.0}, "score_std"),
    ],
)
def test_bad_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gradient_reach(**kwargs)


def test_fit_decay_rejects_bad_curves():
    with pytest.raises(ValueError, match="1-D"):
        fit_decay(np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        fit_decay([1.0, -0.5, 0.2])
    with pytest.raises(ValueError, match="non-negative"):
        fit_decay([1.0, np.nan])
    with pytest.raises(ValueError, match="two positive"):
        fit_decay([1.0, 0.0, 0.0])
