"""The painted pictures of the mixers panel's decode and depth pages.

:class:`DecodeView` draws one decoding step: the KV cache a softmax head has filled (one
cell per token so far, shaded by the weight the new query gives it), the ring of a
sliding window (``window`` slots, each labelled with the token it holds) and the fixed
d × d state of a recurrent head. :class:`ReachView` draws which positions a token depends
on through each layer of a stacked window. The panel hands them their numbers and their
(translated) words; the views only draw.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.widgets.painted import Background, PaintedWidget


def _shade(theme, value: float, negative: bool = False) -> QColor:
    """The background blended towards the highlight (or, for a negative value, the
    second colour) by ``value`` in [0, 1]."""
    base = QColor(theme.background)
    ink = QColor(theme.entropy if negative else theme.highlight)
    a = float(np.clip(value, 0.0, 1.0))
    return QColor.fromRgbF(
        base.redF() + a * (ink.redF() - base.redF()),
        base.greenF() + a * (ink.greenF() - base.greenF()),
        base.blueF() + a * (ink.blueF() - base.blueF()),
    )


def draw_fitted(p: QPainter, rect: QRectF, text: str, align=Qt.AlignmentFlag.AlignVCenter) -> None:
    """``text`` in ``rect``: in smaller type (down to 70 %) when it is too wide, then cut
    short with an ellipsis; never past the rectangle."""
    font = QFont(p.font())
    width = QFontMetricsF(font).horizontalAdvance(text)
    if width > rect.width() > 0:
        size = font.pointSizeF() if font.pointSizeF() > 0 else font.pixelSize()
        scaled = max(size * 0.7, size * rect.width() / width)
        if font.pointSizeF() > 0:
            font.setPointSizeF(scaled)
        else:
            font.setPixelSize(max(1, int(scaled)))
    metrics = QFontMetricsF(font)
    shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
    old = p.font()
    p.setFont(font)
    p.drawText(rect, align, shown)
    p.setFont(old)


class DecodeView(PaintedWidget):
    """One decoding step: cache, ring and state (see the module docstring)."""

    background = Background.EXPORTED
    render_hints = (QPainter.RenderHint.Antialiasing,)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.t = 0
        self.n = 1
        self.cache = np.zeros(0)  # weights of the new query over tokens 1 … t
        self.ring = np.zeros(0, dtype=np.int64)  # token in each slot, 0 = empty
        self.ring_weights = np.zeros(0)
        self.state = None  # d × d, or None before the results arrive
        self.titles = ("", "", "")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_step(self, t, n, cache, ring, ring_weights, state, titles) -> None:
        """What step ``t`` of ``n`` shows; ``titles``: the three lanes' words."""
        self.t, self.n = int(t), int(n)
        self.cache = np.asarray(cache, dtype=float)
        self.ring = np.asarray(ring, dtype=np.int64)
        self.ring_weights = np.asarray(ring_weights, dtype=float)
        self.state = None if state is None else np.asarray(state, dtype=float)
        self.titles = tuple(titles)
        self.update()

    def sizeHint(self) -> QSize:
        h = QFontMetricsF(self.font()).height()
        return QSize(400, round(h * 12))

    def minimumSizeHint(self) -> QSize:
        h = QFontMetricsF(self.font()).height()
        return QSize(200, round(h * 9))

    def _has_content(self) -> bool:
        return self.t > 0

    def _paint(self, p: QPainter) -> None:
        m = QFontMetricsF(self.font())
        h = m.height()
        fg = QColor(self.theme.foreground)
        muted = QColor(self.theme.muted)
        width = self.width() - 4.0
        y = 0.0
        # The cache: n places, the first t filled; the new token's cell outlined.
        y = self._title(p, self.titles[0], y, fg)
        cell = width / max(self.n, 1)
        top = self.cache.max(initial=0.0) or 1.0
        for s in range(self.n):
            rect = QRectF(2 + s * cell, y, cell, 1.6 * h)
            if s < self.t:
                p.fillRect(rect, _shade(self.theme, self.cache[s] / top))
            p.setPen(QPen(muted if s < self.t else QColor(self.theme.masked_hatch), 0.6))
            p.drawRect(rect)
        self._outline(p, QRectF(2 + (self.t - 1) * cell, y, cell, 1.6 * h))
        y += 2.2 * h
        # The ring: its slots, each with the token it holds.
        y = self._title(p, self.titles[1], y, fg)
        slots = len(self.ring)
        cell = min(width / max(slots, 1), 6.0 * h)
        top = self.ring_weights.max(initial=0.0) or 1.0
        newest = int(np.argmax(self.ring)) if slots else -1
        for j in range(slots):
            rect = QRectF(2 + j * cell, y, cell, 1.6 * h)
            if self.ring[j]:
                p.fillRect(rect, _shade(self.theme, self.ring_weights[j] / top))
            p.setPen(QPen(muted, 0.6))
            p.drawRect(rect)
            label = str(self.ring[j]) if self.ring[j] else ""
            if label and m.horizontalAdvance(label) * 0.7 + 2 < cell:
                p.setPen(fg)
                draw_fitted(p, rect.adjusted(1, 0, -1, 0), label, Qt.AlignmentFlag.AlignCenter)
        if newest >= 0:
            self._outline(p, QRectF(2 + newest * cell, y, cell, 1.6 * h))
        y += 2.2 * h
        # The state: a d × d grid, the same size at every step.
        y = self._title(p, self.titles[2], y, fg)
        if self.state is None:
            return
        d = self.state.shape[0]
        side = max(min(self.height() - y - 2, width, 12 * h), 4.0)
        cell = side / d
        top = np.abs(self.state).max(initial=0.0) or 1.0
        for i in range(d):
            for j in range(d):
                x = self.state[i, j]
                rect = QRectF(2 + j * cell, y + i * cell, cell, cell)
                p.fillRect(rect, _shade(self.theme, abs(x) / top, negative=x < 0))
        p.setPen(QPen(muted, 0.8))
        p.drawRect(QRectF(2, y, side, side))

    def _title(self, p: QPainter, text: str, y: float, fg: QColor) -> float:
        h = QFontMetricsF(self.font()).height()
        p.setPen(fg)
        draw_fitted(p, QRectF(2, y, self.width() - 4, h), text)
        return y + 1.2 * h

    def _outline(self, p: QPainter, rect: QRectF) -> None:
        p.setPen(QPen(QColor(self.theme.foreground), 2.2))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(rect)


class ReachView(PaintedWidget):
    """Layers × positions: which positions a token depends on through each layer."""

    background = Background.EXPORTED

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.reached = np.zeros((0, 0), dtype=bool)
        self.layer_names: list[str] = []
        self.position_name = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_reach(self, reached, layer_names, position_name: str) -> None:
        """``reached``: (layers + 1) × t booleans, row l after l layers; the words for each
        row (layer 0 first) and for the positions' axis."""
        self.reached = np.asarray(reached, dtype=bool)
        self.layer_names = list(layer_names)
        self.position_name = position_name
        self.update()

    def sizeHint(self) -> QSize:
        h = QFontMetricsF(self.font()).height()
        return QSize(400, round(h * 10))

    def minimumSizeHint(self) -> QSize:
        h = QFontMetricsF(self.font()).height()
        return QSize(200, round(h * 6))

    def _has_content(self) -> bool:
        return self.reached.size > 0

    def _paint(self, p: QPainter) -> None:
        m = QFontMetricsF(self.font())
        h = m.height()
        fg = QColor(self.theme.foreground)
        rows, t = self.reached.shape
        label_w = max((m.horizontalAdvance(s) for s in self.layer_names), default=0) + 8
        width = max(self.width() - label_w - 4, 10.0)
        # Room under the grid for the position ticks and the axis name.
        height = max(self.height() - 2.6 * h, 10.0)
        row_h = min(height / rows, 2.0 * h)
        cell = width / t
        # Layer 0 (the token alone) at the bottom, the deepest layer on top.
        for r in range(rows):
            y = (rows - 1 - r) * row_h
            p.setPen(fg)
            if row_h >= 0.9 * h or r in (0, rows - 1):
                p.drawText(
                    QRectF(0, y, label_w - 6, row_h),
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    self.layer_names[r],
                )
            for s in np.flatnonzero(self.reached[r]):
                p.fillRect(
                    QRectF(label_w + s * cell, y + 1, cell, row_h - 2),
                    QColor(self.theme.entropy if s == t - 1 else self.theme.highlight),
                )
        p.setPen(QPen(QColor(self.theme.muted), 0.8))
        p.drawRect(QRectF(label_w, 0, width, rows * row_h))
        # Position ticks: the first, the last and a few between, where they fit.
        y = rows * row_h + 2
        step = max(1, int(np.ceil((m.horizontalAdvance(str(t)) + 10) / cell)))
        p.setPen(fg)
        shown = [*range(0, t - 1, step)]
        for s in [*(x for x in shown if t - 1 - x >= step), t - 1]:
            text = str(s + 1)
            x = label_w + (s + 0.5) * cell - m.horizontalAdvance(text) / 2
            x = min(max(x, label_w), self.width() - m.horizontalAdvance(text) - 2)
            p.drawText(QRectF(x, y, m.horizontalAdvance(text) + 2, h), 0, text)
        p.drawText(
            QRectF(label_w, y + 1.2 * h, width, h),
            Qt.AlignmentFlag.AlignHCenter,
            self.position_name,
        )
