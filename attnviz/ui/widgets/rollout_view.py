"""Attention rollout drawn two ways, side by side (Abnar & Zuidema 2020).

Left, the rollout after the last layer ``R = Â_L ··· Â_1`` as a heatmap: row ``i`` is a
token of the last layer, column ``j`` how much of input token ``j`` it holds. Right, the
flow of one chosen token across the layers: row ``l`` is row ``t`` of ``Â_l ··· Â_1``, so
reading down shows the chosen token gathering the others layer by layer. Both share one
colour scale, 0 to the largest value off the identity's share, written under them.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.widgets.head_grid import paint_unit_bar
from attnviz.ui.widgets.numbers import fmt, fmt_g
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.svg_cells import draw_cells

#: Longest token label drawn (characters); the hover has the whole token.
LABEL_CHARS = 8


def _short(token: str) -> str:
    return token if len(token) <= LABEL_CHARS else token[: LABEL_CHARS - 1] + "…"


class RolloutView(PaintedWidget):
    """Rollout and one token's flow (see the module docstring). ``sigPickedToken(index)``
    when a row of the rollout is clicked; ``sigHovered(text)``."""

    sigPickedToken = Signal(int)  # Qt naming
    sigHovered = Signal(str)  # Qt naming
    background = Background.EXPORTED

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.flow = np.zeros((0, 0, 0))
        self.tokens: tuple[str, ...] = ()
        self.token = 0
        self.message = ""
        self.lut = np.zeros((256, 3), np.uint8)

    def sizeHint(self) -> QSize:
        return QSize(480, 300)

    def minimumSizeHint(self) -> QSize:
        # Room for two small maps with their titles, labels and the colour bar: in a
        # short dock the panel scrolls rather than squeeze them to nothing.
        return QSize(160, int(self._line() * 16))

    # --- model → view ------------------------------------------------------------------
    def set_flow(self, flow, tokens, token: int) -> None:
        """Show ``flow`` ``(layers, n, n)`` (the rollout after each layer) over ``tokens``,
        the flow of token ``token``."""
        self.flow = np.asarray(flow, dtype=np.float64)
        self.tokens = tuple(tokens)
        self.token = int(np.clip(token, 0, max(self.flow.shape[-1] - 1, 0)))
        self.message = ""
        self.update()

    def set_message(self, text: str) -> None:
        """Show ``text`` instead (one line: why there is no rollout)."""
        self.flow = np.zeros((0, 0, 0))
        self.message = text
        self.update()

    def set_lut(self, lut) -> None:
        """The colour map, 256×3 uint8."""
        self.lut = np.asarray(lut, dtype=np.uint8)[:, :3]
        self.update()

    @property
    def top_value(self) -> float:
        """The colour scale's top: the largest value (at least a tiny positive one)."""
        return max(float(self.flow.max()), 1e-12) if self.flow.size else 1.0

    # --- geometry ----------------------------------------------------------------------
    def _line(self) -> float:
        return QFontMetricsF(self.font()).height()

    def _label(self, i: int) -> str:
        return _short(self.tokens[i]) if i < len(self.tokens) else str(i)

    def _rects(self) -> tuple[QRectF, QRectF, float]:
        """The rollout's and the flow's cell areas, and the width of the row labels: side
        by side in a wide view, one above the other in a tall one (a dock beside the
        heatmap), whichever gives the larger cells. Each area has a title line above it
        and a line of token labels below it."""
        metrics = QFontMetricsF(self.font())
        n, layers = self.flow.shape[-1], self.flow.shape[0]
        names = [self._label(i) for i in range(n)]
        names.append(
            QCoreApplication.translate("RolloutView", "layer %1").replace("%1", str(layers - 1))
        )
        label = max(metrics.horizontalAdvance(t) for t in names) + 8
        line = self._line()
        room = self.height() - line * 2.4  # the colour bar under everything
        ratio = layers / max(n, 1)  # the flow's height over the rollout's, same cells
        # The flow's rows a line high at least, so that every layer is named (square
        # cells made two layers of 33 tokens one thin strip with one label).
        flow_min = layers * line * 1.05
        # Above each area its title, then half a line: the first row's label, centred on
        # a row smaller than a line, reaches above the cells.
        top = line * 1.9
        # Side by side: one title line and one label line around both.
        half = (self.width() - 8) / 2
        wide = min(half - label - 8, room - top - line)
        # Stacked: two titles and two label lines.
        free = room - top * 2 - line * 2
        tall = free / (1 + ratio) if free / (1 + ratio) * ratio >= flow_min else free - flow_min
        tall = min(self.width() - label - 8, tall)
        side = max(8.0, wide, tall)
        left = QRectF(label + 4, top, side, side)
        flow_h = min(max(side * ratio, flow_min), side if wide >= tall else max(free - side, 8.0))
        if wide >= tall:
            right = QRectF(half + label + 8, left.top(), side, flow_h)
        else:
            right = QRectF(left.left(), left.bottom() + line + top, side, flow_h)
        return left, right, label

    def _image(self, values: np.ndarray) -> QImage:
        at = np.clip(values / self.top_value * 255 + 0.5, 0, 255).astype(np.intp)
        rgb = np.ascontiguousarray(self.lut[at])
        h, w = values.shape
        image = QImage(rgb.tobytes(), w, h, 3 * w, QImage.Format.Format_RGB888)
        return image.copy()

    # --- painting ----------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        fg = QColor(self.theme.foreground)
        painter.setFont(self.font())
        painter.setPen(fg)
        if not self.flow.size:
            painter.drawText(
                QRectF(self.rect()).adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.message,
            )
            return
        metrics = QFontMetricsF(self.font())
        layers, n = self.flow.shape[0], self.flow.shape[-1]
        left, right, label = self._rects()
        line = self._line()
        flow_title = QCoreApplication.translate("RolloutView", "Flow of “%1” across the layers")
        titles = (
            (left, QCoreApplication.translate(
                "RolloutView", "R = Â_L ··· Â_1: rows tokens, columns what they hold")),
            (right, flow_title.replace("%1", self._label(self.token))),
        )  # fmt: skip
        for area, text in titles:  # each cut to the width its area's row has
            x = area.left() - label
            width = (self.width() - 8) / 2 if area.top() == right.top() == left.top() else (
                self.width() - 8)  # fmt: skip
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width - 8)
            painter.drawText(QRectF(max(x, 4), area.top() - line * 1.8, width - 8, line * 1.2),
                             Qt.AlignmentFlag.AlignLeft, shown)  # fmt: skip
        draw_cells(painter, left, self._image(self.flow[-1]))
        draw_cells(painter, right, self._image(self.flow[:, self.token, :]))
        cell = left.height() / n
        # Row labels: tokens of the rollout, layers of the flow (thinned to fit).
        rstep = max(1, int(np.ceil(line / cell)))
        for i in range(0, n, rstep):
            # A line high about the row's centre: never cut by small cells.
            rect = QRectF(0, left.top() + (i + 0.5) * cell - line / 2, left.left() - 4, line)
            painter.setPen(QColor(self.theme.highlight) if i == self.token else fg)
            painter.drawText(rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             self._label(i))  # fmt: skip
        painter.setPen(fg)
        lcell = right.height() / layers
        lstep = max(1, int(np.ceil(line / lcell)))
        for i in range(0, layers, lstep):
            middle = right.top() + (i + 0.5) * lcell
            rect = QRectF(right.left() - label - 4, middle - line / 2, label, line)
            text = QCoreApplication.translate("RolloutView", "layer %1").replace("%1", str(i))
            painter.drawText(
                rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text
            )
        # Token labels under each area, thinned so that none touches the next.
        widest = max(metrics.horizontalAdvance(self._label(i)) for i in range(n)) + 6
        cstep = max(1, int(np.ceil(widest / cell)))
        for area in (left, right):
            for j in range(0, n, cstep):
                x = area.left() + (j + 0.5) * cell
                rect = QRectF(x - widest / 2, area.bottom() + 2, widest, line)
                painter.drawText(rect, Qt.AlignmentFlag.AlignHCenter, self._label(j))
        # The chosen token's row on the rollout, outlined.
        painter.setPen(QPen(QColor(self.theme.highlight), 1.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(QRectF(left.left(), left.top() + self.token * cell, left.width(), cell))
        y = max(left.bottom(), right.bottom()) + line * 1.3
        caption = QCoreApplication.translate(
            "RolloutView", "share of each input token · click a row to follow that token"
        )
        colors = (fg, QColor(self.theme.muted))
        ends = (fmt(0, integer=True), fmt_g(self.top_value, 3))
        bar_width = min(200.0, max(60.0, self.width() * 0.2))
        paint_unit_bar(
            painter, self.lut, colors, metrics, (y, line, bar_width, self.width()), caption, ends
        )

    # --- Qt events ---------------------------------------------------------------------
    def cell_at(self, pos: QPointF) -> tuple[str, int, int] | None:
        """``("rollout", row, column)`` or ``("flow", layer, column)`` under ``pos``."""
        if not self.flow.size:
            return None
        left, right, _label = self._rects()
        n, layers = self.flow.shape[-1], self.flow.shape[0]
        for name, area, rows in (("rollout", left, n), ("flow", right, layers)):
            if area.contains(pos):
                r = int((pos.y() - area.top()) / area.height() * rows)
                c = int((pos.x() - area.left()) / area.width() * n)
                return name, min(r, rows - 1), min(c, n - 1)
        return None

    def hover_text(self, where: tuple[str, int, int]) -> str:
        """The value under the mouse, with what it means."""
        name, r, c = where
        full = lambda i: self.tokens[i] if i < len(self.tokens) else str(i)  # noqa: E731
        if name == "rollout":
            text = QCoreApplication.translate(
                "RolloutView", "R[“%1”, “%2”] = %3: the share of “%2” in “%1” after the last layer"
            )
            value, a, b = self.flow[-1, r, c], full(r), full(c)
        else:
            text = QCoreApplication.translate(
                "RolloutView", "after layer %4: the share of “%2” in “%1” = %3"
            )
            value, a, b = self.flow[r, self.token, c], full(self.token), full(c)
            text = text.replace("%4", str(r))
        return text.replace("%1", a).replace("%2", b).replace("%3", fmt(float(value), 3))

    def mousePressEvent(self, event) -> None:
        hit = self.cell_at(event.position())
        if hit is not None and hit[0] == "rollout" and event.button() == Qt.MouseButton.LeftButton:
            self.sigPickedToken.emit(hit[1])
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        hit = self.cell_at(event.position())
        self.sigHovered.emit("" if hit is None else self.hover_text(hit))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        self.sigHovered.emit("")
        super().leaveEvent(event)
