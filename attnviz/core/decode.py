"""How fast a model can generate when memory bandwidth is the limit.

Generating one token at batch 1 reads every weight once, the whole KV cache of the
sequence once and a hybrid's recurrent states once, and does little arithmetic with each
byte: the GPU waits on memory, not on its cores. So the step time is at least the bytes
read over the bandwidth, and

    decode_tokens_per_s = bandwidth / (weights + KV cache at the context + recurrent state)

is a ceiling (a bandwidth-bound ceiling at batch 1; kernels reach 70-90 % of it). Llama 3 8B
in bf16 at 131,072 tokens on 3,350 GB/s (an H100 SXM): 3.35e12 / (16.06e9 + 17.18e9) ≈ 100.8
tokens/s. A mixture-of-experts model reads only its routed experts per token; the formula
counts every weight, so for DeepSeek-V3 it is a floor of that ceiling.

Numbers only: no Qt and nothing from ``attnviz.model`` or ``attnviz.ui``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import replace

from attnviz.core.kvcache import (
    ModelCard,
    attention_variants,
    dtype_bytes,
    kv_cache_bytes,
    recurrent_state_bytes,
    weights_bytes,
)
from attnviz.core.value_text import brief

#: Bytes in one GB/s as GPU makers count bandwidth (10^9 bytes per second).
GB = 10**9
#: Largest bandwidth accepted, in GB/s: a petabyte per second, far beyond any GPU (an H200
#: has 4,800 GB/s, a B200 8,000).
MAX_BANDWIDTH_GBS = 1e6


def check_bandwidth(value) -> float:
    """``value`` as a bandwidth in GB/s: a finite number > 0 and ≤ :data:`MAX_BANDWIDTH_GBS`,
    else ``ValueError`` in one line."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"the bandwidth must be a number of GB/s, got {brief(value)}")
    # An int too large for a float is refused before float() would raise OverflowError.
    if isinstance(value, numbers.Integral) and not 0 < value <= MAX_BANDWIDTH_GBS:
        raise ValueError(
            f"the bandwidth must be > 0 and ≤ {MAX_BANDWIDTH_GBS:g} GB/s, got {brief(value)}"
        )
    value = float(value)
    if not math.isfinite(value) or not 0 < value <= MAX_BANDWIDTH_GBS:
        raise ValueError(
            f"the bandwidth must be finite, > 0 and ≤ {MAX_BANDWIDTH_GBS:g} GB/s, "
            f"got {brief(value)}"
        )
    return value


def bytes_per_step(
    card: ModelCard, context: int, *, batch: int = 1, dtype="bf16", weights_dtype=None
) -> int | float:
    """Bytes one decoding step reads: every weight once, and the KV cache at ``context`` and
    the recurrent state of each of ``batch`` sequences (``ValueError`` when the card has no
    parameter count)."""
    weights_dtype = dtype if weights_dtype is None else weights_dtype
    return (
        weights_bytes(card, weights_dtype)
        + kv_cache_bytes(card, context, batch, dtype_bytes(dtype))
        + recurrent_state_bytes(card, batch, dtype_bytes(dtype))
    )


def decode_tokens_per_s(
    card: ModelCard,
    context: int,
    bandwidth_gbs,
    *,
    batch: int = 1,
    dtype="bf16",
    weights_dtype=None,
) -> float:
    """Tokens per second each sequence can be generated at, at most, when every step reads
    :func:`bytes_per_step` over ``bandwidth_gbs`` GB/s: ``bandwidth / (weights + KV cache at
    the context + recurrent state)``. A bandwidth-bound ceiling; at batch 1, one token reads
    all weights, the whole cache and the recurrent states once (a batch shares the weights'
    read, so each sequence gets one token per step of the larger read)."""
    bandwidth = check_bandwidth(bandwidth_gbs) * GB
    step = bytes_per_step(card, context, batch=batch, dtype=dtype, weights_dtype=weights_dtype)
    return bandwidth / float(step)


#: What each ceiling of :func:`decode_ceilings` changes in the card.
CEILING_KINDS = ("card", "MHA", "GQA", "MQA", "MLA", "fp8", "dense")


def decode_ceilings(
    card: ModelCard, context: int, bandwidth_gbs, *, dtype="bf16", weights_dtype=None
) -> list[dict]:
    """The batch-1 decode ceiling of the card and of the same model changed one way each:
    ``MHA``/``GQA``/``MQA``/``MLA`` (its cache as each attention design of
    :func:`~attnviz.core.kvcache.attention_variants`, weights as the card's), ``fp8`` (cache,
    state and weights in fp8, when not already) and, for a hybrid, ``dense`` (every layer
    with attention: what the linear layers save). Each entry: ``kind``, ``card`` (the
    changed card), ``dtype``, ``weights_dtype``, ``bytes_per_step`` and ``tokens_per_s``.
    Empty when the card has no parameter count."""
    if card.params is None:
        return []
    weights_dtype = dtype if weights_dtype is None else weights_dtype
    rows = [("card", card, dtype, weights_dtype)]
    variants = attention_variants(card)
    rows += [
        (kind, variants[kind], dtype, weights_dtype)
        for kind in ("MHA", "GQA", "MQA", "MLA")
        if kind in variants and kind != card.attention_kind
    ]
    if (dtype, weights_dtype) != ("fp8", "fp8"):
        rows.append(("fp8", card, "fp8", "fp8"))
    if card.attention_layers < card.layers:
        rows.append(("dense", replace(card, attention_layers=card.layers), dtype, weights_dtype))
    out = []
    for kind, c, d, wd in rows:
        step = bytes_per_step(c, context, dtype=d, weights_dtype=wd)
        out.append(
            {
                "kind": kind,
                "card": c,
                "dtype": d,
                "weights_dtype": wd,
                "bytes_per_step": step,
                "tokens_per_s": check_bandwidth(bandwidth_gbs) * GB / float(step),
            }
        )
    return out


def decode_report(report: dict, card: ModelCard, bandwidth_gbs) -> dict:
    """The decode keys ``attnviz kv --bandwidth`` adds to a
    :func:`~attnviz.core.kvcache.kv_report`: ``bandwidth_gbs``, ``decode_tokens_per_s``
    (None when the parameter count is unknown), ``decode_bytes_per_token`` and
    ``decode_ceilings`` (kind, dtypes, bytes and tokens/s of :func:`decode_ceilings`)."""
    bandwidth = check_bandwidth(bandwidth_gbs)
    context, batch = report["context"], report["batch"]
    dtype, weights_dtype = report["dtype"], report.get("weights_dtype") or report["dtype"]
    if card.params is None:
        return {
            "bandwidth_gbs": bandwidth,
            "decode_tokens_per_s": None,
            "decode_bytes_per_token": None,
            "decode_ceilings": [],
        }
    step = bytes_per_step(card, context, batch=batch, dtype=dtype, weights_dtype=weights_dtype)
    ceilings = decode_ceilings(card, context, bandwidth, dtype=dtype, weights_dtype=weights_dtype)
    return {
        "bandwidth_gbs": bandwidth,
        "decode_tokens_per_s": bandwidth * GB / float(step),
        "decode_bytes_per_token": step,
        "decode_ceilings": [
            {k: v for k, v in c.items() if k != "card"}
            | {
                "attention": c["card"].attention_kind,
                "attention_layers": c["card"].attention_layers,
            }
            for c in ceilings
        ],
    }
