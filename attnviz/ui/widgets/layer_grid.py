"""Every head of every layer of a real model as a grid of small maps: rows layers, columns heads.

Each tile is one head's attention weights (rows: queries, columns: keys), at most
:data:`MAX_TILE_CELLS` cells a side (a longer sentence is shown by the largest weight of
each block, so a sharp link is never averaged away). With a link chosen (a query and a
key), each tile is filled with the colour of that one weight instead and shows its value
when there is room: the heads that carry the link stand out at once. The head shown in the
other panels is outlined; a click (or the arrow keys) picks another. A hybrid model's
layer without softmax attention (a Gated DeltaNet, a Mamba-2 block, …) is a band across
its row naming its kind: it has no attention weights to draw. With a ``span`` (before /
after: intervened − clean) the tiles are signed, −span … +span through a diverging map,
and a block of a long sentence shows its value farthest from 0.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.core.block_pool import SIDE, block_extreme, block_max
from attnviz.ui.theme import Theme
from attnviz.ui.widgets._grid_mixing import MixingTiles
from attnviz.ui.widgets.contrast import ink_for, qcolor_rgb
from attnviz.ui.widgets.grid_axes import paint_grid_labels
from attnviz.ui.widgets.head_grid import paint_unit_bar, rgb_image
from attnviz.ui.widgets.numbers import fmt, fmt_g, shown_decimals
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.plot_style import line_width
from attnviz.ui.widgets.svg_cells import draw_cells

#: Largest tile image side in cells: 448 tiles of 64² stay a few megabytes.
MAX_TILE_CELLS = SIDE


class LayerGrid(MixingTiles, PaintedWidget):
    """Small multiples of ``(layers, heads, n, n)`` weights (see the module docstring).

    Signals
    -------
    sigPicked(int, int)
        A tile was clicked (or an arrow key moved): ``(layer, head)`` to show.
    sigHovered(str)
        What is under the mouse ("" when it leaves).
    """

    sigPicked = Signal(int, int)  # Qt naming
    sigHovered = Signal(str)  # Qt naming
    background = Background.EXPORTED

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        # Per layer (h, n, n), or pooled (h, P, P); None: a layer without softmax attention.
        self.weights: list[np.ndarray | None] = []
        self.kinds: tuple[str, ...] = ()  # what each layer does (a hybrid's), or ()
        self.masks: list[np.ndarray | None] = []
        self.value = None  # exact weights of pooled maps: value(layer, head, query, key)
        self.tokens: tuple[str, ...] = ()
        self.selected = (0, 0)
        self.link: tuple[int, int] | None = None
        self.by_link = False
        self.message = ""
        self.lut = np.stack([np.arange(256)] * 3, axis=1).astype(np.uint8)
        self.span: float | None = None  # signed tiles −span … +span (a difference), or 0…1
        self.symbol = "A"
        self.note = ""  # said under the grid before what a tile is (before / after)
        self._images: list[list[QImage]] = []
        self._hover: tuple | None = None
        self._init_mixing()

    def sizeHint(self) -> QSize:
        return QSize(480, 300)

    def minimumSizeHint(self) -> QSize:
        return QSize(160, 90)  # tiles shrink rather than push the panel into scrolling

    # --- model → view ------------------------------------------------------------------
    def set_data(
        self, weights, tokens, selected: tuple[int, int], value=None, kinds=(), masks=()
    ) -> None:
        """Show ``weights``: one ``(h, n, n)`` array per layer (empty: the message), None
        for a layer without softmax attention (``kinds`` names what each layer does). A
        long sentence's are pooled maps ``(h, P, P)``: ``value(layer, head, query, key)``
        then gives an exact weight for the hover and the link, over the tokens'
        positions."""
        self.weights = [None if w is None else np.asarray(w) for w in weights]
        self.kinds = tuple(kinds)
        # A sparse-attention layer's choice of keys (n × n bool): the others drawn hatched.
        self.masks = [masks[i] if i < len(masks) else None for i in range(len(self.weights))]
        self.tokens = tuple(tokens)
        self.value = value
        self.selected = selected
        self._hover = None
        self.mixing = []  # a new capture: its mixing matrices come after (set_mixing)
        self._build_images()
        self.update()

    def set_message(self, text: str) -> None:
        """Show ``text`` instead of the grid."""
        self.weights, self._images, self.message = [], [], text
        self.mixing, self._mix_images = [], {}
        self.update()

    def set_selected(self, layer: int, head: int) -> None:
        """Outline head ``head`` of layer ``layer``."""
        self.selected = (layer, head)
        self.update()

    def set_link(self, link: tuple[int, int] | None, by_link: bool) -> None:
        """The link (query, key) to mark, and whether tiles are filled by its weight."""
        self.link, self.by_link = link, by_link and link is not None
        self.update()

    def set_style(self, theme: Theme, lut: np.ndarray) -> None:
        """Colours of ``theme``; ``lut`` (256×3 uint8) maps weights 0…1 to colours."""
        self.theme = theme
        self.lut = np.asarray(lut, dtype=np.uint8)[:, :3]
        self._build_images()
        self._build_mixing_images()
        self.update()

    def set_span(self, span: float | None, symbol: str = "A", note: str = "") -> None:
        """Signed tiles from −``span`` to +``span`` (None: weights 0…1), the value's
        ``symbol`` in the hover, and a ``note`` under the grid; call :meth:`set_style`
        (or :meth:`set_data`) after it with the colours to use."""
        self.span, self.symbol, self.note = span, symbol, note

    def _unit(self, values):
        """``values`` as positions 0…1 along the colour map."""
        if self.span is None:
            return values
        return (np.asarray(values, dtype=np.float64) + self.span) / (2 * self.span)

    def set_theme(self, theme: Theme) -> None:
        """Colours of ``theme``, keeping the colour map."""
        self.set_style(theme, self.lut)

    def _cells(self) -> int:
        """Cells of every tile together: one SVG writes them all as shapes, or all as
        pictures (:func:`~attnviz.ui.widgets.svg_cells.draw_cells`)."""
        tiles = (image for row in self._images if row is not None for image in row)
        return sum(image.width() * image.height() for image in tiles)

    def _build_images(self) -> None:
        masked = QColor(self.theme.masked_fill)
        self._images = []
        for i, layer in enumerate(self.weights):
            if layer is None:
                self._images.append(None)
                continue
            chosen = self.masks[i] if i < len(self.masks) else None
            if chosen is not None and chosen.shape == layer.shape[1:]:
                # A block is drawn when any key in it was chosen (as the weights' maxima).
                chosen = block_max(chosen.astype(np.float32)) > 0
            else:
                chosen = None
            shrink = block_max if self.span is None else block_extreme
            self._images.append(
                [rgb_image(self._unit(shrink(w)), self.lut, chosen, masked) for w in layer]
            )

    def _heads(self) -> int:
        """Columns of the grid: the most heads of any layer (its mixing heads after)."""
        return max(
            (
                max(self._softmax_heads(i), self.mixing_heads(i).stop)
                for i in range(len(self.weights))
            ),
            default=0,
        )

    def _softmax_heads(self, layer: int) -> int:
        w = self.weights[layer] if 0 <= layer < len(self.weights) else None
        return 0 if w is None else int(w.shape[0])

    def has_tile(self, layer: int, head: int) -> bool:
        """True when head ``head`` of layer ``layer`` is drawn as a tile."""
        if not 0 <= layer < len(self.weights):
            return False
        return 0 <= head < self._softmax_heads(layer) or head in self.mixing_heads(layer)

    def _has_tiles(self, layer: int) -> bool:
        return self._softmax_heads(layer) > 0 or len(self.mixing_heads(layer)) > 0

    def kind_text(self, layer: int) -> str:
        """What layer ``layer`` does, as its band says: "" for plain softmax attention."""
        kind = self.kinds[layer] if layer < len(self.kinds) else "softmax"
        return "" if kind == "softmax" else kind

    # --- geometry ----------------------------------------------------------------------
    def _line(self) -> float:
        return QFontMetricsF(self.font()).height()

    def _geometry(self) -> tuple[float, float, float, float]:
        """``(left, top, tile, gap)``: where the first tile starts and the tiles' size."""
        metrics = QFontMetricsF(self.font())
        layers, heads = len(self.weights), max(self._heads(), 1)
        left = (
            metrics.horizontalAdvance(
                QCoreApplication.translate("LayerGrid", "layer %1").replace("%1", str(layers - 1))
            )
            + 16
        )
        top = self._line() * 1.3
        bar = self._line() * 2.0
        w, h = self.width() - left - 4, self.height() - top - bar - 4
        tile = max(4.0, min(w / heads, h / layers))
        gap = max(1.0, tile * 0.08)
        return left, top, tile, gap

    def tile_rect(self, layer: int, head: int) -> QRectF:
        """Where head ``head`` of layer ``layer`` is drawn (widget coordinates)."""
        left, top, tile, gap = self._geometry()
        return QRectF(left + head * tile, top + layer * tile, tile - gap, tile - gap)

    def tile_at(self, pos: QPointF) -> tuple[int, int] | None:
        """``(layer, head)`` under ``pos``, or None."""
        if not self.weights:
            return None
        left, top, tile, _gap = self._geometry()
        layer, head = int((pos.y() - top) // tile), int((pos.x() - left) // tile)
        return (layer, head) if self.has_tile(layer, head) else None

    # --- painting ----------------------------------------------------------------------
    def _paint(self, painter: QPainter) -> None:
        theme = self.theme
        fg = QColor(theme.foreground)
        painter.setFont(self.font())
        if not self.weights:
            painter.setPen(fg)
            painter.drawText(
                QRectF(self.rect()).adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.message,
            )
            return
        metrics = QFontMetricsF(self.font())
        left, top, tile, gap = self._geometry()
        layers, heads = len(self.weights), self._heads()
        painter.setPen(fg)
        paint_grid_labels(
            painter,
            metrics,
            (left, top, tile, gap),
            layers,
            heads,
            QCoreApplication.translate("LayerGrid", "layer %1"),
        )
        # One decimals rule for the grid's numbers (a heatmap of one cell per head).
        decimals = self._link_decimals() if self.by_link else 0
        for i in range(layers):
            if not self._has_tiles(i):
                self._paint_band(painter, i, heads, metrics)
                continue
            for j in range(self._softmax_heads(i)):
                self._paint_tile(painter, i, j, metrics, decimals)
            for j in self.mixing_heads(i):
                self._paint_mixing_tile(painter, i, j, metrics)
            if len(self.mixing_heads(i)):
                self._paint_mixing_scale(painter, i, metrics)
        self._paint_selection(painter)
        self._paint_bar(painter, fg, metrics, top + layers * tile)

    def _paint_band(self, painter, layer: int, heads: int, metrics) -> None:
        """A layer without softmax attention: a muted band across its row, its kind in it
        when it fits (the hover says it always)."""
        left, top, tile, gap = self._geometry()
        rect = QRectF(left, top + layer * tile, heads * tile - gap, tile - gap)
        painter.fillRect(rect, QColor(self.theme.masked_fill))
        text = self.kind_text(layer)
        if self.mixing_refusal(layer):
            text = fill(QCoreApplication.translate("LayerGrid", "%1: not drawn"), text)
        if metrics.height() <= rect.height() + 2 and metrics.horizontalAdvance(text) < rect.width():
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _link_decimals(self) -> int:
        """The decimals every tile writes the linked cell's weight with: those the whole
        set of values needs (0.6169 is not written beside 0.18)."""
        q, k = self.link
        values = [
            self._value(i, j, q, k)
            for i in range(len(self.weights))
            for j in range(self._softmax_heads(i))
        ]
        return shown_decimals(values) if values else 2

    def _paint_tile(self, painter, layer: int, head: int, metrics, decimals: int) -> None:
        rect = self.tile_rect(layer, head)
        if not self.by_link:
            draw_cells(painter, rect, self._images[layer][head], total_cells=self._cells())
            if self.link is not None and rect.width() >= 12:
                n = self._n(layer)
                q, k = self.link
                x, y = rect.left() + k / n * rect.width(), rect.top() + q / n * rect.height()
                cell = QRectF(x, y, max(2.0, rect.width() / n), max(2.0, rect.height() / n))
                painter.setPen(QPen(QColor(self.theme.highlight), 1.0))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(cell)
            return
        value = self._value(layer, head, *self.link)
        at = float(self._unit(value))
        color = QColor(*(int(c) for c in self.lut[int(np.clip(at * 255 + 0.5, 0, 255))]))
        painter.fillRect(rect, color)
        text = fmt(value, decimals)
        if metrics.horizontalAdvance(text) < rect.width() - 2 and metrics.height() < rect.height():
            painter.setPen(QColor(ink_for(qcolor_rgb(color))))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_mixing_tile(self, painter, layer: int, head: int, metrics) -> None:
        """A head of a hybrid's other layer: its M, or with a link the one value M[q, k]."""
        rect = self.tile_rect(layer, head)
        if not self.by_link:
            image = self._mix_images[layer][head - self.mixing_heads(layer).start]
            draw_cells(painter, rect, image, total_cells=self._cells())
            return
        value = self._mixing_value(layer, head, *self.link)
        color = self._mixing_color(layer, value)
        painter.fillRect(rect, color)
        text = fmt_g(value, 2)
        if metrics.horizontalAdvance(text) < rect.width() - 2 and metrics.height() < rect.height():
            painter.setPen(QColor(ink_for(qcolor_rgb(color))))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_selection(self, painter) -> None:
        layer, head = self.selected
        if not self.has_tile(layer, head):
            return
        width = line_width(self.font()) * 1.5
        painter.setPen(QPen(QColor(self.theme.highlight), width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.tile_rect(layer, head).adjusted(-width, -width, width, width))

    def _paint_bar(self, painter, fg, metrics, y: float) -> None:
        """A colour bar 0 … 1 and what a tile is, under the grid."""
        line = self._line()
        if self.by_link:
            caption = QCoreApplication.translate(
                "LayerGrid", "each head: A of the chosen link · columns: heads"
            )
        else:
            caption = QCoreApplication.translate(
                "LayerGrid", "each head: rows queries, columns keys · columns: heads"
            )
        if self.note:
            caption = f"{self.note} · {caption}"
        mixing = self.mixing_caption()
        if mixing:
            caption = f"{caption} · {mixing}"
        if self.link is not None and max(self.link) < len(self.tokens):
            link = fill(
                QCoreApplication.translate("LayerGrid", "“%1” → “%2”"),
                self.tokens[self.link[0]],
                self.tokens[self.link[1]],
            )
            caption = f"{link} · {caption}" if self.by_link else f"□ {link} · {caption}"
        bar_width = min(200.0, max(60.0, self.width() * 0.25))
        geometry = (y + line * 0.4, line, bar_width, self.width())
        colors = (fg, QColor(self.theme.muted))
        ends = None if self.span is None else (fmt_g(-self.span, 3), fmt_g(self.span, 3))
        paint_unit_bar(painter, self.lut, colors, metrics, geometry, caption, ends)

    # --- Qt events ---------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        hit = self.tile_at(event.position())
        if hit is not None and event.button() == Qt.MouseButton.LeftButton:
            self.sigPicked.emit(*hit)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        self.hover_at(event.position())
        super().mouseMoveEvent(event)

    def hover_at(self, pos: QPointF) -> None:
        """Report what is under ``pos`` (also used by tests)."""
        hit = self.tile_at(pos)
        band = self._band_at(pos) if hit is None else None
        if band is not None:
            if self._hover != ("band", band):
                self._hover = ("band", band)
                refusal = self.mixing_refusal(band)
                if refusal:
                    text = fill(
                        QCoreApplication.translate("LayerGrid", "layer %1: %2 — %3"),
                        band,
                        self.kind_text(band),
                        refusal,
                    )
                else:
                    text = fill(
                        QCoreApplication.translate(
                            "LayerGrid", "layer %1: %2 — no softmax attention, no weights to draw"
                        ),
                        band,
                        self.kind_text(band),
                    )
                self.sigHovered.emit(text)
            return
        if hit is None:
            self._hover = None
            self.sigHovered.emit("")
            return
        layer, head = hit
        n = self._n(layer)
        if self.by_link:
            q, k = self.link
        else:
            rect = self.tile_rect(layer, head)
            q = int(np.clip((pos.y() - rect.top()) / max(rect.height(), 1e-9) * n, 0, n - 1))
            k = int(np.clip((pos.x() - rect.left()) / max(rect.width(), 1e-9) * n, 0, n - 1))
        key = (layer, head, q, k)
        if key == self._hover:
            return
        self._hover = key
        if head in self.mixing_heads(layer):
            self.sigHovered.emit(self._mixing_hover(layer, head, q, k))
            return
        names = (self.tokens[q], self.tokens[k]) if max(q, k) < len(self.tokens) else (q, k)
        value = self._value(layer, head, q, k)
        if self.symbol == "A":
            text = QCoreApplication.translate(
                "LayerGrid", "layer %1 · head %2 · “%3” → “%4”: A = %5"
            )
            text = fill(text, layer, head, names[0], names[1], fmt(value, 3))
        else:  # before / after: ΔA or A′, a change as small as 1e-5 still written
            text = QCoreApplication.translate(
                "LayerGrid", "layer %1 · head %2 · “%3” → “%4”: %5 = %6"
            )
            text = fill(text, layer, head, names[0], names[1], self.symbol, fmt_g(value, 3))
        kind = self.kind_text(layer)  # "softmax (NoPE)", "softmax + Mamba-2"
        self.sigHovered.emit(f"{text} · {kind}" if kind else text)

    def _band_at(self, pos: QPointF) -> int | None:
        """The layer without softmax attention whose band is under ``pos``, or None."""
        if not self.weights:
            return None
        left, top, tile, _gap = self._geometry()
        layer = int((pos.y() - top) // tile)
        inside = left <= pos.x() <= left + self._heads() * tile
        if inside and 0 <= layer < len(self.weights) and not self._has_tiles(layer):
            return layer
        return None

    def _n(self, layer: int) -> int:
        """Tokens along a tile's side (a pooled map's cells stand for several)."""
        if self.value is not None or self.weights[layer] is None:
            return len(self.tokens)
        return self.weights[layer].shape[-1]

    def _value(self, layer: int, head: int, query: int, key: int) -> float:
        if self.value is not None:
            return float(self.value(layer, head, query, key))
        return float(self.weights[layer][head, query, key])

    def leaveEvent(self, event) -> None:
        self._hover = None
        self.sigHovered.emit("")
        super().leaveEvent(event)

    def keyPressEvent(self, event) -> None:
        if not self.weights:
            return super().keyPressEvent(event)
        moves = {
            Qt.Key.Key_Right: (0, 1),
            Qt.Key.Key_Left: (0, -1),
            Qt.Key.Key_Down: (1, 0),
            Qt.Key.Key_Up: (-1, 0),
        }
        move = moves.get(event.key())
        if move is None:
            return super().keyPressEvent(event)
        layers = len(self.weights)
        layer = (self.selected[0] + move[0]) % layers
        for _ in range(layers):  # over the rows without tiles (a band)
            if self._has_tiles(layer) or not move[0]:
                break
            layer = (layer + move[0]) % layers
        heads = [j for j in range(self._heads()) if self.has_tile(layer, j)]
        if not heads:
            return None
        if move[1]:
            at = heads.index(self.selected[1]) if self.selected[1] in heads else 0
            head = heads[(at + move[1]) % len(heads)]
        else:
            head = min(heads, key=lambda j: abs(j - self.selected[1]))
        self.sigPicked.emit(layer, head)
        return None

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.update()
