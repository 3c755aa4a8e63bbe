"""What a heatmap view fits to its room: the numbers in its cells and its side parts.

:class:`HeatmapFit` is a part of :class:`~attnviz.ui.widgets.heatmap_view.HeatmapView`
(it expects the view's values, levels, colour map, font, cell text items and plots):

- the cell numbers, all with the decimals the matrix needs (``display.decimals``), in black
  or white by WCAG contrast with the cell as seen (through a spotlight's veil too), in the
  view's font or a smaller one down to 60 % before they are left out;
- the entropy strip, room for its two ticks and at most a sixth of the view;
- the colour bar's axis, as wide as its widest tick.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from PySide6.QtGui import QFont, QFontMetricsF

from attnviz.ui.widgets.contrast import BLACK, WHITE, dark_ink, qcolor_rgb
from attnviz.ui.widgets.numbers import LEAST, display_decimals, fmt, shown_decimals

#: Cell numbers shrink to these shares of the view's font before they are left out.
CELL_FONT_STEPS = (1.0, 0.85, 0.7, 0.6)


class HeatmapFit:
    """Cell numbers, entropy strip and colour-bar axis fitted to the view (see above)."""

    #: Open :meth:`held_fit` blocks, and whether a fit was asked for inside them.
    _held = 0
    _fit_due = False

    @contextmanager
    def held_fit(self) -> Iterator[None]:
        """Fit the ticks, the entropy strip and the cell numbers once, as the block ends,
        however often what they depend on changes inside it (a new state sets the labels,
        the matrix, its colours and its levels one after the other)."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._fit_due:
                self._fit_due = False
                self.refresh_ticks()  # the cell numbers too

    def _fit_held(self) -> bool:
        """True inside :meth:`held_fit` (the fit is then noted as due, not done)."""
        if self._held:
            self._fit_due = True
        return self._held > 0

    def _update_cell_texts(self) -> None:
        if self._fit_held():
            return
        self._fit_cell_texts()  # it writes them, with the decimals that fit

    def _write_cell_texts(self, cap: int | None = None) -> int | None:
        """Write the cells' numbers (the matrix's decimals, at most ``cap``); return those
        decimals (None, writing nothing, while a new matrix is being set: a relayout in the
        middle of it sees the new shape before the new mask)."""
        rows, cols = self._values.shape
        if len(self._cell_texts) != rows * cols or (
            self._allowed is not None and self._allowed.shape != (rows, cols)
        ):
            return None
        lo, hi = self._levels
        norm = np.clip((self._values - lo) / ((hi - lo) or 1.0), 0.0, 1.0)
        colors = self._cmap.map(norm.ravel(), mode="float")[:, :3]
        rect = self.spotlight_rect()
        if rect is not None and rows * cols == self._extent[0] * self._extent[1]:
            # The numbers sit above the dimming veil: choose their ink against the cell as
            # it is seen through the veil, so a dimmed row stays legible (WCAG AA).
            r_idx, c_idx = np.divmod(np.arange(rows * cols), cols)
            inside = (
                (c_idx >= rect.left())
                & (c_idx < rect.right())
                & (r_idx >= rect.top())
                & (r_idx < rect.bottom())
            )
            veil = np.asarray(qcolor_rgb(self._veil))
            a = self._veil.alphaF()
            colors = np.where(inside[:, None], colors, (1 - a) * colors + a * veil)
        dark = dark_ink(colors)
        blocked = np.zeros_like(norm, bool) if self._allowed is None else ~self._allowed
        shown = self._values
        if self._allowed is not None:
            shown = np.where(self._allowed, shown, 0.0)
        # One rule for the whole matrix: the decimals its values need (a weight of 0.004
        # anywhere asks three of every cell), so that columns of numbers line up and no
        # 0.6169 stands beside a 0.18; the hover gives every digit.
        decimals = shown_decimals(shown)
        if cap is not None:
            decimals = min(decimals, cap)
        for i, item in enumerate(self._cell_texts):
            r, c = divmod(i, cols)
            if blocked[r, c]:
                shown_text = ("", None)
            else:
                shown_text = (fmt(self._values[r, c], decimals), BLACK if dark[i] else WHITE)
            # Only what changed: setting a text lays the item out again, and a relayout or a
            # slider step mostly writes the same numbers in the same inks.
            if getattr(item, "_shown_text", None) != shown_text:
                item._shown_text = shown_text
                item.setText(*shown_text)
        return decimals

    def _fit_cell_texts(self) -> None:
        """Print the numbers in the cells while a cell can hold one: in the view's font, or
        down to :data:`CELL_FONT_STEPS` of it (a projector's large type on a small matrix
        share); with the decimals automatic, then with fewer decimals (a saturated row's
        0.000001 as 0.0000: the hover still gives every digit); else not at all."""
        if not self._cell_texts:
            return
        most = self._write_cell_texts()
        font = self._cell_font()
        if font is None and most is not None and display_decimals() == 0:
            for cap in range(most - 1, LEAST - 1, -1):
                self._write_cell_texts(cap)
                font = self._cell_font()
                if font is not None:
                    break
            else:
                self._write_cell_texts()
        if font is not None and not self._cell_texts[0].isVisible():
            # A range set while the view had no size reaches its transform only at the next
            # paint: bring it up to date now, or each text shown inverts a singular one.
            self.plot.vb.updateMatrix()
        for item in self._cell_texts:
            if font is not None and item.textItem.font() != font:
                item.setFont(font)
            if item.isVisible() != (font is not None):
                item.setVisible(font is not None)

    def _cell_font(self) -> QFont | None:
        """The largest of :data:`CELL_FONT_STEPS` in which the widest number fits a cell."""
        rect = self.plot.vb.boundingRect()
        rows, cols = self._values.shape
        widest = max((item.toPlainText() for item in self._cell_texts), key=len, default="")
        widest = widest if len(widest) > 4 else "−0.00"
        for factor in CELL_FONT_STEPS:
            candidate = QFont(self._font)
            candidate.setPixelSize(max(6, round(self._font.pixelSize() * factor)))
            metrics = QFontMetricsF(candidate)
            if (
                rect.width() / cols >= metrics.horizontalAdvance(widest) + 4
                and rect.height() / rows >= metrics.height()
            ):
                return candidate
        return None

    def _fit_entropy_strip(self) -> None:
        """The entropy strip: room for its two ticks, at most a sixth of the view."""
        px = self._font.pixelSize()
        width = max(px * 3, min(px * 6, round(self.width() * 0.16)), 48)
        if not getattr(self, "entropy_shown", True):
            width = 0  # a slide whose lesson never speaks of it: the matrix takes the room
        if self.entropy_plot.width() != width:
            self.entropy_plot.setFixedWidth(width)

    def _fit_colorbar_axis(self) -> None:
        """The colour bar's axis as wide as its widest tick (no more: the matrix needs it)."""
        axis = self.colorbar.axis
        lo, hi = self._levels
        size = max(1.0, float(self.height()))
        try:
            levels = axis.tickValues(min(lo, hi), max(lo, hi), size)
            texts = [
                t for spacing, values in levels for t in axis.tickStrings(values, 1.0, spacing)
            ]
        except (ValueError, ZeroDivisionError, OverflowError):
            texts = []
        texts = texts or ["−0.00"]
        metrics = QFontMetricsF(self._font)
        width = (
            round(max(metrics.horizontalAdvance(t) for t in texts))
            + self._font.pixelSize() // 2
            + 12
        )
        if axis.width() != width:
            axis.setWidth(width)
