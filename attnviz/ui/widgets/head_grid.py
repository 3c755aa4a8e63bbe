"""Every head's attention map as small multiples, the heads sharing a KV head framed together.

One tile per query head (rows: queries, columns: keys), laid out group by group: the heads
that read the same KV head sit inside one frame in that KV head's colour, so MHA shows one
frame per head, GQA a few frames of several heads and MQA a single frame around all of
them. The selected head has a thick outline; clicking a tile (or the arrow keys) selects
another, and the cell under the mouse is reported for a status line. Masked cells are the
theme's grey, never a colour of the scale. A head switched off at W^O's input keeps its map
under a veil of the background colour, its caption muted.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.ui.theme import Theme
from attnviz.ui.widgets.fit_text import fit_caption
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.plot_style import line_width, series_color
from attnviz.ui.widgets.svg_cells import draw_cells

#: How much of a switched-off head's map the veil hides (its cells still show through).
OFF_VEIL = 0.6


def rgb_image(values: np.ndarray, lut: np.ndarray, allowed, masked: QColor) -> QImage:
    """An RGB image of ``values`` in 0…1 through ``lut`` (256×3), masked cells grey."""
    idx = np.clip(np.nan_to_num(values) * 255 + 0.5, 0, 255).astype(np.uint8)
    rgb = lut[idx]
    if allowed is not None:
        rgb[~allowed] = (masked.red(), masked.green(), masked.blue())
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    rows, cols = values.shape
    image = QImage(rgb.data, cols, rows, 3 * cols, QImage.Format.Format_RGB888)
    return image.copy()  # own the pixels: rgb goes away with this frame


def paint_unit_bar(
    painter: QPainter, lut: np.ndarray, colors, metrics, geometry, caption: str, ends=None
):
    """Under a grid of 0…1 tiles: "0", the colour bar ``lut`` (256×3), "1", then
    ``caption`` in the width left: in a smaller type if need be (down to 70 %), then
    without its last " · " parts, never cut in the middle of a word. ``ends``: the texts
    of the bar's two ends instead of 0 and 1 (a signed difference's −m and +m).

    ``colors`` is (text, muted caption); ``geometry`` is (top, line height, bar width,
    widget width) in pixels.
    """
    fg, muted = colors
    top, line, bar_width, width = geometry
    text_0, text_1 = ends if ends is not None else (fmt(0, integer=True), fmt(1, integer=True))
    left = 8 + metrics.horizontalAdvance(text_0) + 6
    bar = QRectF(left, top, bar_width, line * 0.7)
    draw_cells(painter, bar, QImage(lut.tobytes(), 256, 1, 3 * 256, QImage.Format.Format_RGB888))
    painter.setPen(fg)
    painter.drawText(QRectF(8, top, left - 8, bar.height()), Qt.AlignmentFlag.AlignVCenter, text_0)
    painter.drawText(
        QRectF(bar.right() + 6, top, metrics.horizontalAdvance(text_1) + 4, bar.height()),
        Qt.AlignmentFlag.AlignVCenter,
        text_1,
    )
    painter.setPen(muted)
    x = bar.right() + 12 + metrics.horizontalAdvance(text_1)
    room = width - x - 4
    font, text = fit_caption(painter.font(), caption, room)
    painter.save()
    painter.setFont(font)
    painter.drawText(
        QRectF(x, top - line * 0.3, room, line * 1.3), Qt.AlignmentFlag.AlignVCenter, text
    )
    painter.restore()


def grid_layout(n_groups: int, per_group: int, width: float, height: float, label: float):
    """Tile size and arrangement that fill ``width × height`` best.

    Returns ``(tile, group_cols, tile_cols)``: ``group_cols`` frames side by side, each
    holding its heads in rows of ``tile_cols``; ``label`` is the height of a line of text
    (a tile's caption, a frame's title).
    """
    gap, pad = label * 0.5, label * 0.5
    best = (0.0, 1, 1)
    for gc in range(1, n_groups + 1):
        gr = math.ceil(n_groups / gc)
        for tc in range(1, per_group + 1):
            tr = math.ceil(per_group / tc)
            free_w = width - (gc - 1) * gap - gc * (2 * pad + (tc - 1) * pad)
            free_h = height - (gr - 1) * gap - gr * (label + 2 * pad + (tr - 1) * pad + tr * label)
            tile = min(free_w / (gc * tc), free_h / (gr * tr))
            if tile > best[0]:
                best = (tile, gc, tc)
    return best


class HeadGrid(PaintedWidget):
    """Small multiples of ``(h, n, n)`` attention weights, grouped by KV head.

    Signals
    -------
    sigHeadClicked(int)
        A tile was clicked (or an arrow key moved the selection): the head to select.
    sigHovered(str)
        A description of the cell under the mouse ("" when it leaves).
    """

    sigHeadClicked = Signal(int)  # Qt naming
    sigHovered = Signal(str)  # Qt naming
    background = Background.EXPORTED
    render_hints = (QPainter.RenderHint.Antialiasing,)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.weights: np.ndarray | None = None
        self.allowed: np.ndarray | None = None
        self.groups: tuple[tuple[int, ...], ...] = ((0,),)
        self.tokens: tuple[str, ...] = ()
        self.selected = 0
        self.off: frozenset[int] = frozenset()  # heads switched off at W^O's input
        self.message = ""
        self.lut = np.stack([np.arange(256)] * 3, axis=1).astype(np.uint8)
        self._images: list[QImage] = []
        self._tiles: list[QRectF] = []
        self._frames: list[QRectF] = []
        self._hover: tuple[int, int, int] | None = None

    def sizeHint(self) -> QSize:
        return QSize(420, 240)  # the tab group at 1280×720 is ~800×390: no scrolling

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 160)

    # --- model → view ------------------------------------------------------------------
    def set_data(self, weights, allowed, groups, tokens, selected: int, message: str = "") -> None:
        """Show ``weights`` ``(h, n, n)`` (None: ``message`` instead) grouped by ``groups``."""
        self.weights = None if weights is None else np.asarray(weights)
        self.allowed = allowed
        self.groups = tuple(groups)
        self.tokens = tuple(tokens)
        self.selected = selected
        self.message = message
        self._hover = None
        self._build_images()
        self._relayout()
        self.update()

    def set_off(self, heads) -> None:
        """Veil the tiles of ``heads``, switched off at W^O's input: their maps are as they
        were (the head still attends), their outputs leave O."""
        self.off = frozenset(heads)
        self.update()

    def set_selected(self, head: int) -> None:
        """Move the outline to ``head``."""
        self.selected = head
        self.update()

    def set_style(self, theme: Theme, lut: np.ndarray) -> None:
        """Colours of ``theme``; ``lut`` (256×3 uint8) maps weights 0…1 to colours."""
        self.theme = theme
        self.lut = np.asarray(lut, dtype=np.uint8)[:, :3]
        self._build_images()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        """Colours of ``theme``, keeping the colour map."""
        self.set_style(theme, self.lut)

    def _cells(self) -> int:
        """Cells of every tile together: one SVG writes them all as shapes, or all as
        pictures (:func:`~attnviz.ui.widgets.svg_cells.draw_cells`)."""
        return sum(image.width() * image.height() for image in self._images)

    def _build_images(self) -> None:
        self._images = []
        if self.weights is None:
            return
        masked = QColor(self.theme.masked_fill)
        self._images = [rgb_image(w, self.lut, self.allowed, masked) for w in self.weights]

    # --- geometry ----------------------------------------------------------------------
    def _line(self) -> float:
        return QFontMetricsF(self.font()).height() * 1.15

    def _bar_height(self) -> float:
        return self._line() * 2.2

    def _relayout(self) -> None:
        self._tiles, self._frames = [], []
        h = sum(len(g) for g in self.groups)
        if not h:
            return
        label = self._line()
        gap, pad = label * 0.5, label * 0.5
        width, height = self.width() - 4, self.height() - 4 - self._bar_height()
        per = max(len(g) for g in self.groups)
        tile, gc, tc = grid_layout(len(self.groups), per, width, height, label)
        tile = max(tile, 4.0)
        tr = math.ceil(per / tc)
        gw = 2 * pad + tc * tile + (tc - 1) * pad
        gh = label + 2 * pad + tr * (tile + label) + (tr - 1) * pad
        gr = math.ceil(len(self.groups) / gc)
        x0 = 2 + max(0.0, (width - (gc * gw + (gc - 1) * gap)) / 2)
        y0 = 2 + max(0.0, (height - (gr * gh + (gr - 1) * gap)) / 2)
        self._tiles = [QRectF()] * h
        for g, heads in enumerate(self.groups):
            fx, fy = x0 + (g % gc) * (gw + gap), y0 + (g // gc) * (gh + gap)
            self._frames.append(QRectF(fx, fy, gw, gh))
            for j, head in enumerate(heads):
                tx = fx + pad + (j % tc) * (tile + pad)
                ty = fy + label + pad + (j // tc) * (tile + label + pad) + label
                self._tiles[head] = QRectF(tx, ty, tile, tile)

    def resizeEvent(self, event) -> None:
        self._relayout()
        super().resizeEvent(event)

    def tile_rect(self, head: int) -> QRectF:
        """Where ``head``'s map is drawn (widget coordinates)."""
        return self._tiles[head]

    def cell_at(self, pos: QPointF) -> tuple[int, int, int] | None:
        """``(head, query, key)`` under ``pos``, or None."""
        if self.weights is None:
            return None
        n = self.weights.shape[-1]
        for head, rect in enumerate(self._tiles):
            if head < len(self.weights) and rect.contains(pos):
                row = int((pos.y() - rect.top()) / rect.height() * n)
                col = int((pos.x() - rect.left()) / rect.width() * n)
                return head, min(max(row, 0), n - 1), min(max(col, 0), n - 1)
        return None

    def head_at(self, pos: QPointF) -> int | None:
        """The head whose tile or caption holds ``pos``, or None."""
        label = self._line()
        for head, rect in enumerate(self._tiles):
            if rect.adjusted(0, -label, 0, 0).contains(pos):
                return head
        return None

    # --- painting ----------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        theme = self.theme
        fg, muted = QColor(theme.foreground), QColor(theme.muted)
        font = self.font()
        painter.setFont(font)
        if self.weights is None:
            painter.setPen(fg)
            rect = QRectF(self.rect()).adjusted(12, 12, -12, -12)
            painter.drawText(
                rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.message
            )
            return
        width = line_width(font)
        label = self._line()
        metrics = QFontMetricsF(font)
        for g, (frame, heads) in enumerate(zip(self._frames, self.groups, strict=True)):
            color = series_color(theme, g)
            painter.setPen(QPen(color, width))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(frame, label * 0.3, label * 0.3)
            title = QCoreApplication.translate("HeadGrid", "KV head %1").replace("%1", str(g))
            if metrics.horizontalAdvance(title) > frame.width() - label * 0.6:
                title = QCoreApplication.translate("HeadGrid", "KV %1").replace("%1", str(g))
            painter.setPen(color)
            painter.drawText(
                QRectF(frame.left() + label * 0.3, frame.top(), frame.width(), label),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(title, Qt.TextElideMode.ElideRight, frame.width()),
            )
            for head in heads:
                self._paint_tile(painter, head, fg, metrics, label, width)
        self._paint_bar(painter, fg, muted, metrics)

    def _paint_tile(self, painter, head: int, fg, metrics, label: float, width: float) -> None:
        rect = self._tiles[head]
        if head < len(self._images):
            draw_cells(painter, rect, self._images[head], total_cells=self._cells())
        if head in self.off:
            veil = QColor(self.theme.background)
            veil.setAlphaF(OFF_VEIL)
            painter.fillRect(rect, veil)
        caption = QCoreApplication.translate("HeadGrid", "head %1").replace("%1", str(head))
        if metrics.horizontalAdvance(caption) > rect.width():
            caption = str(head)
        selected = head == self.selected
        font = QFont(self.font())
        font.setBold(selected)
        painter.setFont(font)
        if selected:
            painter.setPen(QColor(self.theme.highlight))
        else:
            painter.setPen(QColor(self.theme.muted) if head in self.off else fg)
        # Clear of the selected tile's outline (1.5 pens wide, a pen outside the tile).
        lift = width * 1.75
        painter.drawText(
            QRectF(rect.left(), rect.top() - label - lift, rect.width(), label),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
            caption,
        )
        painter.setFont(self.font())
        if selected:
            painter.setPen(QPen(QColor(self.theme.highlight), width * 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect.adjusted(-width, -width, width, width))

    def _paint_bar(self, painter, fg, muted, metrics) -> None:
        """A colour bar 0 … 1 and what the axes are, under the tiles."""
        line = self._line()
        bottom = max((f.bottom() for f in self._frames), default=0.0)
        top = min(bottom + line * 0.6, self.height() - self._bar_height()) + line * 0.2
        caption = QCoreApplication.translate(
            "HeadGrid", "rows: queries · columns: keys · A from 0 to 1"
        )
        bar_width = min(220.0, max(60.0, self.width() * 0.3))
        paint_unit_bar(
            painter, self.lut, (fg, muted), metrics, (top, line, bar_width, self.width()), caption
        )

    # --- Qt events ---------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        head = self.head_at(event.position())
        if head is not None and event.button() == Qt.MouseButton.LeftButton:
            self.sigHeadClicked.emit(head)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        self.hover_at(event.position())
        super().mouseMoveEvent(event)

    def hover_at(self, pos: QPointF) -> None:
        """Report the cell under ``pos`` (also used by tests)."""
        cell = self.cell_at(pos)
        if cell == self._hover:
            return
        self._hover = cell
        if cell is None or self.weights is None:
            self.sigHovered.emit("")
            return
        head, row, col = cell
        tokens = self.tokens
        names = (tokens[row], tokens[col]) if max(row, col) < len(tokens) else (row, col)
        allowed = self.allowed is None or bool(self.allowed[row, col])
        value = (
            fmt(self.weights[head, row, col], 3)
            if allowed
            else QCoreApplication.translate("HeadGrid", "masked")
        )
        text = QCoreApplication.translate("HeadGrid", "head %1 · “%2” → key “%3”: A = %4")
        for mark, part in (
            ("%1", str(head)),
            ("%2", str(names[0])),
            ("%3", str(names[1])),
            ("%4", value),
        ):
            text = text.replace(mark, part)
        self.sigHovered.emit(text)

    def leaveEvent(self, event) -> None:
        self._hover = None
        self.sigHovered.emit("")
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:
        count = len(self._tiles)
        step = {
            Qt.Key.Key_Right: 1,
            Qt.Key.Key_Down: 1,
            Qt.Key.Key_Left: -1,
            Qt.Key.Key_Up: -1,
        }.get(event.key())
        if step is not None and count:
            self.sigHeadClicked.emit((self.selected + step) % count)
            return
        super().keyPressEvent(event)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and hasattr(self, "_frames"):
            self._relayout()  # captions and gaps follow the text size
