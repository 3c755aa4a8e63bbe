"""Synthetic heads of the three kinds the chapter reads in a real sentence.

Each generator returns Q, K, V for a sequence of ``n`` tokens, width ``d_k`` and a seed,
deterministically. The constructions make the intended pattern exact rather than hoped
for, so a lecturer can rely on them:

- ``content``: tokens with the same text share a random embedding and a random value,
  and q = gain · e, k = e, so a query attends to the keys of equal or similar tokens (and
  reordering the sentence only reorders A and O);
- ``previous``: q_i and k_j are multi-frequency rotary codes of positions i − 1 and j, so
  q_i · k_j peaks at j = i − 1 (exactly orthogonal elsewhere for n ≤ 2·d_k);
- ``decay``: q_i · k_j = −λ (i − j)² · √d_k up to a per-row constant, so after the √d_k
  divisor the weights fall off as a Gaussian of the distance.

The ``projections`` source draws a model instead of a head: token embeddings X
(:func:`token_embeddings`, one row per distinct token) and the matrices W_Q, W_K, W_V and
W^O (:func:`projection_weight`); Q, K and V then come from X by
:mod:`attnviz.core.multihead`.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import check_choice, check_positive_int
from attnviz.core.value_text import brief

HEAD_KINDS = ("content", "previous", "decay")

#: Largest n and d_k the generators accept: beyond this the arrays stop fitting a laptop.
MAX_N = 1 << 20
MAX_D_K = 4096


@dataclass(frozen=True)
class HeadQKV:
    """Q, K, V of one synthetic head; shapes ``(n, d_k)``."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray


def _token_rng(token: str, seed: int, stream: int) -> np.random.Generator:
    # crc32 instead of hash(): Python salts str hashes per process, and presets must repeat.
    code = zlib.crc32(token.casefold().encode("utf-8", "surrogatepass"))
    return np.random.default_rng([seed, code, stream])


def _token_vector(token: str, d_k: int, seed: int) -> np.ndarray:
    e = _token_rng(token, seed, 0).normal(size=d_k)
    return e / np.linalg.norm(e)


def _token_value(token: str, d_v: int, seed: int) -> np.ndarray:
    return _token_rng(token, seed, 1).normal(size=d_v)


def content_head(n: int, d_k: int, *, seed: int = 0, tokens=None, gain: float = 4.0) -> HeadQKV:
    """A content-matching head: equal tokens attend to each other."""
    rng = np.random.default_rng(seed)
    if tokens is None:
        emb = rng.normal(size=(n, d_k))
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        v = rng.normal(size=(n, d_k))
    else:
        emb = np.stack([_token_vector(t, d_k, seed) for t in tokens])
        # The value belongs to the token too: permuting the sentence permutes A and O.
        v = np.stack([_token_value(t, d_k, seed) for t in tokens])
    # √d_k keeps the scaled score of a perfect match at `gain` whatever d_k is.
    q = gain * np.sqrt(d_k) * emb
    k = emb.copy()
    return HeadQKV(q, k, v)


def _rotary_code(positions: np.ndarray, d_k: int) -> np.ndarray:
    """Unit-norm multi-frequency code whose dot products depend only on position gaps.

    With P pairs at the midpoint frequencies ω_p = π(p + ½)/P, the sum of cos(ω_p Δ) is
    exactly 0 for every integer gap Δ that is not a multiple of 2P, so codes of positions
    fewer than 2P apart are orthogonal (exact previous-token pattern for n ≤ 2·d_k).
    """
    pairs = max(d_k // 2, 1)
    freqs = np.pi * (np.arange(pairs) + 0.5) / pairs
    ang = positions[:, None] * freqs[None, :]
    code = np.zeros((positions.size, d_k))
    code[:, 0 : 2 * pairs : 2] = np.cos(ang)
    if d_k >= 2:
        code[:, 1 : 2 * pairs : 2] = np.sin(ang)
    return code / np.sqrt(pairs)


def previous_token_head(n: int, d_k: int, *, seed: int = 0, gain: float = 6.0) -> HeadQKV:
    """A previous-token head: query i attends to key i − 1 (the first token to itself)."""
    pos = np.arange(n, dtype=np.float64)
    target = np.maximum(pos - 1, 0)
    q = gain * np.sqrt(d_k) * _rotary_code(target, d_k)
    k = _rotary_code(pos, d_k)
    v = np.random.default_rng(seed).normal(size=(n, d_k))
    return HeadQKV(q, k, v)


def distance_decay_head(n: int, d_k: int, *, seed: int = 0, rate: float = 0.5) -> HeadQKV:
    """A distance-decay head: weights fall off with |i − j| (Gaussian, width ~ 1/√rate)."""
    if d_k < 3:
        raise ValueError(f"the distance-decay head needs d_k ≥ 3, got {d_k}")
    pos = np.arange(n, dtype=np.float64)
    # Centre positions so the quadratic terms stay small for long sequences.
    c = pos - (n - 1) / 2
    s = np.sqrt(d_k) * rate
    q = np.zeros((n, d_k))
    k = np.zeros((n, d_k))
    # q_i·k_j = s(2 c_i c_j − c_j²) = −s (c_i − c_j)² + s c_i²  (the last term is per-row).
    q[:, 0] = 2 * s * c
    q[:, 1] = -s
    k[:, 0] = c
    k[:, 1] = c**2
    v = np.random.default_rng(seed).normal(size=(n, d_k))
    return HeadQKV(q, k, v)


def generate_head(kind: str, n: int, d_k: int, *, seed: int = 0, tokens=None) -> HeadQKV:
    """Q, K, V for a head of ``kind`` in :data:`HEAD_KINDS` over ``n`` tokens.

    ``tokens`` (a list of ``n`` strings) is used by the content head to match equal words.
    Raises ``ValueError`` on an unknown kind, n or d_k out of range, or a token list of the
    wrong length.
    """
    check_choice(kind, HEAD_KINDS, "head kind")
    n = check_positive_int(n, "n")
    d_k = check_positive_int(d_k, "d_k")
    if n > MAX_N:
        raise ValueError(f"n={n} is too large for a generated head (at most {MAX_N})")
    if d_k > MAX_D_K:
        raise ValueError(f"d_k={d_k} is too large for a generated head (at most {MAX_D_K})")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {brief(seed)}")
    if tokens is not None and len(tokens) != n:
        raise ValueError(f"got {len(tokens)} tokens for n={n}")
    if kind == "content":
        return content_head(n, d_k, seed=seed, tokens=tokens)
    if kind == "previous":
        return previous_token_head(n, d_k, seed=seed)
    return distance_decay_head(n, d_k, seed=seed)


# --- learned projections (the ``projections`` head source) -----------------------------
#: Streams of the seeded projection matrices (independent draws, fixed forever: presets
#: and sessions rely on them).
PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")
_STREAMS = {"x": 2, "w_q": 3, "w_k": 4, "w_v": 5, "w_o": 6}
#: Spread of W_Q and W_K: √2 gives scores of standard deviation ~2 after the √d_head
#: divisor, so seeded heads show distinct, readable patterns rather than flat rows.
QK_GAIN = 2.0**0.5


def token_embeddings(tokens, d_model: int, *, seed: int = 0) -> np.ndarray:
    """Seeded embeddings X, ``(n, d_model)``: one standard normal row per distinct token.

    Equal tokens (ignoring case) share a row, as an embedding table lookup does, and a
    token keeps its row wherever it moves in the sentence. Growing ``d_model`` appends
    entries to every row and keeps the ones before.
    """
    d_model = check_positive_int(d_model, "d_model")
    rows: dict[str, np.ndarray] = {}
    out = np.empty((len(tokens), d_model))
    for i, token in enumerate(tokens):
        key = token.casefold()
        if key not in rows:
            rows[key] = _token_rng(token, seed, _STREAMS["x"]).normal(size=d_model)
        out[i] = rows[key]
    return out


def projection_weight(
    name: str, d_model: int, n_heads: int, n_kv_heads: int, d_head: int, *, seed: int = 0
) -> np.ndarray:
    """A seeded projection matrix ``name`` in :data:`PROJECTIONS`.

    ``w_q`` is ``(d_model, n_heads·d_head)``, ``w_k`` and ``w_v`` are
    ``(d_model, n_kv_heads·d_head)``, ``w_o`` is ``(n_heads·d_head, d_model)``. Every
    column of a head (row of W^O) is its own draw, keyed by (seed, matrix, head, column):
    adding heads or KV heads keeps the ones that were there, so setting one KV head keeps
    KV head 0 and lets every query head share it. Entries are normal with variance
    1/fan-in (W_Q, W_K times :data:`QK_GAIN`), so Q, K and V keep the scale of X.
    """
    check_choice(name, PROJECTIONS, "projection")
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv_heads = check_positive_int(n_kv_heads, "n_kv_heads")
    d_head = check_positive_int(d_head, "d_head")
    heads = n_kv_heads if name in ("w_k", "w_v") else n_heads
    fan_in = d_model if name != "w_o" else n_heads * d_head
    gain = QK_GAIN if name in ("w_q", "w_k") else 1.0
    stream = _STREAMS[name]
    lines = np.empty((heads * d_head, d_model))
    for h in range(heads):
        for c in range(d_head):
            rng = np.random.default_rng([seed, stream, h, c])
            lines[h * d_head + c] = rng.normal(size=d_model)
    lines *= gain / np.sqrt(fan_in)
    # Columns of W_Q/W_K/W_V, rows of W^O: each line belongs to one head's dimension.
    return lines if name == "w_o" else np.ascontiguousarray(lines.T)


#: Seeded matrices kept for reuse, at most this many bytes (the last one always stays):
#: undo, redo and a head switch find the arrays of the last few shapes without drawing.
CACHE_BYTES = 64 * 1024 * 1024
_CACHE: dict[tuple, np.ndarray] = {}
_CACHE_LOCK = threading.Lock()


def seeded_projection(
    name: str, tokens, d_model: int, n_heads: int, n_kv_heads: int, d_head: int, seed: int
) -> np.ndarray:
    """The seeded ``x`` (:func:`token_embeddings`) or W matrix (:func:`projection_weight`).

    Read-only and cached: the same inputs give the very same array object, so a caller
    can tell "unchanged" by identity.
    """
    if name == "x":
        key = ("x", tuple(tokens), d_model, seed)
    else:
        heads = n_kv_heads if name in ("w_k", "w_v") else n_heads
        key = (name, d_model, heads, d_head, seed)
    with _CACHE_LOCK:
        arr = _CACHE.pop(key, None)
    if arr is None:
        if name == "x":
            arr = token_embeddings(list(tokens), d_model, seed=seed)
        else:
            kv = heads if name in ("w_k", "w_v") else 1
            arr = projection_weight(name, d_model, heads, kv, d_head, seed=seed)
        arr.flags.writeable = False
    with _CACHE_LOCK:
        _CACHE[key] = arr  # most recent last
        total = sum(a.nbytes for a in _CACHE.values())
        while len(_CACHE) > 1 and total > CACHE_BYTES:
            total -= _CACHE.pop(next(iter(_CACHE))).nbytes
    return arr
