"""A sweep's overview maps: their estimate before any is computed, and the map each frame
draws (model.sweep_work, shared by ``attnviz export --animate`` and the app's dialog)."""

from __future__ import annotations

import pytest

from attnviz.model.document import Document
from attnviz.model.resolve import long as long_model
from attnviz.model.sweep import parse_sweep, sweep_values
from attnviz.model.sweep_work import SAY_WORK_S, frame_overviews, overview_work
from attnviz.model.topic import values_equal
from attnviz.model.workspace import Workspace

CELL_S = 1e-9  # one score cell on the pretend machine


@pytest.fixture(autouse=True)
def pretend_machine(monkeypatch):
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: CELL_S)


def _frames(document, text: str, frames: int) -> list[dict]:
    return sweep_values([parse_sweep(text, document)], frames)


def test_each_distinct_map_is_counted_once_with_its_fields_and_time():
    doc = Document()
    work = overview_work(doc, _frames(doc, "long.n=1024:4096", 4))
    assert [m["n"] for m in work.maps] == [1024, 2048, 3072, 4096]
    base = doc["long"].snapshot()
    assert all(m == {**base, "n": m["n"]} for m in work.maps)
    expected = sum(long_model.CELL_SHARE * n * n * CELL_S for n in (1024, 2048, 3072, 4096))
    assert work.seconds == pytest.approx(expected)


def test_frames_that_draw_the_same_map_share_it():
    doc = Document()
    # An integer field rounds: bins 3, 4, 4, 5, 5 are three maps.
    work = overview_work(doc, _frames(doc, "long.bins=3:5", 5))
    assert [m["bins"] for m in work.maps] == [3, 4, 5]
    # The tiles demo and the heatmap's fields change no map.
    for text in ("long.tiles_n=16:64", "attention.temperature=1:4"):
        work = overview_work(doc, _frames(doc, text, 6))
        assert len(work.maps) == 1, text
        assert work.seconds == pytest.approx(long_model.overview_seconds(doc["long"].snapshot()))


def test_a_gpu_map_is_counted_but_not_timed():
    doc = Document()
    doc.set_fields({"long.backend": "cuda"})
    work = overview_work(doc, _frames(doc, "long.n=65536:131072", 3))
    assert len(work.maps) == 3 and work.seconds == 0.0


def test_the_commands_say_long_work_at_the_threshold_the_app_asks_at():
    from attnviz.commands import _args

    assert _args.SAY_WORK_S is SAY_WORK_S and _args.LONG_WORK_S > SAY_WORK_S


def test_frame_overviews_name_each_frames_map_and_leave_the_document_alone():
    ws = Workspace()
    before = ws.document.snapshot()
    frames = _frames(ws.document, "long.n=512:1024", 3) + _frames(ws.document, "long.n=1024:512", 2)
    results = frame_overviews(ws, frames)
    assert [r.values["n"] for r in results] == [512, 768, 1024, 1024, 512]
    assert [r.key for r in results] == [
        long_model.overview_key({**before["long"], "n": n}) for n in (512, 768, 1024, 1024, 512)
    ]
    assert results[2].key == results[3].key != results[4].key
    after = ws.document.snapshot()
    assert all(values_equal(after[t][f], before[t][f]) for t in before for f in before[t])
