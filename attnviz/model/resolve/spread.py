"""Why the scores are divided by √d_k, measured: the spread of q·k against the head's
width, for vectors whose components are independent with mean 0 and variance 1.

q·k sums d_k such products, each of variance 1, so Var(q·k) = d_k and its standard
deviation is √d_k; divided by √d_k it is 1 at every width. The figure measures both on a
fixed sample of random pairs at every power of two up to the largest d_k (and the head's
own), beside the curve √d_k, and marks the spread of the head shown: its own q·kᵀ over the
pairs its mask allows, and that divided as it is divided.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.resolve._row_blocks import raw_moments, spread
from attnviz.model.topics._attention_limits import MAX_D_K

#: Random pairs measured at each width: the estimate of σ is within about 1/√(2·4096) of
#: it, 1.1 % (one standard error).
SAMPLES = 4096
#: The sample's seed: the same figure in every session and export.
SEED = 0
SPREAD_COLUMNS = ("d_k", "σ(q·k) measured", "√d_k", "σ(q·k / √d_k) measured")
HEAD_COLUMNS = ("d_k", "σ(q·k)", "σ of the scores the softmax sees")


def widths(d_k: int) -> tuple[int, ...]:
    """Every power of two up to :data:`MAX_D_K`, and ``d_k`` itself."""
    powers = {2**i for i in range(MAX_D_K.bit_length()) if 2**i <= MAX_D_K}
    return tuple(sorted(powers | {int(d_k)}))


@lru_cache(maxsize=64)
def measured_spread(d_k: int) -> float:
    """σ of q·k over :data:`SAMPLES` pairs of vectors with N(0, 1) components, width
    ``d_k`` (each width its own stream of the fixed seed)."""
    rng = np.random.default_rng([SEED, int(d_k)])
    q = rng.standard_normal((SAMPLES, d_k))
    k = rng.standard_normal((SAMPLES, d_k))
    return float(np.std(np.einsum("ij,ij->i", q, k)))


def spread_table(d_k: int) -> np.ndarray:
    """Rows ``(d_k, σ measured, √d_k, σ measured / √d_k)`` for :func:`widths`."""
    rows = []
    for d in widths(d_k):
        sigma = measured_spread(d)
        rows.append((d, sigma, np.sqrt(d), sigma / np.sqrt(d)))
    return np.array(rows, dtype=np.float64)


def head_spread(state, results) -> tuple[float, float]:
    """``(σ of q·kᵀ, σ of the scores the softmax sees)`` of the head shown, over the
    pairs its mask allows (NaN when it allows none, or the second when a long sentence's
    capped or biased scores were not gathered)."""
    attention = results.attention
    if hasattr(attention, "raw_spread"):  # a long sentence: the kept moments
        raw = attention.raw_spread()
        seen = attention.score_spread
    else:
        raw = spread(raw_moments(results.q, results.k, results.mask))
        scores = np.asarray(attention.scores, dtype=np.float64)
        shown = scores if results.mask is None else scores[results.mask]
        seen = float(np.std(shown)) if shown.size else float("nan")
    return float(raw), float(seen)


def spread_data(workspace, name: str) -> DataArray:
    """The spread panel's arrays: ``spread`` (the measured curve, a row per width) and
    ``head`` (the head shown: its d_k, the spread of its q·kᵀ and of its scores)."""
    state = workspace.state
    if name == "head":
        raw, seen = head_spread(state, workspace.resolver.results)
        values = np.array([[state.d_k, raw, seen]], dtype=np.float64)
        return DataArray(values, (state.head,), HEAD_COLUMNS)
    table = spread_table(state.d_k)
    rows = tuple(str(int(d)) for d in table[:, 0])
    return DataArray(table, rows, SPREAD_COLUMNS, corner="d_k")
