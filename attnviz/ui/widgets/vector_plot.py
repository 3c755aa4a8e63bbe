"""Two-dimensional queries and keys as arrows whose heads can be dragged.

When d_k = 2 a query and a key are arrows in the plane and their score is the dot
product: the plot lets a student drag "banco"'s query and watch the weights move. Labels
("q·banco", "k·praça") are placed beside their heads where they cover no other label
and no other head, so heads at the same point stay readable.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Signal
from PySide6.QtGui import QFontMetricsF, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget

from attnviz.ui.widgets.heatmap_view import localize_ticks
from attnviz.ui.widgets.segments import segments_enter

#: Dragged heads land on this grid, so round values like [1, 0] can be hit by hand.
SNAP = 0.05
_COLORS = {"q": (31, 119, 180), "k": (255, 127, 14)}
_SYMBOLS = {"q": "o", "k": "s"}
#: Query labels start above and right of their head, key labels below and right; where
#: that covers another label or head the next free place of :data:`_PLACES` is taken.
_LABEL_OPTS = {
    "q": {"anchor": (0, 1), "offset": (6, -6)},
    "k": {"anchor": (0, 0), "offset": (6, 6)},
}
#: Places a label may take beside its head: (anchor, offset in pixels).
_PLACES = (
    ((0, 1), (6, -6)),  # above right
    ((0, 0), (6, 6)),  # below right
    ((1, 1), (-6, -6)),  # above left
    ((1, 0), (-6, 6)),  # below left
    ((0, 0.5), (10, 0)),  # right
    ((1, 0.5), (-10, 0)),  # left
    ((0.5, 1), (0, -10)),  # above
    ((0.5, 0), (0, 10)),  # below
)
#: Half the size of a head's symbol, in pixels (a label should not cover one).
_HEAD_RADIUS = 8
#: Up to this many labels, overlaps left by the first placement are worked out further.
MAX_REFINED = 32


def _overlap(rects: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Area of each of ``rects`` (rows x0, y0, x1, y1, …) covered by each of ``others``."""
    if others.size == 0:
        return np.zeros((rects.shape[0], 0))
    a, b = rects[:, None, :4], others[None, :, :4]
    w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0])
    h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _crossed(rects: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """How many of ``segments`` (rows x0, y0, x1, y1) enter each of ``rects`` (rows x0, y0,
    x1, y1, …)."""
    return segments_enter(rects, segments).sum(axis=1).astype(float)


class _LabelLayout:
    """What one placement of the labels weighs, in scene pixels: the head each shown label
    belongs to (``where``), the places each may take (``options``, rows of
    :meth:`VectorPlot._candidates`), every head's box, the heads at each label's own point,
    the view's bounds, and the lines a label must not sit on (``lines``: the arrows'
    shafts and the two axes, rows x0, y0, x1, y1)."""

    def __init__(self, where, options, heads, own, bounds, lines=None) -> None:
        self.where, self.options = where, options
        self.heads, self.own, self.bounds = heads, own, bounds
        self.lines = np.zeros((0, 4)) if lines is None else lines

    def cost(self, i: int, rects: np.ndarray, placed: np.ndarray) -> np.ndarray:
        """How bad each of ``rects`` is as label ``i``'s place beside the ``placed`` ones.

        The share of it over other labels, half the share over other heads, half for each
        line through it (a label on an arrow reads badly), three times the share outside
        the view, and 0.01 for a place pushed a line further out. A cost below 0.01 counts
        as free (a pushed place never does).
        """
        area = (rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1])
        value = _overlap(rects, placed).sum(axis=1) / area
        value += 0.5 * _overlap(rects, self.heads[~self.own[i]]).sum(axis=1) / area
        value += 0.5 * _crossed(rects, self.lines)
        inside = _overlap(rects, self.bounds[None, :])[:, 0] / area
        return value + 3 * (1 - inside) + 0.01 * rects[:, 4]

    def place_greedily(self, needed: list[int], chosen: np.ndarray, done: list[int]) -> None:
        """Give each ``needed`` label in turn its first free place (else its least bad one)
        beside those placed before it; record it in ``chosen`` and ``done``."""
        for i in needed:
            values = self.cost(i, self.options[i], chosen[done])
            free = np.nonzero(values < 0.01)[0]
            chosen[i] = self.options[i][free[0] if free.size else int(np.argmin(values))]
            done.append(i)

    def refine(self, needed: list[int], chosen: np.ndarray, done: list[int]) -> None:
        """Up to three passes over the overlaps the greedy placement left: a label placed
        early could not know of those placed after it."""
        for _ in range(3):
            if not self._improve(needed, chosen, done):
                break

    def _improve(self, needed: list[int], chosen: np.ndarray, done: list[int]) -> bool:
        """One pass: move each ``needed`` label that still overlaps to its best place given
        all the others; True when any moved."""
        moved = False
        for i in needed:
            others = chosen[[j for j in done if j != i]]
            now = self.cost(i, chosen[i : i + 1], others)[0]
            if now < 0.01:
                continue
            values = self.cost(i, self.options[i], others)
            best = int(np.argmin(values))
            if values[best] < now - 1e-9:
                chosen[i], moved = self.options[i][best], True
        return moved


class VectorPlot(QWidget):
    """Arrows from the origin to every q_i and k_j, heads draggable.

    Signals
    -------
    sigDragged(str, int, float, float)
        ``(name, row, x, y)`` while a head is dragged (``name`` is "q" or "k").
    sigDragFinished()
        The drag ended.
    """

    sigDragged = Signal(str, int, float, float)  # Qt naming
    sigDragFinished = Signal()  # Qt naming

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(enableMenu=False)  # (its menu would be built, then dropped)
        self.plot.setAspectLocked(True)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.getPlotItem().setMouseEnabled(x=False, y=False)
        self.plot.setMinimumSize(150, 150)  # a 1280×720 window in large type has no more
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen((128, 128, 128), width=1)))
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=90, pen=pg.mkPen((128, 128, 128), width=1)))
        self.shafts = {}
        for name in ("k", "q"):
            self.shafts[name] = pg.PlotDataItem(connect="pairs")
            self.plot.addItem(self.shafts[name])
        self.heads: dict[str, list[pg.TargetItem]] = {"q": [], "k": []}
        self._vectors = {"q": np.zeros((0, 2)), "k": np.zeros((0, 2))}
        self._selected = 0
        self._tokens: list[str] = []
        self._setting = False
        self._dragging = False
        self._placed: tuple | None = None  # what the labels were last placed for
        vb = self.plot.getPlotItem().getViewBox()
        vb.sigResized.connect(self.place_labels)
        vb.sigRangeChanged.connect(self.place_labels)
        for axis in ("left", "bottom"):
            localize_ticks(self.plot.getPlotItem().getAxis(axis))
        # No axis here shows a title, and an axis without one never scales its ticks by an
        # SI prefix: checking for one would only set each hidden title's HTML again on every
        # range change (a few ms at start-up).
        for axis in ("left", "bottom", "right", "top"):
            self.plot.getPlotItem().getAxis(axis).enableAutoSIPrefix(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)
        self._apply_palette()
        self._apply_font()

    # --- model → view ------------------------------------------------------------------
    def set_vectors(self, tokens, q: np.ndarray, k: np.ndarray, selected: int) -> None:
        """Show 2-D ``q`` and ``k`` (rows per token); highlight the ``selected`` query."""
        self._setting = True
        self._tokens = list(tokens)
        try:
            for name, arr in (("q", q), ("k", k)):
                self._vectors[name] = np.array(arr[:, :2], dtype=float)
                self._sync_heads(name, tokens)
            self._selected = selected
            self._restyle()
            self._draw_shafts()
            if not self._dragging:
                self._fit()
                self.place_labels()
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
        lo, hi = both.min(axis=0), both.max(axis=0)
        reach = max(float(np.max(hi - lo)), 1.0)
        # The arrows and the origin, a margin to drag into, and room at the sides for the
        # labels beside the heads; not the empty quadrants (they would shrink the arrows).
        pad = 0.35 * reach
        self.plot.setRange(
            xRange=(lo[0] - 2 * pad, hi[0] + 2 * pad),
            yRange=(lo[1] - pad, hi[1] + pad),
            padding=0,
        )

    def _merge_labels(self, order) -> list[tuple[str, int]]:
        """One label for the heads of one kind at one point ("k·sacar, dinheiro"); return
        the heads whose label is shown."""
        shown, groups = [], {}
        for name, row in order:
            x, y = self._vectors[name][row]
            groups.setdefault((name, round(x, 6), round(y, 6)), []).append(row)
        for (name, _x, _y), rows in groups.items():
            tokens = [self._tokens[r] for r in rows]
            for i, row in enumerate(rows):
                label = self.heads[name][row].label()
                if label is None:
                    continue
                label.setVisible(i == 0)
                text = f"{name}·{', '.join(tokens)}" if i == 0 else f"{name}·{tokens[i]}"
                if label.toPlainText() != text:
                    label.setText(text)
            shown.append((name, rows[0]))
        return shown

    def place_labels(self, *_args) -> None:
        """Put each label beside its head where it overlaps the fewest labels and heads.

        Heads of one kind at one point share a label. Greedy first (the selected query,
        then the keys it is read against, then the other queries; a label takes the first
        free place of its list), then a few passes that move a label that still overlaps
        to a better place, given all the others. Rectangles are numpy arrays: 128 labels
        take milliseconds.
        """
        vb = self.plot.getPlotItem().getViewBox()
        view = vb.sceneBoundingRect()
        # Hidden, the plot has no size of its own yet (a panel being built sets its vectors,
        # range and font at a default size): :meth:`showEvent` places them for the real one.
        if view.width() <= 0 or self._dragging or not self.isVisible():
            return
        if not self._new_picture(vb, view):
            return
        # A range just set reaches the view's transform only at the next paint: now.
        vb.updateMatrix()
        order = self._label_order()
        labelled = [key for key in self._merge_labels(order) if self._label(key) is not None]
        if not labelled:
            return
        layout = self._label_layout(vb, view, order, labelled)
        needed = self._needed(labelled)
        chosen = np.zeros((len(labelled), 5))
        done: list[int] = []
        layout.place_greedily(needed, chosen, done)
        if len(needed) <= MAX_REFINED:
            layout.refine(needed, chosen, done)
        for i, key in enumerate(labelled):
            if i not in needed and not self._place_if_free(layout, i, key, chosen, done):
                continue
            self._apply_place(key, layout.where[key], chosen[i])

    def _new_picture(self, vb, view: QRectF) -> bool:
        """Remember what the labels are being placed for; False when they already were.

        Laying the window out resizes the view and sets its range several times over, most
        of them to where it already is: the labels are placed only for a new picture.
        """
        key = (
            view.getRect(),
            tuple(map(tuple, vb.viewRange())),
            self._vectors["q"].tobytes(),
            self._vectors["k"].tobytes(),
            tuple(self._tokens),
            self._selected,
            self.font().key(),
        )
        if key == self._placed:
            return False
        self._placed = key
        return True

    def _label_order(self) -> list[tuple[str, int]]:
        """The heads in the order their labels claim a place: the selected query, then the
        keys it is read against, then the other queries."""
        order = [("q", self._selected)] if self._selected < len(self.heads["q"]) else []
        order += [("k", r) for r in range(len(self.heads["k"]))]
        order += [("q", r) for r in range(len(self.heads["q"])) if r != self._selected]
        return order

    def _needed(self, labelled: list[tuple[str, int]]) -> list[int]:
        """Indices of the labels that are always shown: the keys and the selected query.

        Another query is named only where its label is free (it is drawn faint, and its
        tooltip names it anyway).
        """
        return [i for i, key in enumerate(labelled) if key[0] == "k" or key[1] == self._selected]

    def _label_layout(self, vb, view: QRectF, order, labelled) -> _LabelLayout:
        """The rectangles the placement weighs, in scene pixels: every head, the places
        each shown label may take, and the view the labels should stay inside."""
        points = np.array([self._vectors[name][row] for name, row in order], dtype=float)
        centres = np.array(
            [(p.x(), p.y()) for p in (vb.mapViewToScene(QPointF(*xy)) for xy in points)]
        )
        r = _HEAD_RADIUS
        heads = np.hstack([centres - r, centres + r])  # x0, y0, x1, y1
        where = {key: centres[order.index(key)] for key in labelled}
        options = [self._candidates(key, where[key]) for key in labelled]  # (C, 5) each
        bounds = np.array([view.left(), view.top(), view.right(), view.bottom()])
        # A label does not mind the heads at its own point (its own, or those it names).
        own = [np.all(np.abs(centres - where[key]) < 0.5, axis=1) for key in labelled]
        zero = vb.mapViewToScene(QPointF(0, 0))
        ox, oy = zero.x(), zero.y()
        shafts = [(ox, oy, x, y) for x, y in centres]
        axes = [(view.left(), oy, view.right(), oy), (ox, view.top(), ox, view.bottom())]
        lines = np.array(shafts + axes, dtype=float).reshape(-1, 4)
        return _LabelLayout(where, options, heads, own, bounds, lines)

    def _place_if_free(self, layout, i: int, key, chosen: np.ndarray, done: list[int]) -> bool:
        """Show an optional query's label at its first free place, or hide it; True when
        shown (its place then counts for the optional labels after it)."""
        free = np.nonzero(layout.cost(i, layout.options[i], chosen[done]) < 0.01)[0]
        self._label(key).setVisible(bool(free.size))
        if not free.size:
            return False
        chosen[i] = layout.options[i][free[0]]
        done.append(i)
        return True

    def _label(self, key: tuple[str, int]):
        return self.heads[key[0]][key[1]].label()

    def _candidates(self, key: tuple[str, int], centre: np.ndarray) -> np.ndarray:
        """Every place the label may take: rows of ``x0, y0, x1, y1, push``."""
        # The text item's own box (its margins included): what the anchor positions.
        size = self._label(key).textItem.boundingRect()
        w, h = size.width(), size.height()
        first = 0 if key[0] == "q" else 1  # the default places of _LABEL_OPTS
        places = [_PLACES[first], *(p for i, p in enumerate(_PLACES) if i != first)]
        rows = []
        # Then the same places a line further out, still close enough to read as its.
        for push in (0, 1):
            for (ax, ay), (dx, dy) in places:
                if push and 0.5 in (ax, ay):
                    continue  # only the corners move out: a pushed label must stay its own
                dy = dy + push * (h + 2) * (1 if dy > 0 else -1)
                x0, y0 = centre[0] + dx - ax * w, centre[1] + dy - ay * h
                rows.append((x0, y0, x0 + w, y0 + h, push))
        return np.array(rows)

    def _apply_place(self, key: tuple[str, int], centre: np.ndarray, rect: np.ndarray) -> None:
        """Put the top-left corner of the label's box at ``rect``'s (scene pixels)."""
        label = self._label(key)
        label.setAnchor((0, 0))
        dx, dy = rect[0] - centre[0], rect[1] - centre[1]
        # pyqtgraph keeps the offset in pixels, upwards, and turns it into data units on
        # each change of view; set the position too, from this view's own mapping (its
        # pixel size can lag a range just set).
        label.offset = pg.Point(dx, -dy)
        vb = self.plot.getPlotItem().getViewBox()
        head = vb.mapSceneToView(QPointF(centre[0], centre[1]))
        corner = vb.mapSceneToView(QPointF(rect[0], rect[1]))
        label.setPos(corner - head)

    def label_rects(self) -> dict[tuple[str, int], QRectF]:
        """Where every label's text box is drawn now, in scene pixels (for tests)."""
        out = {}
        for name, heads in self.heads.items():
            for row, head in enumerate(heads):
                label = head.label()
                if label is not None and label.isVisible():
                    out[(name, row)] = label.textItem.sceneBoundingRect()
        return out

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
        self.place_labels()
        self.sigDragFinished.emit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.place_labels()  # skipped while hidden; nothing to do when placed for this view

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
        # A fixed width: with the aspect locked, a width that followed the tick labels
        # ("0" or "−0.5") would change the range, the ticks, and the width again, forever.
        metrics = QFontMetricsF(self.font())
        left = self.plot.getPlotItem().getAxis("left")
        left.setWidth(round(metrics.horizontalAdvance("−00.0") + abs(left.style["tickLength"]) + 8))
        self.place_labels()

    def _apply_palette(self) -> None:
        pal = self.palette()
        self.plot.setBackground(pal.color(QPalette.ColorRole.Base))
        text = pal.color(QPalette.ColorRole.Text)
        for axis in ("left", "bottom"):
            ax = self.plot.getPlotItem().getAxis(axis)
            ax.setPen(pg.mkPen(text))
            ax.setTextPen(pg.mkPen(text))
        self._restyle()
