"""Exact attention without an n×n array: FlashAttention-style tiles, overview maps and zoom.

:func:`tiled_attention` walks ``block_q × block_k`` tiles of the score matrix and keeps, per
query row, a running maximum, a running sum of exponentials and a rescaled output accumulator
(the online softmax), so it holds one tile at a time and agrees with
:func:`attnviz.core.attention.attention` to rounding. :func:`tiled_attention_steps` yields the
same computation tile by tile for the teaching animation.

:func:`attention_overview` shrinks the n×n weights to a ``bins × bins`` picture for n far
beyond what fits in memory (32k tokens on a CPU) in one pass over the scores, on every core,
with progress and cancel (:class:`Cancelled`); :func:`attention_block` gives the exact
weights of a zoomed window from the row log-sum-exp. Only numpy is imported here; the torch
and CUDA versions live in :mod:`attnviz.core.backends`, whose ``get_backend(name)`` is the one
place that chooses among them (this module never imports it), the threads in
:mod:`attnviz.core._parallel`, the memory check in :mod:`attnviz.core.memory_guard`.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from attnviz.core._parallel import Runner, cores, serial_blas
from attnviz.core._validate import (
    as_float_array,
    check_choice,
    check_positive_int,
    compute_dtype,
    result_dtype,
)
from attnviz.core.memory_guard import check_fits
from attnviz.core.work import PANEL_ROWS, TILE_ELEMENTS, Cancelled
from attnviz.core.work import as_cancel as _as_cancel
from attnviz.core.work import as_progress as _as_progress
from attnviz.core.work import check_flag as _check_flag
from attnviz.core.work import split_starts as _split_starts

__all__ = [
    "PANEL_ROWS",
    "TILE_ELEMENTS",
    "Cancelled",
    "TileStep",
    "attention_block",
    "attention_overview",
    "row_logsumexp",
    "tiled_attention",
    "tiled_attention_steps",
]

#: Overviews of fewer scores run on the calling thread alone.
PARALLEL_MIN_SCORES = 1 << 22
#: Threads of an overview: None = one per core when numpy's OpenBLAS can be made serial
#: meanwhile, else one (the BLAS keeps the cores); set it to force a number.
WORKERS: int | None = None
_RESCALE_ABOVE = 2.0**64  # see _Map
_LOG2E = 1.4426950408889634


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


def _prepare(q, k, v=None, *, scale=True, causal=False):
    """Validate, unify dtypes and fold the 1/√d_k divisor into q (one pass over n·d, not n²).

    Returns ``(q, k, v, batch, dtype)`` with the arrays in the dtype the scores are computed
    in: float64 when float32 scores could overflow (then the row log-sum-exp, which holds
    scores, stays float64 too: see :func:`_lse_dtype`), ``dtype`` the one results come in.
    """
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
    c = 1.0 / math.sqrt(q.shape[-1]) if scale else 1.0
    work = compute_dtype(dtype, q, k, c)
    q = (q.astype(work, copy=False) * c).astype(work, copy=False)
    k = k.astype(work, copy=False)
    v = None if v is None else v.astype(work, copy=False)
    return q, k, v, batch, dtype


def _lse_dtype(q: np.ndarray, dtype):
    """The row log-sum-exp is a score: float64 when the scores were (float32 cannot hold
    them), else ``dtype``."""
    return q.dtype if q.dtype != dtype else dtype


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
    lse = np.empty(batch + (q.shape[-2],), _lse_dtype(q, dtype))
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


def _key_tiles(starts, sizes, width: int) -> list[tuple[int, int, int, tuple]]:
    """Tiles of at most ``width`` keys made of whole bins (a wider bin is cut in tiles).

    Each tile is ``(j0, j1, b0, runs)``: keys ``j0:j1`` starting at bin ``b0``, as ``runs``
    of ``(count, width)`` consecutive bins of equal width, so that a reshape sums each bin
    (array_split has at most two widths).
    """
    tiles, b, bins = [], 0, len(sizes)
    while b < bins:
        j0, w = int(starts[b]), int(sizes[b])
        if w > width:
            tiles += [
                (j, min(j + width, j0 + w), b, ((1, min(width, j0 + w - j)),))
                for j in range(j0, j0 + w, width)
            ]
            b += 1
            continue
        b0, runs, used = b, [], 0
        while b < bins and used + sizes[b] <= width:
            w = int(sizes[b])
            same = int(np.searchsorted(sizes[b:] != w, True))  # bins ahead of this width
            count = min(same, (width - used) // w)
            runs.append((count, w))
            used, b = used + count * w, b + count
        tiles.append((j0, j0 + used, b0, tuple(runs)))
    return tiles


def _reduce_runs(t, runs, how, out):
    """Reduce a tile's key rows (axis 0) bin by bin, into ``out`` (bins of the tile × queries)."""
    i = o = 0
    for count, w in runs:
        how(t[o : o + count * w].reshape(count, w, t.shape[1]), axis=1, out=out[i : i + count])
        i, o = i + count, o + count * w
    return out


class _Map:
    """The overview of one ``(q, k)`` pair: panels of query rows, each a walk over key tiles.

    A tile is ``keys × queries`` (keys on axis 0, so each bin's sum adds whole contiguous
    rows), in base 2 (``q`` carries log2(e), so ``exp2`` replaces the slower ``exp``), shifted
    by a per-query reference ``r`` that the product itself subtracts: ``k`` gets a column of
    ones and the panel's ``q`` the column ``−r``. ``r`` starts at the first tile's maximum and
    moves up, rescaling that query's sums, only when a tile's sums outgrow it by 2^64 (as
    FlashAttention rescales its accumulator, but lazily): the exact result needs no more,
    and the tile's maximum pass is saved.
    """

    def __init__(self, q, k, bins: int, reduce, causal: bool, rows: int, out, lse):
        n_q, d = q.shape
        self.n_k, self.d = k.shape[0], d
        self.q2 = q * q.dtype.type(_LOG2E)
        self.k1 = np.empty((self.n_k, d + 1), k.dtype)
        self.k1[:, :d] = k
        self.k1[:, d] = 1
        self.bins, self.reduce, self.causal = bins, reduce, causal
        self.off = max(self.n_k - n_q, 0)
        self.group = np.repeat(np.arange(bins), _split_starts(n_q, bins)[1])
        starts, sizes = _split_starts(self.n_k, bins)
        self.tiles = _key_tiles(starts, sizes, max(1, TILE_ELEMENTS // rows))
        self.out, self.lse = out, lse  # out: key bins × query bins (transposed at the end)
        self.items = []
        for a in range(0, n_q, rows):
            b = min(a + rows, n_q)
            self.items.append(((b - a) * self.end(b), a, b))
        self.lock = threading.Lock()

    def end(self, b: int) -> int:
        """Keys past this are hidden (causal) from every query before row ``b``."""
        return min(self.n_k, b + self.off) if self.causal else self.n_k

    def hide(self, t, j0: int, j1: int, rows) -> None:
        if self.causal and j1 - 1 > rows[0] + self.off:  # the tile crosses the diagonal
            np.copyto(t, -np.inf, where=np.arange(j0, j1)[:, None] > rows[None, :] + self.off)

    def panel(self, a: int, b: int, check, scratch: dict) -> None:
        rows, n, d = np.arange(a, b), b - a, self.d
        qp = np.empty((n, d + 1), self.q2.dtype)
        qp[:, :d] = self.q2[a:b]
        qp[:, d] = 0
        size = n * max(j1 - j0 for j0, j1, _b, _r in self.tiles)
        if scratch.get("size", 0) < size:
            scratch.update(size=size, t=np.empty(size, qp.dtype), s=np.empty(size, qp.dtype))
        acc = np.zeros((self.bins, n))
        top = np.full((self.bins, n), -np.inf) if self.reduce == "max" else None
        r = None
        for j0, j1, b0, runs in self.tiles:
            if j0 >= self.end(b):
                break
            check()
            nb = sum(count for count, _w in runs)
            t = np.matmul(self.k1[j0:j1], qp.T, out=scratch["t"][: (j1 - j0) * n].reshape(-1, n))
            self.hide(t, j0, j1, rows)
            if r is None:  # every query sees key 0: a finite reference for each
                r = t.max(axis=0)
                t -= r
                qp[:, d] = -r
                r = r.astype(np.float64)
            s = scratch["s"][: nb * n].reshape(nb, n)
            if top is not None:  # raw maxima, before exp2 overwrites the scores
                m = _reduce_runs(t, runs, np.maximum.reduce, s) + r
                np.maximum(top[b0 : b0 + nb], m, out=top[b0 : b0 + nb])
            with np.errstate(over="ignore"):
                np.exp2(t, out=t)
            _reduce_runs(t, runs, np.add.reduce, s)
            grown = ~(s.max(axis=0) <= _RESCALE_ABOVE)  # inf and nan included
            if grown.any():
                self.rescale(np.flatnonzero(grown), j0, j1, a, runs, qp, r, acc, s)
            acc[b0 : b0 + nb] += s
        total = acc.sum(axis=0)
        lse2 = r + np.log2(total)
        self.lse[a:b] = lse2 / _LOG2E
        if self.reduce is None:
            return
        how = np.add if self.reduce == "mean" else np.maximum
        cells = acc / total if self.reduce == "mean" else np.exp2(top - lse2)
        g = self.group[a:b]
        part = how.reduceat(cells, np.flatnonzero(np.diff(g, prepend=-1)), axis=1)
        with self.lock:
            block = self.out[:, g[0] : g[0] + part.shape[1]]
            how(block, part, out=block)

    def rescale(self, cols, j0, j1, a, runs, qp, r, acc, s) -> None:
        """Queries whose sums outgrew their reference: move it to the true maximum so far."""
        raw = self.k1[j0:j1, : self.d] @ self.q2[a + cols].T
        self.hide(raw, j0, j1, a + cols)
        new = np.maximum(r[cols], raw.max(axis=0))
        acc[:, cols] *= np.exp2(r[cols] - new)
        raw -= new.astype(raw.dtype)
        np.exp2(raw, out=raw)
        s[:, cols] = _reduce_runs(raw, runs, np.add.reduce, np.empty((len(s), len(cols)), s.dtype))
        r[cols] = new
        qp[cols, self.d] = -new


def _overview(q, k, batch, bins, reduce, causal, cancel=None, progress=None):
    """The numpy overview of every batch item: ``(maps or None, lse)``, float64.

    ``reduce=None`` computes only the row log-sum-exp (``bins`` is then 1).
    """
    n_q, n_k = q.shape[-2], k.shape[-2]
    qb = np.broadcast_to(q, batch + q.shape[-2:])
    kb = np.broadcast_to(k, batch + k.shape[-2:])
    out = np.zeros(batch + (bins, bins)) if reduce else None  # query bins × key bins
    lse = np.empty(batch + (n_q,))
    parallel = n_q > 1 and n_q * n_k * math.prod(batch) >= PARALLEL_MIN_SCORES
    runner = None
    with serial_blas() if parallel else contextlib.nullcontext(0) as blas_threads:
        workers = (WORKERS or min(cores(), blas_threads) or 1) if parallel else 1
        rows = min(n_q, PANEL_ROWS)
        if workers > 1:  # a few panels per worker, for balance (causal ones differ)
            rows = min(rows, max(-(-n_q // (4 * workers)), min(64, PANEL_ROWS)))
        for idx in np.ndindex(batch):
            view = None if out is None else out[idx].T
            one = _Map(qb[idx], kb[idx], bins, reduce, causal, rows, view, lse[idx])
            if runner is None:
                total = sum(w for w, _a, _b in one.items) * math.prod(batch)
                runner = Runner(total, cancel, progress)
            runner.run(one.items, one.panel, workers)
    runner.finish()
    return out, lse


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
    return_lse: bool = False,
    progress=None,
    cancel=None,
):
    """A ``bins × bins`` picture of the n×n attention weights, computed without holding them.

    Rows (queries) and columns (keys) are split into ``bins`` contiguous groups as
    ``numpy.array_split`` does, and each cell is the mean (or max) of the exact weights in
    its block; hidden (causal) cells count as 0. One pass over the n² scores, FlashAttention's
    online softmax with per-(query, key bin) sums in place of its output; memory is
    O(n·d + bins·(bins + panel) + one tile per thread). Large maps use one thread per core.

    Parameters
    ----------
    q, k : array_like, shapes ``(..., n_q, d_k)`` and ``(..., n_k, d_k)``
    bins : cells per side, 1 ≤ bins ≤ min(n_q, n_k)
    reduce : "mean" (the block's average weight, so ``Σ_J |J|·cell[I, J] = 1`` for every row
        group I) or "max" (the strongest single weight in the block)
    causal, scale : as in :func:`tiled_attention`
    return_lse : also return the row log-sum-exp, the input of :func:`attention_block`
    progress : None or ``callable(done_fraction)``, called on the calling thread as the work
        advances (ending with 1.0)
    cancel : None, ``callable() -> bool`` or an object with ``is_set()`` (a
        ``threading.Event``), polled on the calling thread at least every few milliseconds
        of work; once true, the computation stops and raises :class:`Cancelled`

    Returns
    -------
    ndarray ``(..., bins, bins)``, float32 for float32 inputs, float64 otherwise; with
    ``return_lse``, ``(map, lse)`` where ``lse`` is ``(..., n_q)`` as :func:`row_logsumexp`

    Raises
    ------
    Cancelled
        ``cancel`` became true.
    attnviz.core.memory_guard.MemoryRefused
        the working memory would exceed what is free (a ``ValueError``).
    """
    _check_flag(return_lse, "return_lse")
    cancel, progress = _as_cancel(cancel), _as_progress(progress)
    q, k, batch, dtype, bins = _overview_args(q, k, bins, reduce, causal, scale)
    n_q, n_k = q.shape[-2], k.shape[-2]
    check_fits(max(n_q, n_k), q.shape[-1], bins, "numpy", dtype, inputs=False)
    out, lse = _overview(q, k, batch, bins, reduce, causal, cancel, progress)
    if reduce == "mean":
        row_sizes, col_sizes = _split_starts(n_q, bins)[1], _split_starts(n_k, bins)[1]
        out /= row_sizes[:, None] * col_sizes[None, :]
    out = out.astype(dtype, copy=False)
    return (out, lse.astype(_lse_dtype(q, dtype), copy=False)) if return_lse else out


def row_logsumexp(q, k, *, causal: bool = False, scale: bool = True) -> np.ndarray:
    """The row log-sum-exp of the scaled scores, ``(..., n_q)``, without an n×n array.

    The same ``lse`` as :func:`tiled_attention` returns, without needing ``v``: the input of
    :func:`attention_block` when zooming into an overview (which returns it too, with
    ``return_lse=True``).
    """
    q, k, _v, batch, dtype = _prepare(q, k, scale=scale, causal=causal)
    return _overview(q, k, batch, 1, None, causal)[1].astype(_lse_dtype(q, dtype), copy=False)


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
    if _lse_too_coarse(lse[..., ri], q.dtype):
        return _exact_rows(q, k, ri, ci, causal).astype(dtype, copy=False)
    s = np.matmul(q[..., ri, :], np.swapaxes(k[..., ci, :], -1, -2))
    if causal:
        # Hide before exp: a hidden score may exceed the row's lse and overflow.
        s = np.where(ci[None, :] > ri[:, None] + max(n_k - n_q, 0), -np.inf, s)
    return np.exp(s - lse[..., ri, None]).astype(dtype, copy=False)


def _lse_too_coarse(lse: np.ndarray, dtype) -> bool:
    """True when a row's log-sum-exp is so large that its last digit moves a weight by more
    than 2^-10 (|lse| = 1e40 in float64 cannot say "+ ln 2": two equal keys would get
    weight 1 each instead of ½)."""
    eps = float(np.finfo(np.result_type(lse.dtype, dtype)).eps)
    return bool(lse.size) and float(np.max(np.abs(lse))) * eps > 2.0**-10


def _exact_rows(q, k, ri, ci, causal: bool) -> np.ndarray:
    """The weights of rows ``ri`` × keys ``ci`` from each row's whole score row (its maximum
    and sum), a few rows at a time: exact where the log-sum-exp is too coarse."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    kt = np.swapaxes(k, -1, -2)
    parts = []
    step = max(1, TILE_ELEMENTS // n_k)
    for a in range(0, ri.size, step):
        rows = ri[a : a + step]
        s = np.matmul(q[..., rows, :], kt)
        if causal:
            s = np.where(np.arange(n_k)[None, :] > rows[:, None] + max(n_k - n_q, 0), -np.inf, s)
        s -= s.max(axis=-1, keepdims=True)  # every row sees key 0: a finite maximum
        np.exp(s, out=s)
        parts.append(s[..., ci] / s.sum(axis=-1, keepdims=True))
    return np.concatenate(parts, axis=-2)
