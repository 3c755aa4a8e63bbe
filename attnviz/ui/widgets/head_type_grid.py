"""Every head of a real model as one tile coloured by what it does: rows layers, columns heads.

Two ways to colour, chosen by ``display.head_type``:

- ``strongest``: each head in the colour of its highest-scoring type
  (:func:`~attnviz.model.head_type_table.strongest`: local only where no narrower type
  within the window holds half of it), as strong as that score (a pale tile: no type
  holds much of its weight), with the type's letter and score where they fit; a legend
  under the grid names the letters;
- one type: each head by that type's score 0 … 1 through the colour map, the value written
  where it fits, and the colour bar under the grid.

A layer of another kind (a hybrid's) is a muted band. The hover lists every score of the
head under the mouse; a click picks it (the head the other panels show).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy

from attnviz.model.head_type_table import LABELS, LETTERS, TYPES, strongest
from attnviz.ui.widgets.contrast import ink_for, qcolor_rgb
from attnviz.ui.widgets.grid_axes import paint_grid_labels
from attnviz.ui.widgets.head_grid import paint_unit_bar
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.painted import Background, PaintedWidget
from attnviz.ui.widgets.plot_style import line_width

#: One colour per type, told apart by readers with colour-vision deficiencies (Okabe–Ito).
TYPE_COLORS = {
    "previous": "#0072B2",
    "induction": "#D55E00",
    "sink": "#009E73",
    "local": "#56B4E9",
    "self": "#CC79A7",
    "next": "#E69F00",
    "cls": "#7F3C8D",
    "sep": "#999933",
}
#: The palest a tile of the strongest type is drawn (a score of 0 would vanish).
MIN_STRENGTH = 0.12


def type_label(name: str) -> str:
    """The translated label of type ``name``."""
    return QCoreApplication.translate("HeadTypes", LABELS[name])


class HeadTypeGrid(PaintedWidget):
    """Heads by type (see the module docstring); ``sigPicked(layer, head)``, ``sigHovered``."""

    sigPicked = Signal(int, int)  # Qt naming
    sigHovered = Signal(str)  # Qt naming
    background = Background.EXPORTED

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.scores = np.zeros((0, 0, len(TYPES)))
        self.kinds: tuple[str, ...] = ()
        self.mixing: dict[int, tuple[int, str]] = {}
        self.chosen = "strongest"
        self.selected = (0, 0)
        self.message = ""
        self.lut = np.zeros((256, 3), np.uint8)

    def sizeHint(self) -> QSize:
        return QSize(480, 300)

    def minimumSizeHint(self) -> QSize:
        return QSize(160, 90)

    # --- model → view ------------------------------------------------------------------
    def set_scores(self, scores, kinds=(), mixing=None) -> None:
        """Show ``scores`` ``(layers, heads, types)`` (NaN rows: ``kinds`` names them);
        ``mixing`` maps a layer to ``(first head, kind)`` of its heads scored on
        ``rownorm(|M|)`` (a hybrid's other heads: the hover says so)."""
        self.scores = np.asarray(scores, dtype=np.float64)
        self.kinds = tuple(kinds)
        self.mixing = dict(mixing or {})
        self.message = ""
        self.update()

    def set_message(self, text: str) -> None:
        """Show ``text`` instead of the grid."""
        self.scores = np.zeros((0, 0, len(TYPES)))
        self.message = text
        self.update()

    def set_chosen(self, chosen: str) -> None:
        """Colour by ``"strongest"`` or by one type of :data:`TYPES`."""
        self.chosen = chosen
        self.update()

    def set_selected(self, layer: int, head: int) -> None:
        """Outline head ``head`` of layer ``layer``."""
        self.selected = (layer, head)
        self.update()

    def set_lut(self, lut) -> None:
        """The colour map (256×3 uint8) of one type's scores."""
        self.lut = np.asarray(lut, dtype=np.uint8)[:, :3]
        self.update()

    # --- geometry ----------------------------------------------------------------------
    def _line(self) -> float:
        return QFontMetricsF(self.font()).height()

    def _legend_rows(self, width: float) -> list[list[str]]:
        """The strongest view's legend: the types in rows that fit ``width``."""
        metrics = QFontMetricsF(self.font())
        rows: list[list[str]] = [[]]
        x = 8.0
        for name in TYPES:
            w = self._entry_width(metrics, name)
            if rows[-1] and x + w > width - 4:
                rows.append([])
                x = 8.0
            rows[-1].append(name)
            x += w
        return rows

    def _entry_width(self, metrics, name: str) -> float:
        text = f"{LETTERS[name]} {type_label(name)}"
        return self._line() * 0.9 + 4 + metrics.horizontalAdvance(text) + 14

    def _footer(self) -> float:
        if self.chosen == "strongest":
            return self._line() * (len(self._legend_rows(self.width())) + 0.6)
        return self._line() * 2.0

    def _geometry(self) -> tuple[float, float, float, float]:
        """``(left, top, tile, gap)``."""
        metrics = QFontMetricsF(self.font())
        layers, heads = self.scores.shape[:2]
        label = QCoreApplication.translate("HeadTypeGrid", "layer %1").replace(
            "%1", str(max(layers - 1, 0))
        )
        left = metrics.horizontalAdvance(label) + 16
        top = self._line() * 1.3
        w = self.width() - left - 4
        h = self.height() - top - self._footer() - 4
        tile = max(4.0, min(w / max(heads, 1), h / max(layers, 1)))
        return left, top, tile, max(1.0, tile * 0.08)

    def tile_rect(self, layer: int, head: int) -> QRectF:
        """Where head ``head`` of layer ``layer`` is drawn."""
        left, top, tile, gap = self._geometry()
        return QRectF(left + head * tile, top + layer * tile, tile - gap, tile - gap)

    def tile_at(self, pos: QPointF) -> tuple[int, int] | None:
        """``(layer, head)`` under ``pos`` (a head with scores), or None."""
        layers, heads = self.scores.shape[:2]
        if not layers:
            return None
        left, top, tile, _gap = self._geometry()
        layer, head = int((pos.y() - top) // tile), int((pos.x() - left) // tile)
        if not (0 <= layer < layers and 0 <= head < heads and pos.x() >= left):
            return None
        return None if np.isnan(self.scores[layer, head]).all() else (layer, head)

    # --- painting ----------------------------------------------------------------------
    def _tile_color(self, layer: int, head: int) -> tuple[QColor, str]:
        """The tile's colour and the text it carries."""
        s = self.scores[layer, head]
        if self.chosen == "strongest":
            index, value = strongest(s[None, None])
            name = TYPES[int(index[0, 0])]
            strength = float(np.clip(value[0, 0], MIN_STRENGTH, 1.0))
            base, back = QColor(TYPE_COLORS[name]), QColor(self.theme.background)
            mixed = QColor.fromRgbF(
                *(strength * a + (1 - strength) * b for a, b in zip(
                    base.getRgbF()[:3], back.getRgbF()[:3], strict=True)),
            )  # fmt: skip
            return mixed, f"{LETTERS[name]} {fmt(float(value[0, 0]), 2)}"
        value = s[TYPES.index(self.chosen)]
        if np.isnan(value):  # no [CLS] in the sentence: no score, the masked colour
            return QColor(self.theme.masked_fill), "–"
        at = int(np.clip(value * 255 + 0.5, 0, 255))
        return QColor(*(int(c) for c in self.lut[at])), fmt(float(value), 2)

    def _paint(self, painter: QPainter) -> None:
        fg = QColor(self.theme.foreground)
        painter.setFont(self.font())
        layers, heads = self.scores.shape[:2]
        if not layers:
            painter.setPen(fg)
            painter.drawText(
                QRectF(self.rect()).adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self.message,
            )
            return
        metrics = QFontMetricsF(self.font())
        left, top, tile, gap = self._geometry()
        painter.setPen(fg)
        paint_grid_labels(
            painter,
            metrics,
            (left, top, tile, gap),
            layers,
            heads,
            QCoreApplication.translate("HeadTypeGrid", "layer %1"),
        )
        for i in range(layers):
            if np.isnan(self.scores[i]).all():
                self._paint_band(painter, i, heads, metrics)
                continue
            for j in range(heads):
                if np.isnan(self.scores[i, j]).all():
                    continue
                rect = self.tile_rect(i, j)
                color, text = self._tile_color(i, j)
                painter.fillRect(rect, color)
                if metrics.horizontalAdvance(text) < rect.width() - 2 and (
                    metrics.height() < rect.height()
                ):
                    painter.setPen(QColor(ink_for(qcolor_rgb(color))))
                    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        self._paint_selection(painter)
        self._paint_footer(painter, fg, metrics, top + layers * tile)

    def _paint_band(self, painter, layer: int, heads: int, metrics) -> None:
        left, top, tile, gap = self._geometry()
        rect = QRectF(left, top + layer * tile, heads * tile - gap, tile - gap)
        painter.fillRect(rect, QColor(self.theme.masked_fill))
        text = self.kinds[layer] if layer < len(self.kinds) else ""
        if metrics.height() <= rect.height() + 2 and metrics.horizontalAdvance(text) < rect.width():
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_selection(self, painter) -> None:
        layer, head = self.selected
        layers, heads = self.scores.shape[:2]
        if not (0 <= layer < layers and 0 <= head < heads):
            return
        width = line_width(self.font()) * 1.5
        painter.setPen(QPen(QColor(self.theme.highlight), width))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.tile_rect(layer, head).adjusted(-width, -width, width, width))

    def _paint_footer(self, painter, fg, metrics, y: float) -> None:
        line = self._line()
        if self.chosen != "strongest":
            caption = QCoreApplication.translate(
                "HeadTypeGrid", "each head: its %1 score · columns: heads"
            ).replace("%1", type_label(self.chosen))
            bar_width = min(200.0, max(60.0, self.width() * 0.25))
            geometry = (y + line * 0.4, line, bar_width, self.width())
            paint_unit_bar(
                painter, self.lut, (fg, QColor(self.theme.muted)), metrics, geometry, caption
            )
            return
        top = y + line * 0.4
        for row in self._legend_rows(self.width()):
            x = 8.0
            for name in row:
                swatch = QRectF(x, top + line * 0.1, line * 0.8, line * 0.8)
                painter.fillRect(swatch, QColor(TYPE_COLORS[name]))
                painter.setPen(fg)
                text = f"{LETTERS[name]} {type_label(name)}"
                painter.drawText(
                    QRectF(swatch.right() + 4, top, metrics.horizontalAdvance(text) + 4, line),
                    Qt.AlignmentFlag.AlignVCenter,
                    text,
                )
                x += self._entry_width(metrics, name)
            top += line

    # --- Qt events ---------------------------------------------------------------------
    def hover_text(self, layer: int, head: int) -> str:
        """Every score of one head, the strongest first."""
        s = self.scores[layer, head]
        order = [int(i) for i in np.argsort(np.nan_to_num(s, nan=-1.0))[::-1]]
        parts = [
            f"{type_label(TYPES[i])} {fmt(float(s[i]), 2)}" for i in order if np.isfinite(s[i])
        ]
        head_text = (
            QCoreApplication.translate("HeadTypeGrid", "layer %1, head %2")
            .replace("%1", str(layer))
            .replace("%2", str(head))
        )
        text = f"{head_text}: " + " · ".join(parts)
        first, kind = self.mixing.get(layer, (head + 1, ""))
        if head >= first:  # not attention weights: its mixing matrix read as shares
            text += " · " + QCoreApplication.translate(
                "HeadTypeGrid", "%1: scored on |M| with each row summing to 1"
            ).replace("%1", kind)
        return text

    def mousePressEvent(self, event) -> None:
        hit = self.tile_at(event.position())
        if hit is not None and event.button() == Qt.MouseButton.LeftButton:
            self.sigPicked.emit(*hit)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        hit = self.tile_at(event.position())
        self.sigHovered.emit("" if hit is None else self.hover_text(*hit))
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:
        self.sigHovered.emit("")
        super().leaveEvent(event)
