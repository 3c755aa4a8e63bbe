"""Associative recall: n key–value pairs written, then each key asked for its value.

The capacity a fixed-size state trades for its constant cost. A sequence of 2n tokens runs
through one mixer (:func:`attnviz.core.mixers.mixing_matrix`): first the n pairs
(query 0, key k_i, value v_i), then n queries in a random order (query k_i, key 0,
value 0: they write nothing a later query could read). A query recalls its pair when its
output is closer, by dot product, to v_i than to any other stored value.

Keys are random directions of norm ``3·d^{1/4}`` (a matching score q·k/√d of 9, so that
softmax finds its key among hundreds); values are random unit vectors. Softmax recalls
every pair far beyond n = d; a d × d state holds about d of them before the others'
crosstalk wins, fewer when it forgets (decay, gates) or keeps a window.
"""

from __future__ import annotations

import numpy as np

from attnviz.core._parallel import serial_blas
from attnviz.core.mixers import KINDS, MixerParams, mixing_matrix, unit_rows

#: The matching score q·k/√d of a key with itself.
MATCH_SCORE = 9.0


def recall_task(n: int, d: int, rng: np.random.Generator):
    """q, k, v of the 2n tokens, the n stored values and the order the queries ask for
    them in (see the module docstring)."""
    keys = unit_rows(rng.standard_normal((n, d))) * np.sqrt(MATCH_SCORE) * d**0.25
    values = unit_rows(rng.standard_normal((n, d)))
    order = rng.permutation(n)  # asked in another order: distances from 1 to 2n − 1
    zeros = np.zeros((n, d))
    q = np.vstack([zeros, keys[order]])
    k = np.vstack([keys, zeros])
    v = np.vstack([values, zeros])
    return q, k, v, values, order


def recall_accuracy(kind: str, n: int, d: int, params: MixerParams, rng) -> float:
    """The share of the n pairs one mixer recalls in one draw."""
    q, k, v, values, order = recall_task(n, d, rng)
    out = mixing_matrix(kind, q, k, params)[n:] @ v
    guess = np.argmax(out @ values.T, axis=1)
    return float(np.mean(guess == order))


def recall_lengths(max_pairs: int) -> np.ndarray:
    """1, 2, 4, … up to ``max_pairs`` (itself included)."""
    powers = [1 << i for i in range(max_pairs.bit_length()) if 1 << i < max_pairs]
    return np.array([*powers, max_pairs], dtype=np.int64)


def recall_curves(
    max_pairs: int, d: int, params: MixerParams, seed: int, trials: int = 2
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``(lengths, {kind: accuracy at each length})``, each the mean of ``trials`` draws."""
    lengths = recall_lengths(max_pairs)
    # Small products by the hundred: BLAS threads would only wait for each other.
    with serial_blas():
        return lengths, _curves(lengths, d, params, seed, trials)


def _curves(lengths, d, params, seed, trials) -> dict[str, np.ndarray]:
    curves = {}
    for kind in KINDS:
        rng = np.random.default_rng(seed)  # the same draws for every kind: a fair race
        curves[kind] = np.array(
            [
                np.mean([recall_accuracy(kind, int(n), d, params, rng) for _ in range(trials)])
                for n in lengths
            ]
        )
    return curves
