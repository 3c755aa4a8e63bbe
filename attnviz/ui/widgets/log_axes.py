"""Axes of log-scale plots that speak in the plot's units: bytes (1 kB, 1 GB) and tokens (8k).

pyqtgraph's log axes label powers of ten (10⁹); a lecturer reads "1 GB" or "128k" faster.
Each axis picks its own ticks: bytes at every power of 1000 (of 10 when the range is
short), tokens at every third power of two (1k, 8k, 64k, 512k, 4M, …).
"""

from __future__ import annotations

import math

from PySide6.QtGui import QFont, QFontMetricsF

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


class WidthAxis(_UnitAxis):
    """A log axis of head widths: ticks at powers of two (1, 4, 16, 64, …: every second
    one when more than six would crowd it), written as whole numbers (1024)."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # pyqtgraph
        lo = math.ceil(minVal / math.log10(2) - 1e-9)
        hi = math.floor(maxVal / math.log10(2) + 1e-9)
        powers = list(range(lo, hi + 1))
        if len(powers) > 6:
            powers = [e for e in powers if e % 2 == 0]
        return [(None, [e * math.log10(2) for e in powers])]

    def logTickStrings(self, values, scale, spacing):  # pyqtgraph
        # No thousands separator: the plots' tick localizer swaps "." for "," already.
        return [str(round(10.0**v)) for v in values]


class DecadeAxis(_UnitAxis):
    """A log axis labelled at powers of ten only (0.01 … 1000 written out, else 10ⁿ).

    pyqtgraph labels every minor tick of a short log range (2·10¹, 3·10¹, …), which piles
    up into an unreadable column; here the minor ticks at 2 and 5 times a decade are
    drawn without text, and only when the range is short.
    """

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # pyqtgraph
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        major = [float(e) for e in range(lo, hi + 1)]
        step = math.ceil(len(major) / 8) if len(major) > 8 else 1
        # Every other (third, …) decade where their labels would run together: a narrow
        # dock wrote "10" "100" "1000" "10⁴" into one another.
        per_decade = size / max(maxVal - minVal, 1e-9)
        while step < len(major) and not self._labels_fit(major[::step], per_decade * step):
            step += 1
        if step > 1:
            major = [e for e in major if e % step == 0] or major[:1]
        levels = [(None, major)]
        if hi - lo < 3:
            minor = [e + math.log10(m) for e in range(lo - 1, hi + 1) for m in (2, 5)]
            levels.append((None, [v for v in minor if minVal <= v <= maxVal]))
        return levels

    def _labels_fit(self, decades, apart: float) -> bool:
        """True when the labels of ``decades``, ``apart`` pixels from one another, keep a
        space between them."""
        if apart <= 0 or len(decades) < 2:
            return True
        font = self.style.get("tickFont") or QFont()
        metrics = QFontMetricsF(font)
        if self.orientation in ("left", "right"):
            need = metrics.height() * 1.2
        else:
            widest = max(metrics.horizontalAdvance(t) for t in self.logTickStrings(decades, 1, 1))
            need = widest + metrics.horizontalAdvance("  ")
        return apart >= need

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
