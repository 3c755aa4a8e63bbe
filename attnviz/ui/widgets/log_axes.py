"""Axes of log-scale plots that speak in the plot's units: bytes (1 kB, 1 GB) and tokens (8k).

pyqtgraph's log axes label powers of ten (10⁹); a lecturer reads "1 GB" or "128k" faster.
Each axis picks its own ticks: bytes at every power of 1000 (of 10 when the range is
short), tokens at every third power of two (1k, 8k, 64k, 512k, 4M, …).
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from attnviz.ui.widgets.units import decimal_bytes, short_tokens


class _UnitAxis(pg.AxisItem):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.enableAutoSIPrefix(False)  # the ticks carry the unit


class BytesAxis(_UnitAxis):
    """A log axis of byte counts, labelled in decimal units."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802, N803 (pyqtgraph)
        lo, hi = math.ceil(minVal), math.floor(maxVal)
        values = [float(e) for e in range(lo, hi + 1) if e % 3 == 0]
        if len(values) < 2:
            values = [float(e) for e in range(lo, hi + 1)]
        return [(None, values)]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph)
        return [decimal_bytes(10.0**v, 0) for v in values]


class TokensAxis(_UnitAxis):
    """A log axis of token counts, ticks at 2^10, 2^13, 2^16, … labelled 1k, 8k, 64k."""

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802, N803 (pyqtgraph)
        lo = math.ceil(minVal / math.log10(2))
        hi = math.floor(maxVal / math.log10(2))
        values = [e * math.log10(2) for e in range(lo, hi + 1) if (e - 10) % 3 == 0]
        return [(None, values)]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph)
        return [short_tokens(round(10.0**v)) for v in values]
