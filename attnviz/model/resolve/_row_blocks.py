"""A sentence too long to hold its n × n matrices: attention by blocks of query rows.

Past :data:`DENSE_LIMIT` tokens (a real model's 8,192-token sentence: three n × n float64
matrices would be 1.5 GB, and the softmax's temporaries as much again) the attention
resolver keeps q and k (as the scores see them), v and the mask, and computes
:data:`BLOCK_ROWS` query rows at a time: each row's softmax is exact (over every key),
the heatmap's pictures are pooled from the blocks as :func:`~attnviz.model.resolve._display.
picture` pools the whole matrix (the same numbers), and the entropy, the fully masked rows
and the spread of the scores are gathered on the way. A row (the steps, a hovered cell) is
computed when asked; a whole matrix (an export) only on demand.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.attention import masked_softmax
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.model.resolve._display import Picture, _pool_axis, grid_size, pool

#: Above this many tokens the attention resolver works by row blocks.
DENSE_LIMIT = 4096
#: Query rows computed at once (at n = 8192: 32 MB of float64 scores per block).
BLOCK_ROWS = 512


class RowBlockAttention:
    """What :class:`~attnviz.model.resolve._display.LazyAttention` offers, without n × n
    arrays: :meth:`row` of any matrix, ``entropy``, ``fully_masked``, ``score_spread``;
    ``scores``, ``weights`` and ``output`` are whole matrices computed on demand."""

    def __init__(
        self, q: np.ndarray, k: np.ndarray, v: np.ndarray, c: float, mask, terms: ScoreTerms = PLAIN
    ) -> None:
        self.q, self.k, self.v, self.c, self.mask, self.terms = q, k, v, c, mask, terms
        self.shape = (q.shape[0], k.shape[0])
        self.entropy = np.zeros(q.shape[0])
        self.fully_masked = np.zeros(q.shape[0], dtype=bool)
        self.score_spread = float("nan")

    @property
    def n(self) -> int:
        """Number of query rows."""
        return self.shape[0]

    def _block(self, start: int, stop: int):
        """Logits (unmasked, as ``scores``), weights, entropy and fully-masked flags of
        query rows ``start … stop − 1``."""
        logits = self.terms.logits((self.q[start:stop] @ self.k.T) * self.c, row0=start)
        m = None if self.mask is None else self.mask[start:stop]
        weights, entropy, fully = masked_softmax(logits, m, self.terms.sink)
        return logits, weights, entropy, fully

    def row(self, name: str, i: int) -> np.ndarray:
        """Row ``i`` of ``scores``, ``weights`` or ``output`` (exact)."""
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
        width = self.v.shape[1] if name == "output" else self.shape[1]
        out = np.empty((self.n, width))
        for start in range(0, self.n, BLOCK_ROWS):
            stop = min(start + BLOCK_ROWS, self.n)
            logits, weights, _e, _f = self._block(start, stop)
            if name == "scores":
                out[start:stop] = logits
            elif name == "weights":
                out[start:stop] = weights
            else:
                out[start:stop] = weights @ self.v
        return out

    @property
    def scores(self) -> np.ndarray:
        """The whole logits matrix (n × n, computed now: an export)."""
        return self._whole("scores")

    @property
    def weights(self) -> np.ndarray:
        """The whole weight matrix (n × n, computed now: an export)."""
        return self._whole("weights")

    @property
    def output(self) -> np.ndarray:
        """The whole output (n × d_v, computed now)."""
        return self._whole("output")

    def build(self) -> dict[str, Picture]:
        """One pass over the row blocks: the pictures of S, A and O, the entropy, the
        fully masked rows and the spread of the scores the softmax sees."""
        n, n_k = self.shape
        rows, cols = grid_size(n), grid_size(n_k)
        pooled = {"scores": np.empty((n, cols)), "weights": np.empty((n, cols))}
        output = np.empty((n, self.v.shape[1]))
        total = squares = 0.0
        count = 0
        for start in range(0, n, BLOCK_ROWS):
            stop = min(start + BLOCK_ROWS, n)
            logits, weights, entropy, fully = self._block(start, stop)
            self.entropy[start:stop] = entropy
            self.fully_masked[start:stop] = fully
            seen = logits if self.mask is None else logits[self.mask[start:stop]]
            total += float(seen.sum())
            squares += float(np.square(seen).sum())
            count += seen.size
            finite = np.where(np.isfinite(logits), logits, 0.0)
            pooled["scores"][start:stop] = _pool_axis(finite, cols, axis=1)
            pooled["weights"][start:stop] = _pool_axis(weights, cols, axis=1)
            output[start:stop] = weights @ self.v
        if count:
            mean = total / count
            self.score_spread = float(np.sqrt(max(squares / count - mean * mean, 0.0)))
        allowed = None if self.mask is None else pool(self.mask.astype(np.float32), rows, cols) > 0
        ent = pool(self.entropy[:, None], rows, 1)[:, 0]
        pictures = {
            name: Picture(
                _pool_axis(values, rows, axis=0).astype(np.float32), (n, n_k), allowed, ent
            )
            for name, values in pooled.items()
        }
        out_cols = grid_size(output.shape[1])
        pictures["output"] = Picture(pool(output, rows, out_cols), output.shape, None, ent)
        return pictures
