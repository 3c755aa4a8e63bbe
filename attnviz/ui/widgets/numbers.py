"""How numbers are written on screen: short enough for a projector, exact in tooltips."""

from __future__ import annotations

import math

import numpy as np

MINUS = "\u2212"  # a real minus sign reads better than a hyphen at lecture-hall size


def fmt(x: float, decimals: int = 2, *, integer: bool = False) -> str:
    """``x`` with ``decimals`` decimals (or as a whole number), ±∞ as symbols."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else f"{MINUS}∞"
    if integer:
        text = str(round(x))
    else:
        text = f"{x:.{decimals}f}"
        if float(text) == 0:
            text = text.lstrip("-")  # no "-0.00"
    return text.replace("-", MINUS)


def all_integer(values) -> bool:
    """True when every finite entry of ``values`` is a whole number (scores like 1, 3, 4)."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    return bool(finite.size) and bool(np.all(finite == np.round(finite)))


def fmt_row(values, decimals: int = 2) -> list[str]:
    """Format a row consistently: whole numbers when all are whole, else ``decimals``."""
    integer = all_integer(values)
    return [fmt(v, decimals, integer=integer) for v in np.asarray(values, dtype=float)]


def fmt_vector(values, decimals: int = 2) -> str:
    """``[a, b, …]`` as :func:`fmt_row` writes the entries."""
    return "[" + ", ".join(fmt_row(values, decimals)) + "]"


def exact(x: float) -> str:
    """The full-precision value for a tooltip."""
    return repr(float(x)).replace("-", MINUS)
