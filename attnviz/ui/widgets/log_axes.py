"""Axes of log-scale plots that speak in the plot's units: bytes (1 kB, 1 GB) and tokens (8k).

pyqtgraph's log axes label powers of ten (10⁹); a lecturer reads "1 GB" or "128k" faster.
Each axis picks its own ticks: bytes at every power of 1000 (of 10 when the range is
short), tokens at every third power of two (1k, 8k, 64k, 512k, 4M, …).
"""

from __future__ import annotations

import math

from attnviz.ui.widgets.axis_room import RoomyAxis
from attnviz.ui.widgets.units import decimal_bytes, short_tokens


class _UnitAxis(RoomyAxis):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)  # the ticks carry the unit


class BytesAxis(_UnitAxis):
    """A log axis of byte counts, labelled in decimal units."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # pyqtgraph
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        values = [float(e) for e in range(lo, hi + 1) if e % 3 == 0]
        if len(values) < 2:
            values = [float(e) for e in range(lo, hi + 1)]
        return [(None, values)]

    def logTickStrings(self, values, scale, spacing):  # pyqtgraph
        return [decimal_bytes(10.0**v, 0) for v in values]


class TokensAxis(_UnitAxis):
    """A log axis of token counts, ticks at 2^10, 2^13, 2^16, … labelled 1k, 8k, 64k."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # pyqtgraph
        lo = math.ceil(minVal / math.log10(2))
        hi = math.floor(maxVal / math.log10(2))
        values = [e * math.log10(2) for e in range(lo, hi + 1) if (e - 10) % 3 == 0]
        return [(None, values)]

    def logTickStrings(self, values, scale, spacing):  # pyqtgraph
        return [short_tokens(round(10.0**v)) for v in values]


class DecadeAxis(_UnitAxis):
    """A log axis labelled at powers of ten only (0.01 … 1000 written out, else 10ⁿ).

    pyqtgraph labels every minor tick of a short log range (2·10¹, 3·10¹, …), which piles
    up into an unreadable column; here the minor ticks at 2 and 5 times a decade are
    drawn without text, and only when the range is short.
    """

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # pyqtgraph
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        major = [float(e) for e in range(lo, hi + 1)]
        if len(major) > 8:
            step = math.ceil(len(major) / 8)
            major = [e for e in major if e % step == 0]
        levels = [(None, major)]
        if hi - lo < 3:
            minor = [e + math.log10(m) for e in range(lo - 1, hi + 1) for m in (2, 5)]
            levels.append((None, [v for v in minor if minVal <= v <= maxVal]))
        return levels

    def logTickStrings(self, values, scale, spacing):  # pyqtgraph
        out = []
        for v in values:
            if not float(v).is_integer():
                out.append("")  # a minor tick
            elif -2 <= v <= 3:
                out.append(f"{10.0**v:g}")
            else:
                out.append("10" + str(int(v)).translate(_SUPERSCRIPT))
        return out


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
