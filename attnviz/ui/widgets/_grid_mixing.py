"""The layers grid's tiles of a hybrid's other layers: their proven mixing matrices M.

A Gated DeltaNet, a Mamba-2 block, a short convolution… has no attention weights, but it
mixes its tokens linearly, ``out_t = Σ_s M[t, s] v_s``
(:class:`~attnviz.model.layer_mixing.LayerMixing`). Its heads are drawn in its row as M:
signed, through the diverging colour map, each layer on its own scale ±max|M| (written
after the row when there is room; the hover says it always), never as softmax weights.
:class:`MixingTiles` is mixed into :class:`~attnviz.ui.widgets.layer_grid.LayerGrid`.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QColor

from attnviz.ui.widgets.head_grid import rgb_image
from attnviz.ui.widgets.numbers import fmt_g
from attnviz.ui.widgets.placeholders import fill


class MixingTiles:
    """What the grid keeps and draws of the mixing layers (see the module docstring)."""

    def _init_mixing(self) -> None:
        self.mixing: list = []  # per layer a LayerMixing, or None
        self.mixing_lut = np.stack([np.arange(256)] * 3, axis=1).astype(np.uint8)
        self._mix_images: dict[int, list] = {}

    def set_mixing(self, mixing, lut: np.ndarray | None = None) -> None:
        """Draw each layer's :class:`~attnviz.model.layer_mixing.LayerMixing` (None: none)
        in its row, ``lut`` (256×3 uint8) the diverging map from −max|M| to +max|M|."""
        self.mixing = list(mixing)
        if lut is not None:
            self.mixing_lut = np.asarray(lut, dtype=np.uint8)[:, :3]
        self._hover = None
        self._build_mixing_images()
        self.update()

    def _mixing_at(self, layer: int):
        """The layer's LayerMixing with matrices to draw, else None."""
        if 0 <= layer < len(self.mixing):
            found = self.mixing[layer]
            if found is not None and found.matrices is not None:
                return found
        return None

    def _mixing_unit(self, found, values):
        scale = found.scale if found.scale > 0 else 1.0
        return (np.asarray(values, dtype=np.float64) + scale) / (2 * scale)

    def _build_mixing_images(self) -> None:
        self._mix_images = {}
        masked = QColor(self.theme.masked_fill)
        for layer in range(len(self.mixing)):
            found = self._mixing_at(layer)
            if found is None:
                continue
            self._mix_images[layer] = [
                rgb_image(self._mixing_unit(found, m), self.mixing_lut, None, masked)
                for m in found.matrices
            ]

    def mixing_heads(self, layer: int) -> range:
        """The model heads of ``layer`` drawn as M (an empty range: none)."""
        found = self._mixing_at(layer)
        if found is None:
            return range(0)
        return range(found.first, found.first + found.matrices.shape[0])

    def mixing_refusal(self, layer: int) -> str:
        """Why ``layer``'s mixing matrices are not drawn (one line), or ""."""
        if 0 <= layer < len(self.mixing) and self.mixing[layer] is not None:
            return self.mixing[layer].refusal
        return ""

    def _mixing_value(self, layer: int, head: int, query: int, key: int) -> float:
        found = self._mixing_at(layer)
        m = found.matrices[head - found.first]
        if found.pooled:  # a block of tokens per cell, as block_extreme cut them
            edges = np.linspace(0, len(self.tokens), m.shape[0] + 1).astype(int)
            query, key = (int(np.searchsorted(edges, t, side="right")) - 1 for t in (query, key))
        return float(m[query, key])

    def _mixing_color(self, layer: int, value: float) -> QColor:
        at = float(self._mixing_unit(self._mixing_at(layer), value))
        return QColor(*(int(c) for c in self.mixing_lut[int(np.clip(at * 255 + 0.5, 0, 255))]))

    def _paint_mixing_scale(self, painter, layer: int, metrics) -> None:
        """``±max|M|`` after the layer's last tile, when it fits in the widget."""
        found = self._mixing_at(layer)
        heads = self.mixing_heads(layer)
        rect = self.tile_rect(layer, heads.stop - 1)
        text = "±" + fmt_g(found.scale, 2)
        room = QRectF(rect.right() + 4, rect.top(), self.width() - rect.right() - 6, rect.height())
        fits = metrics.horizontalAdvance(text) <= room.width()
        if fits and metrics.height() <= rect.height() + 4:
            painter.setPen(QColor(self.theme.muted))
            painter.drawText(room, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)

    def _mixing_hover(self, layer: int, head: int, query: int, key: int) -> str:
        found = self._mixing_at(layer)
        names = (
            (self.tokens[query], self.tokens[key])
            if max(query, key) < len(self.tokens)
            else (query, key)
        )
        value = self._mixing_value(layer, head, query, key)
        if found.pooled:
            text = QCoreApplication.translate(
                "LayerGrid",
                "layer %1 · head %2 · “%3” → “%4”: M = %5 (the block's value farthest from 0) "
                "· %6, this layer's scale ±%7",
            )
        else:
            text = QCoreApplication.translate(
                "LayerGrid", "layer %1 · head %2 · “%3” → “%4”: M = %5 · %6, this layer's scale ±%7"
            )
        return fill(
            text,
            layer,
            head,
            names[0],
            names[1],
            fmt_g(value, 3),
            found.kind,
            fmt_g(found.scale, 3),
        )

    def mixing_caption(self) -> str:
        """What the bar under the grid adds when some rows are M ("" when none is)."""
        kinds = list(
            dict.fromkeys(
                self._mixing_at(i).kind
                for i in range(len(self.mixing))
                if self._mixing_at(i) is not None
            )
        )
        if not kinds:
            return ""
        text = fill(
            QCoreApplication.translate("LayerGrid", "%1: M, blue < 0 < red, ±max|M| a row"),
            ", ".join(kinds),
        )
        cut = [
            self._mixing_at(i)
            for i in range(len(self.mixing))
            if self._mixing_at(i) is not None
            and self._mixing_at(i).heads > self._mixing_at(i).matrices.shape[0]
        ]
        if cut:  # a short convolution's or a Mamba's channels run to thousands
            most = max(f.heads for f in cut)
            text += " " + fill(
                QCoreApplication.translate("LayerGrid", "(the first %1 of up to %2 heads)"),
                cut[0].matrices.shape[0],
                most,
            )
        return text
