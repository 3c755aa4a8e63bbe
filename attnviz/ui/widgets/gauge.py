"""A memory gauge: weights and KV cache stacked against a GPU's memory, and where it stops.

Two tracks, one above the other:

- the memory bar: the weights' bytes, then the KV cache's on top of them, against a tick at
  the GPU's capacity; what does not fit is hatched past the tick;
- the context track, on a log scale of tokens: the contexts that fit beside the weights
  (up to the fit point, marked and labelled) and those that do not, with the current
  context marked.

The texts come from the panel (translated there); the gauge only lays them out, in the
widget's font, so a projector's large fonts and a 4K export stay readable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.widgets.contrast import ink_for, qcolor_rgb
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.plot_style import line_width, series_color
from attnviz.ui.widgets.units import short_tokens

#: Context track from 2^10 tokens to at least 2^20 (the track grows with the context).
TRACK_MIN_EXP, TRACK_MAX_EXP = 10, 20
MAX_TRACK_EXP = 40


@dataclass(frozen=True)
class GaugeState:
    """What the gauge shows (bytes and token counts) and its texts."""

    gpu_bytes: float
    weights_bytes: float  # 0 when unknown
    kv_bytes: float
    context: int
    max_context: int  # 0: nothing fits; ≥ 2^40: every context fits
    title: str  # one line above the bar: the sum against the GPU
    weights_text: str
    kv_text: str
    gpu_text: str
    fit_text: str  # at the fit point on the context track


def track_exponents(context: int, max_context: int) -> tuple[float, float]:
    """The context track's span in log2(tokens): it always shows the context and the fit."""
    top = max(TRACK_MAX_EXP, math.ceil(math.log2(max(context, 1))) + 1)
    if 0 < max_context < 2**MAX_TRACK_EXP:
        top = max(top, math.ceil(math.log2(max_context)) + 1)
    return TRACK_MIN_EXP, min(top, MAX_TRACK_EXP)


#: The gauge's height in lines besides its title: the bar, the GPU's label, the fit
#: point's label, the context track and its labels, with the air between them.
ROWS = 6.2


def tick_step(metrics: QFontMetricsF, lo: int, hi: int, width: float) -> int:
    """Octaves between two labelled ticks of the context track: a multiple of three
    whose labels keep a space between them at ``width`` pixels for ``hi − lo`` octaves."""
    widest = max(
        (metrics.horizontalAdvance(short_tokens(2.0**e)) for e in range(lo, hi + 1)),
        default=0.0,
    )
    gap = widest + metrics.horizontalAdvance("  ")
    step = 3
    while step < hi - lo and width * step / max(hi - lo, 1) < gap:
        step += 3
    return step


class MemoryGauge(PaintedWidget):
    """The memory bar and the context track of the memory panel."""

    background = Background.THEME
    render_hints = (QPainter.RenderHint.Antialiasing,)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.state: GaugeState | None = None
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)  # the title wraps in a narrow dock
        self.setSizePolicy(policy)

    def set_state(self, state: GaugeState) -> None:
        """Show ``state``."""
        wrapped = self.state is None or self._title_lines(self.width(), state.title) != (
            self._title_lines(self.width(), self.state.title)
        )
        self.state = state
        if wrapped:
            self.updateGeometry()
        self.update()

    def _line(self) -> float:
        return QFontMetricsF(self.font()).height()

    def _title_lines(self, width: float, title: str | None = None) -> int:
        """How many lines the title takes at ``width`` (it wraps rather than runs off)."""
        title = self.state.title if title is None and self.state else (title or "")
        fm = QFontMetricsF(self.font())
        room = max(width - 2 * self._line() * 0.3, 1.0)
        flags = int(Qt.TextFlag.TextWordWrap.value)
        height = fm.boundingRect(QRectF(0, 0, room, 1e6), flags, title).height()
        return max(1, round(height / fm.lineSpacing()))

    def _height(self, width: float) -> int:
        return math.ceil(self._line() * (ROWS + 1.2 * self._title_lines(width)))

    def sizeHint(self) -> QSize:
        return QSize(480, self._height(max(self.width(), 480)))

    def minimumSizeHint(self) -> QSize:
        return QSize(240, self._height(max(self.width(), 240)))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._height(width)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        self.updateGeometry()  # the height follows the font

    # --- painting ----------------------------------------------------------------------
    def _has_content(self) -> bool:
        return self.state is not None  # nothing at all until the panel sets a state

    def _paint(self, p: QPainter) -> None:
        s = self.state
        line = self._line()
        fg = QColor(self.theme.foreground)
        pad = line * 0.3
        width = self.width() - 2 * pad
        title = line * 1.2 * self._title_lines(self.width())
        p.setPen(QPen(fg))
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        p.drawText(QRectF(pad, 0, width, title), flags | Qt.TextFlag.TextWordWrap, s.title)
        bar = QRectF(pad, title + line * 0.1, width, line * 1.5)
        self._paint_bar(p, s, bar, line)
        # Under the bar, a line for the GPU's label, then one for the fit point's (above
        # its tick): on one line the two ran into each other whenever the fit lay near
        # the GPU's capacity on the scale above.
        track = QRectF(pad, bar.bottom() + line * 2.6, width, line * 0.7)
        self._paint_track(p, s, track, line)

    def _paint_bar(self, p: QPainter, s: GaugeState, bar: QRectF, line: float) -> None:
        used = s.weights_bytes + s.kv_bytes
        scale = max(s.gpu_bytes, used) * 1.04 or 1.0

        def x(v: float) -> float:
            return bar.left() + bar.width() * v / scale

        muted = QColor(self.theme.muted)
        p.setPen(QPen(muted, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(bar.left(), bar.top(), x(s.gpu_bytes) - bar.left(), bar.height()))
        parts = ((0.0, s.weights_bytes, 0, s.weights_text), (s.weights_bytes, used, 1, s.kv_text))
        gx = x(s.gpu_bytes)
        for lo, hi, color_index, text in parts:
            if hi <= lo:
                continue
            rect = QRectF(x(lo), bar.top(), x(hi) - x(lo), bar.height())
            color = series_color(self.theme, color_index)
            p.fillRect(rect, color)
            if rect.left() < gx < rect.right():
                # The GPU's tick runs through this part: its text goes on the side of the
                # tick with room for it, not under the tick.
                left = QRectF(rect.left(), rect.top(), gx - rect.left() - line * 0.2, rect.height())
                right = QRectF(gx + line * 0.2, rect.top(), rect.right() - gx - line * 0.2,
                               rect.height())  # fmt: skip
                rect = max(left, right, key=QRectF.width)
            self._inside(p, rect, text, color)
        if used > s.gpu_bytes:
            over = QRectF(x(s.gpu_bytes), bar.top(), x(used) - x(s.gpu_bytes), bar.height())
            p.fillRect(over, QBrush(QColor(self.theme.highlight), Qt.BrushStyle.BDiagPattern))
        # The GPU's capacity: a tall tick with its label under the bar.
        p.setPen(QPen(QColor(self.theme.foreground), line_width(self.font()) * 1.2))
        p.drawLine(QPointF(gx, bar.top() - line * 0.2), QPointF(gx, bar.bottom() + line * 0.2))
        self._label(p, gx, bar.bottom() + line * 0.25, s.gpu_text, QColor(self.theme.foreground))

    def _inside(self, p: QPainter, rect: QRectF, text: str, color: QColor) -> None:
        fm = QFontMetricsF(self.font())
        if fm.horizontalAdvance(text) + 8 > rect.width():
            return  # no room: the title line says it anyway
        p.setPen(QPen(QColor(ink_for(qcolor_rgb(color)))))
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _label(self, p: QPainter, x: float, y: float, text: str, color: QColor) -> None:
        """``text`` centred under ``x`` (kept inside the widget), in the painter's font."""
        fm = QFontMetricsF(p.font())
        w = fm.horizontalAdvance(text) + 4
        left = min(max(x - w / 2, 0.0), self.width() - w)
        p.setPen(QPen(color))
        p.drawText(QRectF(left, y, w, fm.height()), Qt.AlignmentFlag.AlignCenter, text)

    def _paint_track(self, p: QPainter, s: GaugeState, track: QRectF, line: float) -> None:
        lo, hi = track_exponents(s.context, s.max_context)

        def x(tokens: float) -> float:
            e = math.log2(max(tokens, 1.0))
            frac = min(max((e - lo) / (hi - lo), 0.0), 1.0)
            return track.left() + frac * track.width()

        good, bad = series_color(self.theme, 2), QColor(self.theme.highlight)
        fit_x = track.left() if s.max_context <= 0 else x(s.max_context)
        p.fillRect(QRectF(track.left(), track.top(), fit_x - track.left(), track.height()), good)
        bad_fill = QColor(bad)
        bad_fill.setAlphaF(0.55)
        p.fillRect(QRectF(fit_x, track.top(), track.right() - fit_x, track.height()), bad_fill)
        fg, muted = QColor(self.theme.foreground), QColor(self.theme.muted)
        # Ticks every three octaves (1k, 8k, 64k, 512k, 4M, …), or every six, nine, …
        # when their labels would run together on a narrow track.
        p.setPen(QPen(muted, 1))
        step = tick_step(QFontMetricsF(p.font()), lo, hi, track.width())
        e = lo
        while e <= hi:
            tx = x(2.0**e)
            p.drawLine(QPointF(tx, track.bottom()), QPointF(tx, track.bottom() + line * 0.25))
            self._label(p, tx, track.bottom() + line * 0.2, short_tokens(2.0**e), muted)
            e += step
        # The fit point: a tick through the track, its text above it.
        p.setPen(QPen(fg, line_width(self.font())))
        p.drawLine(QPointF(fit_x, track.top() - line * 0.25), QPointF(fit_x, track.bottom()))
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        self._label(p, fit_x, track.top() - line * 1.1, s.fit_text, fg)
        p.setFont(self.font())
        # The current context: a bar through the track, outlined so it shows on both colours.
        cx, half = x(s.context), max(2.0, line_width(self.font()))
        marker = QRectF(cx - half, track.top() - line * 0.15, 2 * half, track.height() + line * 0.3)
        p.setPen(QPen(QColor(self.theme.background), 1.5))
        p.setBrush(fg)
        p.drawRect(marker)
