"""File → Export Animation…: the dialog, its run in slices with progress and Cancel, and
the window's document and undo history left as they were."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel

from attnviz.core.work import Cancelled
from attnviz.model.document import Document
from attnviz.model.topic import values_equal
from attnviz.ui import animation_job
from attnviz.ui.animation_dialog import AnimationDialog

RUN_MS = 120_000


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        a[t].keys() == b[t].keys() and all(values_equal(a[t][f], b[t][f]) for f in a[t]) for t in a
    )


def _frames(path) -> list[np.ndarray]:
    from PIL import Image, ImageSequence

    out = []
    with Image.open(path) as im:
        for frame in ImageSequence.Iterator(im):
            out += [np.asarray(frame.convert("RGB"))] * round(frame.info["duration"] / 100)
    return out


def _dialog(
    qtbot,
    document,
    path: Path,
    *,
    frames=3,
    panel="heatmap",
    field="attention.temperature",
    start=1.0,
    stop=4.0,
) -> AnimationDialog:
    """The dialog filled in for a small, quick animation of ``panel`` (160 × 90)."""
    dialog = AnimationDialog(document, panel)
    qtbot.addWidget(dialog)
    dialog.field.setCurrentIndex(dialog.field.findData(field))
    dialog.start.setValue(start)
    dialog.stop.setValue(stop)
    dialog.frames.setValue(frames)
    dialog.fps.setValue(10)
    dialog.size.setCurrentIndex(dialog.size.count() - 1)  # custom
    dialog.width_spin.setValue(160)
    dialog.height_spin.setValue(90)
    dialog.format.setCurrentIndex(dialog.format.findData(path.suffix.lstrip(".")))
    dialog.output.setText(str(path))
    return dialog


def test_a_short_run_writes_every_frame_and_leaves_the_document_alone(qtbot, tmp_path):
    document = Document()
    before = document.snapshot()
    out = tmp_path / "t.gif"
    dialog = _dialog(qtbot, document, out)
    assert dialog.sweep_text() == "attention.temperature=1.0:4.0"
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    assert finished.args[0] == out
    frames = _frames(out)
    assert len(frames) == 3 and all(f.shape == (90, 160, 3) for f in frames)
    assert not np.array_equal(frames[0], frames[-1])
    assert _same(document.snapshot(), before)
    assert "t.gif" in dialog.note.text() and dialog.export_button.isEnabled()


def test_a_cancel_while_drawing_leaves_no_file(qtbot, tmp_path):
    document = Document()
    out = tmp_path / "c.webp"
    dialog = _dialog(qtbot, document, out, frames=40)
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
        assert dialog.progress is not None and dialog.job.running
        # The Cancel button of the progress dialog, pressed after the first frames.
        dialog.job.sigProgress.connect(
            lambda *_: dialog.progress and dialog.progress.canceled.emit()
        )
    assert isinstance(finished.args[0], Cancelled)
    assert list(tmp_path.iterdir()) == []
    assert "nothing was written" in dialog.note.text()


def test_a_cancel_while_writing_leaves_no_file(qtbot, tmp_path, monkeypatch):
    real = animation_job.write_animation
    jobs = []

    def cancelled_meanwhile(*args, **kwargs):
        jobs[0].cancel()  # as if Cancel were pressed once the encoder had started
        return real(*args, **kwargs)

    monkeypatch.setattr(animation_job, "write_animation", cancelled_meanwhile)
    out = tmp_path / "w.apng"
    dialog = _dialog(qtbot, Document(), out)
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
        jobs.append(dialog.job)
    assert isinstance(finished.args[0], Cancelled)
    assert list(tmp_path.iterdir()) == []


def test_the_fields_are_the_numbers_of_the_panels_topics(qtbot, tmp_path):
    dialog = AnimationDialog(Document(), "memory")
    qtbot.addWidget(dialog)
    paths = [dialog.field.itemData(i) for i in range(dialog.field.count())]
    assert "memory.context" in paths and "memory.gpu_gb" in paths
    assert all(p.startswith("memory.") for p in paths)
    assert "memory.dtype" not in paths and "memory.model" not in paths  # choices
    dialog.panel.setCurrentIndex(dialog.panel.findData("heatmap"))
    assert dialog.field_path() == "attention.d_k"
    assert dialog.field.findData("positions.base") >= 0  # the heatmap rotates by positions
    assert dialog.field.findData("attention.scale") < 0
    dialog.field.setCurrentIndex(dialog.field.findData("attention.softcap"))
    assert dialog.start.minimum() == 0 and dialog.start.maximum() == 1000
    dialog.start.setValue(0)
    assert not dialog.log.isEnabled()
    dialog.start.setValue(5)
    assert dialog.log.isEnabled()


def test_a_value_the_field_refuses_is_said_and_nothing_runs(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: said.append(a[2]))
    dialog = AnimationDialog(Document(), "positions")
    qtbot.addWidget(dialog)
    dialog.field.setCurrentIndex(dialog.field.findData("positions.head_dim"))
    dialog.start.setValue(2)
    dialog.stop.setValue(9)
    dialog.output.setText(str(tmp_path / "x.gif"))
    dialog.export_button.click()
    assert dialog.job is None and "even" in said[0]
    assert list(tmp_path.iterdir()) == []


def test_every_control_has_a_keyboard_label_or_text_and_a_tooltip(qtbot):
    dialog = AnimationDialog(Document())
    qtbot.addWidget(dialog)
    buddies = {label.buddy() for label in dialog.findChildren(QLabel) if "&" in label.text()}
    for name in (
        "panel",
        "field",
        "start",
        "stop",
        "frames",
        "fps",
        "format",
        "size",
        "theme",
        "output",
    ):
        widget = getattr(dialog, name)
        assert widget in buddies, name
    for name in ("panel", "field", "start", "stop", "frames", "fps", "log", "transparent"):
        assert getattr(dialog, name).toolTip(), name
    for box in (dialog.log, dialog.transparent):
        assert "&" in box.text()


def test_the_window_opens_it_on_the_current_panel_and_keeps_its_history(window, qtbot, tmp_path):
    action = window.findChild(QAction, "action_export_animation")
    assert action is not None and action.shortcut().toString() == "Ctrl+Shift+E"
    window.docks["memory"].show()
    window.docks["memory"].raise_()
    window.panels["memory"].setFocus()
    undo_count = window.undo.stack.count()
    before = window.document.snapshot()
    action.trigger()
    dialog = window.findChild(AnimationDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.panel.currentData() in ("memory", "heatmap")
    dialog.panel.setCurrentIndex(dialog.panel.findData("heatmap"))
    dialog.field.setCurrentIndex(dialog.field.findData("attention.d_k"))
    dialog.start.setValue(2)
    dialog.stop.setValue(16)
    dialog.log.setChecked(True)
    dialog.frames.setValue(4)
    dialog.size.setCurrentIndex(dialog.size.count() - 1)
    dialog.width_spin.setValue(128)
    dialog.height_spin.setValue(72)
    out = tmp_path / "w.gif"
    dialog.output.setText(str(out))
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
    assert finished.args[0] == out and len(_frames(out)) == 4
    assert window.undo.stack.count() == undo_count
    assert _same(window.document.snapshot(), before)
    assert not window.isWindowModified()
    dialog.reject()


def test_closing_while_running_cancels_first(qtbot, tmp_path):
    out = tmp_path / "x.gif"
    dialog = _dialog(qtbot, Document(), out, frames=30)
    dialog.show()
    with qtbot.waitSignal(dialog.sigFinished, timeout=RUN_MS) as finished:
        dialog.export_button.click()
        dialog.reject()
        assert dialog.isVisible()  # until the job has stopped
    assert isinstance(finished.args[0], Cancelled)
    assert not dialog.isVisible() and not out.exists()
