"""The attention resolver's fast paths: a result whose O is computed when read, and the
pictures of a large matrix (at most :data:`DISPLAY_CELLS` per side) for the heatmap.

A screen shows a few hundred rows, so a 4096 × 4096 matrix is drawn from a grid of block
means (:func:`pool`, groups as ``numpy.array_split`` makes them); hover, steps and exports
read exact float64 rows and matrices (:mod:`~attnviz.model.resolve._row_blocks`). While a
slider moves over a long sentence, a :func:`preview` comes first: every s-th query row's
exact softmax (over all keys, in float32 from the kept q kᵀ), its keys averaged in groups
— an eighth of the work at n = 4096 — and the exact matrix follows from a worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnviz.core.attention import masked_softmax
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.model.resolve._one_pass import Kept, preview_pass

#: Largest side of the grid the heatmap draws; larger matrices are pooled into it.
DISPLAY_CELLS = 1024
#: Query rows a preview computes exactly (every s-th row; the picture stretches them).
PREVIEW_ROWS = 512


class LazyAttention:
    """What :func:`attnviz.core.attention.attention` returns, but ``output`` (A·V) is
    computed on first read: a heatmap of A or S never needs it, and at n = 512, d_v = 256
    it is most of a slider step's work."""

    __slots__ = ("scores", "weights", "entropy", "fully_masked", "_v", "_output")

    def __init__(self, scores, weights, entropy, fully_masked, v, output=None) -> None:
        self.scores = scores
        self.weights = weights
        self.entropy = entropy
        self.fully_masked = fully_masked
        self._v = v
        self._output = output

    @property
    def output(self) -> np.ndarray:
        """``weights @ v``."""
        if self._output is None:
            self._output = self.weights @ self._v
        return self._output

    def output_row(self, i: int) -> np.ndarray:
        """Row ``i`` of the output, without computing the others."""
        if self._output is not None:
            return self._output[i].copy()
        return self.weights[i] @ self._v

    @property
    def any_fully_masked(self) -> bool:
        """True when at least one query row had no key to attend to."""
        return bool(self.fully_masked.any())


def attend(
    scores: np.ndarray,
    v: np.ndarray,
    mask,
    *,
    with_output: bool = False,
    terms: ScoreTerms = PLAIN,
):
    """Softmax, entropy and (lazily) the output of already scaled ``scores`` (capped,
    biased and with a sink as ``terms`` say).

    :func:`attnviz.core.attention.masked_softmax`, as the core's attention calls it, so the
    numbers are bit for bit the same, without re-validating arrays the state has checked.
    (Splitting the rows over two threads was tried: on a busy two-core machine it is
    slower.)
    """
    scores = terms.logits(scores)
    weights, entropy, fully = masked_softmax(scores, mask, terms.sink)
    result = LazyAttention(scores, weights, entropy, fully, v)
    if with_output:
        _ = result.output
    return result


def _sizes(n: int, parts: int) -> tuple[int, int]:
    """array_split's groups of ``range(n)``: the first ``extra`` have ``size + 1`` items."""
    size, extra = divmod(n, parts)
    return size, extra


def _pool_axis(values: np.ndarray, parts: int, axis: int) -> np.ndarray:
    """Sums of ``parts`` contiguous groups along ``axis`` (groups as array_split makes them),
    by adding strided slices: a few passes over memory, not one ufunc call per group."""
    n = values.shape[axis]
    if parts >= n:
        return values
    size, extra = _sizes(n, parts)
    pieces = []
    for start, count, width in ((0, extra, size + 1), (extra * (size + 1), parts - extra, size)):
        if count == 0:
            continue
        total = None
        for j in range(width):
            # A strided view, no copy: every width-th item from start + j.
            index = [slice(None)] * values.ndim
            index[axis] = slice(start + j, start + count * width, width)
            part = values[tuple(index)]
            if total is None:
                # float32 pictures add in float32 (a preview); exact ones in float64.
                total = part.astype(np.float32 if values.dtype == np.float32 else np.float64)
            else:
                total += part
        pieces.append(total / width)
    return np.concatenate(pieces, axis=axis)


def pool(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Block means of ``values`` on a ``rows × cols`` grid (groups as array_split makes them)."""
    out = _pool_axis(_pool_axis(values, cols, axis=1), rows, axis=0)
    return out.astype(np.float32)


def grid_size(n: int) -> int:
    """Side of the grid a matrix of ``n`` rows is drawn on."""
    return min(n, DISPLAY_CELLS)


@dataclass(frozen=True)
class Picture:
    """What the heatmap draws: ``values`` stretched over ``extent`` (matrix rows, columns).

    ``allowed`` marks grid cells whose whole block is visible (None: no mask);
    ``entropy`` has one entry per grid row.
    """

    values: np.ndarray
    extent: tuple[int, int]
    allowed: np.ndarray | None = None
    entropy: np.ndarray | None = None
    exact: bool = True
    row_stride: int = 1
    names: tuple = field(default=())


def picture(values: np.ndarray, mask, entropy) -> Picture:
    """The grid picture of an exact matrix (pooled when it has more than
    :data:`DISPLAY_CELLS` rows or columns)."""
    n, m = values.shape
    rows, cols = grid_size(n), grid_size(m)
    if (rows, cols) == (n, m):
        return Picture(values, (n, m), mask, entropy)
    finite = np.where(np.isfinite(values), values, 0.0)
    allowed = None if mask is None else pool(mask.astype(np.float32), rows, cols) > 0
    ent = None if entropy is None else pool(entropy[:, None], rows, 1)[:, 0]
    return Picture(pool(finite, rows, cols), (n, m), allowed, ent)


def preview(qk, c: float, mask, matrix: str, terms: ScoreTerms = PLAIN, hidden=None) -> Picture:
    """A quick picture of S or A for a new scale: every s-th row's exact softmax (over all
    keys, float32), keys averaged in groups; ``exact`` is False.

    ``qk`` is the resolver's :class:`~attnviz.model.resolve._one_pass.Kept` (or ``q kᵀ``
    itself); ``hidden`` the negated mask in its key order, when the resolver has it.
    """
    kept = qk if isinstance(qk, Kept) else Kept.of_scores(qk, DISPLAY_CELLS)
    n = kept.n
    stride = -(-n // min(n, PREVIEW_ROWS))
    if hidden is not None:
        hidden = hidden[::stride]
    elif mask is not None:
        hidden = kept.order.hidden(mask[::stride])
    done = preview_pass(kept, c, terms, hidden, matrix, stride)
    return Picture(
        done.values,
        (n, kept.order.n),
        None if done.all_hidden is None else ~done.all_hidden,
        None if matrix == "scores" else done.entropy.astype(np.float32),
        exact=False,
        row_stride=stride,
    )
