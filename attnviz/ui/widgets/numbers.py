"""How numbers are written on screen: short enough for a projector, exact in tooltips.

The decimal separator follows the UI language (the documents, in Portuguese, write
``[0,85; 0,15]``): :func:`set_decimal_separator` is called once at start-up by
:func:`attnviz.ui.language.install_translations`. With a decimal comma the entries of a
vector are separated by ``;``, as Portuguese texts do. Files (CSV, NPY) and the command
line never come through here: they keep the ``.`` that programs read back.

How many decimals follows the ``display`` topic (View → Decimals, ``--set
display.decimals=N``): :func:`set_display_decimals` is called by whoever shows a workspace
(the main window, an export, a slide), and :func:`shown_decimals` turns the choice into the
decimals of one set of values, so every panel applies the same rule.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np

from attnviz.core.wording import english_plural
from attnviz.model.topics.display import MAX_DECIMALS, MIN_DECIMALS

MINUS = "\u2212"  # a real minus sign reads better than a hyphen at lecture-hall size

_decimal = "."
#: ``display.decimals``: 0 automatic, else the least number of decimals.
_display = 0
#: Automatic decimals start at LEAST and nothing is written with more than MOST (the
#: display topic's own bounds).
LEAST, MOST = MIN_DECIMALS, MAX_DECIMALS
#: Rows longer than this are not searched for entries that would read alike (a 16-token
#: matrix of random weights would always need six decimals to keep every pair apart).
SHORT_ROW = 8
#: Sets larger than this are judged on their first cells only (the slider path's budget).
_SAMPLE = 4096
#: A value this small reads 0 even at MOST decimals: no point in widening the rest for it.
_INVISIBLE = 0.5 * 10.0**-MOST


def set_decimal_separator(separator: str) -> None:
    """Write decimals with ``separator`` (``"."`` or ``","``) from now on."""
    global _decimal
    if separator not in (".", ","):
        raise ValueError(f"decimal separator must be '.' or ',', got {separator!r}")
    _decimal = separator


def decimal_separator() -> str:
    """The decimal separator in use (``"."`` or ``","``)."""
    return _decimal


def set_display_decimals(decimals: int) -> None:
    """Follow ``display.decimals`` from now on (0 automatic, else 2–6 at least)."""
    global _display
    decimals = int(decimals)
    if decimals != 0 and not LEAST <= decimals <= MOST:
        raise ValueError(f"decimals must be 0 or {LEAST}..{MOST}, got {decimals}")
    _display = decimals


def follow_document(document) -> None:
    """Write numbers as ``document``'s ``display`` topic says (an export, a slide)."""
    set_display_decimals(document["display"].decimals)


def display_decimals() -> int:
    """The ``display.decimals`` in force (0: automatic)."""
    return _display


def shown_decimals(values, decimals: int | None = None) -> int:
    """The decimals ``values`` are written with, by the display's rule.

    Starting from ``decimals`` (by default ``display.decimals``; 0 means automatic and
    starts at 2), one more decimal at a time up to 6 while a value that is not zero would
    read 0 and, when automatic, while two different entries of a short row (the last axis,
    at most :data:`SHORT_ROW` entries) would read alike.
    """
    base = _display if decimals is None else int(decimals)
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    arr = arr.reshape(-1, arr.shape[-1]) if arr.size else arr.reshape(0, 1)
    if arr.size > _SAMPLE:
        arr = arr[: max(1, _SAMPLE // arr.shape[1])]
    flat = arr[np.isfinite(arr)]
    visible = flat[np.abs(flat) >= _INVISIBLE]
    rows = arr if base == 0 and arr.shape[1] <= SHORT_ROW else None
    nonzero = None  # the fewest decimals at which no value that is not zero reads 0
    for d in range(base or LEAST, MOST + 1):
        if np.any(np.round(visible, d) == 0):
            continue
        nonzero = d if nonzero is None else nonzero
        if rows is not None and not _rows_apart(rows, d):
            continue
        return d
    # A saturated row (1e−9 beside 1e−12) reads alike at any decimals a cell holds: telling
    # its entries apart is not worth six digits; that none of them reads 0 is.
    return MOST if nonzero is None else nonzero


def _rows_apart(rows: np.ndarray, d: int) -> bool:
    """True when, in every row, entries that differ stay different rounded to ``d``.

    Rounding keeps the order, so two entries of a row read alike exactly when two
    neighbours of the sorted row do: one sort of all the rows, no ``np.unique`` per row
    (the editor asks this hundreds of times while it opens).
    """
    ordered = np.sort(np.where(np.isfinite(rows), rows, np.nan), axis=-1)  # NaN last
    differ = np.diff(ordered, axis=-1) != 0  # a NaN neighbour differs: never "alike"
    alike = np.diff(np.round(ordered, d), axis=-1) == 0
    return not np.any(differ & alike)


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


#: The largest count Qt's plural forms take (a C int); a larger one is "many" alike.
QT_COUNT_MAX = 2**31 - 1


def qt_count(n) -> int:
    """``n`` as Qt's ``tr(text, "", n)`` can take it: 17,179,869,184 bytes choose the
    plural form of 2,147,483,647 (:func:`counted` then writes the real number)."""
    return min(abs(int(n)), QT_COUNT_MAX)


def counted(translated: str, n: int, shown: str | None = None) -> str:
    """A count in words as Qt's plural forms give it, finished for the screen.

    ``translated`` is ``self.tr("%n KV head(s)", "", qt_count(n))`` (a numerus string:
    Portuguese has its own forms, and counts 0 and 1 alike). Without a translation of it
    (English, the source) Qt leaves the source's ``(s)`` and ``(singular|plural)`` marks,
    resolved here by :func:`~attnviz.core.wording.english_plural`; the count is written
    grouped as every other number (4,096; 4.096 with a decimal comma), whole past what Qt
    takes, or as ``shown`` says (``128k``).
    """
    n = int(n)
    text = english_plural(translated, n)
    plain, shown = str(qt_count(n)), grouped(n) if shown is None else shown
    if shown != plain:  # Qt wrote %n as plain digits
        text = re.sub(rf"(?<![\d.,]){re.escape(plain)}(?!\d)", shown, text, count=1)
    return text


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


def fmt_row(values, decimals: int | None = None) -> list[str]:
    """Format a row consistently: whole numbers when all are whole, else ``decimals``
    (by default what :func:`shown_decimals` gives the row). A row of short exact values
    (0.5, 0.25, 0: a score the lesson works out by hand) is written as they are, not padded
    to 0.500, 0.250, 0.000."""
    integer = all_integer(values)
    if decimals is None and not integer:
        decimals = shown_decimals(values)
        if all_short(values, decimals):
            return [fmt_short(v) for v in np.asarray(values, dtype=float)]
    return [fmt(v, decimals or 0, integer=integer) for v in np.asarray(values, dtype=float)]


def fmt_value(x: float) -> str:
    """One value as the panels write it alone (a table cell): a whole or short exact number
    as it is (``2``, ``0.5``), anything else with :func:`shown_decimals` decimals."""
    return _fmt_value(float(x), _display, _decimal)


@lru_cache(maxsize=4096)
def _fmt_value(x: float, _decimals: int, _separator: str) -> str:
    # Kept by value and by the display's rule: a table measures each column's texts again
    # on every resize, and each costs a few numpy calls.
    decimals = shown_decimals(x)
    return fmt_short(x) if all_short([x], decimals) else fmt(x, decimals)


def all_short(values, decimals: int) -> bool:
    """True when every finite entry is exactly a number of at most ``decimals`` decimals."""
    arr = np.asarray(values, dtype=float)
    finite = arr[np.isfinite(arr)]
    return bool(finite.size) and bool(np.all(np.round(finite, decimals) == finite))


def fmt_short(x: float) -> str:
    """An exact short value with just its own decimals: ``0.5``, ``0.25``, ``16``."""
    x = float(x)
    if not math.isfinite(x):
        return fmt(x)
    for d in range(0, MOST + 1):
        if round(x, d) == x:
            return fmt(x, d, integer=d == 0)
    return fmt(x, MOST)


def fmt_vector(values, decimals: int | None = None) -> str:
    """``[a, b, …]`` (``[a; b; …]`` with a decimal comma) as :func:`fmt_row` writes them."""
    return "[" + list_separator().join(fmt_row(values, decimals)) + "]"


def exact(x: float) -> str:
    """The full-precision value for a tooltip."""
    return localize(repr(float(x)))
