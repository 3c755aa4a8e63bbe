"""``attnviz train induction``: a short run's folder, one-line refusals of hostile values
(before any training), Ctrl-C leaving nothing, and builtin:induction wherever --model
takes a folder (the CLI, the notebook)."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.cli import main

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

#: A repeat the model copies: 12 words, then its first 3 again.
WORDS12 = "apple river stone cloud green house table light music paper bread water"
PROMPT = WORDS12 + " apple river stone"


def refusal(capsys, *args) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["train", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("attnviz train: error: ") and "Traceback" not in err
    return err


def test_a_short_run_writes_a_folder_with_its_curves(tmp_path, capsys):
    out = tmp_path / "model"
    assert main(["train", "induction", "--out", str(out), "--steps", "30", "--seed", "3"]) == 0
    captured = capsys.readouterr()
    assert "30 steps take about" in captured.err
    assert captured.out.startswith(f"wrote {out} in ")
    with open(out / "training.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["step", "loss", "previous_token", "induction", "copy_accuracy"]
    assert [r[0] for r in rows[1:]] == ["25", "30"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no temporary left
    # attnviz opens what it wrote.
    from attnviz.core.hf_capture import load_model

    cap = load_model(str(out)).capture("apple river apple river")
    assert cap.layer(1).weights.shape == (2, 5, 5)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--steps", "0"], "--steps: must be a whole number from 1 to 100,000, got '0'"),
        (["--steps", "1e400"], "--steps: expected a whole number from 1 to 100,000"),
        (["--steps", "9" * 400], "(400 characters)"),
        (["--seed", "-1"], "--seed: must be a whole number from 0 to 2,147,483,647"),
        (["--seed", "nan"], "--seed: expected a whole number"),
    ],
)
def test_hostile_numbers_are_refused_in_one_line(tmp_path, capsys, args, says):
    err = refusal(capsys, "induction", "--out", str(tmp_path / "m"), *args)
    assert says in err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_or_full_folder_is_refused_before_training(tmp_path, capsys):
    file = tmp_path / "file"
    file.write_text("mine")
    assert "it exists and is not a folder" in refusal(capsys, "induction", "--out", str(file))
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("mine")
    err = refusal(capsys, "induction", "--out", str(full))
    assert "the folder exists and is not empty" in err
    assert file.read_text() == "mine" and [p.name for p in full.iterdir()] == ["x"]
    err = refusal(capsys, "induction", "--out", str(tmp_path / "no" / "such" / "m"))
    assert "does not exist" in err
    assert refusal(capsys, "cats", "--out", str(tmp_path / "m")).find("invalid choice") > 0


def test_a_folder_nobody_may_write_in_is_refused_before_training(tmp_path, capsys):
    # /sys refuses new folders even to root (whose access() says yes everywhere); a
    # read-only folder of our own refuses them to anyone else.
    if os.geteuid() == 0:
        if not os.path.isdir("/sys"):
            pytest.skip("no /sys")
        err = refusal(capsys, "induction", "--out", "/sys/attnviz-model")
        assert "--out '/sys/attnviz-model': " in err or "--out /sys/attnviz-model: " in err
        return
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        err = refusal(capsys, "induction", "--out", str(locked / "m"))
        assert "no permission to write in" in err
    finally:
        locked.chmod(0o755)


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_random_step_strings_are_read_or_refused_in_one_line(text):
    """The soak: whatever --steps is typed, the parser reads a count in range or ends
    with one line (never a traceback); nothing is trained here."""
    from attnviz.cli import _parse, _parser

    parser = _parser("train")
    try:
        args = _parse(parser, ["train", "induction", "--out", "x", "--steps=" + text])
    except SystemExit as exc:
        assert exc.code == 2
        return
    assert 1 <= args.steps <= 100_000


def test_the_help_carries_examples_that_parse(capsys):
    import shlex

    from attnviz.cli import _parse, _parser
    from attnviz.commands.train import EXAMPLES

    with pytest.raises(SystemExit):
        main(["train", "--help"])
    assert "examples:" in capsys.readouterr().out
    lines = [x.strip() for x in EXAMPLES.splitlines()[1:] if x.strip().startswith("attnviz")]
    assert len(lines) == 3
    for line in lines:
        args = _parse(_parser("train"), shlex.split(line)[1:])
        assert args.what == "induction" and args.out and 1 <= args.steps <= 100_000


def test_ctrl_c_leaves_no_folder(tmp_path):
    out = tmp_path / "model"
    proc = subprocess.Popen(
        [sys.executable, "-m", "attnviz", "train", "induction", "--out", str(out),
         "--steps", "100000"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = proc.stderr.readline()  # the estimate: training starts next
        assert "100,000 steps take about" in first
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert err.strip().splitlines() == ["attnviz train: interrupted; nothing written"]
    assert list(tmp_path.iterdir()) == []


def test_builtin_induction_copies_the_repeat_from_the_command_line(capsys):
    assert main(["generate", "--model", "builtin:induction", "--text", PROMPT,
                 "--count", "4"]) == 0  # fmt: skip
    first = capsys.readouterr().out.splitlines()[0]
    assert first == PROMPT + " cloud green house table"


def test_builtin_induction_in_a_notebook():
    import attnviz

    got = attnviz.generate("builtin:induction", PROMPT, count=3)
    assert got.text == PROMPT + " cloud green house"


def test_an_unknown_builtin_is_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["generate", "--model", "builtin:gpt5", "--text", "a"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "attnviz generate: error: --model: builtin:gpt5: no such shipped model "
        "(shipped: builtin:induction)"
    )
