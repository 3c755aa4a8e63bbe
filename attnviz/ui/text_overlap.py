"""The text check: no text over another, none cut, no panel short of room.

Shared by the window's layout tests, the slides and ``attnviz lessons --check``: give
:func:`check_texts` a widget (the main window, a panel, the presentation stage) laid out
at its size, and it returns one :class:`Finding` per problem a reader would see:

- ``"overlap"``: two texts whose drawn boxes overlap or touch on one line (tick labels
  running together, a value written over a legend entry);
- ``"curve"``: a text inside a plot that a curve or a marker line runs through;
- ``"cut"``: a text clipped by its own box, a parent or a scroll viewport, or elided
  (an item view's cells cut or out of view are one finding per view);
- ``"room"``: a docked panel showing its "needs more room" note.

``str(finding)`` is one readable line; :func:`report` joins them for an assertion message.
The texts themselves come from :func:`attnviz.ui.text_items.text_items`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QWidget

from attnviz.ui.text_items import TextItem, text_items, visible_rect, where
from attnviz.ui.widgets.segments import segments_enter

__all__ = ["KINDS", "Finding", "check_texts", "report"]

#: The kinds of finding, in the order :func:`check_texts` lists them.
KINDS = ("room", "cut", "overlap", "curve")
#: Texts on one line closer than this (pixels) run together: "64256" for "64" and "256".
TOUCH = 0.5
#: Boxes must share more than this height (pixels) to stand on one line.
SAME_LINE = 1.0
#: Cut texts of one item view named in its finding's line.
NAMED_CELLS = 4


@dataclass(frozen=True)
class Finding:
    """One problem: its ``kind`` (:data:`KINDS`), the texts it concerns and a note."""

    kind: str
    items: tuple[TextItem, ...]
    note: str = ""

    def __str__(self) -> str:
        if self.kind == "overlap":
            a, b = self.items
            return f"overlap: {a.describe()} and {b.describe()} at {_box(a.shown())}"
        if self.kind == "curve":
            return f"curve through {self.items[0].describe()} at {_box(self.items[0].box)}"
        if self.kind == "room":
            return f"needs more room: {self.note}"
        texts = ", ".join(item.describe() for item in self.items[:NAMED_CELLS])
        more = len(self.items) - NAMED_CELLS
        extra = f" and {more} more" if more > 0 else ""
        note = f"{self.note}: " if self.note else ""
        return f"cut: {note}{texts}{extra} at {_box(self.items[0].box)}"


def _box(rect: QRectF) -> str:
    return f"({rect.x():.0f}, {rect.y():.0f}, {rect.width():.0f}×{rect.height():.0f})"


def report(findings: Iterable[Finding]) -> str:
    """The findings one per line (empty when there are none)."""
    return "\n".join(str(f) for f in findings)


def check_texts(
    root: QWidget,
    *,
    scrolls: Iterable[str] = (),
    kinds: Iterable[str] = KINDS,
) -> list[Finding]:
    """What is wrong with the texts ``root`` shows now (see the module docstring).

    ``scrolls`` names item views (object names) meant to scroll: their cells out of view
    are not cut (a 200-row list; the steps table at a large n). ``kinds`` limits the check.
    """
    kinds = set(kinds)
    items = text_items(root)
    findings: list[Finding] = []
    if "room" in kinds:
        findings += _room_notes(root)
    if "cut" in kinds:
        findings += _cut(items, frozenset(scrolls))
    if "overlap" in kinds:
        findings += _overlaps(items)
    if "curve" in kinds:
        findings += _over_curves(items)
    return findings


def _room_notes(root: QWidget) -> list[Finding]:
    out = []
    for note in root.findChildren(QWidget, "room_note"):
        if note.isVisibleTo(root) and not visible_rect(note, root).isEmpty():
            panel = note.parentWidget()
            out.append(Finding("room", (), where(panel, root)))
    return out


def _cut(items: list[TextItem], scrolls: frozenset[str]) -> list[Finding]:
    """One finding per cut text; an item view's cut cells and sections, one per view
    (none for a view meant to scroll, unless a cell is elided)."""
    by_view: dict[int, list[TextItem]] = {}
    out = []
    for item in items:
        if not item.cut:
            continue
        if item.group is None:
            out.append(Finding("cut", (item,), item.cut))
            continue
        if item.group.objectName() in scrolls and item.cut != "elided":
            continue
        by_view.setdefault(id(item.group), []).append(item)
    for cells in by_view.values():
        elided = sum(c.cut == "elided" for c in cells)
        note = f"{len(cells)} cells, {elided} elided, {len(cells) - elided} out of view"
        out.append(Finding("cut", tuple(cells), note))
    return out


def _overlaps(items: list[TextItem]) -> list[Finding]:
    shown = [(item, item.shown()) for item in items if item.overlaps]
    shown = [(item, box) for item, box in shown if not box.isEmpty()]
    shown.sort(key=lambda pair: pair[1].left())
    out = []
    for i, (a, box_a) in enumerate(shown):
        for b, box_b in shown[i + 1 :]:
            if box_b.left() > box_a.right() + TOUCH:
                break  # sorted by their left edges: none further right can touch a
            dx = min(box_a.right(), box_b.right()) - max(box_a.left(), box_b.left())
            dy = min(box_a.bottom(), box_b.bottom()) - max(box_a.top(), box_b.top())
            if dx > -TOUCH and dy > SAME_LINE:
                out.append(Finding("overlap", (a, b)))
    return out


# --- curves through texts -------------------------------------------------------------------
def _over_curves(items: list[TextItem]) -> list[Finding]:
    out = []
    lines: dict[int, list[np.ndarray]] = {}
    for item in items:
        vb = item.view
        if vb is None or item.scene_box is None or "legend" in item.where:
            continue
        if id(vb) not in lines:
            lines[id(vb)] = _segments(vb)
        rect = vb.mapSceneToView(item.scene_box.adjusted(1, 1, -1, -1)).boundingRect()
        if any(_hits(seg, rect) for seg in lines[id(vb)]):
            out.append(Finding("curve", (item,)))
    return out


def _segments(vb) -> list[np.ndarray]:
    """Every visible line of the view box as an array of segments ``(x0, y0, x1, y1)``
    in view coordinates: curves, and marker lines across the whole view."""
    from pyqtgraph import InfiniteLine, PlotCurveItem, PlotDataItem

    (x0, x1), (y0, y1) = vb.viewRange()
    out = []
    for item in vb.addedItems:
        if not item.isVisible():
            continue
        if isinstance(item, PlotDataItem):
            item = item.curve
        if isinstance(item, PlotCurveItem):
            pen = item.opts.get("pen")
            if pen is None or (hasattr(pen, "style") and pen.style().value == 0):
                continue
            for polygon in item.getPath().toSubpathPolygons():
                pts = np.array([(p.x(), p.y()) for p in polygon], dtype=float)
                if len(pts) >= 2:
                    out.append(np.hstack([pts[:-1], pts[1:]]))
        elif isinstance(item, InfiniteLine):
            v = item.value()
            horizontal = abs(item.angle % 180) < 1e-6
            seg = [x0, v, x1, v] if horizontal else [v, y0, v, y1]
            out.append(np.array([seg], dtype=float))
    return out


def _hits(seg: np.ndarray, rect: QRectF) -> bool:
    """True when any segment enters ``rect``."""
    box = np.array([[rect.left(), rect.top(), rect.right(), rect.bottom()]])
    return bool(segments_enter(box, seg).any())
