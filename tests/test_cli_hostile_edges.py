"""Issue 39 item 7, the command line's edges: text that is not UTF-8, a session file whose
name starts with a dash, a named pipe where the log goes, an empty session opened as a file
manager opens it. Each was a traceback, a refusal of a valid request or a silent hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: "café" typed on a Latin-1 terminal: Python hands the byte 0xe9 over as U+DCE9.
LATIN1_CAFE = os.fsdecode(b"caf\xe9 ok")


def _env(tmp_path, **extra) -> dict:
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "ATTNVIZ_LOG_DIR": str(tmp_path / "logs"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "TMPDIR": str(tmp_path),
        **extra,
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "--model", "some/folder", "--text", LATIN1_CAFE, "--out", "x.png"],
        ["models", "some/folder", "--text", LATIN1_CAFE],
    ],
    ids=["export", "models"],
)
def test_text_that_is_not_utf8_is_one_line_before_any_tokenizer(capsys, argv):
    """It reached the tokenizer, whose TypeError ("TextEncodeInput must be Union[…]") was
    all the user saw."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        f"attnviz {argv[0]}: error: argument --text: not UTF-8 text: byte 0xe9 at character 4 "
        "(is the terminal's encoding UTF-8?)\n"
    )


def test_a_loaded_model_refuses_a_sentence_that_is_not_utf8():
    """The same guard where scripts and notebooks reach the tokenizer directly."""
    from attnviz.core.hf_capture import LoadedModel, ModelError

    loaded = object.__new__(LoadedModel)  # the guard comes before the tokenizer is asked
    with pytest.raises(ModelError, match=r"^the sentence is not UTF-8 text \(at character 4\)$"):
        loaded.tokenize(LATIN1_CAFE)


@pytest.fixture
def opened(monkeypatch):
    """What the GUI would have been started with (nothing is started)."""
    import attnviz.ui.app as app

    calls = []
    monkeypatch.setattr(app, "hold_garbage_collection", lambda: None)
    monkeypatch.setattr(app, "run_app", lambda session=None: calls.append(session) or 0)
    return calls


@pytest.mark.parametrize(
    ("argv", "session"),
    [
        (["--", "-notes.attnviz"], "-notes.attnviz"),
        (["--", "talk.attnviz"], "talk.attnviz"),
        (["--"], None),
        ([], None),
    ],
)
def test_a_session_whose_name_starts_with_a_dash_opens_after_double_dash(opened, argv, session):
    """``attnviz -- -x.attnviz`` was "invalid choice: '--'"."""
    assert main(argv) == 0
    assert opened == [session]


def _mkfifo(path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    os.mkfifo(path)
    return path


_INSTALL = """
import sys
from pathlib import Path
from attnviz.ui import crash
h = crash.install_crash_handler(Path(sys.argv[1]), show_dialog=False)
import logging
logging.getLogger("attnviz.test").warning("still logged")
print("LOG", h.log_path)
"""


def _python(tmp_path, *args: str, env: dict | None = None, timeout: int = 60):
    """``python ARGS`` from the checkout, offscreen, logs and settings under ``tmp_path``;
    the timeout turns what used to hang into a failure."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env or _env(tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize("name", ["attnviz.log", "native-crash.log"])
def test_a_named_pipe_where_the_log_goes_never_blocks_start_up(tmp_path, name):
    """A FIFO named attnviz.log in ATTNVIZ_LOG_DIR blocked the start silently (opening it
    for writing waits for a reader). Now the log goes elsewhere, and the console says so
    once; a pipe as native-crash.log only goes without the native log."""
    logs = tmp_path / "logs"
    logs.mkdir()
    _mkfifo(logs / name)
    env = _env(tmp_path)
    env.pop("PYTHONFAULTHANDLER", None)  # the native log is the handler's to open
    r = _python(tmp_path, "-c", _INSTALL, str(logs), env=env)  # before: never returned
    assert r.returncode == 0, r.stderr
    log_path = Path(r.stdout.split("LOG ", 1)[1].strip())
    assert "still logged" in log_path.read_text(encoding="utf-8")
    notices = [line for line in r.stderr.splitlines() if "not a regular file" in line]
    if name == "attnviz.log":
        fallback = tmp_path / "attnviz-logs" / "attnviz.log"
        assert log_path == fallback
        assert notices == [
            f"attnviz: {logs / name} is not a regular file (a named pipe); "
            f"logging to {fallback} instead"
        ]
    else:
        assert log_path == logs / "attnviz.log" and notices == []


def test_a_log_that_cannot_go_anywhere_is_said_and_the_app_goes_on(tmp_path):
    logs, spare = tmp_path / "logs", tmp_path / "attnviz-logs"
    for folder in (logs, spare):
        folder.mkdir()
        _mkfifo(folder / "attnviz.log")
    r = _python(tmp_path, "-c", _INSTALL, str(logs))
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"attnviz: {logs / 'attnviz.log'} is not a regular file (a named pipe), and "
        f"{spare / 'attnviz.log'} is not a regular file (a named pipe); "
        "going on without a log file"
    )


def test_an_empty_session_opened_by_its_absolute_path_says_why_and_the_window_opens(tmp_path):
    """As a file manager opens it: ``attnviz /abs/path/empty.attnviz``. The refusal's dialog
    was shown before the window, which then never came (offscreen: a hang). Now the window
    is painted, the dialog comes over it and the console has the line."""
    empty = tmp_path / "empty.attnviz"
    empty.write_bytes(b"")
    env = _env(tmp_path, ATTNVIZ_QUIT_AFTER_FIRST_PAINT="1")
    r = _python(tmp_path, "-m", "attnviz", str(empty.resolve()), env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("first-paint ")
    assert (
        f"could not open the session {empty.resolve()}: empty.attnviz is empty: it holds no session"
    ) in r.stderr.splitlines()


def test_the_window_stays_usable_after_an_empty_session_is_refused(qapp, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    from attnviz.ui.main_window import MainWindow

    window = MainWindow()
    errors = []
    window.session._show_error = lambda title, message: errors.append((title, message))
    window.session._ask_unsaved = lambda: QMessageBox.StandardButton.Discard  # at close
    before = window.document.snapshot()
    empty = tmp_path / "empty.attnviz"
    empty.write_bytes(b"")
    window.show()
    assert not window.session.open_path(str(empty.resolve()))
    assert errors == [("Could not open the session", "empty.attnviz is empty: it holds no session")]
    assert window.isVisible() and window.isEnabled()
    window.document.attention.temperature = 2.0  # the window goes on taking edits
    assert window.document.attention.temperature == 2.0
    assert before.keys() == window.document.snapshot().keys()
    window.close()
    window.deleteLater()
