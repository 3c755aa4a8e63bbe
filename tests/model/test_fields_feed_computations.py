"""A field's accepted value never ends in a traceback in the computations it feeds.

Hypothesis sets one field of one topic to a hostile value; when the topic takes it, every
data array of every panel is computed from the new document (as ``export --matrix`` does).
Each must be an array or a one-line ``ValueError``/``MemoryError`` (what the CLI prints
as "attnviz export: …" and exit 1); any other exception is a defect.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.panel_data import data_names, data_panels, panel_data
from attnviz.model.resolve.long import overview_seconds
from attnviz.model.workspace import Workspace

#: An overview longer than this is skipped (the CLI announces or refuses it, tested there).
QUICK_OVERVIEW_S = 1.0

_hostile = st.one_of(
    st.integers(min_value=-(10**6), max_value=10**6),
    st.integers(min_value=2**31, max_value=10**400),
    st.sampled_from([0, 1, 2, 3, 7, 64, 511, 512, 513, 4096]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e6, max_value=1e6),
    st.sampled_from([0.0, 1e-300, 1e-12, 0.5, 1.0, 100.0, 1e300]),
    st.text(max_size=12),
    st.booleans(),
    st.none(),
    st.lists(st.integers(min_value=-3, max_value=70), max_size=4),
    st.lists(st.booleans(), max_size=5),
)


def _fields():
    doc = Document()
    return [(t, spec) for t in sorted(doc.topics) for spec in type(doc[t]).FIELDS]


FIELDS = _fields()


def _valid(spec):
    """Values inside the field's own bounds and choices, edges first: those are taken, and
    they reach the computations (a hostile value is mostly refused at the door)."""
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "int" and spec.lo is not None and spec.hi is not None:
        lo, hi = int(spec.lo), int(spec.hi)
        edges = sorted(v for v in {lo, lo + 1, hi - 1, hi} if lo <= v <= hi)
        return st.one_of(
            st.sampled_from(edges), st.integers(lo, min(hi, lo + 600)), st.integers(lo, hi)
        )
    if spec.kind == "float" and spec.lo is not None and spec.hi is not None:
        lo, hi = float(spec.lo), float(spec.hi)
        return st.one_of(st.sampled_from([lo, hi]), st.floats(lo, hi))
    if spec.kind == "ints" and spec.hi is not None:
        bound = int(min(spec.hi, 5000))
        small = st.lists(st.integers(0, 3), min_size=1, max_size=6)  # segments, one a token
        return st.one_of(
            small, st.lists(st.integers(0, bound), min_size=2, max_size=2, unique=True).map(sorted)
        )
    if spec.kind in ("matrix", "optmatrix"):
        # Mostly the default sentence's three rows, so that the matrix is taken.
        rows, cols = st.sampled_from([3, 3, 3, 1, 4, 6]), st.integers(1, 6)
        return st.tuples(rows, cols).flatmap(
            lambda shape: arrays(np.float64, shape, elements=_entries)
        )
    if spec.kind == "texts":
        return st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6)
    if spec.kind == "flags":
        return st.lists(st.booleans(), min_size=1, max_size=6)
    if spec.kind == "text":
        return st.text(max_size=24)
    if spec.kind == "pair":
        return st.tuples(st.floats(-10, 10), st.floats(0.001, 10)).map(
            lambda p: [p[0], p[0] + p[1]]
        )
    if spec.kind == "int_rows":
        row = st.lists(st.integers(int(spec.lo), 6), min_size=spec.width, max_size=spec.width)
        return st.lists(row, max_size=3)
    if spec.kind == "cell":
        return st.one_of(st.none(), st.lists(st.integers(0, 6), min_size=2, max_size=2))
    return _hostile


_entries = st.one_of(
    st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.sampled_from([0.0, 1e6, -1e6, 1e-300, 1e300])
)


def _compute_everything(ws: Workspace) -> int:
    done = 0
    long = ws.document.long
    for panel in data_panels():
        if panel == "overview":
            seconds = overview_seconds(ws.resolver_for("long").results.values)
            if seconds is not None and seconds > QUICK_OVERVIEW_S or long.backend != "numpy":
                continue
        for name in data_names(panel):
            try:
                out = panel_data(ws, panel, name)
            except (ValueError, MemoryError) as exc:
                assert "\n" not in str(exc), (panel, name, str(exc))
                continue
            assert isinstance(out.values, np.ndarray)
            done += 1
    return done


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_accepted_value_feeds_every_panels_data_cleanly(data):
    topic, spec = data.draw(st.sampled_from(FIELDS))
    name = spec.name
    ws = Workspace()
    t = ws.document[topic]
    value = data.draw(st.one_of(_valid(spec), _valid(spec), _hostile))
    try:
        t.update(**{name: value})
    except StateError:
        event("refused")
        return
    event("taken")
    _compute_everything(ws)
