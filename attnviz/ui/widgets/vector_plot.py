"""Two-dimensional queries and keys as arrows whose heads can be dragged.

When d_k = 2 a query and a key are arrows in the plane and their score is the dot
product: the plot lets a student drag "banco"'s query and watch the weights move.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

#: Dragged heads land on this grid, so round values like [1, 0] can be hit by hand.
SNAP = 0.05
_COLORS = {"q": (31, 119, 180), "k": (255, 127, 14)}
_SYMBOLS = {"q": "o", "k": "s"}
#: Query labels sit above and right of their head, key labels below and right, so a query
#: and a key at nearby points do not print over each other (offsets in pixels).
_LABEL_OPTS = {
    "q": {"anchor": (0, 1), "offset": (6, -6)},
    "k": {"anchor": (0, 0), "offset": (6, 6)},
}


class VectorPlot(QWidget):
    """Arrows from the origin to every q_i and k_j, heads draggable.

    Signals
    -------
    sigDragged(str, int, float, float)
        ``(name, row, x, y)`` while a head is dragged (``name`` is "q" or "k").
    sigDragFinished()
        The drag ended.
    """

    sigDragged = Signal(str, int, float, float)  # noqa: N815 (Qt naming)
    sigDragFinished = Signal()  # noqa: N815 (Qt naming)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget()
        self.plot.setAspectLocked(True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getPlotItem().setMouseEnabled(x=False, y=False)
        self.plot.setMinimumSize(220, 220)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen((128, 128, 128), width=1)))
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen((128, 128, 128), width=1)))
        self.shafts = {}
        for name in ("k", "q"):
            self.shafts[name] = pg.PlotDataItem(connect="pairs")
            self.plot.addItem(self.shafts[name])
        self.heads: dict[str, list[pg.TargetItem]] = {"q": [], "k": []}
        self._vectors = {"q": np.zeros((0, 2)), "k": np.zeros((0, 2))}
        self._selected = 0
        self._setting = False
        self._dragging = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._apply_palette()
        self._apply_font()

    # --- model → view ------------------------------------------------------------------
    def set_vectors(self, tokens, q: np.ndarray, k: np.ndarray, selected: int) -> None:
        """Show 2-D ``q`` and ``k`` (rows per token); highlight the ``selected`` query."""
        self._setting = True
        try:
            for name, arr in (("q", q), ("k", k)):
                self._vectors[name] = np.array(arr[:, :2], dtype=float)
                self._sync_heads(name, tokens)
            self._selected = selected
            self._restyle()
            self._draw_shafts()
            if not self._dragging:
                self._fit()
        finally:
            self._setting = False

    def _sync_heads(self, name: str, tokens) -> None:
        heads = self.heads[name]
        while len(heads) > len(tokens):
            self.plot.removeItem(heads.pop())
        while len(heads) < len(tokens):
            row = len(heads)
            head = pg.TargetItem(symbol=_SYMBOLS[name], size=14)
            head.sigPositionChanged.connect(lambda item, n=name, r=row: self._on_q_moved(n, r))
            head.sigPositionChangeFinished.connect(lambda *_: self._on_q_finished())
            self.plot.addItem(head)
            heads.append(head)
        for row, (head, tok) in enumerate(zip(heads, tokens, strict=True)):
            x, y = self._vectors[name][row]
            head.setPos(x, y)
            text = f"{name}·{tok}"
            if head.label() is None:
                head.setLabel(text, _LABEL_OPTS[name])
                head.label().setFont(self.font())
            elif head.label().format() != text:
                head.label().setFormat(text)
            head.setToolTip(f"{name}[{tok}] = [{x!r}, {y!r}]")

    def _restyle(self) -> None:
        text = self.palette().color(QPalette.ColorRole.Text)
        for name, heads in self.heads.items():
            color = _COLORS[name]
            for row, head in enumerate(heads):
                strong = name == "k" or row == self._selected
                alpha = 255 if strong else 110
                head.setPen(pg.mkPen((*color, alpha), width=2))
                head.setBrush(pg.mkBrush((*color, alpha)))
                head.setHoverPen(pg.mkPen(text, width=3))
                head.setHoverBrush(pg.mkBrush((*color, 255)))
                if head.label() is not None:
                    head.label().setColor(text if strong else (*text.getRgb()[:3], 140))
        for name, item in self.shafts.items():
            item.setPen(pg.mkPen(_COLORS[name], width=3))

    def _draw_shafts(self) -> None:
        for name, arr in self._vectors.items():
            pts = np.zeros((2 * len(arr), 2))
            pts[1::2] = arr
            self.shafts[name].setData(pts[:, 0], pts[:, 1])

    def _fit(self) -> None:
        both = np.vstack([self._vectors["q"], self._vectors["k"], np.zeros((1, 2))])
        reach = float(np.max(np.abs(both))) if both.size else 1.0
        reach = max(reach, 1.0) * 1.2
        # Extra room at both sides for the labels beside the heads.
        self.plot.setRange(
            xRange=(-1.6 * reach, 1.6 * reach), yRange=(-reach, reach), padding=0
        )

    # --- Qt events ---------------------------------------------------------------------
    def _on_q_moved(self, name: str, row: int) -> None:
        if self._setting:
            return
        self._dragging = True
        pos = self.heads[name][row].pos()
        x, y = (round(v / SNAP) * SNAP for v in (pos.x(), pos.y()))
        x, y = round(x, 6), round(y, 6)
        self._vectors[name][row] = (x, y)
        self._draw_shafts()
        self.sigDragged.emit(name, row, x, y)

    def _on_q_finished(self) -> None:
        self._dragging = False
        self.sigDragFinished.emit()

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        elif event.type() == QEvent.Type.FontChange:
            self._apply_font()
        super().changeEvent(event)

    def _apply_font(self) -> None:
        # pyqtgraph items are not widgets: the application's font reaches them only here.
        for heads in self.heads.values():
            for head in heads:
                if head.label() is not None:
                    head.label().setFont(self.font())
        for axis in ("left", "bottom"):
            self.plot.getPlotItem().getAxis(axis).setStyle(tickFont=self.font())

    def _apply_palette(self) -> None:
        pal = self.palette()
        self.plot.setBackground(pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        for axis in ("left", "bottom"):
            ax = self.plot.getPlotItem().getAxis(axis)
            ax.setPen(pg.mkPen(text))
            ax.setTextPen(pg.mkPen(text))
        self._restyle()
