"""File → Export Animation… of the overview panel: the question before long maps, the maps
computed on the thread pool while the window stays live, the frames as the export draws
them, and Cancel inside a map."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

from attnviz.core.work import Cancelled
from attnviz.model.document import Document
from attnviz.model.resolve import long as long_model
from attnviz.ui import animation_job
from attnviz.ui.animation import render_frames, write_animation
from attnviz.ui.animation_dialog import AnimationDialog
from tests.ui.test_animation_dialog import _dialog as animation_dialog
from tests.ui.test_animation_dialog import _same

RUN_MS = 120_000


def _dialog(qtbot, document, path: Path, start=512, stop=1024, frames=3) -> AnimationDialog:
    return animation_dialog(
        qtbot,
        document,
        path,
        frames=frames,
        panel="overview",
        field="long.n",
        start=start,
        stop=stop,
    )


@pytest.fixture
def answers(monkeypatch):
    """The questions the dialog asks (their text), answered from ``answers.reply``."""

    class Answers(list):
        reply = QMessageBox.StandardButton.No

    asked = Answers()

    def question(parent, title, text, *args):
        asked.append(text)
        return asked.reply

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def test_long_maps_are_asked_about_and_no_starts_nothing(qtbot, tmp_path, monkeypatch, answers):
    # A thousand times slower: 512, 768 and 1,024 tokens take 13 + 29 + 52 s.
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: 1e-4)
    document = Document()
    before = document.snapshot()
    out = tmp_path / "no.gif"
    dialog = _dialog(qtbot, document, out)
    dialog.export_button.click()
    assert answers == [
        "The 3 attention maps of this animation take about 95 s on this machine's CPU; "
        "export anyway?"
    ]
    assert dialog.job is None and list(tmp_path.iterdir()) == []
    assert _same(document.snapshot(), before) and dialog.export_button.isEnabled()
    assert dialog.output.text() == str(out)  # the choices stay for another try
    answers.reply = QMessageBox.StandardButton.Yes
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    assert finished.args[0] == out and out.stat().st_size > 0 and len(answers) == 2
    assert _same(document.snapshot(), before)


def test_quick_maps_and_other_panels_are_not_asked_about(qtbot, tmp_path, monkeypatch, answers):
    dialog = _dialog(qtbot, Document(), tmp_path / "quick.gif", frames=2)
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: 1e-9)
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    assert finished.args[0] == tmp_path / "quick.gif" and answers == []
    monkeypatch.setattr(long_model, "_cell_seconds", lambda d, dtype: 1e-4)
    dialog.panel.setCurrentIndex(dialog.panel.findData("tiles"))  # the long topic too
    dialog.field.setCurrentIndex(dialog.field.findData("long.n"))
    dialog.start.setValue(512)
    dialog.stop.setValue(1024)
    dialog.output.setText(str(tmp_path / "tiles.gif"))
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS):
        dialog.export_button.click()
    assert answers == []


def test_the_maps_are_computed_on_the_pool_and_the_frames_are_the_exports(
    qtbot, tmp_path, monkeypatch
):
    document = Document()
    document.set_fields({"long.bins": 64})
    dialog = _dialog(qtbot, document, tmp_path / "dialog.gif")
    values = [{"long.n": n} for n in (512, 768, 1024)]
    # The frames as before: each drawn with its map computed in place.
    reference = tmp_path / "reference.gif"
    images = render_frames(
        animation_job.copied_workspace(document), "overview", values, dialog.spec()
    )
    write_animation(images, reference, dialog.fps.value())
    on_gui_thread = []
    real = long_model.run_overview

    def job_map(*args, **kwargs):
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    def resolver_map(*args, **kwargs):
        raise AssertionError("a frame computed its own map")

    monkeypatch.setattr(animation_job, "run_overview", job_map)
    monkeypatch.setattr(long_model, "run_overview", resolver_map)
    labels = []
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
        dialog.job.sigProgress.connect(lambda *_: labels.append(dialog.progress.labelText()))
    assert finished.args[0] == tmp_path / "dialog.gif"
    assert on_gui_thread == [False, False, False]
    assert (tmp_path / "dialog.gif").read_bytes() == reference.read_bytes()
    assert "Computing map 3 of 3…" in labels and "Drawing frame 3 of 3…" in labels


def test_the_window_stays_live_while_a_map_computes_and_cancel_stops_it_inside(
    qtbot, tmp_path, monkeypatch
):
    started, stopped_inside = threading.Event(), []

    def slow_map(values, progress=None, cancel=None, source=None):
        started.set()
        for _ in range(3000):  # at most half a minute: it ends when cancelled
            if cancel.is_set():
                stopped_inside.append(True)
                raise Cancelled("cancelled inside the map")
            progress(0.5)
            time.sleep(0.01)
        raise AssertionError("the map was never cancelled")

    monkeypatch.setattr(animation_job, "run_overview", slow_map)
    document = Document()
    before = document.snapshot()
    dialog = _dialog(qtbot, document, tmp_path / "c.webp")
    seen = []

    def tick():
        if started.is_set() and dialog.progress is not None and len(seen) < 5:
            seen.append(dialog.progress.labelText())
            if len(seen) == 5:
                dialog.progress.canceled.emit()  # Cancel, pressed while the map computes

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    timer.stop()
    # The event loop ran five times while the map (which ends only when cancelled) ran.
    assert seen == ["Computing map 1 of 3…"] * 5
    assert isinstance(finished.args[0], Cancelled) and stopped_inside == [True]
    assert list(tmp_path.iterdir()) == []
    assert "nothing was written" in dialog.note.text()
    assert _same(document.snapshot(), before)


def test_a_map_that_fails_is_said_and_writes_nothing(qtbot, tmp_path, monkeypatch):
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: said.append(a[2]))

    def refused(*args, **kwargs):
        raise ValueError("no room for this map")

    monkeypatch.setattr(animation_job, "run_overview", refused)
    dialog = _dialog(qtbot, Document(), tmp_path / "f.gif")
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    assert isinstance(finished.args[0], ValueError) and said == ["no room for this map"]
    assert list(tmp_path.iterdir()) == [] and dialog.export_button.isEnabled()
