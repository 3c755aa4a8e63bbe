"""How numbers are written on screen: short enough for a projector, exact in tooltips.

The decimal separator follows the UI language (the documents, in Portuguese, write
``[0,85; 0,15]``): :func:`set_decimal_separator` is called once at start-up by
:func:`attnviz.ui.language.install_translations`. With a decimal comma the entries of a
vector are separated by ``;``, as Portuguese texts do. Files (CSV, NPY) and the command
line never come through here: they keep the ``.`` that programs read back.
"""

from __future__ import annotations

import math

import numpy as np

MINUS = "\u2212"  # a real minus sign reads better than a hyphen at lecture-hall size

_decimal = "."


def set_decimal_separator(separator: str) -> None:
    """Write decimals with ``separator`` (``"."`` or ``","``) from now on."""
    global _decimal
    if separator not in (".", ","):
        raise ValueError(f"decimal separator must be '.' or ',', got {separator!r}")
    _decimal = separator


def decimal_separator() -> str:
    """The decimal separator in use (``"."`` or ``","``)."""
    return _decimal


def list_separator() -> str:
    """What separates the entries of a vector: ``", "``, or ``"; "`` with a decimal comma."""
    return "; " if _decimal == "," else ", "


def localize(text: str) -> str:
    """``text`` written by Python (``"0.85"``, ``"-1e-05"``) with the UI's decimal mark and
    a real minus sign."""
    if _decimal != ".":
        text = text.replace(".", _decimal)
    return text.replace("-", MINUS)


def grouped(n, decimals: int = 0) -> str:
    """``n`` with its thousands grouped: 4,096 in English, 4.096 with a decimal comma."""
    text = f"{float(n):,.{decimals}f}" if decimals else f"{int(n):,}"
    if _decimal == ",":
        text = text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")
    return text.replace("-", MINUS)


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
    return localize(text)


def fmt_g(x: float, digits: int = 6) -> str:
    """``x`` with ``digits`` significant digits (Python's ``g`` format), localized."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else f"{MINUS}∞"
    return localize(f"{x:.{digits}g}")


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
    """``[a, b, …]`` (``[a; b; …]`` with a decimal comma) as :func:`fmt_row` writes them."""
    return "[" + list_separator().join(fmt_row(values, decimals)) + "]"


def exact(x: float) -> str:
    """The full-precision value for a tooltip."""
    return localize(repr(float(x)))
