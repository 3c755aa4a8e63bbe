"""Embedding table: Zipf token ids, the sparse gradient against a one-hot reference, counts."""

import numpy as np
import pytest

from attnviz.core.embedding import (
    dense_embedding_gradient,
    embedding_gradient,
    embedding_parameters,
    expected_update_counts,
    row_update_counts,
    tied_weights_saving,
    zero_row_fraction,
    zipf_probabilities,
    zipf_tokens,
)

# --- Zipf -----------------------------------------------------------------------------------


def test_zipf_probabilities_are_the_exact_finite_law():
    np.testing.assert_allclose(zipf_probabilities(3, 1.0), [6 / 11, 3 / 11, 2 / 11], rtol=1e-15)
    p = zipf_probabilities(1000, 1.2)
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    ranks = np.arange(1, 1001)
    np.testing.assert_allclose(p[0] / p, ranks**1.2, rtol=1e-12)
    np.testing.assert_allclose(zipf_probabilities(7, 0), np.full(7, 1 / 7))
    assert zipf_probabilities(1).tolist() == [1.0]


def test_zipf_tokens_stay_in_the_vocabulary_and_follow_the_law():
    v, n = 5000, 200_000
    ids = zipf_tokens(n, v, exponent=1.0, seed=3)
    assert ids.dtype == np.int64 and ids.shape == (n,)
    assert ids.min() >= 0 and ids.max() < v
    freq = np.bincount(ids, minlength=v) / n
    p = zipf_probabilities(v, 1.0)
    sigma = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq[:20] - p[:20]) < 5 * sigma[:20])
    # the top 1% of ids carry half the text at s = 1: H_50 / H_5000 ≈ 4.4992 / 9.0945
    harmonic = [sum(1.0 / r for r in range(1, m + 1)) for m in (50, 5000)]
    assert p[:50].sum() == pytest.approx(harmonic[0] / harmonic[1], rel=1e-12)
    assert p[:50].sum() == pytest.approx(0.4947, abs=1e-4)
    assert freq[:50].sum() == pytest.approx(p[:50].sum(), abs=0.01)


def test_zipf_tokens_are_seeded_and_shaped():
    a = zipf_tokens((4, 16), 100, seed=5)
    assert a.shape == (4, 16)
    np.testing.assert_array_equal(a, zipf_tokens((4, 16), 100, seed=5))
    assert not np.array_equal(a, zipf_tokens((4, 16), 100, seed=6))
    assert zipf_tokens(0, 10).shape == (0,)
    assert set(zipf_tokens(100, 1).tolist()) == {0}
    uniform = zipf_tokens(100_000, 10, exponent=0.0)
    assert np.bincount(uniform).min() > 9_500


# --- sparse gradient ------------------------------------------------------------------------


def test_sparse_gradient_equals_the_one_hot_reference():
    rng = np.random.default_rng(0)
    v, d = 300, 8
    ids = zipf_tokens((4, 32), v, seed=1)  # Zipf: plenty of repeats
    dy = rng.normal(size=(4, 32, d))
    sparse = embedding_gradient(ids, dy, v)
    onehot = np.zeros((ids.size, v))
    onehot[np.arange(ids.size), ids.ravel()] = 1.0
    reference = onehot.T @ dy.reshape(-1, d)
    np.testing.assert_allclose(sparse.to_dense(), reference, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dense_embedding_gradient(ids, dy, v), reference, atol=1e-12)
    np.testing.assert_array_equal(sparse.rows, np.unique(ids))
    assert sparse.values.shape == (np.unique(ids).size, d)
    untouched = np.setdiff1d(np.arange(v), ids)
    assert np.all(reference[untouched] == 0)


def test_repeated_tokens_are_summed():
    dy = np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
    g = embedding_gradient([3, 1, 3], dy, vocab_size=5)
    assert g.rows.tolist() == [1, 3]
    np.testing.assert_array_equal(g.values, [[10.0, 20.0], [101.0, 202.0]])
    assert g.zero_row_fraction == pytest.approx(3 / 5)
    assert g.to_dense()[[0, 2, 4]].sum() == 0


def test_float32_is_kept_and_empty_batches_work():
    dy = np.ones((3, 4), dtype=np.float32)
    g = embedding_gradient(np.array([0, 0, 2]), dy, 3)
    assert g.values.dtype == np.float32 and g.to_dense().dtype == np.float32
    empty = embedding_gradient(np.zeros(0, dtype=np.int64), np.zeros((0, 4)), 10)
    assert empty.rows.size == 0 and empty.zero_row_fraction == 1.0
    assert empty.to_dense().shape == (10, 4)


def test_zipf_batch_leaves_the_long_tail_at_zero():
    v = 32_000
    ids = zipf_tokens(4096, v, seed=0)
    frac = zero_row_fraction(ids, v)
    dy = np.ones((4096, 2))
    assert embedding_gradient(ids, dy, v).zero_row_fraction == pytest.approx(frac)
    assert frac == pytest.approx(1 - np.unique(ids).size / v)
    assert frac > 0.9  # 4096 tokens touch well under 10% of a 32k table
    assert zero_row_fraction([0, 0, 1], 4) == 0.5


def test_update_counts_match_their_expectation():
    v, steps, per = 2000, 400, 512
    counts = row_update_counts(v, steps, per, exponent=1.0, seed=2)
    expected = expected_update_counts(v, steps, per, exponent=1.0)
    assert counts.dtype == np.int64 and counts.shape == (v,)
    assert counts.max() <= steps
    assert counts[0] == steps  # the most frequent token is in every batch
    assert counts.sum() == pytest.approx(expected.sum(), rel=0.01)
    # frequent rows move at every step; the rarest rows in a small fraction of steps
    assert expected[0] == pytest.approx(steps)
    assert counts[-200:].mean() == pytest.approx(expected[-200:].mean(), rel=0.05)
    assert counts[-200:].mean() < 0.2 * steps
    np.testing.assert_array_equal(counts, row_update_counts(v, steps, per, seed=2))


def test_expected_counts_by_hand():
    # V = 2, s = 1: p = [2/3, 1/3]; 1 − (1 − p)^2 = [8/9, 5/9]
    np.testing.assert_allclose(expected_update_counts(2, 9, 2), [8.0, 5.0], rtol=1e-14)
    np.testing.assert_allclose(expected_update_counts(1, 5, 3), [5.0])


# --- parameter counts -----------------------------------------------------------------------


def test_the_chapters_table_is_about_525_million():
    # "128k rows × 4096 columns ≈ 525 million": 128k is 128,000 here (128 × 1024 would be 537M)
    table = embedding_parameters(128_000, 4096, tied=True)
    assert table == 524_288_000
    assert abs(table / 1e6 - 525) < 1
    assert abs(embedding_parameters(131_072, 4096, tied=True) / 1e6 - 525) > 10
    untied = embedding_parameters(128_000, 4096)
    assert untied == 2 * table
    assert tied_weights_saving(128_000, 4096) == table == untied // 2


# --- validation -----------------------------------------------------------------------------


def test_bad_inputs_raise():
    dy = np.ones((3, 2))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        embedding_gradient([0, 1, 5], dy, 5)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        embedding_gradient([0, -1, 2], dy, 5)
    with pytest.raises(ValueError, match="integers"):
        embedding_gradient([0.0, 1.0, 2.0], dy, 5)
    with pytest.raises(ValueError, match="shape"):
        embedding_gradient([0, 1], dy, 5)
    with pytest.raises(ValueError, match="non-finite"):
        embedding_gradient([0, 1, 2], np.full((3, 2), np.nan), 5)
    with pytest.raises(ValueError, match="vocab_size"):
        zipf_tokens(10, 0)
    with pytest.raises(ValueError, match="exponent"):
        zipf_probabilities(10, -1.0)
    with pytest.raises(ValueError, match="exponent"):
        zipf_tokens(10, 10, exponent=float("nan"))
    with pytest.raises(ValueError, match="seed"):
        zipf_tokens(10, 10, seed=-1)
    with pytest.raises(ValueError, match="tokens_per_step"):
        row_update_counts(10, 5, 0)
    with pytest.raises(ValueError, match="tied"):
        embedding_parameters(10, 4, tied="yes")
    with pytest.raises(ValueError, match="d_model"):
        embedding_parameters(10, 0)


# --- gradient row norms in closed form ------------------------------------------------------


def test_gradient_row_norms_have_the_distribution_of_the_real_gradient():
    from attnviz.core.embedding import gradient_row_norms

    v, d, n = 40, 16, 3000
    ids = zipf_tokens(n, v, 1.0, seed=1)
    counts = np.bincount(ids, minlength=v)
    rng = np.random.default_rng(5)
    real = []
    for _ in range(300):
        g = embedding_gradient(ids, rng.normal(size=(n, d)) / np.sqrt(d), v)
        norms = np.zeros(v)
        norms[g.rows] = np.linalg.norm(g.values, axis=1)
        real.append(norms**2)
    closed = np.array([gradient_row_norms(counts, d, seed=s) ** 2 for s in range(300)])
    # ‖Σ of c rows of N(0, I/d)‖² = c/d · χ²(d): mean c, variance 2c²/d, for both.
    touched = counts > 0
    for sample in (np.array(real), closed):
        mean = sample.mean(axis=0)[touched]
        np.testing.assert_allclose(mean, counts[touched], rtol=0.25)
        np.testing.assert_allclose(
            sample.var(axis=0)[touched] / counts[touched] ** 2, 2 / d, rtol=0.45
        )


def test_gradient_row_norms_are_zero_exactly_where_no_token_landed():
    from attnviz.core.embedding import gradient_row_norms

    counts = np.array([5, 0, 1, 0, 0, 2])
    norms = gradient_row_norms(counts, 4096, seed=0)
    np.testing.assert_array_equal(norms == 0, counts == 0)
    assert norms[0] == pytest.approx(np.sqrt(5), rel=0.1)  # ≈ √count at a wide d
    np.testing.assert_array_equal(norms, gradient_row_norms(counts, 4096, seed=0))
    for bad in (np.array([1.0, 2.0]), np.array([[1]]), np.array([-1, 2]), np.array([True])):
        with pytest.raises(ValueError, match="counts"):
            gradient_row_norms(bad, 8)
    with pytest.raises(ValueError, match="d_model"):
        gradient_row_norms(counts, 0)
