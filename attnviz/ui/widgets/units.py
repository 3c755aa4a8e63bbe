"""Numbers with units for the memory, reach and embedding panels: bytes, tokens, powers of ten.

Byte counts are written both ways where it matters: binary units (KiB, GiB: what the
chapter's "128 KiB per token" and "16 GiB" use) and decimal ones (GB: how GPU makers
count memory, and the chapter's "34 GB" score matrix). Unit symbols are international;
nothing here needs translating.
"""

from __future__ import annotations

import math

from attnviz.ui.widgets.numbers import MINUS, grouped, localize

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _scaled(n: float, base: int, units: tuple[str, ...], digits: int) -> str:
    value, unit = float(n), units[0]
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            break
        value /= base
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"
    return f"{localize(text)} {unit}"


def binary_bytes(n: float, digits: int = 2) -> str:
    """``131072`` → ``"128 KiB"``, ``17179869184`` → ``"16 GiB"``."""
    return _scaled(n, 1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"), digits)


def decimal_bytes(n: float, digits: int = 2) -> str:
    """``34359738368`` → ``"34.36 GB"`` (powers of 1000, as GPU and disk makers count)."""
    return _scaled(n, 1000, ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"), digits)


def both_bytes(n: float) -> str:
    """``"16 GiB (17.18 GB)"``: binary, then decimal in brackets (one unit below 1 KiB)."""
    if abs(float(n)) < 1024:
        return binary_bytes(n)
    return f"{binary_bytes(n)} ({decimal_bytes(n)})"


def tokens(n: int) -> str:
    """``131072`` → ``"131,072 (128k)"``; a count that is no whole k or M stays plain."""
    n = int(n)
    for size, suffix in ((1024**2, "M"), (1024, "k")):
        if n >= size and n % size == 0:
            return f"{grouped(n)} ({grouped(n // size)}{suffix})"
    return grouped(n)


def short_tokens(n: float) -> str:
    """A short context label for an axis: ``"128k"``, ``"1M"``, ``"512"``."""
    n = float(n)
    for size, suffix in ((1024**4, "T"), (1024**3, "G"), (1024**2, "M"), (1024, "k")):
        if n >= size:
            value = n / size
            text = f"{value:.0f}" if value >= 10 or value.is_integer() else f"{value:.1f}"
            return localize(text) + suffix
    return f"{n:.0f}"


def sci(x: float, digits: int = 2) -> str:
    """``1.4e-14`` → ``"1.4 × 10⁻¹⁴"``; numbers from 0.01 to 9999 stay plain."""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    if 1e-2 <= abs(x) < 1e4:
        text = f"{x:.{digits + 1}g}"
        return localize(text).replace("-", MINUS)
    exp = math.floor(math.log10(abs(x)))
    mant = x / 10**exp
    if round(mant, digits - 1) >= 10:
        mant, exp = mant / 10, exp + 1
    head = f"{mant:.{digits - 1}f}".rstrip("0").rstrip(".")
    power = f"10{str(exp).translate(_SUPERSCRIPT)}"
    return (power if head == "1" else f"{localize(head)} × {power}").replace("-", MINUS)


def count(n: float) -> str:
    """A parameter count: ``524288000`` → ``"524.3 M"``, ``8.03e9`` → ``"8.03 B"``."""
    n = float(n)
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= size:
            return f"{localize(f'{n / size:.4g}')} {suffix}"
    return grouped(n)
