"""The heatmap of a long sentence in one pass: float32, blocks of whole row groups, pooled
on the way, written into preallocated outputs.

Past :data:`~attnviz.model.resolve._display.DISPLAY_CELLS` tokens the heatmap draws a grid
of block means, and hover, steps, exports and the gradient read single rows or whole
matrices that :class:`~attnviz.model.resolve._row_blocks.RowBlockAttention` computes in
float64 when asked. What a slider step must deliver is therefore the grid of the shown
matrix, each row's entropy, the fully masked rows and the spread of the scores; this
module computes them in float32 (the grid's colours and a three-decimal entropy need no
more), a block of whole row groups at a time (about a megabyte of cells, so a block's
passes stay in a core's cache), and never holds an n × n array besides the kept q kᵀ:

- the keys are stored in the grid's column order (:class:`KeyOrder`): offset r of every
  column group, group after group, so pooling a row is adding a few contiguous slices of
  it, and the softmax, which does not care about the order of its keys, is unchanged;
- up to :data:`KEEP_LIMIT` tokens the float32 q kᵀ minus each row's maximum is kept for
  the q and k of the moment (:class:`Kept`; 64 MiB at n = 4096): a temperature or scale
  step is then ``z = c·(q kᵀ − max)``, ``e = exp z``, two row sums and the pooling;
- the entropy comes from the row's log-sum-exp: ``H = log T − Σ e·z / T`` with
  ``T = Σ e`` (no logarithm per entry), and the weights' block means are the pooled ``e``
  divided by ``T`` (no division per entry);
- a hidden key gets ``z − 1e30`` rather than −inf: its ``e`` is 0 and ``0 · z`` stays 0
  in ``Σ e·z``, so no pass replaces infinities.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.score_terms import ScoreTerms
from attnviz.core.work import Cancelled, split_starts

#: Up to this many tokens the float32 q kᵀ (shifted by its row maxima) is kept between
#: steps: a scale, temperature, mask or v step then needs no matrix product (n = 4096:
#: 64 MiB; past it every pass multiplies q and k again, a block at a time).
KEEP_LIMIT = 4096
#: float32 cells of one work block (whole row groups; 1 MiB, two buffers fit a core's L2).
BLOCK_CELLS = 1 << 18
#: What a hidden key adds to its logit: exp gives 0 and 0 · (−1e30) = 0 in Σ e·z.
FAR = np.float32(-1e30)
#: A kept row whose visible maximum lies further below 0 than this is shifted again (with
#: a mask only): e^−30 is still a normal float32, so closer rows need no extra pass.
RESHIFT = 30.0


def grid_size(n: int, cells: int) -> int:
    """Side of the grid a matrix of ``n`` rows is drawn on (``cells`` at most)."""
    return min(n, cells)


class KeyOrder:
    """Keys in the order the grid pools them: offset 0 of every column group, then offset
    1, …; the groups are ``numpy.array_split``'s (the first ``extra`` have one key more,
    whose last offset comes at the end)."""

    def __init__(self, n: int, cols: int) -> None:
        starts, sizes = split_starts(n, cols)
        self.n, self.cols = n, cols
        self.size, self.extra = n // cols, n % cols
        runs = [starts + r for r in range(self.size)] + [starts[: self.extra] + self.size]
        self.perm = np.concatenate(runs)
        self.position = self.perm.astype(np.float32)  # each stored key's index (ALiBi)
        self.inv_width = (1.0 / sizes).astype(np.float32)

    def _parts(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        body = x[:, : self.size * self.cols].reshape(x.shape[0], self.size, self.cols)
        return body, x[:, self.size * self.cols :]

    def sums(self, x: np.ndarray) -> np.ndarray:
        """Sums of each column group of the rows ``x`` (keys in this order)."""
        body, rest = self._parts(x)
        out = body.sum(axis=1) if self.size > 1 else body[:, 0].copy()
        if self.extra:
            out[:, : self.extra] += rest
        return out

    def all(self, flags: np.ndarray) -> np.ndarray:
        """True where every key of a column group is flagged, per row of ``flags``."""
        body, rest = self._parts(flags)
        out = body.all(axis=1)
        if self.extra:
            out[:, : self.extra] &= rest
        return out

    def hidden(self, mask: np.ndarray) -> np.ndarray:
        """``~mask`` with its columns in this order (the mask is True = may attend).

        Equal groups are a transpose of each row (n = 4096: 17 ms, where fancy indexing
        takes ten times as long); uneven ones a ``take``."""
        rows = mask.shape[0]
        if self.extra:
            out = np.take(mask, self.perm, axis=1)
            return np.logical_not(out, out=out)
        grouped = mask.reshape(rows, self.cols, self.size).transpose(0, 2, 1)
        out = np.empty((rows, self.size, self.cols), dtype=bool)
        return np.logical_not(grouped, out=out).reshape(rows, self.n)


class Kept:
    """What the slider steps of one q and k reuse: q and k in float32 (keys in the grid's
    :class:`KeyOrder`), up to :data:`KEEP_LIMIT` tokens ``q kᵀ`` minus each row's maximum
    (``shifted``, every entry ≤ 0) with the maxima (``top``), and the moments of ``q kᵀ``
    over the keys the last mask shows (``moments``: ``(mask key, (Σ, Σ², count))``,
    written by a worker's pass, read by the next)."""

    def __init__(self, q: np.ndarray, k: np.ndarray, cells: int, *, keep: bool) -> None:
        self.order = KeyOrder(k.shape[0], grid_size(k.shape[0], cells))
        self.n = q.shape[0]
        self.q32 = np.asarray(q, dtype=np.float32)
        self.k32 = np.ascontiguousarray(k[self.order.perm], dtype=np.float32)
        self.shifted = self.top = None
        self.moments: tuple = (None, None)
        if keep:
            self._keep()

    def _keep(self) -> None:
        n, n_k = self.n, self.k32.shape[0]
        shifted = np.empty((n, n_k), dtype=np.float32)
        top = np.empty(n, dtype=np.float32)
        step = max(1, BLOCK_CELLS // max(n_k, 1))
        for a in range(0, n, step):  # in blocks: each is still in the cache for its max
            b = min(a + step, n)
            block = np.matmul(self.q32[a:b], self.k32.T, out=shifted[a:b])
            np.max(block, axis=1, out=top[a:b])
            block -= top[a:b, None]
        self.shifted, self.top = shifted, top

    @classmethod
    def of_scores(cls, qk: np.ndarray, cells: int) -> Kept:
        """A :class:`Kept` of an already computed ``q kᵀ`` (keys in their own order)."""
        kept = cls.__new__(cls)
        kept.order = KeyOrder(qk.shape[1], grid_size(qk.shape[1], cells))
        kept.n, kept.q32, kept.k32, kept.moments = qk.shape[0], None, None, (None, None)
        shifted = np.asarray(qk, dtype=np.float32)[:, kept.order.perm]
        kept.top = shifted.max(axis=1)
        shifted -= kept.top[:, None]
        kept.shifted = shifted
        return kept


def _apply_terms(out: np.ndarray, terms: ScoreTerms, queries: np.ndarray, order) -> None:
    """Temperature tuning, capping and ALiBi in place on logits whose rows are ``queries``
    (keys in ``order``)."""
    if terms.tuning > 0:
        floor = np.floor((queries.astype(np.float64) + 1.0) / terms.tuning_floor)
        out *= (1.0 + terms.tuning * np.log1p(floor)).astype(np.float32)[:, None]
    if terms.softcap > 0:
        cap = np.float32(terms.softcap)
        np.divide(out, cap, out=out)
        np.tanh(out, out=out)
        out *= cap
    if terms.alibi > 0:
        bias = np.subtract(queries[:, None], order.position[None, :], dtype=np.float32)
        np.abs(bias, out=bias)
        bias *= np.float32(-terms.alibi)
        out += bias


def logits(kept: Kept, rows: slice, c: float, terms: ScoreTerms, out: np.ndarray):
    """Write the logits of query ``rows`` minus a per-row ``base`` into ``out`` (keys in
    the kept order) and return ``(base, known_max)``: float64 bases, and True when each
    row of ``out`` is known to have its maximum at 0 (kept rows, no capping or ALiBi:
    ``c·(q kᵀ − max)`` with ``c > 0``, as every scale and temperature gives)."""
    c32 = np.float32(c)
    n_rows = out.shape[0]
    if kept.shifted is not None and not terms.shapes_scores:
        np.multiply(kept.shifted[rows], c32, out=out)
        return c * kept.top[rows].astype(np.float64), True
    if kept.shifted is not None:
        np.add(kept.shifted[rows], kept.top[rows, None], out=out)
        out *= c32
    else:
        np.matmul(kept.q32[rows] * c32, kept.k32.T, out=out)
    queries = np.arange(kept.n, dtype=np.float32)[rows]
    _apply_terms(out, terms, queries, kept.order)
    return np.zeros(n_rows), False


def softmax_rows(z, base, hidden, sink, e, known_max: bool, order: KeyOrder | None = None):
    """Exponentials, denominators and entropies of the logit rows ``z + base``.

    ``z`` (float32, changed in place) gets the mask and its row shift; ``e`` receives
    ``exp z``. Returns ``(total, entropy, fully, sums)``: float64 ``T = Σ e`` (with the
    sink's ``e^(sink − shift)``; 1 for a row with nothing to attend to), float64
    entropies in nats, the fully masked rows (None without a mask) and, given the key
    ``order``, the column-group sums of ``e`` (the weights' grid times T), whose row sums
    are T's: one pass over the block fewer.
    """
    fully = None
    if hidden is not None:
        np.multiply(hidden, FAR, out=e)
        z += e
        fully = hidden.all(axis=1)
    if hidden is not None or not known_max:
        top = z.max(axis=1)
        if fully is not None:
            top[fully] = 0.0  # all −1e30: shifting by it would make them visible
        if known_max:  # kept rows: the visible maximum is ≤ 0; far below it, shift again
            top = np.where(top < -RESHIFT, top, np.float32(0.0))
        if not known_max or top.any():
            z -= top[:, None]
        base = base + top
    np.exp(z, out=e)
    sums = None if order is None else order.sums(e)
    total = (e if sums is None else sums).sum(axis=1).astype(np.float64)
    ez = np.vecdot(e, z).astype(np.float64)
    if sink is not None:
        z_sink = sink - base
        with np.errstate(over="ignore"):
            e_sink = np.exp(z_sink)
        total += e_sink
        ez += e_sink * z_sink
    total[total <= 0] = 1.0
    entropy = np.log(total) - ez / total
    return total, np.maximum(entropy, 0.0), fully, sums  # rounding: −1e-7 for a one-hot row


def visible_moments(z: np.ndarray, hidden, scratch: np.ndarray) -> np.ndarray:
    """``(Σ, Σ², count)`` of the logits ``z`` over the keys ``hidden`` does not hide
    (float32 rows, float64 totals)."""
    if hidden is not None:
        z = np.multiply(z, ~hidden, out=scratch)
        count = z.size - int(np.count_nonzero(hidden))
    else:
        count = z.size
    return np.array([z.sum(axis=1).astype(np.float64).sum(), np.vecdot(z, z).sum(), count])


def block_values(z, base, e, total, shown: str, order: KeyOrder, v32) -> np.ndarray:
    """The column-group means of the block's rows of the ``shown`` matrix (or the rows of
    the output, ``(e @ v) / T``), float32. ``z`` holds the logits less ``base`` when
    ``shown`` is ``scores`` (before the mask); for ``weights`` ``e`` holds the column-group
    sums of the exponentials, for ``output`` the exponentials."""
    if shown == "output":
        out = np.matmul(e, v32)
        out *= (1.0 / total).astype(np.float32)[:, None]
        return out
    if shown == "scores":
        out = order.sums(z)
        out *= order.inv_width
        out += base.astype(np.float32)[:, None]
        return out
    out = e
    out *= order.inv_width
    out *= (1.0 / total).astype(np.float32)[:, None]
    return out


def group_rows(x: np.ndarray, how, g0: int, g1: int, size: int, extra: int) -> np.ndarray:
    """``how`` (``np.sum`` or ``np.all``) over each row group ``g0 … g1 − 1`` of ``x``,
    whose rows start at group ``g0``'s first (``numpy.array_split``'s groups: the first
    ``extra`` have ``size + 1`` rows). A reduction over a middle axis, one run of equal
    groups at a time (``reduceat`` along rows is several times slower)."""
    split = min(max(extra, g0), g1)
    tall = (split - g0) * (size + 1)
    parts = []
    for count, width, rows in ((split - g0, size + 1, x[:tall]), (g1 - split, size, x[tall:])):
        if count:
            parts.append(how(rows.reshape(count, width, *x.shape[1:]), axis=1))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def row_blocks(n: int, rows: int, n_k: int):
    """``(first row, end row, first group, end group)`` of each work block: whole row
    groups (``numpy.array_split(range(n), rows)``), about :data:`BLOCK_CELLS` cells each."""
    starts, sizes = split_starts(n, rows)
    per = max(1, (BLOCK_CELLS // max(n_k, 1)) // int(sizes.max(initial=1)))
    for g0 in range(0, rows, per):
        g1 = min(g0 + per, rows)
        yield int(starts[g0]), int(starts[g1 - 1] + sizes[g1 - 1]), g0, g1


class PassResult:
    """What one pass leaves: the grid ``values`` of the shown matrix (float32), per query
    row ``entropy`` (float64) and ``fully`` masked flags, the grid cells whose every key
    is hidden (``all_hidden``, None without a mask), and the logits' ``moments``
    ``(Σ, Σ², count)`` over the visible keys when they were gathered."""

    __slots__ = ("all_hidden", "entropy", "fully", "moments", "values")

    def __init__(self, values, entropy, fully, all_hidden, moments) -> None:
        self.values, self.entropy, self.fully = values, entropy, fully
        self.all_hidden, self.moments = all_hidden, moments


def _outputs(n: int, rows: int, width: int, cols: int, masked: bool, gather: bool):
    all_hidden = np.empty((rows, cols), dtype=bool) if masked else None
    moments = np.zeros(3) if gather else None
    return PassResult(
        np.empty((rows, width), np.float32), np.empty(n), np.zeros(n, bool), all_hidden, moments
    )


def _block(kept, rows, c, terms, hidden, shown, v32, bufs, out, gather: bool):
    """Logits, softmax and the shown matrix's column-group means of query ``rows``."""
    z, e = bufs
    base, known_max = logits(kept, rows, c, terms, z)
    if gather:
        out.moments += visible_moments(z, hidden, e)
    if shown == "scores":  # the logits themselves, before the mask and the shift
        values = block_values(z, base, e, None, shown, kept.order, v32)
    order = kept.order if shown == "weights" else None
    total, entropy, fully, sums = softmax_rows(z, base, hidden, terms.sink, e, known_max, order)
    if shown != "scores":
        values = block_values(z, base, e if sums is None else sums, total, shown, kept.order, v32)
    return values, entropy, fully


def exact_pass(kept, c, terms, hidden, shown: str, v32, rows: int, *, gather: bool, stop=None):
    """The one pass of a long sentence's exact matrix: for every block of whole row
    groups, logits, softmax and entropy in float32, the shown matrix pooled to the
    ``rows`` × columns grid (row groups as ``numpy.array_split``), into preallocated
    outputs (:class:`PassResult`).

    ``hidden`` is the n × n mask negated, keys in the kept order (None: no mask); ``v32``
    the values in that order (for ``shown == "output"``); ``gather`` adds the moments of
    the logits over the visible keys (capped or biased scores' spread); ``stop()``, asked
    before each block, ends the pass with :class:`~attnviz.core.work.Cancelled`.
    """
    n, order = kept.n, kept.order
    width = v32.shape[1] if shown == "output" else order.cols
    out = _outputs(n, rows, width, order.cols, hidden is not None, gather)
    blocks = list(row_blocks(n, rows, order.n))
    most = max((b - a for a, b, _g0, _g1 in blocks), default=0)
    scratch = (np.empty((most, order.n), np.float32), np.empty((most, order.n), np.float32))
    size, extra = divmod(n, rows)
    inv_rows = (1.0 / split_starts(n, rows)[1]).astype(np.float32)[:, None]
    for a, b, g0, g1 in blocks:
        if stop is not None and stop():
            raise Cancelled("a newer request replaced this pass")
        bufs = (scratch[0][: b - a], scratch[1][: b - a])
        hid = None if hidden is None else hidden[a:b]
        values, entropy, fully = _block(
            kept, slice(a, b), c, terms, hid, shown, v32, bufs, out, gather
        )
        sums = group_rows(values, np.sum, g0, g1, size, extra)
        np.multiply(sums, inv_rows[g0:g1], out=out.values[g0:g1])
        out.entropy[a:b] = entropy
        if hid is not None:
            out.fully[a:b] = fully
            out.all_hidden[g0:g1] = group_rows(order.all(hid), np.all, g0, g1, size, extra)
    return out


def preview_pass(kept, c, terms, hidden, shown: str, stride: int) -> PassResult:
    """Every ``stride``-th query row's exact softmax (over all keys) in float32, its keys
    pooled to the grid's columns; ``hidden`` holds those rows of the negated mask (keys
    in the kept order) or is None."""
    n, order = kept.n, kept.order
    picked = range(0, n, stride)
    out = _outputs(len(picked), len(picked), order.cols, order.cols, hidden is not None, False)
    step = max(1, BLOCK_CELLS // max(order.n, 1))
    scratch = (np.empty((step, order.n), np.float32), np.empty((step, order.n), np.float32))
    for i0 in range(0, len(picked), step):
        i1 = min(i0 + step, len(picked))
        bufs = (scratch[0][: i1 - i0], scratch[1][: i1 - i0])
        rows = slice(picked[i0], picked[i1 - 1] + 1, stride)
        hid = None if hidden is None else hidden[i0:i1]
        values, entropy, fully = _block(kept, rows, c, terms, hid, shown, None, bufs, out, False)
        out.values[i0:i1] = values
        out.entropy[i0:i1] = entropy
        if hid is not None:
            out.fully[i0:i1] = fully
            out.all_hidden[i0:i1] = order.all(hid)
    return out
