"""The embedding topic's resolver: which rows of the table one batch's gradient touches.

A batch of Zipf-distributed token ids (:func:`attnviz.core.embedding.zipf_tokens`) is
counted per id: ``counts[r]`` is how often token id r (frequency rank r + 1) occurs, so the
counts sum to the batch size and a row with count 0 gets no gradient at all. The gradient
row norms come from :func:`~attnviz.core.embedding.gradient_row_norms` (an upstream
gradient of unit-norm random rows: a row touched c times has norm ≈ √c). Sampling 2^20
tokens over 131,072 ids takes a few hundred milliseconds, so the resolver computes in the
background and keeps recent results.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.embedding import (
    embedding_parameters,
    gradient_row_norms,
    tied_weights_saving,
    zipf_probabilities,
    zipf_tokens,
)
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.lazy import LazyResolver

#: The fields the sampled batch depends on, in the order :func:`compute_embedding` takes them.
INPUTS = ("vocab_size", "batch_tokens", "exponent", "seed", "d_model")


@dataclass(frozen=True)
class EmbeddingResults:
    """One batch's counts and gradient row norms (read-only, length V) and their summary."""

    vocab_size: int
    batch_tokens: int
    d_model: int
    counts: np.ndarray
    row_norms: np.ndarray
    expected: np.ndarray  # batch_tokens · p_r: the Zipf law's expected counts

    @property
    def touched(self) -> int:
        """Rows that receive a nonzero gradient (distinct tokens in the batch)."""
        return int(np.count_nonzero(self.counts))

    @property
    def untouched_fraction(self) -> float:
        """Share of the table's rows this batch leaves at zero gradient."""
        return 1.0 - self.touched / self.vocab_size

    def parameters(self, tied: bool) -> int:
        """Input embedding plus output projection (one matrix when ``tied``)."""
        return embedding_parameters(self.vocab_size, self.d_model, tied)

    @property
    def table_parameters(self) -> int:
        """One ``V × d`` table: the chapter's 128,000 × 4,096 = 524,288,000."""
        return self.vocab_size * self.d_model

    @property
    def tied_saving(self) -> int:
        """Parameters saved by tying input and output embeddings (one table, half)."""
        return tied_weights_saving(self.vocab_size, self.d_model)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def compute_embedding(
    vocab_size: int, batch_tokens: int, exponent: float, seed: int, d_model: int
) -> EmbeddingResults:
    """Counts and gradient row norms of one sampled batch (pure)."""
    ids = zipf_tokens(batch_tokens, vocab_size, exponent, seed)
    counts = np.bincount(ids, minlength=vocab_size).astype(np.int64)
    # Its own stream for the gradient: the same batch keeps its norms when only d changes.
    norms = gradient_row_norms(counts, d_model, seed + 1)
    expected = batch_tokens * zipf_probabilities(vocab_size, exponent)
    return EmbeddingResults(
        vocab_size, batch_tokens, d_model, _frozen(counts), _frozen(norms), _frozen(expected)
    )


def embedding_inputs(values: dict) -> tuple:
    """The arguments of :func:`compute_embedding` from the topic's field values."""
    return tuple(values[name] for name in INPUTS)


class EmbeddingResolver(LazyResolver):
    """Lazy resolver of the ``embedding`` topic."""

    TOPIC = "embedding"
    IGNORES = frozenset({"color_by"})  # restyles the strip, the batch stays
    BACKGROUND = True
    CACHE_SIZE = 8  # a table of 128,000 rows holds three arrays of it

    def key(self) -> tuple:
        return embedding_inputs(self.topic.snapshot())

    def compute_key(self, key: tuple) -> EmbeddingResults:
        return compute_embedding(*key)


RESOLVER = EmbeddingResolver


def _rows(n: int) -> tuple[str, ...]:
    return tuple(str(i) for i in range(n))


def _counts(workspace) -> DataArray:
    res = workspace.resolver_for("embedding").results
    return DataArray(res.counts, _rows(res.vocab_size), ("count",))


def _row_norms(workspace) -> DataArray:
    res = workspace.resolver_for("embedding").results
    return DataArray(res.row_norms, _rows(res.vocab_size), ("row_norm",))


def embedding_data(workspace, name: str) -> DataArray:
    """The embedding panel's array ``name``: counts, row_norms."""
    return {"counts": _counts, "row_norms": _row_norms}[name](workspace)
