"""The embedding table and its sparse gradient, with token ids drawn from a Zipf law.

A lookup ``E[ids]`` is the product ``onehot(ids) @ E``, so the gradient of the table is
``onehot(ids)ᵀ @ dY``: only the rows of tokens present in the batch receive anything, and a
token that appears several times gets the sum of its rows of ``dY``. With Zipf-distributed
text the few frequent rows move at every step while most of the long tail stays at zero.

Token id ``r − 1`` has frequency rank ``r``: id 0 is the most frequent token.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import as_float_array, check_positive_int
from attnviz.core.value_text import brief

_CHUNK = 1 << 20  # ids sampled at once when counting updates: bounds memory, not results


def _exponent(exponent) -> float:
    if isinstance(exponent, bool) or not isinstance(
        exponent, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"exponent must be a number, got {brief(exponent)}")
    s = float(exponent)
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"exponent must be finite and ≥ 0 (0 = uniform), got {brief(exponent)}")
    return s


def zipf_probabilities(vocab_size: int, exponent: float = 1.0) -> np.ndarray:
    """Exact finite Zipf law: ``p_r = r^−s / Σ_{j=1..V} j^−s`` for ranks ``r = 1 … V``.

    Returns an array of length ``vocab_size`` (index ``r − 1``) that sums to 1.
    """
    v = check_positive_int(vocab_size, "vocab_size")
    s = _exponent(exponent)
    w = np.arange(1, v + 1, dtype=np.float64) ** -s
    return w / w.sum()


def _sample(rng: np.random.Generator, cdf: np.ndarray, size) -> np.ndarray:
    # inverse-CDF sampling; u·cdf[-1] < cdf[-1] keeps every id inside the vocabulary
    ids = np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right")
    return np.minimum(ids, cdf.shape[0] - 1).astype(np.int64, copy=False)


def _size(n) -> tuple[int, ...]:
    if isinstance(n, (tuple, list)):
        return tuple(check_positive_int(k, "n", minimum=0) for k in n)
    return (check_positive_int(n, "n", minimum=0),)


def zipf_tokens(n, vocab_size: int, exponent: float = 1.0, seed: int = 0) -> np.ndarray:
    """Draw token ids from the finite Zipf law of :func:`zipf_probabilities`.

    Parameters
    ----------
    n : number of ids, or a shape such as ``(batch, seq_len)``
    vocab_size : V; every id is in ``[0, V)``
    exponent : Zipf exponent s ≥ 0 (1 ≈ natural text, 0 = uniform)
    seed : seed of ``numpy.random.default_rng``

    Returns
    -------
    int64 ndarray of shape ``n``
    """
    size = _size(n)
    cdf = np.cumsum(zipf_probabilities(vocab_size, exponent))
    rng = np.random.default_rng(check_positive_int(seed, "seed", minimum=0))
    return _sample(rng, cdf, size)


@dataclass(frozen=True)
class SparseEmbeddingGradient:
    """Gradient of a ``vocab_size × d`` table, stored as the rows it touches.

    Attributes
    ----------
    rows : sorted unique token ids that received gradient, int64 ``(k,)``
    values : summed gradient of each of those rows, ``(k, d)``
    vocab_size : V, the number of rows of the full table
    """

    rows: np.ndarray
    values: np.ndarray
    vocab_size: int

    @property
    def zero_row_fraction(self) -> float:
        """Share of the table's rows that this step leaves untouched."""
        return 1.0 - self.rows.shape[0] / self.vocab_size

    def to_dense(self) -> np.ndarray:
        """The full ``(vocab_size, d)`` gradient, zeros outside ``rows``."""
        dense = np.zeros((self.vocab_size, self.values.shape[1]), dtype=self.values.dtype)
        dense[self.rows] = self.values
        return dense


def _ids(token_ids, vocab_size: int) -> np.ndarray:
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"token_ids must be integers, got dtype {ids.dtype}")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        bad = int(ids.min()) if ids.min() < 0 else int(ids.max())
        raise ValueError(f"token id {bad} is outside the vocabulary [0, {vocab_size})")
    return ids.astype(np.int64, copy=False)


def _ids_and_rows(token_ids, d_output_rows, vocab_size):
    v = check_positive_int(vocab_size, "vocab_size")
    ids = _ids(token_ids, v)
    dy = as_float_array(d_output_rows, "d_output_rows", min_ndim=1)
    if dy.shape[:-1] != ids.shape:
        raise ValueError(
            f"d_output_rows must have shape token_ids.shape + (d,) = {ids.shape} + (d,), "
            f"got {dy.shape}"
        )
    return v, ids.reshape(-1), dy.reshape(-1, dy.shape[-1])


def embedding_gradient(token_ids, d_output_rows, vocab_size: int) -> SparseEmbeddingGradient:
    """Sparse gradient of the embedding table for one lookup ``Y = E[token_ids]``.

    Parameters
    ----------
    token_ids : int array of any shape, ids in ``[0, vocab_size)``
    d_output_rows : ``∂L/∂Y``, shape ``token_ids.shape + (d,)``
    vocab_size : rows of the table

    Returns
    -------
    SparseEmbeddingGradient
        Equal to ``onehot(ids)ᵀ @ dY`` (:func:`dense_embedding_gradient`) without building
        either the one-hot matrix or the dense gradient; repeated ids are summed.
    """
    v, ids, dy = _ids_and_rows(token_ids, d_output_rows, vocab_size)
    if ids.size == 0:
        return SparseEmbeddingGradient(
            np.zeros(0, np.int64), np.zeros((0, dy.shape[1]), dy.dtype), v
        )
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    values = np.add.reduceat(dy[order], starts, axis=0)
    return SparseEmbeddingGradient(sorted_ids[starts], values, v)


def dense_embedding_gradient(token_ids, d_output_rows, vocab_size: int) -> np.ndarray:
    """Reference ``onehot(ids)ᵀ @ dY``, shape ``(vocab_size, d)``.

    Builds the ``n × vocab_size`` one-hot matrix, so it is meant for tests and small demos.
    """
    v, ids, dy = _ids_and_rows(token_ids, d_output_rows, vocab_size)
    onehot = np.zeros((ids.shape[0], v), dtype=dy.dtype)
    onehot[np.arange(ids.shape[0]), ids] = 1
    return onehot.T @ dy


def zero_row_fraction(token_ids, vocab_size: int) -> float:
    """Share of the table's rows that a batch with these ids leaves at zero gradient."""
    v = check_positive_int(vocab_size, "vocab_size")
    ids = _ids(token_ids, v)
    return 1.0 - np.unique(ids).shape[0] / v


def row_update_counts(
    vocab_size: int, steps: int, tokens_per_step: int, exponent: float = 1.0, seed: int = 0
) -> np.ndarray:
    """How many of ``steps`` training steps give each row a nonzero gradient.

    Each step draws ``tokens_per_step`` Zipf ids (as :func:`zipf_tokens`); a row is updated
    in a step when its token appears at least once, however often. Returns int64 ``(V,)``;
    compare :func:`expected_update_counts`.
    """
    v = check_positive_int(vocab_size, "vocab_size")
    steps = check_positive_int(steps, "steps", minimum=0)
    per = check_positive_int(tokens_per_step, "tokens_per_step")
    cdf = np.cumsum(zipf_probabilities(v, exponent))
    rng = np.random.default_rng(check_positive_int(seed, "seed", minimum=0))
    counts = np.zeros(v, dtype=np.int64)
    chunk = max(1, _CHUNK // per)
    for first in range(0, steps, chunk):
        batch = np.sort(_sample(rng, cdf, (min(chunk, steps - first), per)), axis=1)
        # count each id once per step: keep the first of every run in the sorted row
        first_seen = np.ones(batch.shape, dtype=bool)
        first_seen[:, 1:] = batch[:, 1:] != batch[:, :-1]
        counts += np.bincount(batch[first_seen], minlength=v)
    return counts


def expected_update_counts(
    vocab_size: int, steps: int, tokens_per_step: int, exponent: float = 1.0
) -> np.ndarray:
    """Expected :func:`row_update_counts`: ``steps · (1 − (1 − p_r)^tokens_per_step)``."""
    p = zipf_probabilities(vocab_size, exponent)
    steps = check_positive_int(steps, "steps", minimum=0)
    per = check_positive_int(tokens_per_step, "tokens_per_step")
    # 1 − (1 − p)^n via log1p/expm1: exact even for the tail's p ≈ 1e-7
    return steps * -np.expm1(per * np.log1p(-np.minimum(p, 1.0 - 1e-16)))


def embedding_parameters(vocab_size: int, d_model: int, tied: bool = False) -> int:
    """Parameters of the input embedding plus the output projection (the LM head).

    Each is a ``vocab_size × d_model`` matrix; tying them (one matrix used both ways) keeps
    one. The chapter's 128k × 4096 table is 128,000 × 4,096 = 524,288,000 ≈ 525 million
    (with 128k read as 128 × 1024 = 131,072 it would be 537M, which the chapter does not say).
    """
    v = check_positive_int(vocab_size, "vocab_size")
    d = check_positive_int(d_model, "d_model")
    if not isinstance(tied, (bool, np.bool_)):
        raise ValueError(f"tied must be True or False, got {brief(tied)}")
    return v * d if tied else 2 * v * d


def tied_weights_saving(vocab_size: int, d_model: int) -> int:
    """Parameters saved by tying input and output embeddings: one ``V × d`` matrix, half."""
    return embedding_parameters(vocab_size, d_model) - embedding_parameters(
        vocab_size, d_model, tied=True
    )


def gradient_row_norms(counts, d_model: int, seed: int = 0) -> np.ndarray:
    """Norms of the embedding gradient's rows for a batch with these token counts.

    Models ``∂L/∂Y`` with independent rows of i.i.d. ``N(0, 1/d_model)`` entries (each row
    of norm ≈ 1), as a freshly initialised network gives. Row ``r`` of the table's gradient
    is the sum of the ``counts[r]`` rows of its occurrences, a Gaussian vector of variance
    ``counts[r] / d_model`` per entry, so its squared norm is exactly
    ``counts[r] / d_model · χ²(d_model)``: it is drawn in that closed form, without building
    the ``n × d_model`` array (:func:`embedding_gradient` of such a ``dY`` has the same
    distribution). A row that no token touched has norm 0; a row touched c times has norm
    ≈ √c, since independent directions add in quadrature.

    Parameters
    ----------
    counts : int array of shape ``(V,)``, occurrences of each token id in the batch (≥ 0)
    d_model : width of the table's rows
    seed : seed of ``numpy.random.default_rng``

    Returns
    -------
    float64 ndarray of shape ``(V,)``
    """
    c = np.asarray(counts)
    if c.ndim != 1 or c.dtype == np.bool_ or not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"counts must be a 1-D integer array, got {c.dtype} {c.shape}")
    if c.size and c.min() < 0:
        raise ValueError("counts must be ≥ 0")
    d = check_positive_int(d_model, "d_model")
    rng = np.random.default_rng(check_positive_int(seed, "seed", minimum=0))
    touched = np.flatnonzero(c)
    norms = np.zeros(c.shape[0])
    chi2 = rng.chisquare(d, size=touched.shape[0])
    norms[touched] = np.sqrt(c[touched] * chi2 / d)
    return norms
