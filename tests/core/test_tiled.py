"""Tiled attention, overview maps and zoomed blocks against the dense reference."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core import tiled
from attnviz.core.attention import attention
from attnviz.core.masks import causal_mask
from attnviz.core.tiled import (
    attention_block,
    attention_overview,
    row_logsumexp,
    tiled_attention,
    tiled_attention_steps,
)


def _qkv(seed, n_q, n_k, d=5, d_v=3, batch=(), dtype=np.float64):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=batch + (n_q, d)).astype(dtype)
    k = rng.normal(size=batch + (n_k, d)).astype(dtype)
    v = rng.normal(size=batch + (n_k, d_v)).astype(dtype)
    return q, k, v


def _dense(q, k, v=None, causal=False, scale=True):
    mask = causal_mask(q.shape[-2], k.shape[-2]) if causal else None
    v = np.zeros(k.shape[:-1] + (1,)) if v is None else v
    return attention(q, k, v, mask=mask, scale=scale)


def _lse(r):
    """Row log-sum-exp of the masked scores of a dense result."""
    with np.errstate(divide="ignore"):
        return np.log(np.where(r.weights > 0, np.exp(r.scores), 0.0).sum(axis=-1))


def _naive_overview(weights, bins, reduce):
    rows = np.array_split(np.arange(weights.shape[-2]), bins)
    cols = np.array_split(np.arange(weights.shape[-1]), bins)
    out = np.empty(weights.shape[:-2] + (bins, bins))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            block = weights[..., r[:, None], c[None, :]]
            out[..., i, j] = block.mean(axis=(-2, -1)) if reduce == "mean" else block.max((-2, -1))
    return out


CASES = [
    # n_q, n_k, block_q, block_k, causal
    (37, 37, 7, 6, False),
    (37, 37, 7, 6, True),
    (20, 45, 3, 11, True),  # decoding: diagonal aligned bottom-right
    (45, 20, 8, 5, True),
    (45, 20, 100, 100, False),  # one tile bigger than the matrix
    (1, 9, 1, 1, True),
    (16, 16, 4, 4, True),  # tiles exactly on the diagonal
]


@pytest.mark.parametrize(("n_q", "n_k", "bq", "bk", "causal"), CASES)
def test_tiled_matches_attention(n_q, n_k, bq, bk, causal):
    q, k, v = _qkv(0, n_q, n_k)
    ref = _dense(q, k, v, causal)
    out, lse = tiled_attention(q, k, v, block_q=bq, block_k=bk, causal=causal)
    assert np.abs(out - ref.output).max() <= 1e-10
    assert np.abs(lse - _lse(ref)).max() <= 1e-10
    assert out.dtype == lse.dtype == np.float64


@settings(max_examples=40, deadline=None)
@given(
    n_q=st.integers(1, 30),
    n_k=st.integers(1, 30),
    d=st.integers(1, 6),
    bq=st.integers(1, 35),
    bk=st.integers(1, 35),
    causal=st.booleans(),
    scale=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_tiled_matches_attention_random(n_q, n_k, d, bq, bk, causal, scale, seed):
    q, k, v = _qkv(seed, n_q, n_k, d=d)
    ref = _dense(q, k, v, causal, scale)
    out, lse = tiled_attention(q, k, v, block_q=bq, block_k=bk, causal=causal, scale=scale)
    assert np.abs(out - ref.output).max() <= 1e-10
    assert np.abs(lse - _lse(ref)).max() <= 1e-10


def test_tiled_broadcasts_heads_and_keeps_float32():
    rng = np.random.default_rng(3)
    q = rng.normal(size=(2, 1, 13, 4))
    k = rng.normal(size=(1, 3, 13, 4))
    v = rng.normal(size=(13, 2))
    out, lse = tiled_attention(q, k, v, block_q=5, block_k=4, causal=True)
    ref = _dense(q, k, v, causal=True)
    assert out.shape == (2, 3, 13, 2) and lse.shape == (2, 3, 13)
    assert np.abs(out - ref.output).max() <= 1e-10
    v_heads = rng.normal(size=(3, 13, 2))  # only v has a head dimension
    out_v, _lse = tiled_attention(q[0, 0], k[0, 0], v_heads, block_q=4, block_k=5)
    assert np.abs(out_v - attention(q[0, 0], k[0, 0], v_heads).output).max() <= 1e-10
    q32, k32, v32 = (x.astype(np.float32) for x in (q, k, v))
    out32, lse32 = tiled_attention(q32, k32, v32, block_q=5, block_k=4, causal=True)
    assert out32.dtype == lse32.dtype == np.float32
    np.testing.assert_allclose(out32, ref.output, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_steps_end_at_the_same_output(causal):
    q, k, v = _qkv(1, 23, 19)
    out, lse = tiled_attention(q, k, v, block_q=6, block_k=5, causal=causal)
    steps = list(tiled_attention_steps(q, k, v, block_q=6, block_k=5, causal=causal))
    assert len(steps) == 4 * 4  # every tile, skipped ones included
    assembled = np.empty_like(out)
    for s in steps:
        if s.last:
            assembled[s.rows] = s.partial_output
            np.testing.assert_allclose(s.running_max + np.log(s.running_sum), lse[s.rows])
    assert np.abs(assembled - out).max() <= 1e-12
    off = max(k.shape[0] - q.shape[0], 0)
    for s in steps:
        hidden = s.cols.start > s.rows.stop - 1 + off
        assert s.skipped == (causal and hidden)
        assert (s.scores is None) == s.skipped


def test_steps_running_max_is_max_of_tiles_seen():
    q, k, v = _qkv(2, 8, 12)
    scores = _dense(q, k, v).scores
    for s in tiled_attention_steps(q, k, v, block_q=8, block_k=4):
        seen = scores[s.rows, : s.cols.stop]
        np.testing.assert_allclose(s.running_max, seen.max(axis=1))
        np.testing.assert_allclose(s.running_sum, np.exp(seen - seen.max(1, keepdims=True)).sum(1))


@pytest.mark.parametrize("reduce", ["mean", "max"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(
    ("n_q", "n_k", "bins"), [(37, 37, 5), (37, 37, 37), (20, 45, 7), (45, 20, 1)]
)
def test_overview_matches_naive_reduction(reduce, causal, n_q, n_k, bins):
    q, k, v = _qkv(4, n_q, n_k)
    ref = _naive_overview(_dense(q, k, v, causal).weights, bins, reduce)
    got = attention_overview(q, k, bins=bins, reduce=reduce, causal=causal, backend="numpy")
    assert got.shape == (bins, bins)
    assert np.abs(got - ref).max() <= 1e-12


@pytest.mark.parametrize(("strip", "panel"), [(1, 1), (7, 7), (7, 100), (50, 200), (200, 1 << 23)])
@pytest.mark.parametrize("reduce", ["mean", "max"])
def test_overview_strips_crossing_row_groups(monkeypatch, strip, panel, reduce):
    """Strips and panels of any height (one row, or several row groups and parts of others,
    a panel ending inside a strip's height) agree."""
    monkeypatch.setattr(tiled, "STRIP_ELEMENTS", strip)
    monkeypatch.setattr(tiled, "PANEL_ELEMENTS", panel)
    q, k, v = _qkv(5, 41, 23, batch=(2,))
    for causal in (False, True):
        ref = _naive_overview(_dense(q, k, v, causal).weights, 6, reduce)
        got = attention_overview(q, k, bins=6, reduce=reduce, causal=causal, backend="numpy")
        assert np.abs(got - ref).max() <= 1e-12


def test_overview_mean_rows_carry_the_softmax_mass():
    q, k, _v = _qkv(6, 50, 50)
    m = attention_overview(q, k, bins=7, causal=True, backend="numpy")
    col_sizes = np.array([len(c) for c in np.array_split(np.arange(50), 7)])
    np.testing.assert_allclose(m @ col_sizes, 1.0)


def test_overview_float32_stays_float32():
    q, k, v = _qkv(7, 64, 64, dtype=np.float32)
    got = attention_overview(q, k, bins=8, backend="numpy")
    assert got.dtype == np.float32
    ref = _naive_overview(_dense(q.astype(float), k.astype(float)).weights, 8, "mean")
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)


def test_overview_never_holds_the_n_by_n_matrix(monkeypatch):
    monkeypatch.setattr(tiled, "STRIP_ELEMENTS", 1 << 13)
    monkeypatch.setattr(tiled, "PANEL_ELEMENTS", 1 << 14)
    n = 1024
    q, k, v = _qkv(8, n, n, d=8)
    tracemalloc.start()
    try:
        attention_overview(q, k, bins=16, causal=True, backend="numpy")
        tiled_attention(q, k, v, block_q=64, block_k=64, causal=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * n * 8 / 8  # an eighth of one float64 n×n array


def test_row_logsumexp_and_block_match_dense():
    for n_q, n_k, causal in [(30, 30, False), (30, 30, True), (12, 40, True), (40, 12, True)]:
        q, k, v = _qkv(9, n_q, n_k, batch=(2,))
        ref = _dense(q, k, v, causal)
        lse = row_logsumexp(q, k, causal=causal)
        assert np.abs(lse - _lse(ref)).max() <= 1e-10
        for rows, cols in [
            (slice(3, 11), slice(0, None, 3)),
            (range(n_q), range(n_k)),
            (slice(-5, None), slice(5, 9)),
        ]:
            block = attention_block(q, k, rows, cols, lse=lse, causal=causal)
            r = slice(rows.start, rows.stop, rows.step) if isinstance(rows, range) else rows
            c = slice(cols.start, cols.stop, cols.step) if isinstance(cols, range) else cols
            assert np.abs(block - ref.weights[:, r, c]).max() <= 1e-12


def test_block_from_tiled_lse_unscaled():
    q, k, v = _qkv(10, 17, 17)
    _out, lse = tiled_attention(q, k, v, block_q=4, block_k=4, scale=False)
    block = attention_block(q, k, slice(2, 9), slice(0, 17), lse=lse, scale=False)
    assert np.abs(block - _dense(q, k, v, scale=False).weights[2:9]).max() <= 1e-12


q0, k0, v0 = _qkv(11, 6, 6)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tiled_attention(q0, k0, v0, block_q=0, block_k=2), "block_q"),
        (lambda: tiled_attention(q0, k0, v0, block_q=2, block_k=1.5), "block_k"),
        (lambda: tiled_attention(q0, k0, v0, block_q=True, block_k=2), "block_q"),
        (lambda: tiled_attention(q0, k0[:, :3], v0, block_q=2, block_k=2), "d_k"),
        (lambda: tiled_attention(q0, k0, v0[:4], block_q=2, block_k=2), "number of keys"),
        (lambda: tiled_attention(q0 * np.nan, k0, v0, block_q=2, block_k=2), "non-finite"),
        (lambda: tiled_attention(q0, k0, v0, block_q=2, block_k=2, causal=1), "causal"),
        (lambda: tiled_attention(q0, k0, v0, block_q=2, block_k=2, scale="yes"), "scale"),
        (lambda: next(tiled_attention_steps(q0, k0, v0, block_q=-1, block_k=2)), "block_q"),
        (lambda: attention_overview(q0, k0, bins=7, backend="numpy"), "bins"),
        (lambda: attention_overview(q0, k0, bins=0, backend="numpy"), "bins"),
        (lambda: attention_overview(q0, k0, bins=2, reduce="median"), "reduce"),
        (lambda: attention_overview(q0, k0, bins=2, backend="gpu"), "backend"),
        (lambda: attention_overview(q0[0], k0, bins=2, backend="numpy"), "dimensions"),
        (lambda: attention_block(q0, k0, [0, 1], slice(0, 2), lse=np.zeros(6)), "slice"),
        (lambda: attention_block(q0, k0, slice(4, 2), slice(0, 2), lse=np.zeros(6)), "nothing"),
        (lambda: attention_block(q0, k0, slice(0, 2), slice(0, 2), lse=np.zeros(5)), "lse"),
        (lambda: attention_block(q0, k0, slice(0, 2), slice(0, 2), lse=[np.inf] * 6), "lse"),
    ],
)
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
