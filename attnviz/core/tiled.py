"""Exact attention without an n×n array: FlashAttention-style tiles, overview maps and zoom.

:func:`tiled_attention` walks ``block_q × block_k`` tiles of the score matrix and keeps, per
query row, a running maximum, a running sum of exponentials and a rescaled output accumulator
(the online softmax), so it holds one tile at a time and agrees with
:func:`attnviz.core.attention.attention` to rounding. :func:`tiled_attention_steps` yields the
same computation tile by tile for the teaching animation.

:func:`attention_overview` shrinks the n×n weights to a ``bins × bins`` picture for n far
beyond what fits in memory (32k tokens on a CPU), and :func:`attention_block` gives the exact
weights of a zoomed window from the row log-sum-exp. Only numpy is imported here; the torch
and CUDA versions live in :mod:`attnviz.core.backends`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import as_float_array, check_choice, check_positive_int, result_dtype

#: Scores the overview exponentiates and reduces at once (a strip of query rows × every
#: key): 4 MiB in float32, small enough to stay in cache through its several passes.
STRIP_ELEMENTS = 1 << 20
#: Scores one matrix product of the overview computes (several strips): 32 MiB in float32.
PANEL_ELEMENTS = 1 << 23


@dataclass(frozen=True)
class TileStep:
    """The state of the online softmax after one tile (see :func:`tiled_attention_steps`).

    Attributes
    ----------
    q_block, k_block : tile indices (row block, column block)
    rows, cols : the query rows and keys the tile covers
    skipped : True when causality hides the whole tile, so it was never computed
    scores : the tile's scaled scores, −inf where hidden (None when skipped)
    running_max, running_sum : per query row of the block, after this tile
    partial_output : the block's output if the keys seen so far were all the keys
    last : True on the final tile of the row block (``partial_output`` is then final)
    """

    q_block: int
    k_block: int
    rows: slice
    cols: slice
    skipped: bool
    scores: np.ndarray | None
    running_max: np.ndarray
    running_sum: np.ndarray
    partial_output: np.ndarray
    last: bool


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _prepare(q, k, v=None, *, scale=True, causal=False):
    """Validate, unify dtypes and fold the 1/√d_k divisor into q (one pass over n·d, not n²)."""
    _check_flag(scale, "scale")
    _check_flag(causal, "causal")
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k (last dimension): q {q.shape} vs k {k.shape}")
    arrays = [q, k]
    if v is not None:
        v = as_float_array(v, "v")
        if v.shape[-2] != k.shape[-2]:
            raise ValueError(
                f"k and v must have the same number of keys: k {k.shape} vs v {v.shape}"
            )
        arrays.append(v)
    try:
        batch = np.broadcast_shapes(*(a.shape[:-2] for a in arrays))
    except ValueError as exc:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"leading (batch/head) dimensions do not broadcast: {shapes}") from exc
    dtype = result_dtype(*arrays)
    c = 1.0 / np.sqrt(q.shape[-1]) if scale else 1.0
    q = (q * c).astype(dtype, copy=False)
    k = k.astype(dtype, copy=False)
    v = None if v is None else v.astype(dtype, copy=False)
    return q, k, v, batch, dtype


def _walk(q, k, v, batch, block_q, block_k, causal, keep_scores=False):
    """The online softmax, tile by tile; yields live (not copied) state after each tile.

    The scores yielded are those of the tile (``keep_scores``) or overwritten by their
    exponentials (faster); either way they live in a buffer reused by the next tile.
    """
    n_q, n_k, dtype = q.shape[-2], k.shape[-2], q.dtype
    off = max(n_k - n_q, 0)  # causal diagonal aligned bottom-right, as masks.causal_mask
    kt = np.swapaxes(k, -1, -2)
    n_kb = -(-n_k // block_k)
    buffers: dict = {}
    for bi, i0 in enumerate(range(0, n_q, block_q)):
        i1 = min(i0 + block_q, n_q)
        m = np.full(batch + (i1 - i0,), -np.inf, dtype)
        total = np.zeros(batch + (i1 - i0,), dtype)
        acc = np.zeros(batch + (i1 - i0, v.shape[-1]), dtype)
        for bj, j0 in enumerate(range(0, n_k, block_k)):
            j1 = min(j0 + block_k, n_k)
            tile = (bi, bj, slice(i0, i1), slice(j0, j1), bj == n_kb - 1)
            if causal and j0 > i1 - 1 + off:
                yield (*tile, True, None, m, total, acc)
                continue
            s = _scores(q[..., i0:i1, :], kt[..., j0:j1], batch, buffers)
            if causal and j1 - 1 > i0 + off:  # the tile crosses the diagonal
                s[..., np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None] + off] = -np.inf
            m_new = np.maximum(m, s.max(axis=-1))
            # A row hidden in every tile so far keeps max −inf; shift by 0 to avoid −inf − −inf.
            shift = np.where(np.isfinite(m_new), m_new, 0.0)
            alpha = np.exp(m - shift)
            if keep_scores:  # the animation shows the scores; it gets p separately
                p = np.exp(s - shift[..., None])
            else:  # in place: a tile's worth of memory traffic instead of three
                p = s
                p -= shift[..., None]
                np.exp(p, out=p)
            total *= alpha
            total += p.sum(axis=-1)
            acc *= alpha[..., None]
            acc += np.matmul(p, v[..., j0:j1, :])
            m = m_new
            yield (*tile, False, s, m, total, acc)


def _scores(qb, kt_block, batch, buffers: dict):
    """``qb @ kt_block`` into a buffer reused for every tile of the same shape.

    Fresh tile-sized arrays would each be mapped and faulted in anew by the allocator,
    which on a cold process costs more than the arithmetic. The buffer has the full batch
    shape (v's leading dimensions included) so the in-place updates can broadcast.
    """
    shape = batch + (qb.shape[-2], kt_block.shape[-1])
    buf = buffers.get(shape)
    if buf is None:
        buf = buffers[shape] = np.empty(shape, qb.dtype)
    return np.matmul(qb, kt_block, out=buf)


def _blocks(block_q, block_k):
    return check_positive_int(block_q, "block_q"), check_positive_int(block_k, "block_k")


def tiled_attention(
    q, k, v, *, block_q: int, block_k: int, causal: bool = False, scale: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Exact attention by tiles, never holding more than one ``block_q × block_k`` tile.

    Parameters
    ----------
    q, k, v : array_like, shapes ``(..., n_q, d_k)``, ``(..., n_k, d_k)``, ``(..., n_k, d_v)``
    block_q, block_k : tile height (query rows) and width (keys), ≥ 1
    causal : hide key j from query i when ``j > i + max(n_k − n_q, 0)`` (as
        :func:`attnviz.core.masks.causal_mask`); tiles entirely above the diagonal are skipped
    scale : divide the scores by √d_k

    Returns
    -------
    output : ndarray ``(..., n_q, d_v)``, equal to ``attention(q, k, v).output``
    lse : ndarray ``(..., n_q)``, log-sum-exp of each row of scaled scores (hidden ones
        excluded), the input of :func:`attention_block`
    """
    block_q, block_k = _blocks(block_q, block_k)
    q, k, v, batch, dtype = _prepare(q, k, v, scale=scale, causal=causal)
    output = np.empty(batch + (q.shape[-2], v.shape[-1]), dtype)
    lse = np.empty(batch + (q.shape[-2],), dtype)
    for _bi, _bj, rows, _cols, last, _skip, _s, m, total, acc in _walk(
        q, k, v, batch, block_q, block_k, causal
    ):
        if last:
            # Every row sees at least one key (causal keeps the diagonal), so total ≥ 1.
            output[..., rows, :] = acc / total[..., None]
            lse[..., rows] = m + np.log(total)
    return output, lse


def tiled_attention_steps(
    q, k, v, *, block_q: int, block_k: int, causal: bool = False, scale: bool = True
) -> Iterator[TileStep]:
    """Yield the state of :func:`tiled_attention` after each tile, for the teaching animation.

    Tiles come row block by row block, keys left to right, skipped (causal) tiles included.
    The ``partial_output`` of each row block's ``last`` step is that block's final output.
    Arguments are those of :func:`tiled_attention`; every array yielded is a copy.
    """
    block_q, block_k = _blocks(block_q, block_k)
    q, k, v, batch, _dtype = _prepare(q, k, v, scale=scale, causal=causal)
    for bi, bj, rows, cols, last, skipped, s, m, total, acc in _walk(
        q, k, v, batch, block_q, block_k, causal, keep_scores=True
    ):
        safe = np.where(total > 0, total, 1.0)
        yield TileStep(
            q_block=bi,
            k_block=bj,
            rows=rows,
            cols=cols,
            skipped=skipped,
            scores=None if s is None else s.copy(),
            running_max=m.copy(),
            running_sum=total.copy(),
            partial_output=acc / safe[..., None],
            last=last,
        )


def _strips(q, k, causal):
    """Yield ``(a, b, e, total, top)`` for strips of query rows ``a:b`` against every key.

    ``e = exp(s − top)`` (0 where hidden) lives in a reused buffer of width ``end``: keys at
    or past ``end`` are hidden from the whole panel by causality and never computed. One
    matrix product fills a panel of several strips: each BLAS call is a fork/join of its
    threads, which on a busy machine waits for a descheduled thread, so fewer and larger
    calls; the elementwise passes then run strip by strip, in cache.
    """
    n_q, n_k = q.shape[0], k.shape[0]
    off = max(n_k - n_q, 0)
    step = max(1, min(n_q, STRIP_ELEMENTS // n_k))
    panel_rows = max(step, min(n_q, PANEL_ELEMENTS // n_k) // step * step)
    buf = np.empty(panel_rows * n_k, q.dtype)
    for p0 in range(0, n_q, panel_rows):
        p1 = min(p0 + panel_rows, n_q)
        end = min(n_k, p1 + off) if causal else n_k
        panel = buf[: (p1 - p0) * end].reshape(p1 - p0, end)  # contiguous: one stream per pass
        np.matmul(q[p0:p1], k[:end].T, out=panel)
        for a in range(p0, p1, step):
            b = min(a + step, p1)
            e = panel[a - p0 : b - p0]
            lo = a + off + 1
            if causal and end > lo:
                hide = np.arange(lo, end)[None, :] > np.arange(a, b)[:, None] + off
                e[:, lo:end][hide] = -np.inf
            top = e.max(axis=1)
            e -= top[:, None]
            np.exp(e, out=e)
            yield a, b, e, e.sum(axis=1), top


def _split_starts(n: int, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Start index and size of each group, exactly as ``numpy.array_split(range(n), bins)``."""
    sizes = np.full(bins, n // bins, dtype=np.int64)
    sizes[: n % bins] += 1
    return np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes


def _overview_2d(q, k, bins, reduce, causal):
    row_starts, row_sizes = _split_starts(q.shape[0], bins)
    col_starts, col_sizes = _split_starts(k.shape[0], bins)
    group = np.repeat(np.arange(bins), row_sizes)
    acc = np.zeros((bins, bins))
    for a, b, e, total, _top in _strips(q, k, causal):
        g = group[a:b]
        g0, ng = g[0], g[-1] - g[0] + 1
        nb = int(np.searchsorted(col_starts, e.shape[1]))  # column bins this strip reaches
        if reduce == "mean":
            # Σ_i w_ij over the strip's rows of each row group = P @ e with P_gi = 1/total_i.
            p = np.zeros((ng, b - a), e.dtype)
            p[g - g0, np.arange(b - a)] = 1.0 / total
            acc[g0 : g0 + ng, :nb] += np.add.reduceat(p @ e, col_starts[:nb], axis=1)
        else:
            w = np.maximum.reduceat(e, col_starts[:nb], axis=1) / total[:, None]
            firsts = np.flatnonzero(np.diff(g, prepend=-1))
            block = acc[g0 : g0 + ng, :nb]
            np.maximum(block, np.maximum.reduceat(w, firsts, axis=0), out=block)
    if reduce == "mean":
        acc /= row_sizes[:, None] * col_sizes[None, :]
    return acc


def _overview_args(q, k, bins, reduce, causal, scale):
    check_choice(reduce, ("mean", "max"), "reduce")
    q, k, _v, batch, dtype = _prepare(q, k, scale=scale, causal=causal)
    return q, k, batch, dtype, _check_bins(bins, q.shape[-2], k.shape[-2])


def _check_bins(bins, n_q: int, n_k: int) -> int:
    bins = check_positive_int(bins, "bins")
    if bins > min(n_q, n_k):
        raise ValueError(
            f"bins ({bins}) exceeds the number of queries ({n_q}) or keys ({n_k}); "
            "every bin needs at least one row and one column"
        )
    return bins


def attention_overview(
    q,
    k,
    *,
    bins: int,
    reduce: str = "mean",
    causal: bool = False,
    scale: bool = True,
    backend: str = "auto",
) -> np.ndarray:
    """A ``bins × bins`` picture of the n×n attention weights, computed without holding them.

    Rows (queries) and columns (keys) are split into ``bins`` contiguous groups as
    ``numpy.array_split`` does, and each cell is the mean (or max) of the exact weights in
    its block; hidden (causal) cells count as 0. Memory is O(n·d + bins² + panel), with a
    panel of :data:`PANEL_ELEMENTS` scores; there is one pass over the n² scores.

    Parameters
    ----------
    q, k : array_like, shapes ``(..., n_q, d_k)`` and ``(..., n_k, d_k)``
    bins : cells per side, 1 ≤ bins ≤ min(n_q, n_k)
    reduce : "mean" (the block's average weight, so ``Σ_J |J|·cell[I, J] = 1`` for every row
        group I) or "max" (the strongest single weight in the block)
    causal, scale : as in :func:`tiled_attention`
    backend : "auto", "numpy", "torch" or "cuda" (see :func:`attnviz.core.backends.get_backend`;
        "auto" is CUDA when available, else numpy, and imports torch, when installed, to
        look for a GPU: pass "numpy" where that first-call second matters)

    Returns
    -------
    ndarray ``(..., bins, bins)``, float32 for float32 inputs, float64 otherwise
    """
    check_choice(backend, ("auto", "numpy", "torch", "cuda"), "backend")
    if backend != "numpy":
        from attnviz.core.backends import get_backend  # lazy: torch is optional and slow to load

        chosen = get_backend(backend)
        if chosen.name != "numpy":
            return chosen.attention_overview(
                q, k, bins=bins, reduce=reduce, causal=causal, scale=scale
            )
    q, k, batch, dtype, bins = _overview_args(q, k, bins, reduce, causal, scale)
    qb = np.broadcast_to(q, batch + q.shape[-2:])
    kb = np.broadcast_to(k, batch + k.shape[-2:])
    out = np.empty(batch + (bins, bins), dtype)
    for idx in np.ndindex(batch):
        out[idx] = _overview_2d(qb[idx], kb[idx], bins, reduce, causal)
    return out


def row_logsumexp(q, k, *, causal: bool = False, scale: bool = True) -> np.ndarray:
    """The row log-sum-exp of the scaled scores, ``(..., n_q)``, without an n×n array.

    The same ``lse`` as :func:`tiled_attention` returns, without needing ``v``: the input of
    :func:`attention_block` when zooming into an overview.
    """
    q, k, _v, batch, dtype = _prepare(q, k, scale=scale, causal=causal)
    qb = np.broadcast_to(q, batch + q.shape[-2:])
    kb = np.broadcast_to(k, batch + k.shape[-2:])
    out = np.empty(batch + (q.shape[-2],), dtype)
    for idx in np.ndindex(batch):
        for a, b, _e, total, top in _strips(qb[idx], kb[idx], causal):
            out[idx + (slice(a, b),)] = top + np.log(total)
    return out


def _indices(sel, n: int, name: str) -> np.ndarray:
    if isinstance(sel, range):
        sel = slice(sel.start, sel.stop, sel.step)
    if not isinstance(sel, slice):
        raise ValueError(f"{name} must be a slice (or range), got {type(sel).__name__}")
    idx = np.arange(*sel.indices(n))
    if idx.size == 0:
        raise ValueError(f"{name} {sel} selects nothing out of {n}")
    return idx


def attention_block(
    q, k, rows, cols, *, lse, causal: bool = False, scale: bool = True
) -> np.ndarray:
    """The exact weights of the sub-block ``rows × cols``, from the row log-sum-exp.

    Parameters
    ----------
    q, k : array_like, shapes ``(..., n_q, d_k)`` and ``(..., n_k, d_k)``
    rows, cols : slices (or ranges) of query rows and keys
    lse : ``(..., n_q)`` row log-sum-exp from :func:`tiled_attention` or
        :func:`row_logsumexp` with the same ``causal`` and ``scale``
    causal, scale : as in :func:`tiled_attention`

    Returns
    -------
    ndarray ``(..., len(rows), len(cols))``, equal to ``attention(...).weights[..., rows, cols]``
    """
    q, k, _v, batch, dtype = _prepare(q, k, scale=scale, causal=causal)
    n_q, n_k = q.shape[-2], k.shape[-2]
    ri, ci = _indices(rows, n_q, "rows"), _indices(cols, n_k, "cols")
    lse = as_float_array(lse, "lse", min_ndim=1)
    if lse.shape[-1] != n_q:
        raise ValueError(f"lse must have one entry per query ({n_q}), got shape {lse.shape}")
    s = np.matmul(q[..., ri, :], np.swapaxes(k[..., ci, :], -1, -2))
    if causal:
        # Hide before exp: a hidden score may exceed the row's lse and overflow.
        s = np.where(ci[None, :] > ri[:, None] + max(n_k - n_q, 0), -np.inf, s)
    return np.exp(s - lse[..., ri, None]).astype(dtype, copy=False)
