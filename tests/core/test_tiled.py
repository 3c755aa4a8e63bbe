"""Tiled attention, overview maps and zoomed blocks against the dense reference."""

import threading
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core import _parallel, tiled
from attnviz.core.attention import attention
from attnviz.core.masks import causal_mask
from attnviz.core.tiled import (
    Cancelled,
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
    got = attention_overview(q, k, bins=bins, reduce=reduce, causal=causal)
    assert got.shape == (bins, bins)
    assert np.abs(got - ref).max() <= 1e-12


@pytest.mark.parametrize(
    ("rows", "tile", "workers"),
    [(1, 1, 1), (7, 7, 1), (7, 100, 2), (50, 200, 3), (200, 1 << 19, 2), (3, 1 << 19, 1)],
)
@pytest.mark.parametrize("reduce", ["mean", "max"])
def test_overview_panels_tiles_and_threads(monkeypatch, rows, tile, workers, reduce):
    """Panels of any height (one row, several row groups and parts of others), tiles of one
    key or cutting a bin, and several threads all agree with the naive reduction."""
    monkeypatch.setattr(tiled, "PANEL_ROWS", rows)
    monkeypatch.setattr(tiled, "TILE_ELEMENTS", tile)
    monkeypatch.setattr(tiled, "WORKERS", workers)
    monkeypatch.setattr(tiled, "PARALLEL_MIN_SCORES", 0)
    q, k, v = _qkv(5, 41, 23, batch=(2,))
    for causal in (False, True):
        ref = _naive_overview(_dense(q, k, v, causal).weights, 6, reduce)
        got = attention_overview(q, k, bins=6, reduce=reduce, causal=causal)
        assert np.abs(got - ref).max() <= 1e-12


def _ramp(n, slope, seed=0):
    """q, k whose scores climb along the keys by ``slope`` nats per key (plus noise), so a
    later tile's scores dwarf the first tile's maximum."""
    rng = np.random.default_rng(seed)
    q = np.concatenate([np.full((n, 1), 4.0), rng.normal(size=(n, 3))], axis=1)
    k = np.concatenate([slope * np.arange(n)[:, None] / 2.0, rng.normal(size=(n, 3))], axis=1)
    return q, k


@pytest.mark.parametrize("reduce", ["mean", "max"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_overview_rescales_when_later_scores_outgrow_the_first(monkeypatch, reduce, dtype):
    calls = []
    rescale = tiled._Map.rescale
    monkeypatch.setattr(
        tiled._Map,
        "rescale",
        lambda self, cols, *a: calls.append(cols.size) or rescale(self, cols, *a),
    )
    monkeypatch.setattr(tiled, "TILE_ELEMENTS", 16 * 10)  # 16 rows × 10 keys
    monkeypatch.setattr(tiled, "PANEL_ROWS", 16)
    q, k = _ramp(120, slope=3.0)
    for causal in (False, True):
        ref = _naive_overview(_dense(q, k, None, causal).weights, 8, reduce)
        got = attention_overview(
            q.astype(dtype), k.astype(dtype), bins=8, reduce=reduce, causal=causal
        )
        tol = 1e-12 if dtype == np.float64 else 3e-5 * ref.max()
        assert np.abs(got - ref).max() <= tol
        assert np.isfinite(got).all()
    assert sum(calls) > 0  # the slow path ran


def _content_like(n, d, seed=0):
    """Token-like q and k: a Zipf-sampled vocabulary of 64 embeddings plus a positional
    wave, through related projections, so that a few keys dominate each row (scores span
    about 75 nats) as in a trained model."""
    rng = np.random.default_rng(seed)
    vocab = rng.normal(size=(64, d))
    ids = np.minimum(rng.zipf(1.3, size=n), 64) - 1
    x = vocab[ids] + 0.5 * np.sin(3 * np.arange(n)[:, None] / n * np.arange(1, d + 1))
    w_q = rng.normal(size=(d, d)) / np.sqrt(d)
    w_k = w_q + 0.3 * rng.normal(size=(d, d)) / np.sqrt(d)
    return 2 * x @ w_q, 2 * x @ w_k


def _pooled_float64(q, k, bins, causal):
    """Mean and max pooling of the exact float64 weights, one row group at a time."""
    n_q, n_k = q.shape[0], k.shape[0]
    cols = np.array_split(np.arange(n_k), bins)
    starts = np.array([c[0] for c in cols])
    widths = np.array([len(c) for c in cols])
    mean, top = np.zeros((bins, bins)), np.zeros((bins, bins))
    for i, r in enumerate(np.array_split(np.arange(n_q), bins)):
        s = q[r] @ k.T / np.sqrt(q.shape[1])
        if causal:
            s = np.where(np.arange(n_k)[None, :] > r[:, None] + max(n_k - n_q, 0), -np.inf, s)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        mean[i] = np.add.reduceat(w, starts, axis=1).sum(axis=0) / (len(r) * widths)
        top[i] = np.maximum.reduceat(w, starts, axis=1).max(axis=0)
    return {"mean": mean, "max": top}


@pytest.fixture(scope="module")
def content_4096():
    q, k = _content_like(4096, 64)
    return q, k, {c: _pooled_float64(q, k, 64, c) for c in (False, True)}


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("reduce", ["mean", "max"])
def test_overview_at_4096_matches_float64_pooling(content_4096, reduce, causal):
    """n = 4096 on content-like q, k, on the threaded path: within 1e-6 relative of the
    float64 pooled weights (float32 inputs: within their rounding of the scores)."""
    q, k, refs = content_4096
    ref = refs[causal][reduce]
    got = attention_overview(q, k, bins=64, reduce=reduce, causal=causal)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-300)
    q32, k32 = q.astype(np.float32), k.astype(np.float32)
    got32, lse32 = attention_overview(
        q32, k32, bins=64, reduce=reduce, causal=causal, return_lse=True
    )
    assert got32.dtype == lse32.dtype == np.float32
    assert np.abs(got32 - ref).max() <= 2e-5 * ref.max()


def test_overview_mean_rows_carry_the_softmax_mass():
    q, k, _v = _qkv(6, 50, 50)
    m = attention_overview(q, k, bins=7, causal=True)
    col_sizes = np.array([len(c) for c in np.array_split(np.arange(50), 7)])
    np.testing.assert_allclose(m @ col_sizes, 1.0)


def test_overview_float32_stays_float32():
    q, k, v = _qkv(7, 64, 64, dtype=np.float32)
    got = attention_overview(q, k, bins=8)
    assert got.dtype == np.float32
    ref = _naive_overview(_dense(q.astype(float), k.astype(float)).weights, 8, "mean")
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)


def test_overview_never_holds_the_n_by_n_matrix(monkeypatch):
    monkeypatch.setattr(tiled, "TILE_ELEMENTS", 1 << 13)
    monkeypatch.setattr(tiled, "PANEL_ROWS", 64)
    n = 1024
    q, k, v = _qkv(8, n, n, d=8)
    tracemalloc.start()
    try:
        attention_overview(q, k, bins=16, causal=True)
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
        (lambda: attention_overview(q0, k0, bins=7), "bins"),
        (lambda: attention_overview(q0, k0, bins=0), "bins"),
        (lambda: attention_overview(q0, k0, bins=2, reduce="median"), "reduce"),
        (lambda: attention_overview(q0[0], k0, bins=2), "dimensions"),
        (lambda: attention_block(q0, k0, [0, 1], slice(0, 2), lse=np.zeros(6)), "slice"),
        (lambda: attention_block(q0, k0, slice(4, 2), slice(0, 2), lse=np.zeros(6)), "nothing"),
        (lambda: attention_block(q0, k0, slice(0, 2), slice(0, 2), lse=np.zeros(5)), "lse"),
        (lambda: attention_block(q0, k0, slice(0, 2), slice(0, 2), lse=[np.inf] * 6), "lse"),
    ],
)
def test_bad_input_raises_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ---- return_lse, progress, cancel, threads -----------------------------------------------------


def _blas_threads():
    """numpy's OpenBLAS thread count, or None where it cannot be read."""
    calls = _parallel._find_openblas()
    return calls[0]() if calls else None


def test_overview_returns_the_row_lse_of_row_logsumexp():
    q, k, v = _qkv(12, 30, 26, batch=(2,))
    for causal in (False, True):
        m, lse = attention_overview(q, k, bins=4, causal=causal, return_lse=True)
        assert np.array_equal(m, attention_overview(q, k, bins=4, causal=causal))
        assert np.abs(lse - _lse(_dense(q, k, v, causal))).max() <= 1e-10
        assert np.abs(lse - row_logsumexp(q, k, causal=causal)).max() <= 1e-12


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_rises_to_one_on_the_calling_thread(monkeypatch, workers):
    monkeypatch.setattr(tiled, "PANEL_ROWS", 8)
    monkeypatch.setattr(tiled, "WORKERS", workers)
    monkeypatch.setattr(tiled, "PARALLEL_MIN_SCORES", 0)
    q, k, _v = _qkv(13, 200, 200, batch=(2,))
    seen, threads = [], set()

    def progress(fraction):
        seen.append(fraction)
        threads.add(threading.get_ident())

    attention_overview(q, k, bins=10, causal=True, progress=progress)
    assert len(seen) > 3 and seen[-1] == 1.0
    assert all(0.0 <= a <= b <= 1.0 for a, b in zip(seen, seen[1:], strict=False))
    assert threads == {threading.get_ident()}


def test_cancel_before_the_start_and_bad_callbacks():
    q, k, _v = _qkv(14, 50, 50)
    flag = threading.Event()
    flag.set()
    for cancel in (flag, lambda: True):
        with pytest.raises(Cancelled):
            attention_overview(q, k, bins=5, cancel=cancel)
    assert issubclass(Cancelled, Exception) and not issubclass(Cancelled, ValueError)
    with pytest.raises(ValueError, match="cancel"):
        attention_overview(q, k, bins=5, cancel=True)
    with pytest.raises(ValueError, match="progress"):
        attention_overview(q, k, bins=5, progress=0.5)
    with pytest.raises(ValueError, match="return_lse"):
        attention_overview(q, k, bins=5, return_lse="yes")


def test_cancel_stops_a_32k_overview_within_a_tile_per_thread():
    """The flag is polled between tiles: once it is set, each thread finishes at most the
    tile it is in (counted, not timed: no clock in the test)."""
    rng = np.random.default_rng(15)
    q, k = (rng.standard_normal((32768, 128), dtype=np.float32) for _ in range(2))
    before = _blas_threads()
    flag, after = threading.Event(), []

    def progress(fraction: float) -> None:
        if flag.is_set():
            after.append(fraction)
        elif fraction > 0.05:
            flag.set()  # cancel once a twentieth is done

    with pytest.raises(Cancelled):
        attention_overview(q, k, bins=256, cancel=flag, progress=progress)
    # At most one report per thread's last tile, and far from the end.
    assert len(after) <= 2 * _parallel.cores() + 1 and max(after, default=0.0) < 0.5, after
    assert _blas_threads() == before  # BLAS threads handed back


def test_a_failing_worker_raises_on_the_caller_and_restores_blas(monkeypatch):
    monkeypatch.setattr(tiled, "PANEL_ROWS", 8)
    monkeypatch.setattr(tiled, "WORKERS", 3)
    monkeypatch.setattr(tiled, "PARALLEL_MIN_SCORES", 0)
    panel = tiled._Map.panel

    def flaky(self, a, b, *rest):
        if a == 64:
            raise MemoryError("panel 64")
        return panel(self, a, b, *rest)

    monkeypatch.setattr(tiled._Map, "panel", flaky)
    before = _blas_threads()
    q, k, _v = _qkv(16, 200, 200)
    with pytest.raises(MemoryError, match="panel 64"):
        attention_overview(q, k, bins=10)
    assert _blas_threads() == before
