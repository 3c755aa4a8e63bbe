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


# --- the types of one sentence (Clark et al. 2019's, the sink, local, self) ------------
def test_constructed_heads_score_one_on_their_own_type():
    from attnviz.core.head_types import (
        local_score,
        mass_on,
        next_token_score,
        self_score,
        sink_score,
    )

    n = 7
    previous = one_hot_rows(n, [0] + list(range(n - 1)))
    following = one_hot_rows(n, [*range(1, n), n - 1])
    diagonal = np.eye(n)
    first = one_hot_rows(n, [0] * n)
    last = one_hot_rows(n, [n - 1] * n)  # a [SEP] at the end
    assert previous_token_score(previous) == 1.0
    assert next_token_score(following) == 1.0
    assert self_score(diagonal) == 1.0
    assert sink_score(first) == 1.0
    assert mass_on(first, [0]) == 1.0 and mass_on(last, [n - 1]) == 1.0
    # Previous, next and self all lie within the window: local 1 for each.
    for w in (previous, following, diagonal):
        assert local_score(w) == 1.0
    # And each scores 0 on the others' positions (rows 0 and n − 1 excepted where a
    # shifted identity has nowhere to shift to).
    assert next_token_score(previous) == 0.0 and previous_token_score(following) == 0.0
    assert sink_score(diagonal) == 0.0 and self_score(first) == pytest.approx(1 / n)
    assert mass_on(previous, [n - 1]) == pytest.approx(0.0)


def test_a_far_head_is_not_local_and_the_window_is_two():
    from attnviz.core.head_types import LOCAL_WINDOW, local_score

    n = 9
    far = one_hot_rows(n, [(t + 4) % n if t < 5 else t - 4 for t in range(n)])
    assert local_score(far) == 0.0
    three_back = one_hot_rows(n, [max(t - 3, 0) for t in range(n)])
    # Only rows 0 … 2 land within 2 (they look at 0): 3 of 9 rows.
    assert LOCAL_WINDOW == 2
    assert local_score(three_back) == pytest.approx(3 / n)
    assert local_score(three_back, window=3) == 1.0


def test_uniform_rows_score_their_shares():
    from attnviz.core.head_types import local_score, mass_on, next_token_score, self_score

    n = 6
    w = np.full((n, n), 1 / n)  # an encoder's head spread evenly
    assert self_score(w) == pytest.approx(1 / n)
    assert next_token_score(w) == pytest.approx(1 / n)
    near = [min(t + 2, n - 1) - max(t - 2, 0) + 1 for t in range(n)]
    assert local_score(w) == pytest.approx(np.mean(near) / n)
    assert mass_on(w, [0, n - 1]) == pytest.approx(2 / n)
    assert mass_on(w, [0, 0]) == pytest.approx(1 / n)  # a position counted once
    assert np.isnan(mass_on(w, []))
    with pytest.raises(ValueError, match="outside"):
        mass_on(w, [n])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**31 - 1))
def test_every_score_is_a_share_of_rows_that_sum_to_one(n, seed):
    from attnviz.core.head_types import (
        local_score,
        mass_on,
        next_token_score,
        self_score,
        sink_score,
    )

    rng = np.random.default_rng(seed)
    w = rng.random((3, n, n)) ** 4
    w /= w.sum(axis=-1, keepdims=True)
    scores = [
        f(w) for f in (previous_token_score, next_token_score, self_score, sink_score, local_score)
    ]
    scores.append(mass_on(w, [0, n - 1]))
    for s in scores:
        assert s.shape == (3,) and np.all(s >= -1e-12) and np.all(s <= 1 + 1e-12)
    # Brute force for one head: the loops of the definitions.
    h = w[1]
    assert self_score(w)[1] == pytest.approx(np.mean([h[t, t] for t in range(n)]))
    assert next_token_score(w)[1] == pytest.approx(np.mean([h[t, t + 1] for t in range(n - 1)]))
    assert sink_score(w)[1] == pytest.approx(np.mean([h[t, 0] for t in range(1, n)]))
    near = [sum(h[t, s] for s in range(n) if abs(t - s) <= 2) for t in range(n)]
    assert local_score(w)[1] == pytest.approx(np.mean(near))
