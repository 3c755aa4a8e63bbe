"""Head-type scores against hand-built attention patterns, and a brute-force oracle on
random causal weights and random token sequences (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.head_types import induction_pairs, induction_score, previous_token_score

#: [BOS] a b c d a b c d: the second half repeats the first.
REPEAT = ["<s>", "a", "b", "c", "d", "a", "b", "c", "d"]


def one_hot_rows(n: int, targets) -> np.ndarray:
    """Weights whose row t puts all its weight on key ``targets[t]``."""
    w = np.zeros((n, n))
    w[np.arange(n), targets] = 1.0
    return w


def uniform_causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]


def test_a_previous_token_head_scores_one_and_no_induction_on_a_repeat():
    n = len(REPEAT)
    w = one_hot_rows(n, [0] + list(range(n - 1)))  # row 0 on itself, then t → t − 1
    assert previous_token_score(w) == 1.0
    # Its queries 5…8 look at 4…7, not at 2…5 (the token after the earlier occurrence).
    assert induction_score(w, REPEAT) == 0.0


def test_an_induction_head_scores_one_and_its_previous_token_score_is_its_share():
    n = len(REPEAT)
    targets = list(range(n))  # every row on itself …
    targets[5:] = [2, 3, 4, 5]  # … except the repeat's, on the token after the first a, b, c, d
    w = one_hot_rows(n, targets)
    assert induction_score(w, REPEAT) == 1.0
    # Query 5 → 2, 6 → 3, 7 → 4, 8 → 5: none at t − 1 (t − 3 each), and the rest on itself.
    assert previous_token_score(w) == 0.0


def test_a_uniform_causal_head_scores_the_mean_of_its_row_shares():
    n = len(REPEAT)
    w = uniform_causal(n)
    assert previous_token_score(w) == pytest.approx(np.mean([1 / (t + 1) for t in range(1, n)]))
    # Queries 5, 6, 7, 8 each give 1/(t+1) to one key.
    assert induction_score(w, REPEAT) == pytest.approx(np.mean([1 / 6, 1 / 7, 1 / 8, 1 / 9]))


def test_a_half_and_half_head_scores_half_of_each():
    n = len(REPEAT)
    prev = one_hot_rows(n, [0] + list(range(n - 1)))
    targets = list(range(n))
    targets[5:] = [2, 3, 4, 5]
    ind = one_hot_rows(n, targets)
    w = 0.5 * prev + 0.5 * ind
    assert previous_token_score(w) == pytest.approx(0.5)
    assert induction_score(w, REPEAT) == pytest.approx(0.5)


def test_the_pairs_of_a_repeat_and_of_a_token_repeated_at_once():
    q, k = induction_pairs(REPEAT)
    assert q.tolist() == [5, 6, 7, 8] and k.tolist() == [2, 3, 4, 5]
    # "x a a": the second a's earlier a is t − 1, so key t would be itself: no pair.
    assert induction_pairs(["x", "a", "a"])[0].size == 0
    # "x a a a": the third a's latest earlier a with s + 1 < t is the first one (s = 1).
    q, k = induction_pairs(["x", "a", "a", "a"])
    assert q.tolist() == [3] and k.tolist() == [2]
    # The latest earlier occurrence, not the first: "a b a b a" → query 4 reads key 3.
    q, k = induction_pairs(list("ababa"))
    assert q.tolist() == [2, 3, 4] and k.tolist() == [1, 2, 3]


def test_scores_keep_leading_axes():
    n = len(REPEAT)
    prev = one_hot_rows(n, [0] + list(range(n - 1)))
    w = np.stack([np.stack([prev, uniform_causal(n)]), np.stack([uniform_causal(n), prev])])
    got = previous_token_score(w)
    assert got.shape == (2, 2)
    assert got[0, 0] == got[1, 1] == 1.0
    assert got[0, 1] == got[1, 0] == pytest.approx(previous_token_score(uniform_causal(n)))
    assert induction_score(w, REPEAT).shape == (2, 2)


def test_nothing_to_score_is_nan_and_bad_shapes_are_refused():
    assert np.isnan(previous_token_score(np.ones((1, 1))))
    assert np.isnan(induction_score(uniform_causal(4), ["a", "b", "c", "d"]))
    with pytest.raises(ValueError, match=r"\(\.\.\., n, n\)"):
        previous_token_score(np.ones((3, 4)))
    with pytest.raises(ValueError, match="3 tokens for attention weights over 4 positions"):
        induction_score(uniform_causal(4), ["a", "b", "a"])


def brute_induction(w: np.ndarray, tokens) -> float:
    got = []
    for t in range(len(tokens)):
        earlier = [s for s in range(t - 1) if tokens[s] == tokens[t]]
        if earlier:
            got.append(w[t, earlier[-1] + 1])
    return float(np.mean(got)) if got else float("nan")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_causal_heads_match_a_loop_and_stay_in_zero_one(data):
    """The soak: random sentences over a small vocabulary (so tokens repeat), random causal
    rows summing to 1."""
    n = data.draw(st.integers(2, 24))
    tokens = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    seed = data.draw(st.integers(0, 2**31))
    raw = np.random.default_rng(seed).random((n, n)) * np.tril(np.ones((n, n)))
    w = raw / raw.sum(axis=1, keepdims=True)
    prev = float(previous_token_score(w))
    assert prev == pytest.approx(np.mean([w[t, t - 1] for t in range(1, n)]))
    assert 0.0 <= prev <= 1.0
    ind, want = float(induction_score(w, tokens)), brute_induction(w, tokens)
    if np.isnan(want):
        assert np.isnan(ind)
    else:
        assert ind == pytest.approx(want) and 0.0 <= ind <= 1.0
