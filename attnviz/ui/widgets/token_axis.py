"""An axis of token labels: set a little smaller, then thinned out when they would
collide, turned upright when the column labels do not fit side by side.

pyqtgraph's :class:`AxisItem` draws tick labels horizontally only, so a sentence of thirty
tokens under a matrix loses most of its labels. :class:`TokenAxis` keeps pyqtgraph's axis
line and ticks and, on the bottom axis, draws the labels rotated by 90° when that shows
more of them; it also works out how thick the axis must be for its labels. Every label is
kept while a font down to :data:`MIN_FONT_SCALE` of the given one lets them all fit: a
complete sentence in slightly smaller type reads better than every other word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pyqtgraph.graphicsItems.AxisItem import AxisItem
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

#: Longer tokens are shortened on the axes (the hover text gives them whole).
LABEL_CHARS = 14
#: Labels may shrink to this fraction of the axis font before some are left out.
MIN_FONT_SCALE = 0.7


def shorten(label: str) -> str:
    """``label`` cut to :data:`LABEL_CHARS` characters with an ellipsis."""
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def label_step(count: float, pixels: float, per_label: float) -> int:
    """Show every ``step``-th of ``count`` labels so that each gets ``per_label`` pixels."""
    if pixels <= 0 or count <= 0:
        return 1
    fits = max(1.0, pixels / max(per_label, 1.0))
    return max(1, math.ceil(count / fits))


class TokenAxis(AxisItem):
    """The left (queries) or bottom (keys) axis of a heatmap, one label per cell centre."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.rotated = False
        self._labels: tuple[str, ...] = ()
        self._shown: list[tuple[float, str]] = []
        self._base_font = QFont()
        self._font = QFont()
        self._base_widest = 0.0
        self._widest = 0.0
        #: The thickest the axis may be (pixels), or None; longer labels are cut to fit.
        self.max_thickness: float | None = None

    def set_labels(self, labels: Sequence[str], font: QFont) -> None:
        """The full list of labels, one per row or column, and the font they are drawn in."""
        labels = tuple(shorten(s) for s in labels)
        if labels == self._labels and font == self._base_font:
            return  # called on every resize: measuring thousands of labels is not free
        self._labels = labels
        self._base_font = QFont(font)
        metrics = QFontMetricsF(self._base_font)
        self._base_widest = max((metrics.horizontalAdvance(s) for s in labels), default=0.0)
        self._font = QFont()  # measured again by the next relayout
        self._use_font(self._base_font)

    def _font_at(self, pixels: int) -> QFont:
        font = QFont(self._base_font)
        if font.pixelSize() > 0:
            font.setPixelSize(pixels)
        else:  # a point-sized font: scale by the same fraction
            base = QFontMetricsF(self._base_font).height() or 1.0
            font.setPointSizeF(self._base_font.pointSizeF() * pixels / base)
        return font

    def _use_font(self, font: QFont) -> None:
        """Draw the labels in ``font`` (the given font, or a smaller one)."""
        self._font = font
        # Measured anew each time: a relayout may have cut the labels (and this) shorter.
        base = QFontMetricsF(self._base_font).height() or 1.0
        self._widest = self._base_widest * QFontMetricsF(font).height() / base
        if self.style.get("tickFont") != font:
            self.style["tickFont"] = font  # pyqtgraph draws the horizontal labels with it
            self.picture = None

    def font_scale(self) -> float:
        """The labels' font size now, as a fraction of the font given to :meth:`set_labels`."""
        return QFontMetricsF(self._font).height() / max(
            QFontMetricsF(self._base_font).height(), 1.0
        )

    def relayout(self) -> float:
        """Choose the labels' size, which to show and their direction; return the axis
        thickness.

        The thickness is the width of a left axis or the height of a bottom axis, title
        included, so that neighbouring plots can be given the same.
        """
        lo, hi = sorted(self.range)
        rect = self.linkedView().boundingRect() if self.linkedView() is not None else QRectF()
        sizes = self._smaller_sizes()
        step, rotated = self._choose_step(hi - lo, rect, sizes)
        self.rotated = rotated
        line = QFontMetricsF(self._font).height()
        ticks = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0]
        title = QFontMetricsF(self._base_font).height() * 1.6 if self.label.isVisible() else 0.0
        shown = [(i + 0.5, self._labels[i]) for i in range(0, len(self._labels), step)]
        if self.orientation == "left" or rotated:
            shown, thickness = self._fit_across(shown, sizes, line, ticks, title)
        else:
            thickness = line + ticks + title + 4
        self._shown = shown
        # Rotated labels are drawn here; pyqtgraph gets none, or it would clip them.
        self.setTicks([[] if self.rotated else self._shown])
        self.picture = None
        self.update()
        return round(thickness)

    def _choose_step(self, count: float, rect: QRectF, sizes: list[QFont]) -> tuple[int, bool]:
        """``(step, rotated)`` for ``count`` labels in ``rect``, after choosing the font
        (the given one or one of the smaller ``sizes``) that shows the most of them."""
        self._use_font(self._base_font)
        step, rotated = self._placement(count, rect)
        if self.orientation != "left" and (step > 1 or rotated):
            step, rotated = self._side_by_side(count, rect, sizes, step, rotated)
        if step > 1:
            step, rotated = self._every_label(count, rect, sizes)
        return step, rotated

    def _side_by_side(
        self, count: float, rect: QRectF, sizes: list[QFont], step: int, rotated: bool
    ) -> tuple[int, bool]:
        """Every column label side by side in the largest of the smaller ``sizes`` that
        fits them, or else ``(step, rotated)`` unchanged in the given font.

        Side by side in smaller type reads better, and takes less height, than upright.
        """
        for font in sizes:
            self._use_font(font)
            if self._placement(count, rect, upright=False)[0] == 1:
                return 1, False
        self._use_font(self._base_font)
        return step, rotated

    def _every_label(self, count: float, rect: QRectF, sizes: list[QFont]) -> tuple[int, bool]:
        """The placement in the largest of the smaller ``sizes`` that shows every label, or
        in the given font when none does.

        Smaller type before fewer labels: each pixel size down to the minimum is tried.
        """
        for font in sizes:
            self._use_font(font)
            step, rotated = self._placement(count, rect)
            if step == 1:
                return step, rotated
        self._use_font(self._base_font)
        return self._placement(count, rect)

    def _fit_across(
        self,
        shown: list[tuple[float, str]],
        sizes: list[QFont],
        line: float,
        ticks: float,
        title: float,
    ) -> tuple[list[tuple[float, str]], float]:
        """``(shown, thickness)`` for labels that lie along the axis' thickness (a left
        axis, or rotated ones): made smaller, then cut, to keep within
        :attr:`max_thickness` beside the room the ``ticks`` and the ``title`` take."""
        room = None if self.max_thickness is None else self.max_thickness - ticks - title - 6
        metrics = QFontMetricsF(self._font)
        if room is not None and _widest(shown, self._font) > room:
            metrics = self._shrink_to(room, shown, sizes, line, metrics)
        if room is not None and _widest(shown, self._font) > room:
            # Labels along the thickness are cut to leave the matrix its room (the hover
            # text names every token whole).
            room = max(room, metrics.horizontalAdvance("M…"))
            elide = Qt.TextElideMode.ElideRight
            shown = [(pos, metrics.elidedText(text, elide, room)) for pos, text in shown]
            self._widest = max(metrics.horizontalAdvance(t) for _p, t in shown)
        widest = self._widest
        if self.orientation == "left":
            # As wide as the labels in the given font, even when they are drawn smaller: the
            # row labels' size follows the height, and a width that followed it in turn
            # would move the column labels, and the height, again (a loop of relayouts).
            widest = self._base_widest if room is None else min(self._base_widest, room)
            widest = max(widest, self._widest)
        return shown, widest + ticks + title + 6

    def _shrink_to(
        self,
        room: float,
        shown: list[tuple[float, str]],
        sizes: list[QFont],
        line: float,
        metrics: QFontMetricsF,
    ) -> QFontMetricsF:
        """Try the ``sizes`` smaller than ``line`` until the ``shown`` labels fit ``room``;
        return the metrics of the font that fits, else ``metrics`` as given (the smallest
        font tried stays in use).

        Smaller type before cut words ("dinh…" on a slide): the labels only get smaller, so
        the placement found before still holds. Only the labels shown count: every fourth
        token's need not make room for "attention".
        """
        for font in sizes:
            if QFontMetricsF(font).height() >= line:
                continue
            self._use_font(font)
            if _widest(shown, font) <= room:
                return QFontMetricsF(self._font)
        return metrics

    def _smaller_sizes(self) -> list[QFont]:
        """The fonts to try below the given one, one pixel apart, down to the minimum."""
        base = self._base_font.pixelSize()
        if base <= 0:
            base = round(QFontMetricsF(self._base_font).height())
        low = math.ceil(base * MIN_FONT_SCALE)
        return [self._font_at(pixels) for pixels in range(base - 1, low - 1, -1)]

    def _placement(self, count: float, rect: QRectF, upright: bool = True) -> tuple[int, bool]:
        """``(step, rotated)`` for the labels in the current font (never rotated unless
        ``upright``)."""
        line = QFontMetricsF(self._font).height()
        if self.orientation == "left":
            return label_step(count, rect.height(), line * 1.1), False
        step = label_step(count, rect.width(), self._widest + line)
        rotated = label_step(count, rect.width(), line * 1.15)
        if upright and step > 1 and rotated < step:
            return rotated, True
        return step, False

    def shown_labels(self) -> list[str]:
        """The labels placed now (after thinning out)."""
        return [label for _pos, label in self._shown]

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs) -> None:
        if not self.rotated:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setFont(self._font)
        p.setPen(self.textPen())
        p.setClipRect(self.boundingRect())
        flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for x, top, text in self._upright():
            p.save()
            p.translate(x, top)
            p.rotate(-90)  # text runs upwards; its end sits next to the axis
            p.drawText(self._upright_rect(), flags, text)
            p.restore()

    def _upright(self) -> list[tuple[float, float, str]]:
        """``(x, top, text)`` of each upright label drawn: where its end meets the axis."""
        bounds = self.boundingRect()
        lo, hi = self.range
        if hi == lo:
            return []
        line = QFontMetricsF(self._font).height()
        top = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][1]
        out = []
        for pos, text in self._shown:
            x = bounds.left() + (pos - lo) * bounds.width() / (hi - lo)
            if bounds.left() + line / 2 <= x <= bounds.right() - line / 2:
                out.append((x, top, text))  # else half of it would be clipped
        return out

    def _upright_rect(self) -> QRectF:
        line = QFontMetricsF(self._font).height()
        return QRectF(-self._widest - 2, -line / 2, self._widest, line)

    def label_boxes(self) -> list[tuple[str, QRectF]] | None:
        """``(text, rect)`` of each upright label in the axis's coordinates (the text check
        reads them), or None when the labels lie flat as pyqtgraph draws them."""
        if not self.rotated:
            return None
        metrics = QFontMetricsF(self._font)
        out = []
        for x, top, text in self._upright():
            width = metrics.horizontalAdvance(text)
            # Rotated by −90° about (x, top): the rect's right end comes to the top.
            out.append((text, QRectF(x - metrics.height() / 2, top + 2, metrics.height(), width)))
        return out


def _widest(shown, font: QFont) -> float:
    """The widest of the ``(position, text)`` labels ``shown`` in ``font``."""
    metrics = QFontMetricsF(font)
    return max((metrics.horizontalAdvance(text) for _pos, text in shown), default=0.0)
