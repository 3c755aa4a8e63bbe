"""HBM bytes of naive and tiled attention against hand arithmetic and against the tiles
the tiled walker actually visits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.tile_io import keys_visited, naive_traffic, tiled_traffic
from attnviz.core.tiled import tiled_attention_steps


def test_naive_moves_the_n_by_n_matrix_four_times():
    t = naive_traffic(16, 8, 8, 4)
    # Reads Q, K, V (3 · 16 · 8) and S, P (2 · 256); writes S, P (2 · 256) and O (128).
    assert t.read == (384 + 512) * 4 and t.written == (512 + 128) * 4
    assert t.total == 6144
    assert naive_traffic(1024, 64, 64, 2).total == 2 * (4 * 1024 * 64 + 4 * 1024**2)


def test_tiled_reads_k_and_v_once_per_query_block():
    t = tiled_traffic(16, 8, 8, 4, 4, 4)
    # Q once (128), four query blocks each reading all 16 keys and values (4 · 16 · 16).
    assert t.read == (128 + 1024) * 4 and t.written == 128 * 4
    causal = tiled_traffic(16, 8, 8, 4, 4, 4, causal=True)
    assert causal.read == (128 + (4 + 8 + 12 + 16) * 16) * 4  # hidden blocks never read
    # Ragged blocks: 10 rows in blocks of 4 (4, 4, 2), keys in blocks of 3 (3, 3, 3, 1).
    assert keys_visited(10, 4, 3, causal=True).tolist() == [6, 9, 10]
    # Realistic sizes: tiles of 128 rows move far less than the n × n matrix.
    big_naive, big_tiled = (
        naive_traffic(8192, 128, 128, 2),
        tiled_traffic(8192, 128, 128, 128, 128, 2),
    )
    assert big_tiled.total == 2 * (8192 * 128 + 64 * 8192 * 256 + 8192 * 128)
    assert big_naive.total / big_tiled.total == pytest.approx(2.0, rel=0.03)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), bq=st.integers(1, 12), bk=st.integers(1, 12), causal=st.booleans())
def test_keys_visited_are_the_walkers_unskipped_tiles(n, bq, bk, causal):
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((n, 3)) for _ in range(3))
    visited = {}
    for step in tiled_attention_steps(q, k, v, block_q=bq, block_k=bk, causal=causal):
        if not step.skipped:
            visited[step.q_block] = visited.get(step.q_block, 0) + (
                step.cols.stop - step.cols.start
            )
    counted = keys_visited(n, bq, bk, causal)
    assert counted.tolist() == [visited.get(i, 0) for i in range(len(counted))]


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="n must"):
        naive_traffic(0, 8, 8, 4)
    with pytest.raises(ValueError, match="block_q"):
        tiled_traffic(8, 8, 8, 0, 4, 4)
