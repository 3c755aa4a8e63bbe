"""The Train window (File → Train Induction Heads…): its curves are the run's training.csv,
drawn while it runs; Cancel writes nothing; the folder it opens is the one written, as
transformers computes it; the estimate is said before it starts; a short soak."""

from __future__ import annotations

import csv
import random
import threading

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core import induction  # noqa: E402
from attnviz.core.work import Cancelled  # noqa: E402
from attnviz.ui import train_dialog  # noqa: E402
from attnviz.ui.train_dialog import OPEN_TEXT, TrainDialog, _train_job, about  # noqa: E402

#: Long enough for a few measured points (every 25 steps), short enough for the suite.
STEPS = 60
WAIT_MS = 120_000


def read_csv(folder) -> dict[str, np.ndarray]:
    with open(folder / "training.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {name: np.array([float(r[name]) for r in rows]) for name in induction.CSV_COLUMNS}


@pytest.fixture
def dialog(qtbot, tmp_path):
    d = TrainDialog()
    qtbot.addWidget(d)
    d.folder.setText(str(tmp_path / "model"))
    d._folder_edited = True
    d.steps.setValue(STEPS)
    yield d
    d.cancel()
    qtbot.waitUntil(lambda: not d.running, timeout=WAIT_MS)


def test_the_estimate_is_said_before_the_start(dialog):
    for steps in (1000, 4000):
        dialog.steps.setValue(steps)
        want = about(induction.estimate_seconds(steps))
        assert want in dialog.estimate.text()
        assert not dialog.running and dialog.curves == []
    # 1,000 steps on the reference machine: 37 s; 4,000: 144 s, said in minutes.
    assert about(induction.estimate_seconds(1000)) == "about 37 s"
    assert about(induction.estimate_seconds(4000)) == "about 2 min"


def test_the_curves_drawn_live_are_the_training_csv(qtbot, dialog, tmp_path):
    dialog.steps.setValue(100)
    dialog.seed.setValue(3)
    assert dialog.start_training()
    # Mid-run: points are drawn while the worker still trains.
    qtbot.waitUntil(lambda: dialog.running and len(dialog.curves) >= 1, timeout=WAIT_MS)
    live = dialog.curves_view.drawn()
    assert 1 <= len(live["step"]) < 4
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert dialog.written == tmp_path / "model"
    wrote = read_csv(dialog.written)
    np.testing.assert_array_equal(wrote["step"], [25, 50, 75, 100])
    drawn = dialog.curves_view.drawn()
    for name in induction.CSV_COLUMNS:
        np.testing.assert_allclose(drawn[name], wrote[name], atol=1e-6, err_msg=name)
        n = len(live[name])
        np.testing.assert_allclose(live[name], wrote[name][:n], atol=1e-6, err_msg=name)
    # The loss starts near chance (a uniform guess over the words).
    assert abs(wrote["loss"][0] - induction.chance_loss()) < 0.3
    assert dialog.open_button.isEnabled()
    assert "induction" in dialog.summary.text()


def test_cancel_leaves_no_folder(qtbot, dialog, tmp_path):
    dialog.steps.setValue(induction.MAX_STEPS)
    ended = []
    dialog.sigFinished.connect(ended.append)
    assert dialog.start_training()
    qtbot.waitUntil(lambda: len(dialog.curves) >= 1, timeout=WAIT_MS)
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    assert ended == [None]
    assert list(tmp_path.iterdir()) == []  # neither the folder nor a partial one
    assert not dialog.open_button.isEnabled()
    assert dialog.start.isEnabled()


def test_a_cancel_while_writing_removes_the_folder(tmp_path, monkeypatch):
    stop = threading.Event()
    write = induction.write_folder

    def write_then_cancel(result, out):
        written = write(result, out)
        assert (written / "model.safetensors").is_file()
        stop.set()
        return written

    monkeypatch.setattr(induction, "write_folder", write_then_cancel)
    with pytest.raises(Cancelled):
        _train_job(0, 5, tmp_path / "m", stop, [])
    assert list(tmp_path.iterdir()) == []


def test_a_folder_taken_is_refused_in_one_line(dialog, tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.txt").write_text("x")
    assert not dialog.start_training()
    assert not dialog.running
    assert dialog.error.text().endswith("the folder exists and is not empty (choose a new one)")
    assert "\n" not in dialog.error.text()


def test_the_default_folder_is_new(tmp_path, monkeypatch):
    monkeypatch.setattr(train_dialog, "default_parent", lambda: tmp_path)
    (tmp_path / "induction-seed0-1000").mkdir()
    d = TrainDialog()
    assert d.folder.text() == str(tmp_path / "induction-seed0-1000-2")
    d.seed.setValue(7)
    assert d.folder.text() == str(tmp_path / "induction-seed7-1000")
    d.deleteLater()


def test_the_model_opened_is_the_one_written(qtbot, make_window, tmp_path):
    window = make_window()
    from PySide6.QtWidgets import QMenu

    action = window.models.train_action
    assert action.objectName() == "action_train_induction"
    assert action in window.menuBar().findChild(QMenu, "menu_file").actions()
    action.trigger()
    d = window.models.train_dialog
    assert d.isVisible()
    d.folder.setText(str(tmp_path / "trained"))
    d._folder_edited = True
    d.steps.setValue(STEPS)
    d.seed.setValue(5)
    assert d.start_training()
    qtbot.waitUntil(lambda: not d.running, timeout=WAIT_MS)
    folder = tmp_path / "trained"
    assert d.written == folder
    d.open_button.click()
    qtbot.waitUntil(lambda: not window.models.busy, timeout=WAIT_MS)
    state = window.document.attention
    assert state.model_path == str(folder)
    assert list(state.tokens) == ["[BOS]", *OPEN_TEXT.split()]
    state.update(layer=1, model_head=0)
    model = transformers.LlamaForCausalLM.from_pretrained(
        str(folder), attn_implementation="eager"
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    with torch.no_grad():
        out = model(torch.tensor([tok(OPEN_TEXT).input_ids]), output_attentions=True)
    shown = np.asarray(window.resolver.results.attention.weights)
    np.testing.assert_allclose(shown, out.attentions[1][0, 0].numpy(), atol=1e-5)
    # The weights are the run's: a model trained from seed 5 for the same steps.
    again = induction.train(5, STEPS).model
    for name, value in again.state_dict().items():
        np.testing.assert_allclose(
            model.state_dict()[name].numpy(), value.numpy(), atol=1e-6, err_msg=name
        )


def test_soak_start_cancel_resize(qtbot, dialog, tmp_path):
    rng = random.Random(42)
    ended = []
    dialog.sigFinished.connect(ended.append)
    dialog.show()
    starts = 0
    for _ in range(30):
        event = rng.choice(("seed", "steps", "start", "cancel", "resize"))
        if event == "seed":
            dialog.seed.setValue(rng.randrange(0, 1000))
        elif event == "steps":
            dialog.steps.setValue(rng.randrange(1000, induction.MAX_STEPS))
        elif event == "start":
            if dialog.start_training():
                starts += 1
                dialog.cancel()  # each run is cancelled before it could finish
        elif event == "cancel":
            dialog.cancel()
        else:
            dialog.resize(rng.randrange(300, 1600), rng.randrange(200, 1000))
        qtbot.wait(1)
        if not dialog.running:
            assert dialog.seed.isEnabled() and dialog.start.isEnabled()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(ended) == starts, timeout=WAIT_MS)
    assert starts >= 1
    assert ended == [None] * starts
    assert list(tmp_path.iterdir()) == []


def test_closing_the_main_window_stops_a_run(qtbot, make_window, tmp_path):
    window = make_window()
    window.models.show_train_dialog()
    d = window.models.train_dialog
    d.folder.setText(str(tmp_path / "m"))
    d._folder_edited = True
    d.steps.setValue(induction.MAX_STEPS)
    ended = []
    d.sigFinished.connect(ended.append)
    assert d.start_training()
    window.close()
    qtbot.waitUntil(lambda: ended == [None], timeout=WAIT_MS)
    assert list(tmp_path.iterdir()) == []


def test_a_failure_is_one_line_and_the_window_is_usable_again(qtbot, tmp_path, monkeypatch):
    def full_disk(*_args):
        raise OSError(28, "No space left on device", str(tmp_path / "m"))

    monkeypatch.setattr(train_dialog, "_train_job", full_disk)
    # The pool's way (an exception handed to ``done``), run in place.
    d = TrainDialog(runner=lambda job, done: done(_caught(job)))
    qtbot.addWidget(d)
    d.folder.setText(str(tmp_path / "m"))
    d._folder_edited = True
    assert d.start_training()
    assert not d.running
    assert d.error.text() == f"No space left on device: {tmp_path / 'm'}"
    assert d.start.isEnabled() and not d.open_button.isEnabled()


def _caught(job):
    try:
        return job()
    except Exception as exc:
        return exc
