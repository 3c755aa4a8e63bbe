"""RoPE as clocks: one small dial per dimension pair, the query and key hands on each.

Pair ``i`` of a head is a clock hand that RoPE turns by ``m·θ_i`` at position ``m``. A
:class:`ClockDial` draws one clock per pair in a grid, fastest pair first (rows wrap): the
query hand at ``m·θ_i``, the key hand at ``n·θ_i`` (shorter, second colour), and the arc
between them shaded, whose angle ``(m − n)·θ_i`` is all the score sees. Angles read like
a clock: 0 at 12 o'clock, clockwise. Under each clock: the pair index and its wavelength
``2π/θ_i`` in tokens. With more than :data:`MAX_PAIRS` pairs an evenly spaced subset is
drawn and the header says so.

The widget keeps only ``θ``, ``m`` and ``n``; the angles come from
:func:`attnviz.core.rope.rotation_angles`. :meth:`ClockDial.draw` paints onto any painter
(a PNG or SVG export draws the dial as the app does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip

from attnviz.core.rope import rotation_angles, wavelengths
from attnviz.ui.widgets.fit_text import fit_caption
from attnviz.ui.widgets.numbers import counted, fmt, grouped, localize
from attnviz.ui.widgets.painted import PaintedWidget

#: At most this many clocks are drawn; more pairs show an evenly spaced subset.
MAX_PAIRS = 64
_UNITS = ((1.0, ""), (1e3, "k"), (1e6, "M"), (1e9, "G"), (1e12, "T"))
_TWO_PI = 2 * math.pi


def format_wavelength(tokens: float) -> str:
    """A wavelength in tokens, at most four characters: ``6.3``, ``628``, ``1.2k``, ``3.1M``."""
    x = float(tokens)
    if not math.isfinite(x):
        return "∞"
    for scale, unit in _UNITS:
        v = x / scale
        # one decimal while it is short: 6.3, 62.8 tokens; 1.2k, but 63k
        text = f"{v:.1f}" if round(v, 1) < (100 if not unit else 10) else f"{v:.0f}"
        if float(text) < 1000 or unit == _UNITS[-1][1]:
            return localize(text) + unit
    raise AssertionError("unreachable")


def _arg(text: str, *values) -> str:
    # Qt's %1 … %9, filled from the highest so %1 never eats the start of %10
    for i in range(len(values), 0, -1):
        text = text.replace(f"%{i}", str(values[i - 1]))
    return text


def _position_text(x: float) -> str:
    return fmt(x, 2, integer=float(x).is_integer())


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(
        *((1 - t) * ca + t * cb for ca, cb in zip(a.getRgbF()[:3], b.getRgbF()[:3], strict=True))
    )


def _round_pen(color: QColor, width: float) -> QPen:
    pen = QPen(color, width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    return pen


@dataclass
class _Layout:
    """Where things go in one rectangle: the header lines and one cell per shown pair."""

    header: list[QRectF]
    centers: list[QPointF]
    radius: float
    labels: int  # lines under each clock: 2 pair and wavelength, 1 wavelength, 0 none
    line: float  # the font's line height


class ClockDial(PaintedWidget):
    """One clock per RoPE dimension pair: query hand at ``m·θ_i``, key hand at ``n·θ_i``.

    Keys: Right/Up emit ``sigStep(+1)``, Left/Down ``sigStep(-1)`` (the panel moves the
    position). Hovering a clock shows its pair, exact ``θ_i``, wavelength and angles.

    Signals
    -------
    sigStep(int)
        ±1 from the arrow keys.
    """

    sigStep = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._inv_freq = np.zeros(0)
        self._m = 0.0
        self._n = 0.0
        self._max_pairs = MAX_PAIRS
        self._shown = np.zeros(0, dtype=int)
        self.theme = None  # the palette's colours until a theme is set
        self._font: QFont | None = None
        self._hover = -1
        self._cached: tuple[tuple, _Layout] | None = None  # (rect, layout): hover is hot
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setAccessibleName(self.tr("RoPE clocks"))
        self._describe()

    # --- content --------------------------------------------------------------------
    def set_frequencies(self, inv_freq) -> None:
        """The inverse frequencies ``θ_i`` (``head_dim/2``, all > 0), fastest first."""
        f = np.asarray(inv_freq, dtype=np.float64) if np.size(inv_freq) else np.zeros(0)
        if f.size:
            wavelengths(f)  # the core's checks: 1-D, finite, > 0
        self._inv_freq = f.copy()
        self._cached = None
        self._update_shown()

    def set_positions(self, m: float, n: float) -> None:
        """The query's position ``m`` and the key's ``n`` (finite; any real number)."""
        m, n = float(m), float(n)
        if not (math.isfinite(m) and math.isfinite(n)):
            raise ValueError(f"positions must be finite, got m={m!r}, n={n!r}")
        self._m, self._n = m, n
        self._describe()
        self.update()

    def set_max_pairs(self, count: int) -> None:
        """Draw at most ``count`` (≥ 1) clocks; :data:`MAX_PAIRS` by default."""
        if int(count) < 1:
            raise ValueError(f"max pairs must be ≥ 1, got {count!r}")
        self._max_pairs = int(count)
        self._update_shown()

    def set_theme(self, theme) -> None:
        """Colours from an :class:`attnviz.ui.theme.Theme` (None: the widget's palette).

        Reads ``background``, ``foreground``, ``muted``, ``highlight`` (query) and
        ``entropy`` (key); a theme with ``query`` or ``key`` colours uses those instead, and
        a missing colour falls back to the palette.
        """
        super().set_theme(theme)

    def set_font(self, font: QFont | None) -> None:
        """The font of labels and header (None: the widget's own font).

        The theme's ``font_scale`` is not applied here: pass the scaled font.
        """
        self._font = QFont(font) if font is not None else None
        self._cached = None
        self.updateGeometry()
        self.update()

    # --- model, for panels and tests -------------------------------------------------
    def frequencies(self) -> np.ndarray:
        """A copy of ``θ_i``."""
        return self._inv_freq.copy()

    def positions(self) -> tuple[float, float]:
        """``(m, n)``."""
        return self._m, self._n

    def hand_angles(self) -> tuple[np.ndarray, np.ndarray]:
        """``(m·θ_i mod 2π, n·θ_i mod 2π)`` for every pair, radians, clockwise from 12."""
        if not self._inv_freq.size:
            return np.zeros(0), np.zeros(0)
        ang = rotation_angles([self._m, self._n], self._inv_freq)
        return ang[0], ang[1]

    def relative_angles(self) -> np.ndarray:
        """The shaded arc of every pair: ``(m − n)·θ_i`` wrapped into ``[−π, π)``.

        Positive is clockwise from the key hand to the query hand (the shorter way round).
        """
        d = (self._m - self._n) * self._inv_freq
        return np.mod(d + math.pi, _TWO_PI) - math.pi

    def pairs_shown(self) -> np.ndarray:
        """Indices of the pairs drawn, ascending (all of them up to the maximum)."""
        return self._shown.copy()

    def tooltip_text(self, pair: int) -> str:
        """What hovering over the clock of ``pair`` says."""
        theta = float(self._inv_freq[pair])
        wl = _TWO_PI / theta
        qa, ka = (float(np.degrees(a[pair])) for a in self.hand_angles())
        rel = float(np.degrees(self.relative_angles()[pair]))
        lines = [
            _arg(self.tr("Pair %1 of %2"), pair, self._inv_freq.size),
            _arg(self.tr("θ = %1 rad per token"), repr(theta)),
            _arg(
                self.tr("wavelength 2π/θ = %1 tokens (%2)"), grouped(wl, 1), format_wavelength(wl)
            ),
            _arg(self.tr("query at m = %1: %2°"), _position_text(self._m), fmt(qa, 2)),
            _arg(self.tr("key at n = %1: %2°"), _position_text(self._n), fmt(ka, 2)),
            _arg(self.tr("between them: %1° clockwise from key to query"), fmt(rel, 2)),
        ]
        return "\n".join(lines)

    def clock_centers(self) -> list[QPointF]:
        """Centre of each drawn clock (order of :meth:`pairs_shown`), widget coordinates."""
        return self._layout(QRectF(self.rect())).centers

    def pair_at(self, pos: QPointF) -> int:
        """The pair whose clock is under ``pos`` (widget coordinates), or -1."""
        layout = self._layout(QRectF(self.rect()))
        if layout.radius <= 0:
            return -1
        p = QPointF(pos)
        for pair, c in zip(self._shown.tolist(), layout.centers, strict=True):
            if math.hypot(p.x() - c.x(), p.y() - c.y()) <= layout.radius:
                return pair
        return -1

    # --- size -----------------------------------------------------------------------
    def _metrics(self) -> tuple[float, float, float]:
        """(line height, natural clock diameter, widest label) in pixels."""
        fm = QFontMetricsF(self._label_font())
        line = fm.height()
        widest = max((fm.horizontalAdvance(t) for t in self._label_texts()), default=0.0)
        return line, 2.6 * line, widest

    def sizeHint(self) -> QSize:
        n = max(1, self._shown.size)
        cols = min(n, max(1, math.ceil(math.sqrt(n * 1.8))))
        return QSize(self._natural_width(cols), self.heightForWidth(self._natural_width(cols)))

    def minimumSizeHint(self) -> QSize:
        line = QFontMetricsF(self._label_font()).height()
        return QSize(round(4 * line), round(3 * line))

    def hasHeightForWidth(self) -> bool:
        return getattr(self, "_height_for_width", True)

    def set_height_for_width(self, on: bool) -> None:
        """Ask a layout for the height the clocks want at a width (True, the default), or
        fit the clocks into whatever rectangle the layout gives (in a scrolled panel, where
        asking would make the panel as tall as 64 clocks)."""
        self._height_for_width = bool(on)
        self.updateGeometry()

    def heightForWidth(self, width: int) -> int:
        n = max(1, self._shown.size)
        line, diam, widest = self._metrics()
        pad = self._pad(line)
        cell_w = max(diam + pad, widest + pad)
        cols = max(1, min(n, int((width - 2 * pad) // cell_w)))
        rows = math.ceil(n / cols)
        return round(self._header_height(line) + rows * (diam + pad + 2 * line) + 2 * pad)

    def _natural_width(self, cols: int) -> int:
        line, diam, widest = self._metrics()
        pad = self._pad(line)
        return round(cols * max(diam + pad, widest + pad) + 2 * pad)

    # --- painting -------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        self.draw(painter, QRectF(self.rect()))
        if self.hasFocus():
            pen = QPen(self._colors()["query"], 2, Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(QRectF(self.rect()).adjusted(1, 1, -1, -1))

    def draw(self, painter: QPainter, rect: QRectF, *, background: bool = True) -> None:
        """Paint the dial into ``rect`` of any painter (widget, image, SVG)."""
        c = self._colors()
        painter.save()
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            if background:
                painter.fillRect(rect, c["background"])
            painter.setFont(self._label_font())
            layout = self._layout(rect)
            if not self._inv_freq.size:
                painter.setPen(c["muted"])
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.tr("No frequencies"))
            else:
                self._draw_header(painter, layout, c)
                self._draw_clocks(painter, layout, c)
        finally:
            painter.restore()

    def _draw_header(self, painter: QPainter, layout: _Layout, c: dict) -> None:
        if not layout.header:
            return
        fm = QFontMetricsF(painter.font())
        legend = layout.header[0]
        x, y = legend.left(), legend.center().y()
        width = max(3.0, layout.line * 0.22)
        m, n = _position_text(self._m), _position_text(self._n)
        items = [
            (c["query"], _arg(self.tr("query at m = %1"), m)),
            (c["key"], _arg(self.tr("key at n = %1"), n)),
            (None, _arg(self.tr("m − n = %1"), _position_text(self._m - self._n))),
        ]
        needed = sum(layout.line * 2.4 + fm.horizontalAdvance(t) for _c, t in items)
        if needed > legend.width():  # narrow: the colours carry the words
            items = [(c["query"], f"m = {m}"), (c["key"], f"n = {n}")]
        for color, text in items:
            need = (layout.line * 1.4 if color is not None else 0) + fm.horizontalAdvance(text)
            if x + need > legend.right():
                break
            if color is not None:
                painter.setPen(_round_pen(color, width))
                painter.drawLine(QPointF(x + width, y), QPointF(x + layout.line, y))
                x += layout.line * 1.4
            painter.setPen(c["foreground"])
            painter.drawText(
                QRectF(x, legend.top(), need, legend.height()), Qt.AlignmentFlag.AlignVCenter, text
            )
            x += fm.horizontalAdvance(text) + layout.line
        if len(layout.header) > 1:
            note = layout.header[1]
            total = self._inv_freq.size
            if self._shown.size < total:
                text = _arg(
                    self.tr("%1 of %2 pairs, evenly spaced, fast → slow"), self._shown.size, total
                )
            else:
                text = counted(self.tr("%n pair(s), fast → slow", "", total), total)
            labels = (
                self.tr("hover a clock for its numbers"),
                self.tr("under each: wavelength in tokens"),
                self.tr("under each: pair, wavelength in tokens"),
            )[layout.labels]
            text = f"{text}; {labels}"
            painter.setPen(c["muted"])
            font, shown = fit_caption(painter.font(), text, note.width(), "; ")
            painter.save()
            painter.setFont(font)
            painter.drawText(note, Qt.AlignmentFlag.AlignVCenter, shown)
            painter.restore()

    def _draw_clocks(self, painter: QPainter, layout: _Layout, c: dict) -> None:
        r = layout.radius
        if r < 2:
            return
        qa, ka = self.hand_angles()
        rel = self.relative_angles()
        logf = np.log(self._inv_freq)
        span = float(logf.max() - logf.min())
        speed = (logf - logf.min()) / span if span > 0 else np.ones_like(logf)
        hand = max(3.0, r * 0.13)  # thick enough for a projector
        ring = max(1.0, r * 0.05)
        texts = self._label_texts()
        for k, (pair, ctr) in enumerate(zip(self._shown.tolist(), layout.centers, strict=True)):
            # face tinted by speed: the fastest pair darkest (light theme), the slowest plain
            face = _mix(c["background"], c["foreground"], 0.03 + 0.15 * float(speed[pair]))
            pen = QPen(
                c["foreground"] if pair == self._hover else c["muted"],
                ring * (2 if pair == self._hover else 1),
            )
            painter.setPen(pen)
            painter.setBrush(face)
            painter.drawEllipse(ctr, r, r)
            painter.drawLine(QPointF(ctr.x(), ctr.y() - r), QPointF(ctr.x(), ctr.y() - r * 0.8))
            # the arc from the key hand to the query hand: Qt counts 1/16° counterclockwise
            # from 3 o'clock, the dial clockwise from 12
            arc = QColor(c["query"])
            arc.setAlphaF(0.35 if c["background"].lightnessF() > 0.5 else 0.5)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(arc)
            box = QRectF(ctr.x() - r * 0.92, ctr.y() - r * 0.92, r * 1.84, r * 1.84)
            painter.drawPie(
                box, round((90 - math.degrees(ka[pair])) * 16), round(-math.degrees(rel[pair]) * 16)
            )
            # query long and on the bottom, key short on top, so both show when they agree
            for angle, length, color in ((qa[pair], 0.9, c["query"]), (ka[pair], 0.6, c["key"])):
                painter.setPen(_round_pen(color, hand))
                tip = QPointF(
                    ctr.x() + r * length * math.sin(angle), ctr.y() - r * length * math.cos(angle)
                )
                painter.drawLine(ctr, tip)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(c["foreground"])
            painter.drawEllipse(ctr, hand * 0.7, hand * 0.7)
            line = layout.line
            top = ctr.y() + r + line * 0.15
            w = max(2 * r, line * 4)
            if layout.labels == 2:
                painter.setPen(c["foreground"])
                painter.drawText(
                    QRectF(ctr.x() - w, top, 2 * w, line),
                    Qt.AlignmentFlag.AlignCenter,
                    texts[2 * k],
                )
                top += line
            if layout.labels:
                painter.setPen(c["muted"])
                painter.drawText(
                    QRectF(ctr.x() - w, top, 2 * w, line),
                    Qt.AlignmentFlag.AlignCenter,
                    texts[2 * k + 1],
                )

    # --- layout ---------------------------------------------------------------------
    @staticmethod
    def _pad(line: float) -> float:
        return max(4.0, line * 0.35)

    def _header_height(self, line: float) -> float:
        return 2 * line + self._pad(line)

    def _layout(self, rect: QRectF) -> _Layout:
        """The grid that gives the largest clocks in ``rect`` (labels kept when they fit)."""
        key = (rect.x(), rect.y(), rect.width(), rect.height())
        if self._cached is None or self._cached[0] != key:
            self._cached = (key, self._compute_layout(rect))
        return self._cached[1]

    def _compute_layout(self, rect: QRectF) -> _Layout:
        line, _diam, widest = self._metrics()
        pad = self._pad(line)
        n = self._shown.size
        header: list[QRectF] = []
        area = rect.adjusted(pad, pad, -pad, -pad)
        if area.height() > 4 * line and area.width() > 6 * line:
            header = [
                QRectF(area.left(), area.top() + i * line, area.width(), line) for i in range(2)
            ]
            area.setTop(area.top() + self._header_height(line))
        if n == 0 or area.width() <= 0 or area.height() <= 0:
            return _Layout(header, [], 0.0, 0, line)
        for labels in (2, 1, 0):
            # drop label lines while they would shrink the clocks below legibility
            radius, cols = self._best_grid(area, n, line, pad, widest, labels)
            if radius >= 0.8 * line:
                break
        if radius <= 0:
            return _Layout(header, [], 0.0, 0, line)
        rows = math.ceil(n / cols)
        label_h = (labels + 0.15) * line if labels else 0.0
        cell_w = min(area.width() / cols, max(2 * radius + pad, widest + pad))
        cell_h = min(area.height() / rows, 2 * radius + pad + label_h)
        x0 = area.left() + (area.width() - cols * cell_w) / 2
        centers = [
            QPointF(
                x0 + (k % cols + 0.5) * cell_w, area.top() + (k // cols) * cell_h + pad / 2 + radius
            )
            for k in range(n)
        ]
        return _Layout(header, centers, radius, labels, line)

    @staticmethod
    def _best_grid(
        area: QRectF, n: int, line: float, pad: float, widest: float, labels: int
    ) -> tuple[float, int]:
        """(radius, columns) of the largest clocks that fit, 0 radius when none do."""
        label_h = (labels + 0.15) * line if labels else 0.0
        best = (0.0, 1)
        for cols in range(1, n + 1):
            rows = math.ceil(n / cols)
            cell_w, cell_h = area.width() / cols, area.height() / rows
            if labels and cell_w < widest + pad * 0.5:
                continue  # the labels of neighbours would touch
            diam = min(cell_w - pad, cell_h - pad - label_h, 14 * line)
            if diam / 2 > best[0]:
                best = (diam / 2, cols)
        return best

    # --- internals ------------------------------------------------------------------
    def _label_font(self) -> QFont:
        return QFont(self._font) if self._font is not None else QFont(self.font())

    def _label_texts(self) -> list[str]:
        """Index and wavelength of every shown pair, interleaved."""
        if not self._shown.size:
            return []
        wl = wavelengths(self._inv_freq[self._shown])
        out: list[str] = []
        for pair, w in zip(self._shown.tolist(), wl.tolist(), strict=True):
            out += [str(pair), format_wavelength(w)]
        return out

    def _update_shown(self) -> None:
        total = self._inv_freq.size
        if total <= self._max_pairs:
            self._shown = np.arange(total)
        else:
            picks = np.rint(np.linspace(0, total - 1, self._max_pairs)).astype(int)
            self._shown = np.unique(picks)
        self._hover = -1
        self._cached = None
        self._describe()
        self.updateGeometry()
        self.update()

    def _colors(self) -> dict[str, QColor]:
        pal = self.palette()
        roles = {
            "background": (("background",), QPalette.ColorRole.Window),
            "foreground": (("foreground",), QPalette.ColorRole.WindowText),
            "muted": (("muted",), QPalette.ColorRole.PlaceholderText),
            "query": (("query", "highlight"), QPalette.ColorRole.Highlight),
            "key": (("key", "entropy"), QPalette.ColorRole.Link),
        }
        out = {}
        for name, (attrs, role) in roles.items():
            value = next(
                (getattr(self.theme, a, None) for a in attrs if getattr(self.theme, a, None)),
                None,
            )
            color = QColor(value) if value else QColor()
            out[name] = color if color.isValid() else pal.color(role)
        return out

    def _describe(self) -> None:
        self.setAccessibleDescription(
            _arg(
                self.tr("%1 dimension pairs; query at position %2, key at position %3"),
                self._inv_freq.size,
                _position_text(self._m),
                _position_text(self._n),
            )
        )

    # --- Qt events ------------------------------------------------------------------
    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._cached = None
            self.updateGeometry()
        super().changeEvent(event)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            pair = self.pair_at(QPointF(event.pos()))
            if pair >= 0:
                QToolTip.showText(event.globalPos(), self.tooltip_text(pair), self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def mouseMoveEvent(self, event) -> None:
        pair = self.pair_at(event.position())
        if pair != self._hover:
            self._hover = pair
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        if self._hover >= 0:
            self._hover = -1
            self.update()
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:
        step = {
            Qt.Key.Key_Right: 1,
            Qt.Key.Key_Up: 1,
            Qt.Key.Key_Left: -1,
            Qt.Key.Key_Down: -1,
        }.get(event.key())
        if step is None:
            super().keyPressEvent(event)
            return
        event.accept()
        self.sigStep.emit(step)
