"""Queries and keys in two dimensions (attnviz.core.qk_embed): PCA is numpy's SVD of the
stacked [Q; K] of every text; UMAP (where the extra is installed) is seeded, keeps the
neighbours of a clustered input and lets queries meet the keys they point like."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core import qk_embed
from attnviz.core.qk_embed import UMAP_MIN_ROWS, embed_qk, stack_texts


def _umap_or_skip():
    """UMAP, or a skip where the extra is absent or cannot import (the numpy floor's lane
    finds numba built for another numpy: not always an ImportError)."""
    try:
        import umap  # noqa: F401
    except Exception as exc:
        pytest.skip(f"umap cannot be imported here: {type(exc).__name__}: {exc}")


@settings(max_examples=30, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 7), min_size=1, max_size=4),
    d=st.integers(1, 9),
    seed=st.integers(0, 2**16),
)
def test_pca_of_many_texts_is_numpys_svd_of_their_stacked_rows(lengths, d, seed):
    rng = np.random.default_rng(seed)
    parts = [(rng.normal(size=(n, d)), rng.normal(size=(n, d))) for n in lengths]
    stacked = stack_texts(parts)
    # The rows in order, each with its text and position.
    np.testing.assert_array_equal(stacked.q, np.vstack([q for q, _ in parts]))
    np.testing.assert_array_equal(stacked.k, np.vstack([k for _, k in parts]))
    np.testing.assert_array_equal(stacked.text, np.repeat(np.arange(len(lengths)), lengths))
    np.testing.assert_array_equal(stacked.position, np.concatenate([np.arange(n) for n in lengths]))
    emb = embed_qk(stacked.q, stacked.k, "pca")
    rows = np.vstack([stacked.q, stacked.k])  # the oracle: [Q; K], uncentred
    _u, s, vt = np.linalg.svd(rows, full_matrices=False)
    got = np.vstack([emb.queries, emb.keys])
    for r in range(min(2, vt.shape[0])):
        want = rows @ vt[r]
        sign = 1.0 if got[:, r] @ want >= 0 else -1.0  # a direction's sign is a convention
        np.testing.assert_allclose(got[:, r], sign * want, atol=1e-9)
    take = min(2, s.size)
    np.testing.assert_allclose(emb.kept, (s[:take] ** 2).sum() / (s**2).sum(), rtol=1e-12)
    assert emb.method == "pca" and emb.basis.shape == (2, d)


def test_bad_input_is_one_line():
    for call in (
        lambda: stack_texts([]),
        lambda: stack_texts([(np.ones((2, 3)), np.ones((3, 3)))]),
        lambda: stack_texts([(np.ones((2, 3)), np.ones((2, 3))), (np.ones((2, 4)),) * 2]),
        lambda: embed_qk(np.ones((5, 2)), np.ones((5, 2)), "tsne"),
        lambda: embed_qk(np.ones((3, 2)), np.ones((3, 2)), "umap"),  # too few rows
        lambda: embed_qk(np.full((5, 2), np.nan), np.ones((5, 2)), "umap"),
        lambda: embed_qk(np.ones((5, 2)), np.ones((5, 3)), "umap"),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert "\n" not in str(info.value)


def test_umap_missing_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(qk_embed, "umap_installed", lambda: False)
    with pytest.raises(ValueError, match=r"UMAP is not installed: pip install 'attnviz\[umap\]'"):
        embed_qk(np.eye(8), np.eye(8), "umap")


def _clusters(seed: int, per: int = 12, d: int = 16):
    """Three clusters of directions; each cluster's queries and keys point alike, the keys
    shifted by one vector (a bias every key shares, as real heads have)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(3, d)) * 4
    label = np.repeat(np.arange(3), per)
    q = centres[label] + rng.normal(size=(label.size, d)) * 0.3
    k = centres[label] + rng.normal(size=(label.size, d)) * 0.3 + 6.0 * rng.normal(size=d)
    return q, k, label


def test_umap_is_seeded_and_keeps_the_clusters_of_queries_with_their_keys():
    _umap_or_skip()
    q, k, label = _clusters(3)
    first = embed_qk(q, k, "umap", seed=7)
    again = embed_qk(q, k, "umap", seed=7)
    assert first.queries.shape == q.shape[:1] + (2,) and first.keys.shape == k.shape[:1] + (2,)
    assert first.method == "umap" and np.isnan(first.kept) and first.basis is None
    np.testing.assert_array_equal(first.queries, again.queries)  # the same seed: the same map
    np.testing.assert_array_equal(first.keys, again.keys)
    # Neighbours kept: each point's 5 nearest in the picture are of its own cluster, the
    # keys with their queries although every key carries the shared shift.
    pts = np.vstack([first.queries, first.keys])
    both = np.concatenate([label, label])
    dist = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    np.fill_diagonal(dist, np.inf)
    near = np.argsort(dist, axis=1)[:, :5]
    assert (both[near] == both[:, None]).mean() > 0.95
    # A query's nearest key is a key of its own cluster.
    qk = np.linalg.norm(first.queries[:, None] - first.keys[None], axis=-1)
    assert (label[qk.argmin(axis=1)] == label).mean() > 0.95


def test_umap_at_the_fewest_rows_draws_them():
    _umap_or_skip()
    rng = np.random.default_rng(0)
    n = UMAP_MIN_ROWS // 2
    emb = embed_qk(rng.normal(size=(n, 4)), rng.normal(size=(n, 4)), "umap", seed=1)
    assert emb.queries.shape == (n, 2) and np.isfinite(emb.queries).all()
