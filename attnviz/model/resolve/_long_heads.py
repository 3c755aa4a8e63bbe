"""Synthetic heads for long sequences: q and k of up to 262,144 tokens, made in chunks.

The heads of :mod:`attnviz.core.heads` are exact for the first window's sentences but are
float64 n×d arrays with a few copies, and their patterns are tuned for a few dozen tokens
(the previous-token code repeats every 2·d_k positions; the distance-decay scores grow as
n², beyond float32). These keep the same four ideas at any length:

- ``content``: the text is a run of passages of :data:`PASSAGE` tokens, each written with
  its own :data:`PASSAGE_WORDS` words plus :data:`COMMON_WORDS` words shared by all (a
  share :data:`COMMON_SHARE` of the tokens); q = g·√d_k·e(word), k = e(word) with a unit
  random embedding e, so a query weighs the keys of the same word: blocks on the diagonal
  (the passages) over a faint background (the common words);
- ``previous``: q_i and k_j are random-frequency rotary codes of positions i − 1 and j, so
  the scaled score is g·mean_p cos(ω_p (i − 1 − j)): g at j = i − 1, noise elsewhere
  (no period: the frequencies are incommensurate);
- ``decay``: the same codes with Gaussian frequencies of width 1/σ, σ = n/32: the scaled
  score is 8·exp(−(i − j)²/2σ²) plus noise, a band along the diagonal;
- ``random``: q and k of independent standard normal entries (an untrained head).

The gain g grows with ln n, as the log-n attention scaling of long-context models does,
so a pattern keeps most of the weight however many keys compete for it. Only numpy here.
"""

from __future__ import annotations

import math

import numpy as np

from attnviz.core.work import Cancelled

PASSAGE = 1024
PASSAGE_WORDS = 48
COMMON_WORDS = 16
COMMON_SHARE = 0.3
DECAY_GAIN = 8.0
#: Rows of q and k made at once (bounds the float64 temporaries to a few MiB per pair).
CHUNK = 8192


def gain(head: str, n: int) -> float:
    """The scaled score of a perfect match for ``head`` over ``n`` tokens."""
    if head == "content":
        return math.log(n) + 2.0
    if head == "previous":
        return math.log(n) + 4.0
    return DECAY_GAIN


def content_words(n: int, seed: int) -> tuple[np.ndarray, int]:
    """Word id of every token and the vocabulary size (see the module docstring)."""
    rng = np.random.default_rng([seed, 1])
    passages = -(-n // PASSAGE)
    pos = np.arange(n)
    own = COMMON_WORDS + (pos // PASSAGE) * PASSAGE_WORDS + rng.integers(0, PASSAGE_WORDS, n)
    common = rng.integers(0, COMMON_WORDS, n)
    words = np.where(rng.random(n) < COMMON_SHARE, common, own)
    return words, COMMON_WORDS + passages * PASSAGE_WORDS


def _frequencies(head: str, n: int, pairs: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, 2])
    if head == "previous":
        return rng.uniform(0.0, np.pi, pairs)
    sigma = max(1.0, n / 32)
    return rng.normal(0.0, 1.0 / sigma, pairs)


def _rotary(n: int, d: int, omega: np.ndarray, dtype, tick) -> np.ndarray:
    """Codes of positions 0…n−1: pairs (cos, sin)(ω_p·pos)/√P; a zero last column when d
    is odd. Angles in float64 (positions reach 262,144), stored in ``dtype``."""
    pairs = omega.size
    out = np.zeros((n, d), dtype)
    norm = 1.0 / math.sqrt(pairs)
    for a in range(0, n, CHUNK):
        b = min(a + CHUNK, n)
        ang = np.arange(a, b, dtype=np.float64)[:, None] * omega[None, :]
        out[a:b, 0 : 2 * pairs : 2] = np.cos(ang) * norm
        out[a:b, 1 : 2 * pairs : 2] = np.sin(ang) * norm
        tick(b / n)
    return out


def generate_qk(
    head: str, n: int, d: int, seed: int, dtype=np.float32, progress=None, cancel=None
) -> tuple[np.ndarray, np.ndarray]:
    """q and k, ``(n, d)`` in ``dtype``, of a synthetic ``head`` (see the module docstring).

    ``progress(fraction)`` and ``cancel() -> bool`` are called between chunks; a set
    cancel raises :class:`attnviz.core.tiled.Cancelled`.
    """

    def tick(fraction: float) -> None:
        if cancel is not None and cancel():
            raise Cancelled("making the head was cancelled")
        if progress is not None:
            progress(fraction)

    tick(0.0)
    dtype = np.dtype(dtype)
    if head == "random":
        rng = np.random.default_rng([seed, 3])
        q, k = np.empty((n, d), dtype), np.empty((n, d), dtype)
        for a in range(0, n, CHUNK):
            b = min(a + CHUNK, n)
            rng.standard_normal(dtype=dtype, out=q[a:b])
            rng.standard_normal(dtype=dtype, out=k[a:b])
            tick(b / n)
        return q, k
    c = gain(head, n) * math.sqrt(d)
    if head == "content":
        words, vocab = content_words(n, seed)
        emb = np.random.default_rng([seed, 0]).normal(size=(vocab, d))
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        k = emb.astype(dtype)[words]
        q = k * dtype.type(c)
        tick(1.0)
        return q, k
    if head not in ("previous", "decay"):
        raise ValueError(f"unknown head {head!r}")
    pairs = max(d // 2, 1)
    k = _rotary(n, d, _frequencies(head, n, pairs, seed), dtype, tick)
    if head == "decay":
        return k * dtype.type(c), k
    # q_i is the code of position i − 1 (the first token looks at itself).
    q = np.empty_like(k)
    np.multiply(k[:-1], dtype.type(c), out=q[1:])
    q[0] = k[0] * dtype.type(c)
    return q, k
