"""A chart label's room: the crossing test against a dense walk along the curve, and the
free box it finds is clear."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPointF, QRectF

from attnviz.ui.widgets.label_room import crosses, nearest_point


def _dense(curve, box: QRectF) -> bool:
    """The same question by walking the line in 20,001 steps over the box's width."""
    x, y = curve
    lo, hi = max(box.left(), x[0]), min(box.right(), x[-1])
    if lo > hi:
        return False
    t = np.linspace(lo, hi, 20_001)
    v = np.interp(t, x, y)
    return bool(np.any((v >= box.top()) & (v <= box.bottom())))


def test_a_line_between_two_points_crosses_a_box_it_never_samples():
    # Points at x = 0 and 10 only; the line passes through the box at x 4..6.
    curve = (np.array([0.0, 10.0]), np.array([0.0, 10.0]))
    assert crosses(curve, QRectF(4.0, 4.0, 2.0, 2.0))
    assert not crosses(curve, QRectF(4.0, 7.0, 2.0, 2.0))  # above the line there
    assert not crosses(curve, QRectF(11.0, 0.0, 5.0, 20.0))  # right of its last point
    assert not crosses((np.array([]), np.array([])), QRectF(0.0, 0.0, 1.0, 1.0))


@settings(max_examples=150, deadline=None)
@given(
    ys=st.lists(st.floats(-50, 50), min_size=2, max_size=30),
    box=st.tuples(st.floats(-5, 35), st.floats(-60, 60), st.floats(0.5, 20), st.floats(0.5, 30)),
)
def test_crossing_agrees_with_a_dense_walk(ys, box):
    curve = (np.arange(len(ys), dtype=float), np.asarray(ys, float))
    rect = QRectF(*box)
    exact = crosses(curve, rect)
    assert exact or not _dense(curve, rect)  # what the walk sees, the test sees
    if exact and not _dense(curve, rect):
        # Only a touch thinner than the walk's step: the line within the step's rise of
        # the box's edge.
        x, y = curve
        t = np.linspace(max(rect.left(), 0), min(rect.right(), x[-1]), 20_001)
        v = np.interp(t, x, y)
        gap = np.minimum(np.abs(v - rect.top()), np.abs(v - rect.bottom())).min()
        assert gap < 1e-2


def test_a_leader_meets_the_box_at_its_nearest_point():
    box = QRectF(10.0, 20.0, 30.0, 5.0)
    assert nearest_point(box, QPointF(0.0, 0.0)) == QPointF(10.0, 20.0)
    assert nearest_point(box, QPointF(25.0, 100.0)) == QPointF(25.0, 25.0)
    assert nearest_point(box, QPointF(20.0, 22.0)) == QPointF(20.0, 22.0)  # inside
