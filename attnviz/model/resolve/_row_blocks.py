"""A sentence too long to hold its n × n matrices: attention by blocks of query rows.

Past :data:`DENSE_LIMIT` tokens (where the heatmap starts to draw a pooled grid) the
attention resolver keeps q and k (as the scores see them), v and the mask, and no n × n
float64 array: the heatmap's grid, the entropy of every row, the fully masked rows and
the spread of the scores come from one float32 pass over blocks of rows
(:func:`~attnviz.model.resolve._one_pass.exact_pass`), and whatever shows digits is
float64, computed when asked: a row (the steps, a hovered cell) from q and k, a whole
matrix (an export) block by block with the core's arithmetic.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.attention import masked_softmax
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.core.work import split_starts
from attnviz.model.resolve._display import DISPLAY_CELLS, Picture, _pool_axis, grid_size
from attnviz.model.resolve._one_pass import KEEP_LIMIT, Kept, exact_pass

#: Above this many tokens the attention resolver works by row blocks (the heatmap's
#: grid is pooled from here on; every preset is far below it and stays float64).
DENSE_LIMIT = DISPLAY_CELLS
#: Query rows of one float64 block (at n = 8192: 32 MB of float64 scores per block).
BLOCK_ROWS = 512


def raw_moments(q: np.ndarray, k: np.ndarray, mask) -> np.ndarray:
    """``(Σ, Σ², count)`` of ``q kᵀ`` over the pairs ``mask`` shows (None: all), float64.

    Without a mask from the Gram matrices (``Σ s² = Σ (QᵀQ) ⊙ (KᵀK)``, O(n·d²));
    with one, by float64 blocks of rows.
    """
    if mask is None:
        total = float(q.sum(axis=0) @ k.sum(axis=0))
        squares = float(np.sum((q.T @ q) * (k.T @ k)))
        return np.array([total, squares, q.shape[0] * k.shape[0]])
    out = np.zeros(3)
    for a in range(0, q.shape[0], BLOCK_ROWS):
        s = q[a : a + BLOCK_ROWS] @ k.T
        seen = s * mask[a : a + BLOCK_ROWS]
        out += (seen.sum(), np.vecdot(seen, s).sum(), np.count_nonzero(mask[a : a + BLOCK_ROWS]))
    return out


def spread(moments: np.ndarray, factor: float = 1.0) -> float:
    """The standard deviation of values with moments ``(Σ, Σ², count)``, times ``factor``."""
    total, squares, count = (float(x) for x in moments)
    if count == 0:
        return float("nan")
    mean = total / count
    return float(abs(factor) * np.sqrt(max(squares / count - mean * mean, 0.0)))


class RowBlockAttention:
    """What :class:`~attnviz.model.resolve._display.LazyAttention` offers, without n × n
    arrays: :meth:`row` of any matrix, ``entropy``, ``fully_masked``, ``score_spread``;
    ``scores``, ``weights`` and ``output`` are whole matrices computed on demand.

    Rows and whole matrices are float64, as the core's :func:`~attnviz.core.attention.
    attention` computes them (a whole matrix equal to it); the grid pictures and
    ``entropy`` come from the float32 pass (the entropy to about 1e-6 nats).
    """

    def __init__(
        self,
        q: np.ndarray,
        k: np.ndarray,
        v: np.ndarray,
        c: float,
        mask,
        terms: ScoreTerms = PLAIN,
        *,
        kept: Kept | None = None,
        hidden: np.ndarray | None = None,
        mask_key=None,
    ) -> None:
        self.q, self.k, self.v, self.c, self.mask, self.terms = q, k, v, c, mask, terms
        self.shape = (q.shape[0], k.shape[0])
        self.entropy = np.zeros(q.shape[0])
        self.fully_masked = np.zeros(q.shape[0], dtype=bool)
        self.score_spread = float("nan")
        self._kept, self._hidden, self._mask_key = kept, hidden, mask_key

    @property
    def n(self) -> int:
        """Number of query rows."""
        return self.shape[0]

    @property
    def kept(self) -> Kept:
        """The float32 q and k in the grid's key order (and q kᵀ up to KEEP_LIMIT tokens)."""
        if self._kept is None:
            self._kept = Kept(self.q, self.k, DISPLAY_CELLS, keep=self.n <= KEEP_LIMIT)
        return self._kept

    @property
    def hidden(self) -> np.ndarray | None:
        """The mask negated, keys in the kept order (None without a mask)."""
        if self._hidden is None and self.mask is not None:
            self._hidden = self.kept.order.hidden(self.mask)
        return self._hidden

    def _block(self, start: int, stop: int):
        """Logits (unmasked, as ``scores``), weights, entropy and fully-masked flags of
        query rows ``start … stop − 1`` (float64)."""
        logits = self.terms.logits((self.q[start:stop] @ self.k.T) * self.c, row0=start)
        m = None if self.mask is None else self.mask[start:stop]
        weights, entropy, fully = masked_softmax(logits, m, self.terms.sink)
        return logits, weights, entropy, fully

    def row(self, name: str, i: int) -> np.ndarray:
        """Row ``i`` of ``scores``, ``weights`` or ``output`` (float64, exact)."""
        logits, weights, _e, _f = self._block(i, i + 1)
        if name == "scores":
            return logits[0]
        if name == "weights":
            return weights[0]
        if name == "output":
            return weights[0] @ self.v
        raise KeyError(name)

    def output_row(self, i: int) -> np.ndarray:
        """Row ``i`` of the output."""
        return self.row("output", i)

    @property
    def any_fully_masked(self) -> bool:
        """True when at least one query row had no key to attend to."""
        return bool(self.fully_masked.any())

    def _whole(self, name: str) -> np.ndarray:
        """A whole matrix in float64, as :func:`~attnviz.core.attention.attention` computes
        it (the same product, factor and softmax; the softmax by blocks of rows)."""
        logits = self.terms.logits(np.matmul(self.q, self.k.T) * self.c)
        if name == "scores":
            return logits
        width = self.v.shape[1] if name == "output" else self.shape[1]
        out = np.empty((self.n, width))
        for a in range(0, self.n, BLOCK_ROWS):
            b = min(a + BLOCK_ROWS, self.n)
            m = None if self.mask is None else self.mask[a:b]
            weights = masked_softmax(logits[a:b], m, self.terms.sink)[0]
            out[a:b] = weights @ self.v if name == "output" else weights
        return out

    @property
    def scores(self) -> np.ndarray:
        """The whole logits matrix (n × n float64, computed now: an export)."""
        return self._whole("scores")

    @property
    def weights(self) -> np.ndarray:
        """The whole weight matrix (n × n float64, computed now: an export)."""
        return self._whole("weights")

    @property
    def output(self) -> np.ndarray:
        """The whole output (n × d_v float64, computed now)."""
        return self._whole("output")

    def _moments(self) -> np.ndarray:
        """Moments of q kᵀ under this mask, kept with q and k for the next steps."""
        key, found = self.kept.moments
        if found is None or key != self._mask_key or self._mask_key is None:
            found = raw_moments(self.q, self.k, self.mask)
            self.kept.moments = (self._mask_key, found)
        return found

    def raw_spread(self) -> float:
        """The standard deviation of q kᵀ itself (before the scale) under the mask."""
        return spread(self._moments())

    def build(self, shown: str = "weights", stop=None) -> dict[str, Picture]:
        """The one float32 pass: the picture of the ``shown`` matrix, and on the way the
        entropy, the fully masked rows and the spread of the scores the softmax sees.
        ``stop()`` is asked between blocks; True raises :class:`~attnviz.core.work.
        Cancelled` (a newer request replaced this one)."""
        gather = self.terms.shapes_scores  # capped or biased logits: measured as they are
        pic, done = self._picture(shown, gather, stop)
        self.entropy, self.fully_masked = done.entropy, done.fully
        if gather:
            self.score_spread = spread(done.moments)
        else:  # c·q kᵀ: its spread is c times that of q kᵀ, kept between steps
            self.score_spread = spread(self._moments(), self.c)
        return {shown: pic}

    def picture(self, name: str) -> Picture:
        """The grid picture of ``name`` (another pass when it is not the one built)."""
        return self._picture(name, False)[0]

    def _picture(self, name: str, gather: bool, stop=None):
        kept, (n, n_k) = self.kept, self.shape
        rows = grid_size(n)
        v32 = None
        if name == "output":
            v32 = np.ascontiguousarray(self.v[kept.order.perm], dtype=np.float32)
        done = exact_pass(
            kept, self.c, self.terms, self.hidden, name, v32, rows, gather=gather, stop=stop
        )
        ent = _group_means(done.entropy, rows)
        if name == "output":
            values = done.values
            if values.shape[1] > DISPLAY_CELLS:
                values = _pool_axis(values, DISPLAY_CELLS, axis=1).astype(np.float32)
            return Picture(values, (n, self.v.shape[1]), None, ent), done
        allowed = None if done.all_hidden is None else ~done.all_hidden
        return Picture(done.values, (n, n_k), allowed, ent), done


def _group_means(values: np.ndarray, parts: int) -> np.ndarray:
    """Means of ``parts`` contiguous groups (as ``numpy.array_split``), float32."""
    starts, sizes = split_starts(values.shape[0], parts)
    return (np.add.reduceat(values, starts) / sizes).astype(np.float32)
