"""FlashAttention's tiles on a small sequence: every step of the online softmax, for the
tiles panel.

:func:`tiles_demo` makes q, k, v of the long topic's head at ``tiles_n`` tokens (float64:
here every digit is shown), walks :func:`attnviz.core.tiled.tiled_attention_steps` over
``block_q × block_k`` tiles and keeps every step, the dense :func:`attention` result it
must equal, and what each side holds in memory. Only numpy here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention import attention
from attnviz.core.masks import causal_mask
from attnviz.core.tile_io import naive_traffic, tiled_traffic
from attnviz.core.tiled import TileStep, tiled_attention, tiled_attention_steps
from attnviz.model.resolve._long_heads import generate_qk

#: Fields the demo depends on (its step is only browsed).
TILES_FIELDS = ("tiles_n", "tiles_d", "block_q", "block_k", "head", "seed", "causal", "scale")


#: Bytes a number, by the long topic's ``dtype``.
ITEMSIZE = {"float64": 8, "float32": 4, "bfloat16": 2, "float16": 2}
#: Query rows and keys a tile holds at the long n: FlashAttention-2's blocks of 128 (what
#: a GPU's shared memory holds at a head width of 64 to 128). With the demo's few rows a
#: block, K and V were read n/4 times and the tiles moved 8× the naive bytes at 4,096
#: tokens, the opposite of what a kernel with its on-chip memory full does.
KERNEL_BLOCK = 128


def hbm_traffic(values: dict) -> tuple[tuple[int, int, int, int], ...]:
    """``(n, query rows a tile, tiled bytes, naive bytes)`` moved to and from HBM, for the
    demo (its n, width and blocks) and for the long n (its width, in a kernel's tiles of
    :data:`KERNEL_BLOCK`), at the topic's dtype and causality (``values``: a snapshot)."""
    size = ITEMSIZE[values["dtype"]]
    causal = bool(values["causal"])
    big = min(KERNEL_BLOCK, values["n"])
    out = []
    for n, d, bq, bk in (
        (values["tiles_n"], values["tiles_d"], values["block_q"], values["block_k"]),
        (values["n"], values["d_k"], big, big),
    ):
        tiled = tiled_traffic(n, d, d, bq, bk, size, causal).total
        out.append((n, bq, tiled, naive_traffic(n, d, d, size).total))
    return tuple(out)


def tile_memory(n: int, d: int, d_v: int, block_q: int, block_k: int) -> tuple[int, int]:
    """Numbers held at once: ``(tiles, dense)``.

    The tiles hold a Q tile, a K and a V tile, the tile of scores, the running max and sum
    of each of the block's rows and its output accumulator; dense attention holds the n×n
    score matrix (and as many weights, not counted).
    """
    held = block_q * d + block_k * (d + d_v) + block_q * block_k + 2 * block_q + block_q * d_v
    return held, n * n


@dataclass(frozen=True)
class TilesDemo:
    """Every step of the tiled computation of one small head.

    Attributes
    ----------
    q, k, v : ``(n, d)`` the head
    scores : ``(n, n)`` the scaled scores (−inf where causally hidden)
    weights, dense_output : :func:`attention`'s weights and output, the reference
    output, lse : :func:`tiled_attention`'s result
    steps : one :class:`TileStep` per tile, row blocks in order, keys left to right
    """

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    dense_output: np.ndarray
    output: np.ndarray
    lse: np.ndarray
    steps: tuple[TileStep, ...]
    block_q: int
    block_k: int
    causal: bool

    @property
    def n(self) -> int:
        return self.q.shape[0]

    def finished_rows(self, step: int) -> int:
        """Query rows 0…r−1 whose output is final after ``step``: returns r."""
        s = self.steps[step]
        return s.rows.stop if s.last else s.rows.start

    def visited(self, step: int) -> np.ndarray:
        """``(n, n)`` True on the cells of the tiles computed up to ``step`` (not skipped)."""
        seen = np.zeros((self.n, self.n), bool)
        for s in self.steps[: step + 1]:
            if not s.skipped:
                seen[s.rows, s.cols] = True
        if self.causal:
            seen &= causal_mask(self.n)
        return seen

    def memory(self) -> tuple[int, int]:
        """:func:`tile_memory` of this demo."""
        return tile_memory(self.n, self.q.shape[1], self.v.shape[1], self.block_q, self.block_k)

    def max_error(self) -> float:
        """Largest |tiled − dense| entry of the output."""
        return float(np.max(np.abs(self.output - self.dense_output)))


def tiles_demo(values: dict) -> TilesDemo:
    """The demo for the long topic's fields (``values``: a snapshot)."""
    n, d, seed = values["tiles_n"], values["tiles_d"], values["seed"]
    # The demo is a synthetic head of at most 64 tokens printed whole: with the overview on
    # a real model's head it keeps the content head (the field's doc says so).
    head = "content" if values["head"] == "model" else values["head"]
    q, k = generate_qk(head, n, d, seed, np.float64)
    v = np.random.default_rng([seed, 4]).standard_normal((n, d))
    causal, scale = values["causal"], values["scale"]
    bq, bk = values["block_q"], values["block_k"]
    mask = causal_mask(n) if causal else None
    dense = attention(q, k, v, mask=mask, scale=scale)
    scores = np.where(mask, dense.scores, -np.inf) if causal else dense.scores
    output, lse = tiled_attention(q, k, v, block_q=bq, block_k=bk, causal=causal, scale=scale)
    steps = tuple(
        tiled_attention_steps(q, k, v, block_q=bq, block_k=bk, causal=causal, scale=scale)
    )
    return TilesDemo(
        q, k, v, scores, dense.weights, dense.output, output, lse, steps, bq, bk, causal
    )
