"""The softmax of the steps panel's query written out: the row e^s, its sum, and the
weights as e^s / Σ e^s — computed stably (the weights the heatmap shows) or naively, in a
chosen number format and without subtracting the row's largest score first, so that the
overflow a real implementation avoids shows as inf and NaN.

The stable softmax subtracts max(s) before exponentiating: e^(s − m) / Σ e^(s − m) is the
same distribution, and no exponent exceeds e^0 = 1. The naive one overflows as soon as a
score passes ln(largest number): 11.09 in float16, 88.72 in float32, 709.78 in float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The largest score whose e^s a number format holds: ln of its largest finite number.
EXP_LIMITS = {name: float(np.log(np.finfo(name).max)) for name in ("float16", "float32", "float64")}


@dataclass(frozen=True)
class SoftmaxRow:
    """``exp`` = e^s for each key (0 where masked), ``total`` = Σ e^s (+ e^sink), and
    ``weights`` = the softmax: the stable weights, or ``exp / total`` when ``naive`` (then
    in ``dtype``, inf and NaN included). ``overflow`` is True when an e^s or the sum is
    infinite in ``dtype``."""

    exp: np.ndarray
    total: float
    weights: np.ndarray
    dtype: str
    naive: bool
    overflow: bool


def softmax_row(logits, weights, sink: float | None, *, naive: bool, dtype: str) -> SoftmaxRow:
    """The row of what the softmax receives (``logits``, −inf where masked) written out.

    ``weights`` are the stable weights of that row (returned as they are unless ``naive``);
    ``sink`` adds e^sink to the sum. The exponentials are in ``dtype`` when ``naive``, else
    in float64 (where e^s may still overflow past 709.78: the stable weights do not).
    """
    if dtype not in EXP_LIMITS:
        raise ValueError(f"dtype must be one of {', '.join(EXP_LIMITS)}, got {dtype!r}")
    kind = np.dtype(dtype if naive else "float64")
    with np.errstate(over="ignore", invalid="ignore"):
        # float16 cannot even hold a score past 65504: the cast itself overflows to inf.
        x = np.asarray(logits, dtype=np.float64).astype(kind)
        exp = np.exp(x)
        total = exp.sum(dtype=kind)
        if sink is not None:
            total = total + np.exp(kind.type(sink))
        shown = exp / total if naive else np.asarray(weights, dtype=np.float64)
    overflow = bool(np.isinf(exp).any() or np.isinf(total))
    return SoftmaxRow(
        exp=exp.astype(np.float64),
        total=float(total),
        weights=np.asarray(shown, dtype=np.float64),
        dtype=kind.name,
        naive=naive,
        overflow=overflow,
    )
