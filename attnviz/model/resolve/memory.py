"""The memory topic's resolver: KV cache against a GPU, the attention variants, the n² price.

Every figure comes from :mod:`attnviz.core.kvcache`; the report is exactly
:func:`~attnviz.core.kvcache.kv_report` (``attnviz kv --json`` prints the same dict), and
the panel adds what a serving engineer reads off a gauge:

- the weights at their own dtype, the KV cache at the cache dtype, their sum against the
  GPU's memory, and the longest context that still fits beside the weights;
- what the card would cache without its savings: every layer with attention (a hybrid) and
  no sliding window, so the saving of each is visible;
- the price of n²: one head's score matrix if it were materialized against the O(n)
  working memory of a tiled kernel, over a range of contexts;
- the decode ceiling at the GPU's bandwidth, and what each attention design, fp8 and a
  hybrid's linear layers make of it (:func:`attnviz.core.decode.decode_report`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attnviz.core.kvcache import (
    MAX_CONTEXT,
    ModelCard,
    dtype_bytes,
    kv_cache_bytes,
    max_context,
    score_matrix_bytes,
    tiled_score_bytes,
    weights_bytes,
)
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.lazy import LazyResolver

#: Bytes in one GB as GPU makers count them.
GB = 10**9
#: Contexts of the n² chart: 2^10 … 2^24 tokens, four points per octave.
CURVE_EXPONENTS = (10.0, 24.0)
#: Tile of the tiled kernel's scores (FlashAttention-2's common 128 × 128).
TILE = 128


@dataclass(frozen=True)
class Saving:
    """What one of the card's savings is worth: the cache without it, and the ratio."""

    kind: str  # "hybrid" (layers without a KV cache) or "window" (sliding-window layers)
    card: ModelCard
    kv_cache_bytes: int | float
    ratio: float  # without / with


@dataclass(frozen=True)
class HeadsLayout:
    """The heads panel's layer (attention from projections), as the cache sees it."""

    n_heads: int
    n_kv_heads: int
    d_head: int
    bytes_per_token: float  # one layer: 2 · h_kv · d_head · bytes per element
    mha_bytes_per_token: float  # the same layer with one KV head per query head
    cache_bytes: float  # one layer at the context and batch


def heads_layout(attention: dict, values: dict) -> HeadsLayout | None:
    """The per-layer cache of the attention topic's heads, when they come from projections."""
    if attention["head"] != "projections":
        return None
    bpe = dtype_bytes(values["dtype"])
    h, h_kv, d = attention["n_heads"], attention["n_kv_heads"], attention["d_k"]
    per_token = 2 * h_kv * d * bpe
    return HeadsLayout(
        h, h_kv, d, per_token, 2 * h * d * bpe, per_token * values["context"] * values["batch"]
    )


@dataclass(frozen=True)
class MemoryResults:
    """What the memory panel draws (see the module docstring)."""

    card: ModelCard
    report: dict
    weights_bytes: int | float | None
    gpu_bytes: float
    used_bytes: float
    max_context: int
    savings: tuple[Saving, ...]
    curve_n: np.ndarray
    score_bytes: np.ndarray
    tile_bytes: np.ndarray
    heads: HeadsLayout | None = None
    #: :func:`attnviz.core.decode.decode_report` at the topic's bandwidth (None: not asked).
    decode: dict | None = None

    @property
    def kv_bytes(self) -> int | float:
        """KV-cache bytes at the context and batch."""
        return self.report["kv_cache_bytes"]

    @property
    def fits(self) -> bool:
        """True when weights and cache fit in the GPU's memory together."""
        return self.used_bytes <= self.gpu_bytes

    @property
    def unbounded(self) -> bool:
        """True when every context fits: the cache stops growing (all layers windowed)."""
        return self.max_context >= MAX_CONTEXT


def savings(card: ModelCard, context: int, batch: int, bpe: float) -> tuple[Saving, ...]:
    """The cache without each saving the card has (hybrid layers, sliding windows)."""
    base = kv_cache_bytes(card, context, batch, bpe)
    out = []
    if card.attention_layers < card.layers:
        dense = replace(card, attention_layers=card.layers)
        out.append(Saving("hybrid", dense, *_ratio(dense, base, context, batch, bpe)))
    if card.sliding_layers:
        full = replace(card, sliding_window=None, sliding_layers=0)
        out.append(Saving("window", full, *_ratio(full, base, context, batch, bpe)))
    return tuple(out)


def _ratio(card, base, context, batch, bpe):
    total = kv_cache_bytes(card, context, batch, bpe)
    return total, total / base


def compute_memory(values: dict, card: ModelCard, report: dict) -> MemoryResults:
    """Results for the memory topic's field ``values`` and its ``card`` and ``report``."""
    bpe = dtype_bytes(values["dtype"])
    weights = None
    if card.params is not None:
        weights = weights_bytes(card, values["weights_dtype"])
    gpu = values["gpu_gb"] * GB
    budget = gpu - (weights or 0)
    fit = max_context(card, budget, values["batch"], bpe) if budget > 0 else 0
    lo, hi = CURVE_EXPONENTS
    n = np.unique(np.round(2.0 ** np.arange(lo, hi + 0.125, 0.25)).astype(np.int64))
    s_bpe = report["score_matrix"]["bytes_per_element"]
    scores = np.array([float(score_matrix_bytes(int(k), s_bpe)) for k in n])
    tiles = np.array([float(tiled_score_bytes(int(k), TILE, TILE)) for k in n])
    for arr in (n, scores, tiles):
        arr.flags.writeable = False
    return MemoryResults(
        card=card,
        report=report,
        weights_bytes=weights,
        gpu_bytes=gpu,
        used_bytes=float(report["kv_cache_bytes"]) + float(weights or 0),
        max_context=fit,
        savings=savings(card, values["context"], values["batch"], bpe),
        curve_n=n,
        score_bytes=scores,
        tile_bytes=tiles,
    )


class MemoryResolver(LazyResolver):
    """Lazy resolver of the ``memory`` topic (fast: arithmetic on one card)."""

    TOPIC = "memory"
    #: The heads panel's layout: changing n_kv_heads there changes the bytes shown here.
    READS = {"attention": frozenset({"head", "n_heads", "n_kv_heads", "d_k"})}

    def compute(self) -> MemoryResults:
        topic = self.topic
        values = topic.snapshot()
        report = topic.report()
        res = replace(compute_memory(values, topic.card(), report), decode=topic.decode(report))
        layout = heads_layout(self.document.attention.snapshot(), values)
        return replace(res, heads=layout) if layout is not None else res


RESOLVER = MemoryResolver

#: Columns of the exported ``variants`` array.
VARIANT_COLUMNS = ("kv_bytes_per_token", "kv_cache_bytes")


def memory_data(workspace, name: str) -> DataArray:
    """The memory panel's one array, ``variants``: each design's KV bytes per token and
    cache bytes."""
    variants = workspace.resolver_for("memory").results.report["variants"]
    values = np.array(
        [[float(v["kv_bytes_per_token"]), float(v["kv_cache_bytes"])] for v in variants]
    )
    return DataArray(values, tuple(v["design"] for v in variants), VARIANT_COLUMNS)
