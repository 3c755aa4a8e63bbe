"""Bytes moved between HBM and on-chip memory by one attention head, naive against tiled.

The standard IO analysis of FlashAttention (Dao et al. 2022, section 3.2): on a GPU the
cores compute from a small on-chip memory (SRAM, M bytes) and everything else lives in
HBM, so what an attention kernel costs is mostly what it moves.

- **Naive** attention (their Algorithm 0) writes the n × n scores S = QKᵀ to HBM, reads
  them back for the softmax, writes the weights P, reads them back for PV: it reads Q, K,
  V, S and P and writes S, P and O, Θ(n·d + n²) numbers.
- **Tiled** attention, in the order the tiles panel walks (query blocks outer, key blocks
  inner, as FlashAttention-2): each query block of ``block_q`` rows is read once and its
  output written once; for each query block every K and V block it visits is read again
  (a causal mask skips the blocks it hides entirely). Nothing of size n × n leaves the
  chip: Θ(n²·d / block_q) numbers, Θ(n²·d²/M) with blocks as large as M allows.

Counts are exact for the given sizes, in bytes for numbers of ``itemsize`` bytes; the
log-sum-exp a training kernel also writes for its backward pass is not counted (inference
needs only O). Numbers only: no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class HbmTraffic:
    """Bytes a kernel reads from and writes to HBM."""

    read: int
    written: int

    @property
    def total(self) -> int:
        """Bytes moved either way."""
        return self.read + self.written


def _positive(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer ≥ 1, got {value!r}")
    return int(value)


def naive_traffic(n: int, d: int, d_v: int, itemsize: int) -> HbmTraffic:
    """HBM bytes of naive attention: reads Q, K (n·d each), S and P (n² each) and V
    (n·d_v); writes S and P (n² each) and O (n·d_v). A causal mask changes nothing: the
    whole n × n matrix is written and read, its hidden half as −inf and 0."""
    n, d = _positive(n, "n"), _positive(d, "d")
    d_v, itemsize = _positive(d_v, "d_v"), _positive(itemsize, "the item size")
    read = 2 * n * d + n * d_v + 2 * n * n
    written = 2 * n * n + n * d_v
    return HbmTraffic(read * itemsize, written * itemsize)


def keys_visited(n: int, block_q: int, block_k: int, causal: bool) -> np.ndarray:
    """For each query block, how many keys its visited K/V blocks hold: all n, or under a
    causal mask the blocks that start at or before the block's last row."""
    n, block_q, block_k = (
        _positive(n, "n"),
        _positive(block_q, "block_q"),
        _positive(block_k, "block_k"),
    )
    stops = np.minimum(np.arange(block_q, n + block_q, block_q), n)  # one past each block
    if not causal:
        return np.full(stops.shape, n, dtype=np.int64)
    blocks = -(-stops // block_k)  # key blocks starting before the block's end
    return np.minimum(blocks * block_k, n).astype(np.int64)


def tiled_traffic(
    n: int, d: int, d_v: int, block_q: int, block_k: int, itemsize: int, causal: bool = False
) -> HbmTraffic:
    """HBM bytes of tiled attention: Q read once (n·d), each query block's visited K and
    V blocks read ((d + d_v) per key), O written once (n·d_v)."""
    n, d = _positive(n, "n"), _positive(d, "d")
    d_v, itemsize = _positive(d_v, "d_v"), _positive(itemsize, "the item size")
    keys = int(keys_visited(n, block_q, block_k, bool(causal)).sum())
    read = n * d + keys * (d + d_v)
    written = n * d_v
    return HbmTraffic(read * itemsize, written * itemsize)
