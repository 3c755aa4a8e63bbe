"""The document of topics: --set by name, sessions of every topic, version-1 files, undo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from attnviz.model.document import Document, field_listing, parse_value
from attnviz.model.fields import StateError
from attnviz.model.history import History
from attnviz.model.session import load_session, read_session, save_session
from attnviz.model.topics import topic_classes, topic_names

DATA = Path(__file__).parent / "data"


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        if isinstance(a[name], np.ndarray) or isinstance(b[name], np.ndarray):
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)
        else:
            assert a[name] == b[name], name


def _other_value(field, current):
    """A valid value of ``field`` different from ``current`` (or None when there is none)."""
    kind = field.kind
    if kind == "bool":
        return not current
    if kind == "choice":
        others = [c for c in field.choices if c != current]
        return others[0] if others else None
    if kind == "int":
        lo = int(field.lo if field.lo is not None else 0)
        return lo + 1 if current != lo + 1 else lo + 2
    if kind == "float":
        lo = float(field.lo if field.lo is not None else 0.0)
        hi = float(field.hi if field.hi is not None else lo + 10)
        return lo + (hi - lo) * 0.37 if current != lo + (hi - lo) * 0.37 else lo
    if kind == "text":
        return current + "x"
    if kind == "int_rows":
        row = tuple(int(field.lo or 0) + 1 + i for i in range(field.width))
        return (row, tuple(reversed(row))) if current != (row, tuple(reversed(row))) else ()
    return None


def test_the_topics_are_the_designed_ones():
    assert topic_names()[:2] == ("attention", "positions")
    assert len(set(topic_names())) == len(topic_names())


@pytest.mark.parametrize("cls", topic_classes(), ids=lambda c: c.NAME)
def test_set_of_every_scalar_field_round_trips_through_a_session(tmp_path, cls):
    for field in cls.FIELDS:
        doc = Document()
        topic = doc[cls.NAME]
        value = _other_value(field, topic.get(field.name))
        if value is None:
            continue
        try:
            doc.set_field(f"{cls.NAME}.{field.name}", value)
        except StateError:
            continue  # a value the other fields forbid (e.g. a selection out of range)
        expected = doc.snapshot()
        path = save_session(doc, tmp_path / f"{field.name}.attnviz")
        fresh = Document()
        load_session(fresh, path)
        for name in expected:
            _same(fresh[name].snapshot(), expected[name])


def test_set_reads_json_values_and_names_bad_fields():
    doc = Document()
    doc.set_field("attention.d_k", parse_value("8"))
    assert doc.attention.d_k == 8
    doc.set_field("attention.tokens", parse_value('["homem", "morde", "cachorro"]'))
    assert doc.attention.tokens == ("homem", "morde", "cachorro")
    doc.set_field("attention.causal", parse_value("true"))
    assert doc.attention.causal is True
    doc.set_field("positions.rope_type", parse_value("yarn"))  # plain text
    assert doc.positions.rope_type == "yarn"
    with pytest.raises(StateError, match="no field 'nope'"):
        doc.set_field("attention.nope", 1)
    with pytest.raises(StateError, match="unknown topic 'xyz'"):
        doc.set_field("xyz.d_k", 1)
    with pytest.raises(StateError, match="not a finite number"):
        parse_value("1e400")
    with pytest.raises(StateError, match="attention.scale"):
        doc.set_field("attention.scale", parse_value("no"))
    assert doc.attention.scale is True


def test_field_listing_names_every_field_with_its_range():
    text = field_listing()
    for cls in topic_classes():
        for field in cls.FIELDS:
            assert f"{cls.NAME}.{field.name}\t" in text
    assert "attention.d_k\tint, 1..1024, default 2" in text
    assert "positions.rope_type\tchoice, one of default|linear|ntk|dynamic|llama3|yarn" in text


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("v1-*.attnviz")))
def test_version_1_files_written_by_the_previous_release_open(name):
    raw = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert raw["format_version"] == 1
    snapshot, layout = read_session(DATA / name)
    assert layout == raw["layout"]
    attention = snapshot["attention"]
    for key, value in raw["state"].items():
        got = attention[key]
        if isinstance(got, np.ndarray):
            np.testing.assert_array_equal(got, np.array(value, dtype=float))
        elif isinstance(got, tuple):
            assert list(got) == value, key
        else:
            assert got == value, key
    doc = Document()
    load_session(doc, DATA / name)
    assert doc.positions.snapshot() == Document().positions.snapshot()


def test_version_1_synthetic_head_regenerates_its_vectors():
    doc = Document()
    load_session(doc, DATA / "v1-long-content.attnviz")
    a = doc.attention
    assert a.head == "content" and a.seed == 7 and a.d_k == 64 and a.scale is False
    assert a.q.shape == (a.n, 64)


def test_session_format_2_holds_every_topic_and_big_arrays_exactly(tmp_path):
    doc = Document()
    rng = np.random.default_rng(1)
    doc.attention.update(
        tokens=tuple(f"t{i}" for i in range(100)),
        q=rng.normal(size=(100, 64)),
        k=rng.normal(size=(100, 64)),
        v=rng.normal(size=(100, 64)),
    )
    doc.positions.update(rope_type="llama3", factor=8.0, base=500000.0, head_dim=128)
    path = save_session(doc, tmp_path / "big.attnviz")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format_version"] == 2 and set(data["topics"]) == set(topic_names())
    assert "base64" in data["topics"]["attention"]["q"]  # 6400 entries: compact and exact
    fresh = Document()
    load_session(fresh, path)
    np.testing.assert_array_equal(fresh.attention.q, doc.attention.q)
    assert fresh.positions.rope_type == "llama3" and fresh.positions.factor == 8.0


def test_undo_covers_a_positions_edit():
    doc = Document()
    history = History(doc)
    history.clock = iter(range(0, 1000, 10)).__next__
    doc.positions.update(rope_type="yarn", factor=4.0)
    doc.attention.update(rope=True)
    doc.positions.position = 100
    assert len(history.steps) == 3
    history.undo()
    assert doc.positions.position == 5
    history.undo()
    assert doc.attention.rope is False
    history.undo()
    assert doc.positions.rope_type == "default"
    history.redo()
    assert doc.positions.rope_type == "yarn" and doc.positions.factor == 4.0


def test_restore_is_all_or_nothing():
    doc = Document()
    before = doc.snapshot()
    with pytest.raises(StateError):
        doc.restore({"positions": {"head_dim": 16}, "attention": {"d_k": 10**12}})
    after = doc.snapshot()
    for name in before:
        _same(after[name], before[name])
