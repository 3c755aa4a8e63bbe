"""Every token mixer's matrix against the mixer run step by step, written here.

Each recurrence below is the published state update, in float64, one token at a time:
``out_t`` from the state, never from a matrix. ``M @ v`` must equal it to 1e-10. The softmax
family is held to a direct loop over the keys each row may see (softmax itself is held to the
attention topic's weights in tests/model/test_mixers_topic.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.mixer_costs import crossing, sequence_costs, state_numbers, token_costs
from attnviz.core.mixers import (
    KINDS,
    MixerParams,
    kept_fraction,
    mixing_matrix,
    synthetic_qkv,
)
from attnviz.core.recall import recall_curves, recall_lengths

TOL = 1e-10


def _phi(x, name):
    if name == "elu1":  # elu(x) + 1, written from its definition
        return np.array([xi + 1.0 if xi > 0 else np.exp(xi) for xi in x])
    if name == "relu":
        return np.array([max(xi, 0.0) for xi in x])
    return np.array(x, dtype=float)


def _linear_steps(q, k, v, name, normalised):
    """Katharopoulos et al. 2020: S_t = S_{t−1} + φ(k_t) v_tᵀ, z_t = z_{t−1} + φ(k_t)."""
    n, d = q.shape
    s, z, out = np.zeros((d, v.shape[1])), np.zeros(d), []
    for t in range(n):
        fk, fq = _phi(k[t], name), _phi(q[t], name)
        s = s + np.outer(fk, v[t])
        z = z + fk
        o = s.T @ fq
        if normalised:
            den = z @ fq
            o = o / den if den != 0 else np.zeros_like(o)
        out.append(o)
    return np.array(out)


def _decayed_steps(q, k, v, gamma):
    """RetNet (Sun et al. 2023), recurrent form: S_t = γ S_{t−1} + (k_t/√d) v_tᵀ."""
    n, d = q.shape
    s, out = np.zeros((d, v.shape[1])), []
    for t in range(n):
        s = gamma * s + np.outer(k[t] / np.sqrt(d), v[t])
        out.append(s.T @ q[t])
    return np.array(out)


def _delta_steps(q, k, v, beta, alpha):
    """Gated DeltaNet (Yang, Kautz & Hatamizadeh 2025), S ∈ R^{d_v × d_k}:
    S_t = α S_{t−1} (I − β k_t k_tᵀ) + β v_t k_tᵀ, o_t = S_t q_t (α = 1: DeltaNet), with
    q and k L2-normalised. Written as the delta rule: the value stored under k_t is
    S_{t−1} k_t; it is moved by β towards v_t."""
    n, d = q.shape
    s, out = np.zeros((v.shape[1], d)), []
    for t in range(n):
        kt = k[t] / np.linalg.norm(k[t])
        qt = q[t] / np.linalg.norm(q[t])
        s = alpha * s  # the gate forgets first
        old = s @ kt
        s = s + beta * np.outer(v[t] - old, kt)
        out.append(s @ qt)
    return np.array(out)


def _softmax_loop(q, k, v, seen):
    """Row by row over the keys ``seen(t)`` lists: exp(q·k/√d) over their sum."""
    n, d = q.shape
    out = []
    for t in range(n):
        keys = seen(t)
        scores = np.array([q[t] @ k[s] / np.sqrt(d) for s in keys])
        w = np.exp(scores - scores.max())
        w /= w.sum()
        out.append(sum(wi * v[s] for wi, s in zip(w, keys, strict=True)))
    return np.array(out)


@pytest.fixture(params=[(17, 5, 0), (40, 8, 3), (9, 1, 7)])
def head(request):
    return synthetic_qkv(*request.param)


@pytest.mark.parametrize("name", ["elu1", "relu", "identity"])
@pytest.mark.parametrize("normalised", [True, False])
def test_linear_attention_is_its_recurrence(head, name, normalised):
    q, k, v = head
    if name == "identity" and normalised:
        # z·φ(q) of signed features passes near 0: the ratio amplifies rounding. Keys and
        # queries of one sign keep the normaliser away from 0.
        q, k = np.abs(q) + 0.1, np.abs(k) + 0.1
    m = mixing_matrix("linear", q, k, MixerParams(feature_map=name, normalised=normalised))
    np.testing.assert_allclose(m @ v, _linear_steps(q, k, v, name, normalised), rtol=0, atol=TOL)


@pytest.mark.parametrize("gamma", [0.0, 0.5, 0.9, 1.0])
def test_decayed_linear_is_its_recurrence(head, gamma):
    q, k, v = head
    m = mixing_matrix("decayed", q, k, MixerParams(decay=gamma))
    np.testing.assert_allclose(m @ v, _decayed_steps(q, k, v, gamma), rtol=0, atol=TOL)


@pytest.mark.parametrize(("beta", "alpha"), [(0.5, 1.0), (1.0, 1.0), (0.0, 1.0), (0.3, 0.8)])
def test_delta_rules_are_their_recurrences(head, beta, alpha):
    q, k, v = head
    kind = "deltanet" if alpha == 1.0 else "gated_deltanet"
    m = mixing_matrix(kind, q, k, MixerParams(beta=beta, alpha=alpha))
    np.testing.assert_allclose(m @ v, _delta_steps(q, k, v, beta, alpha), rtol=0, atol=TOL)
    if kind == "gated_deltanet":  # and α = 1 is DeltaNet exactly
        plain = mixing_matrix("gated_deltanet", q, k, MixerParams(beta=beta, alpha=1.0))
        np.testing.assert_array_equal(
            plain, mixing_matrix("deltanet", q, k, MixerParams(beta=beta))
        )


def test_deltanet_with_beta_one_stores_orthogonal_keys_exactly():
    """β = 1 and orthonormal keys: each key reads back exactly its own value (the delta
    rule replaces, where plain linear attention would add)."""
    d = 6
    keys = np.linalg.qr(np.random.default_rng(1).standard_normal((d, d)))[0]
    v = np.random.default_rng(2).standard_normal((d, 3))
    k = np.vstack([keys, keys[2:3]])  # key 2 written again, then read
    q = np.vstack([keys, keys[2:3]])
    v2 = np.vstack([v, 5 * v[2:3]])
    m = mixing_matrix("deltanet", q, k, MixerParams(beta=1.0))
    out = m @ v2
    np.testing.assert_allclose(out[:d], v, atol=1e-12)
    np.testing.assert_allclose(out[d], 5 * v[2], atol=1e-12)  # overwritten, not summed


@pytest.mark.parametrize(
    ("kind", "params", "seen"),
    [
        ("softmax", MixerParams(), lambda t: range(t + 1)),
        ("window", MixerParams(window=5), lambda t: range(max(0, t - 4), t + 1)),
        ("window", MixerParams(window=1), lambda t: [t]),
        (
            "strided",
            MixerParams(stride=3),
            lambda t: [s for s in range(t + 1) if t - s < 3 or (t - s) % 3 == 0],
        ),
    ],
)
def test_softmax_family_is_a_loop_over_the_keys_it_keeps(head, kind, params, seen):
    q, k, v = head
    m = mixing_matrix(kind, q, k, params)
    np.testing.assert_allclose(m @ v, _softmax_loop(q, k, v, seen), rtol=0, atol=TOL)
    n = q.shape[0]
    for t in range(n):  # exactly those pairs, no more
        assert set(np.flatnonzero(m[t])) == set(seen(t)), (kind, t)


@pytest.mark.parametrize("top", [1, 3, 100])
def test_top_k_keeps_the_largest_scores_of_each_row(head, top):
    q, k, v = head
    m = mixing_matrix("top_k", q, k, MixerParams(top_k=top))
    scores = q @ k.T
    for t in range(q.shape[0]):
        kept = set(np.flatnonzero(m[t]))
        largest = set(np.argsort(-scores[t, : t + 1], kind="stable")[:top])
        assert kept == largest and len(kept) == min(top, t + 1)
    seen = lambda t: sorted(np.argsort(-scores[t, : t + 1], kind="stable")[:top])  # noqa: E731
    np.testing.assert_allclose(m @ v, _softmax_loop(q, k, v, seen), rtol=0, atol=TOL)


def test_kept_fraction_counts_causal_pairs():
    q, k, _v = synthetic_qkv(10, 3, 0)
    assert kept_fraction(mixing_matrix("softmax", q, k)) == 1.0
    window = mixing_matrix("window", q, k, MixerParams(window=2))
    assert kept_fraction(window) == (10 + 9) / 55  # the diagonal and the one below it


def test_state_and_costs_follow_the_hand_arithmetic():
    d, p = 16, MixerParams(window=8, normalised=True)
    assert state_numbers("softmax", 1000, d) == 2 * 16 * 1000  # K and V rows
    assert state_numbers("window", 1000, d, p) == 2 * 16 * 8
    assert state_numbers("linear", 1000, d, p) == 16 * 16 + 16  # S and z
    assert state_numbers("gated_deltanet", 10**6, d) == 256
    flops, moved = token_costs("softmax", 100, d)
    assert (flops, moved) == (4 * 16 * 100, 2 * 4 * 16 * 100)
    flops, moved = token_costs("deltanet", 100, d)
    assert (flops, moved) == (6 * 256 + 32, 2 * 4 * 256)
    soft, _ = sequence_costs("softmax", 200, d)
    lin, _ = sequence_costs("linear", 200, d, MixerParams(normalised=False))
    # Σ_{t ≤ n} 4 d t = 2 d n (n + 1) against 4 d² n: cheaper once n + 1 > 2d, n ≥ 32.
    assert soft[-1] == 2 * 16 * 200 * 201 and lin[-1] == 4 * 256 * 200
    assert crossing(lin, soft) == 32
    assert crossing(soft, soft) is None


def test_recall_of_softmax_is_whole_and_a_small_state_loses_pairs():
    lengths, curves = recall_curves(64, 8, MixerParams(beta=1.0), seed=0)
    np.testing.assert_array_equal(lengths, [1, 2, 4, 8, 16, 32, 64])
    assert curves["softmax"].min() == 1.0 and curves["top_k"].min() == 1.0
    for kind in ("linear", "decayed", "deltanet", "gated_deltanet"):
        assert curves[kind][-1] < 0.5, kind  # 64 pairs in an 8 × 8 state
    assert curves["deltanet"][0] == 1.0  # one pair: stored exactly (β = 1)
    assert list(recall_lengths(5)) == [1, 2, 4, 5] and list(recall_lengths(1)) == [1]


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    n=st.integers(1, 12),
    d=st.integers(1, 5),
    seed=st.integers(0, 2**31 - 1),
    window=st.integers(1, 20),
    beta=st.floats(0, 1),
    alpha=st.floats(0, 1),
)
def test_every_kind_is_causal_and_finite(kind, n, d, seed, window, beta, alpha):
    q, k, _v = synthetic_qkv(n, d, seed)
    p = MixerParams(window=window, top_k=window, stride=window, beta=beta, alpha=alpha)
    m = mixing_matrix(kind, q, k, p)
    assert m.shape == (n, n) and np.isfinite(m).all()
    assert not np.triu(m, 1).any()  # no token reads the future
