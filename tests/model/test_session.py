"""Session files: round trip, atomic save, and refusal of bad files with the old file intact."""

import json

import numpy as np
import pytest

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.session import SessionError, load_session, read_session, save_session
from attnviz.model.topics.attention import AttentionState


def _same_state(a: AttentionState, b: AttentionState):
    sa, sb = a.snapshot(), b.snapshot()
    for key in sa:
        if isinstance(sa[key], np.ndarray):
            np.testing.assert_array_equal(sa[key], sb[key])
        else:
            assert sa[key] == sb[key], key


@pytest.mark.parametrize("pid", ["banco", "gato", "long-sentence"])
def test_round_trip(tmp_path, pid):
    s = AttentionState(**preset_state_values(load_preset(pid)))
    s.update(temperature=1.5, colormap="cividis", selected_cell=(1, 0), window=2)
    path = save_session(s, tmp_path / "a.attnviz", layout="teaching")
    t = AttentionState()
    assert load_session(t, path) == "teaching"
    _same_state(s, t)


def test_manual_edits_survive(tmp_path):
    s = AttentionState()
    s.v = [[1, 0], [0.5, 0.5], [0, 1]]
    save_session(s, tmp_path / "m.attnviz")
    t = AttentionState()
    load_session(t, tmp_path / "m.attnviz")
    np.testing.assert_array_equal(t.v[2], [0, 1])


BAD = {
    "not json": b"{ this is not json",
    "truncated": None,  # filled from a real file below
    "binary": b"\x89PNG\r\n\x1a\n\x00\x00",
    "no version": json.dumps({"state": {}}).encode(),
    "future": json.dumps({"format_version": 99, "state": {"tokens": ["a"]}}).encode(),
    "wrong type": json.dumps({"format_version": 1, "state": {"tokens": "abc"}}).encode(),
    "unknown field": json.dumps(
        {"format_version": 1, "state": {"tokens": ["a"], "rm": 1}}
    ).encode(),
    "nan": b'{"format_version": 1, "state": {"tokens": ["a"], "temperature": NaN}}',
    "ragged": json.dumps(
        {"format_version": 1, "state": {"tokens": ["a", "b"], "q": [[1, 2], [3]]}}
    ).encode(),
    "inconsistent": json.dumps(
        {"format_version": 1, "state": {"tokens": ["a", "b"], "q": [[1, 2]], "k": [[1, 2]]}}
    ).encode(),
    "deep": b"[" * 100000 + b"]" * 100000,
    "list": b"[1, 2, 3]",
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_files_are_refused_and_state_untouched(tmp_path, kind):
    good = tmp_path / "good.attnviz"
    s = AttentionState()
    save_session(s, good)
    content = BAD[kind] if BAD[kind] is not None else good.read_bytes()[:-40]
    bad = tmp_path / "bad.attnviz"
    bad.write_bytes(content)
    before = s.snapshot()
    with pytest.raises(SessionError):
        load_session(s, bad)
    assert s.preset_id == before["preset_id"]
    np.testing.assert_array_equal(s.q, before["q"])


def test_future_version_message_says_update(tmp_path):
    p = tmp_path / "f.attnviz"
    p.write_text(json.dumps({"format_version": 3, "topics": {}}))
    with pytest.raises(SessionError, match="newer attnviz"):
        read_session(p)


def test_failed_save_keeps_old_file(tmp_path):
    target = tmp_path / "keep.attnviz"
    s = AttentionState()
    save_session(s, target)
    original = target.read_bytes()
    with pytest.raises(SessionError):
        save_session(s, tmp_path / "missing-dir" / "x.attnviz")
    assert target.read_bytes() == original
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_rows_of_integers_round_trip_through_a_session(tmp_path):
    """``prediction.ablate`` and ``knockout`` (int_rows) come back as the tuples they were."""
    from attnviz.model.document import Document
    from attnviz.model.session import load_session, save_session

    doc = Document()
    doc.prediction.update(ablate=[[0, 1], [3, 2]], knockout=[[1, -1, 4, 0]], ablation="mean")
    path = save_session(doc, tmp_path / "rows.attnviz")
    fresh = Document()
    load_session(fresh, path)
    assert fresh.prediction.ablate == ((0, 1), (3, 2))
    assert fresh.prediction.knockout == ((1, -1, 4, 0),)
    assert fresh.prediction.ablation == "mean"
