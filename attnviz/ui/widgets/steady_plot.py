"""A themed plot whose size hint does not follow its size, for panels that scroll.

A graphics view hints at its current size. In a scroll area whose content has word-wrapped
labels, Qt lays the content out by height-for-width from the size hints, so a plot that
hints at its own size could only ever grow. :class:`SteadyPlot` hints at a fixed, readable
size instead and takes whatever room the layout gives it.
"""

from __future__ import annotations

from PySide6.QtCore import QSize

from attnviz.ui.widgets.plot_style import ThemedPlot


class SteadyPlot(ThemedPlot):
    """A :class:`ThemedPlot` with a fixed size hint (420 × 260)."""

    def sizeHint(self) -> QSize:
        return QSize(420, 260)
