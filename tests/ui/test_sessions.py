"""Session files through the controller: round trip, refusals, prompts, recent files, drops."""

import warnings

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMainWindow, QMessageBox

from attnviz.model.session import SUFFIX
from attnviz.model.topics.attention import AttentionState
from attnviz.ui import sessions as sessions_module
from attnviz.ui.sessions import MAX_RECENT, SessionController
from attnviz.ui.undo import UndoController


class Dialogs:
    """Records every dialog the controller opens and answers with canned replies."""

    def __init__(self, controller):
        self.errors = []
        self.prompts = 0
        self.answer = QMessageBox.StandardButton.Cancel
        self.save_path = ""
        self.open_path = ""
        controller._show_error = lambda title, msg: self.errors.append(msg)
        controller._ask_unsaved = self._unsaved
        controller._ask_save_path = lambda: self.save_path
        controller._ask_open_path = lambda: self.open_path

    def _unsaved(self):
        self.prompts += 1
        return self.answer


@pytest.fixture
def setup(qapp, state):
    window = QMainWindow()
    undo = UndoController(state, window)
    controller = SessionController(window, state, undo)
    dialogs = Dialogs(controller)
    yield window, controller, undo, dialogs
    window.deleteLater()


def test_round_trip_through_the_controller(setup, state, tmp_path):
    window, controller, undo, dialogs = setup
    controller.layout_provider = lambda: "lecture"
    state.update(temperature=0.5, causal=True, window=2, selected_cell=(1, 2))
    q = state.q.copy()
    q[2] = (0.25, -1.5)
    state.q = q
    saved = state.snapshot()
    path = tmp_path / f"talk{SUFFIX}"
    assert controller.save_to(path)
    assert undo.stack.isClean() and not window.isWindowModified()
    assert controller.path == path and "talk.attnviz" in window.windowTitle()

    layouts = []
    controller.sigLayoutLoaded.connect(layouts.append)
    state.update(temperature=3.0, causal=False, tokens=("x",))
    assert window.isWindowModified()
    assert controller.open_path(path)
    restored = state.snapshot()
    for name, value in saved.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(restored[name], value)
        else:
            assert restored[name] == value, name
    assert layouts == ["lecture"]
    assert undo.stack.count() == 0 and not window.isWindowModified()
    assert dialogs.errors == []


def test_corrupt_file_is_refused_with_message_and_nothing_changes(setup, state, tmp_path):
    window, controller, undo, dialogs = setup
    good = tmp_path / f"good{SUFFIX}"
    assert controller.save_to(good)
    good_bytes = good.read_bytes()
    bad = tmp_path / f"bad{SUFFIX}"
    bad.write_text(good_bytes.decode()[: len(good_bytes) // 2], encoding="utf-8")
    state.temperature = 2.0
    before = state.snapshot()
    assert not controller.open_path(bad)
    assert len(dialogs.errors) == 1 and "damaged or truncated" in dialogs.errors[0]
    assert state.temperature == before["temperature"] and state.tokens == before["tokens"]
    assert controller.path == good  # still the file we had
    assert good.read_bytes() == good_bytes


def test_newer_format_is_refused(setup, tmp_path):
    _, controller, _, dialogs = setup
    path = tmp_path / f"future{SUFFIX}"
    path.write_text('{"format_version": 99, "state": {}}', encoding="utf-8")
    assert not controller.open_path(path)
    assert "newer attnviz" in dialogs.errors[0]


def test_failed_save_keeps_the_previous_file_intact(setup, state, tmp_path, monkeypatch):
    _, controller, undo, dialogs = setup
    path = tmp_path / f"s{SUFFIX}"
    assert controller.save_to(path)
    old = path.read_bytes()
    state.temperature = 7.0

    def broken(*args, **kwargs):
        from attnviz.model.session import SessionError

        raise SessionError("disk full")

    monkeypatch.setattr(sessions_module, "save_session", broken)
    assert not controller.save_to(path)
    assert dialogs.errors == ["disk full"]
    assert path.read_bytes() == old
    assert not undo.stack.isClean()


def test_maybe_save_prompts_only_when_modified(setup, state, tmp_path):
    _, controller, undo, dialogs = setup
    assert controller.maybe_save() and dialogs.prompts == 0
    state.causal = True
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not controller.maybe_save() and dialogs.prompts == 1
    dialogs.answer = QMessageBox.StandardButton.Discard
    assert controller.maybe_save() and dialogs.prompts == 2
    dialogs.answer = QMessageBox.StandardButton.Save
    dialogs.save_path = str(tmp_path / "chosen")  # no suffix: one is added
    assert controller.maybe_save()
    assert controller.path == tmp_path / f"chosen{SUFFIX}" and controller.path.exists()
    assert undo.stack.isClean()
    assert controller.maybe_save() and dialogs.prompts == 3
    undo.stack.undo()  # back before the save: modified again
    assert not undo.stack.isClean()


def test_cancelled_save_as_does_not_save(setup, state):
    _, controller, _, dialogs = setup
    state.causal = True
    dialogs.answer = QMessageBox.StandardButton.Save
    dialogs.save_path = ""  # the file dialog was cancelled
    assert not controller.maybe_save()
    assert controller.path is None


def test_recent_files_most_recent_first_capped_and_missing_removed(setup, state, tmp_path):
    _, controller, _, _ = setup
    paths = [tmp_path / f"r{i}{SUFFIX}" for i in range(MAX_RECENT + 2)]
    for p in paths:
        assert controller.save_to(p)
    recent = controller.recent_files()
    assert recent == [p.resolve() for p in reversed(paths)][:MAX_RECENT]
    paths[-1].unlink()
    assert paths[-1].resolve() not in controller.recent_files()
    controller._fill_recent()
    texts = [a.text() for a in controller.recent_menu.actions()]
    assert len(texts) == MAX_RECENT - 1 and texts[0].endswith(paths[-2].name)


def test_open_action_asks_for_a_file(setup, state, tmp_path):
    _, controller, _, dialogs = setup
    other = AttentionState(temperature=4.0)
    from attnviz.model.session import save_session

    path = save_session(other, tmp_path / f"o{SUFFIX}")
    dialogs.open_path = str(path)
    controller.open_action.trigger()
    assert state.temperature == 4.0 and controller.path == path


def drop_events(path):
    """A drag entering the window with ``path``, and its drop."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    args = (
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with warnings.catch_warnings():
        # The only constructor PySide6 offers takes a QPoint, which Qt marks deprecated.
        warnings.simplefilter("ignore", DeprecationWarning)
        enter = QDragEnterEvent(QPoint(5, 5), *args)
    drop = QDropEvent(QPointF(5, 5), *args)
    return mime, enter, drop


def test_dropping_a_session_file_opens_it(setup, state, tmp_path):
    window, controller, _, _ = setup
    from attnviz.model.session import save_session

    path = save_session(AttentionState(causal=True, temperature=0.25), tmp_path / f"d{SUFFIX}")
    _mime, enter, drop = drop_events(path)
    assert window.acceptDrops()
    # Qt delivers drops only inside a real drag, so the filter gets the events directly.
    assert controller.eventFilter(window, enter) and enter.isAccepted()
    assert controller.eventFilter(window, drop)
    assert state.causal and state.temperature == 0.25 and controller.path == path


def test_dropping_another_file_is_ignored(setup, state, tmp_path):
    window, controller, _, _ = setup
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    _mime, enter, drop = drop_events(other)
    assert not controller.eventFilter(window, enter)
    assert not controller.eventFilter(window, drop)
    assert controller.path is None and not state.causal


def test_closing_a_window_with_unsaved_history_is_quiet(qtbot, qapp):
    """Window, undo stack and session controller die together without touching each other."""
    state = AttentionState()
    window = QMainWindow()
    undo = UndoController(state, window)
    controller = SessionController(window, state, undo)
    controller._show_error = lambda *a: pytest.fail("no dialog while closing")
    state.causal = True
    assert window.isWindowModified()
    window.deleteLater()
    qapp.sendPostedEvents(None, 0)  # DeferredDelete; pytest-qt fails on any slot exception
    state.causal = False  # nobody listens any more, nothing raises


def test_a_model_path_the_system_cannot_take_is_one_message(setup, state, tmp_path):
    """A NUL byte in a session's model folder (a hostile file) is refused like any bad value,
    without reaching the model loader."""
    import json

    _, controller, _, dialogs = setup
    path = tmp_path / f"nul{SUFFIX}"
    assert controller.save_to(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    attention = data["topics"]["attention"]
    attention.update(head="model", model_path="/tmp/a\u0000b")
    for name in ("q", "k", "v"):  # a model's head is saved without them
        attention.pop(name, None)
    path.write_text(json.dumps(data), encoding="utf-8")
    before = state.snapshot()
    assert not controller.open_path(path)
    assert len(dialogs.errors) == 1 and "model_path" in dialogs.errors[0]
    assert state.snapshot().keys() == before.keys() and state.head == before["head"]


@pytest.mark.parametrize("kind", ["loop", "surrogate"])
def test_a_session_whose_model_path_cannot_be_followed_is_refused(window, tmp_path, kind):
    """The window's Open: a hand-edited session naming a folder that is a symlink loop, or
    a lone surrogate, is refused with a message; nothing escapes to the crash handler."""
    import json

    if kind == "loop":
        folder = tmp_path / "loop"
        folder.symlink_to(folder)
        folder = str(folder)
    else:
        folder = str(tmp_path / "bad\ud800name")
    data = {
        "format_version": 2,
        "topics": {
            "attention": {
                "head": "model",
                "model_path": folder,
                "model_text": "a b",
                "layer": 0,
                "model_head": 0,
            }
        },
    }
    path = tmp_path / f"hostile{SUFFIX}"
    path.write_text(json.dumps(data), encoding="utf-8")
    controller = window.session
    errors = []
    controller._show_error = lambda title, msg: errors.append(msg)
    before = window.state.snapshot()
    controller.open_path(path)
    assert len(errors) == 1 and "\n" not in errors[0]
    assert window.state.head == before["head"] and window.state.tokens == before["tokens"]
