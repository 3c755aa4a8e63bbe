"""Bad arguments on the command line: exit 2 and exactly one line on stderr, never a traceback.

DESIGN.md's contract ("exit code 2 and a one-line message on bad arguments"), probed with the
inputs that used to escape it: numbers of hundreds or thousands of digits (OverflowError, and
Python's 4300-digit limit on ``int()``), unknown flags and commands (argparse's usage block).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.cli import main

HUGE = "1" + "0" * 400  # a pasted number of 401 digits
HUGER = "9" * 5000  # beyond Python's int() string limit of 4300 digits
CARD = ["--layers", "32", "--heads", "32", "--kv-heads", "8", "--head-dim", "128"]


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "attnviz", *args], capture_output=True, text=True, timeout=120
    )


def _one_line_exit_2(capsys, *argv) -> str:
    """Run ``attnviz <argv>`` in this process; assert exit 2 and one line; return the line."""
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    assert len(lines[0]) < 300, lines[0]  # the number itself is elided
    return lines[0]


# --- attnviz kv: numbers out of range, however long --------------------------------------------

BOUNDED = [
    ("--layers", "100,000"),
    ("--heads", "65,536"),
    ("--kv-heads", "65,536"),
    ("--head-dim", "65,536"),
    ("--kv-lora-rank", "65,536"),
    ("--rope-head-dim", "65,536"),
    ("--attention-layers", "100,000"),
    ("--sliding-window", "1,099,511,627,776"),
    ("--sliding-layers", "100,000"),
    ("--batch", "1,000,000"),
    ("--context", "1,099,511,627,776"),
    ("--params", "1e+15"),
]


@pytest.mark.parametrize(("flag", "maximum"), BOUNDED)
@pytest.mark.parametrize("value", [HUGE, HUGER, "-" + HUGE, "1e400"])
def test_huge_numbers_name_the_flag_and_the_range(capsys, flag, maximum, value):
    args = [*CARD, "--context", "1k"] if flag != "--context" else ["--model", "llama-3-8b"]
    line = _one_line_exit_2(capsys, "kv", *args, flag, value)
    assert line.startswith(f"attnviz kv: error: argument {flag}: "), line
    assert maximum in line, line


@pytest.mark.parametrize(
    ("flag", "value", "maximum"),
    [
        ("--layers", "100001", "100,000"),
        ("--heads", "65537", "65,536"),
        ("--batch", "1000001", "1,000,000"),
        ("--context", "1099511627777", "1,099,511,627,776"),
        ("--context", "2000000000M", "1,099,511,627,776"),
        ("--params", "1e16", "1e+15"),
        ("--params", "inf", "1e+15"),
        ("--params", "nan", "1e+15"),
        ("--layers", "0", "100,000"),
        ("--layers", "4.5", "100,000"),
    ],
)
def test_just_out_of_range(capsys, flag, value, maximum):
    args = [*CARD, "--context", "1k"] if flag != "--context" else ["--model", "llama-3-8b"]
    line = _one_line_exit_2(capsys, "kv", *args, flag, value)
    assert line.startswith(f"attnviz kv: error: argument {flag}: ") and maximum in line


def test_the_largest_values_allowed_still_compute(capsys):
    argv = ["kv", "--layers", "100000", "--heads", "65536", "--kv-heads", "65536"]
    argv += ["--head-dim", "65536", "--context", str(2**40), "--batch", "1000000"]
    argv += ["--params", "1e15", "--dtype", "fp32", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out and "NaN" not in out


def test_huge_number_in_a_subprocess_has_no_traceback():
    r = _cli("kv", "--layers", HUGER, "--kv-heads", "8", "--head-dim", "128", "--context", "1k")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("attnviz kv: error: argument --layers: ")
    assert "5000 characters" in r.stderr


# --- one line instead of argparse's usage block ------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "prefix", "says"),
    [
        (["--bogus"], "attnviz: error: ", "unrecognized arguments: --bogus"),
        (["nosuchcommand"], "attnviz: error: ", "invalid choice: 'nosuchcommand'"),
        (["kv", "--bogus"], "attnviz kv: error: ", "unrecognized arguments: --bogus"),
        (["kv", "--model", "llama-3-8b", "extra"], "attnviz kv: error: ", "unrecognized"),
        (["kv", "--dtype", "int8"], "attnviz kv: error: ", "invalid choice: 'int8'"),
        (["kv", "--context"], "attnviz kv: error: ", "expected one argument"),
        (["kv", "--model", "llama-3-8b", "--batch", "two"], "attnviz kv: error: ", "--batch"),
        (["kv"], "attnviz kv: error: ", "give --model NAME"),
        (["bench", "--bogus"], "attnviz bench: error: ", "unrecognized arguments: --bogus"),
        (["bench", "--only"], "attnviz bench: error: ", "expected one argument"),
        (["lesson.attnviz", "--bogus"], "attnviz: error: ", "unrecognized arguments: --bogus"),
        (["TALK.ATTNVIZ", "--bogus"], "attnviz: error: ", "unrecognized arguments: --bogus"),
        (["kv", HUGE], "attnviz kv: error: ", "(401 characters)"),
    ],
)
def test_bad_arguments_are_one_line(capsys, argv, prefix, says):
    line = _one_line_exit_2(capsys, *argv)
    assert line.startswith(prefix) and says in line, line


@pytest.mark.parametrize(
    "argv", [["--bogus"], ["nosuchcommand"], ["kv", "--bogus"], ["bench", "-x"]]
)
def test_one_line_in_a_subprocess(argv):
    r = _cli(*argv)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert "usage:" not in r.stderr


@pytest.mark.parametrize("argv", [["--help"], ["kv", "--help"], ["bench", "--help"]])
def test_help_is_still_the_full_help(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: attnviz") and len(out.splitlines()) > 5


# --- output that cannot be written -------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_output_to_a_full_disk_says_why_in_one_line():
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "attnviz", "kv", "--model", "llama-3-8b", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "attnviz kv: cannot write the output: [Errno 28] No space left on device"
    ]


def test_closed_pipe_is_not_an_error():
    r = subprocess.run(
        f"{sys.executable} -m attnviz kv --model llama-3-8b | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and r.stdout.startswith("Llama 3 8B")
    assert r.stderr == ""


# --- a valid field never reaches a traceback; a topic's fields go together -------------------
def test_a_combination_the_positions_panel_cannot_draw_is_refused_before_work(tmp_path):
    out = tmp_path / "p.png"
    r = _cli(
        "export",
        "--set",
        "positions.low_freq_factor=1000000",
        "--panel",
        "positions",
        "--out",
        str(out),
    )
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.strip().splitlines() == [
        "attnviz export: error: --set positions.low_freq_factor: Llama 3 scaling needs "
        "high_freq_factor > low_freq_factor"
    ]
    # The same field moved together with its partner is one valid change.
    r = _cli(
        "export",
        "--set",
        "positions.low_freq_factor=5",
        "--set",
        "positions.high_freq_factor=8",
        "--panel",
        "positions",
        "--out",
        str(out),
    )
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("ext", ["png", "svg", "csv", "npy", "gif"])
def test_the_overview_of_a_model_head_without_a_model_is_refused_in_every_format(tmp_path, ext):
    """It used to write a PNG of an empty "computing" panel (exit 0) while the NPY was
    refused: every format now says what to open, exits 1 and writes nothing."""
    out = tmp_path / f"o.{ext}"
    sweep = ["--animate", "attention.d_k=2:4", "--frames", "2"] if ext == "gif" else []
    r = _cli(
        "export", "--panel", "overview", "--set", "long.head=model", *sweep,
        "--width", "320", "--height", "180", "--out", str(out),
    )  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "attnviz export: long.head=model maps the real model's head the heatmap shows: open "
        "a model first (attention.model_path and attention.model_text)"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_picture_of_the_overview_without_its_map_is_refused_in_the_app_too(tmp_path, qapp):
    from attnviz.model.workspace import Workspace
    from attnviz.ui.export import ExportError, ExportSpec
    from attnviz.ui.panel_export import export_panel, render_panel_image

    ws = Workspace()
    ws.document.long.update(head="model")
    spec = ExportSpec(320, 180, "light", False)
    for name in ("o.png", "o.svg"):
        with pytest.raises(ExportError, match="open a model first"):
            export_panel(ws, "overview", tmp_path / name, spec)
    with pytest.raises(ExportError, match="open a model first"):
        render_panel_image(ws, "overview", spec)
    assert list(tmp_path.iterdir()) == []
    ws.document.long.update(head="content", n=512)  # a synthetic head draws as before
    assert export_panel(ws, "overview", tmp_path / "o.png", spec).stat().st_size > 1000


def test_a_panel_that_cannot_draw_stops_the_export_in_one_line(tmp_path, qapp, monkeypatch):
    from attnviz.model.workspace import Workspace
    from attnviz.ui.export import ExportError, ExportSpec
    from attnviz.ui.panel_export import export_panel
    from attnviz.ui.panels.positions import PositionsPanel

    def broken(self, res, names):
        raise ValueError("a drawing that cannot be made\nsecond line")

    monkeypatch.setattr(PositionsPanel, "_on_results", broken)
    out = tmp_path / "p.png"
    with pytest.raises(ExportError) as info:
        export_panel(Workspace(), "positions", out, ExportSpec(640, 360, "light", False))
    assert str(info.value) == (
        "the positions panel cannot draw these settings: a drawing that cannot be made"
    )
    assert not out.exists()


def test_an_output_that_is_a_fifo_or_too_long_a_name_is_refused_before_work(tmp_path):
    import os as _os

    fifo = tmp_path / "out.png"
    _os.mkfifo(fifo)
    for out in (fifo, tmp_path / ("a" * 300 + ".svg")):
        r = _cli("export", "--panel", "heatmap", "--out", str(out))  # would hang on a FIFO
        assert r.returncode == 1 and "Traceback" not in r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"attnviz export: cannot write {out}")
    assert "not a regular file" in _cli("export", "--out", str(fifo)).stderr
    slides = tmp_path / "slides"
    slides.mkdir()
    _os.mkfifo(slides / "01.png")
    r = _cli("export", "--lesson", "kv-cache", "--out", str(slides))
    assert r.returncode == 1 and "01.png: it is not a regular file" in r.stderr


FULL_DISK = [
    ["export", "--list-fields"],
    ["export", "--panel", "heatmap", "--out", "{tmp}/h.png"],
    ["export", "--panel", "heatmap", "--matrix", "weights", "--out", "{tmp}/h.csv"],
    ["kv", "--list-models"],
    ["lessons"],
    ["lessons", "--check", "--no-slides", "--json"],
]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(
    "argv", FULL_DISK, ids=[" ".join(a[:2]) + str(i) for i, a in enumerate(FULL_DISK)]
)
def test_a_full_disk_on_stdout_is_one_line_for_every_command(tmp_path, argv):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "attnviz", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    lines = [x for x in r.stderr.splitlines() if "propagateSizeHints" not in x]
    if argv[:2] == ["lessons", "--check"]:
        assert r.returncode == 0 and lines == []  # nothing to say: nothing written
        return
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and lines[0].endswith(
        "cannot write the output: [Errno 28] No space left on device"
    ), r.stderr


# --- long work says so before it starts ---------------------------------------------------
def test_an_overview_past_a_minute_needs_yes_and_one_past_ten_seconds_is_announced(
    tmp_path, capsys, monkeypatch
):
    from attnviz.model.resolve import long as long_resolver

    # This machine made a thousand times slower: n = 4096 is then about 14 minutes.
    monkeypatch.setattr(long_resolver, "_cell_seconds", lambda d, dtype: 1e-4)
    out = tmp_path / "ov.png"
    assert main(["export", "--panel", "overview", "--set", "long.n=4096", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "attnviz export: the overview of long.n = 4,096 (d_k 64) would take "
        "about 14 min on this machine's CPU; pass --yes to go on, or lower long.n"
    ]
    assert not out.exists()
    monkeypatch.setattr(long_resolver, "_cell_seconds", lambda d, dtype: 2e-6)  # ~17 s
    assert main(["export", "--panel", "overview", "--set", "long.n=4096", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "takes about 17 s on this machine's CPU" in err and out.stat().st_size > 0


def test_ctrl_c_ends_a_command_with_130(capsys, monkeypatch):
    from attnviz.commands import kv

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(kv, "run", interrupted)
    assert main(["kv", "--list-models"]) == 130
    assert capsys.readouterr().err.strip() == "attnviz kv: interrupted"


@pytest.mark.slow
def test_every_example_of_export_help_runs(tmp_path):
    import shlex

    from attnviz.commands.export import EXAMPLES

    lines = [x.strip() for x in EXAMPLES.splitlines()[1:] if x.strip()]
    assert len(lines) >= 6
    for line in lines:
        argv = shlex.split(line)
        assert argv[:2] == ["attnviz", "export"]
        r = subprocess.run(
            [sys.executable, "-m", "attnviz", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0 and "Traceback" not in r.stderr, (line, r.stderr)
    assert (tmp_path / "banco.png").stat().st_size > 0
    assert len(list((tmp_path / "slides").glob("*.png"))) == 7  # the sqrt-dk deck


def test_list_fields_as_json_is_every_field_set_can_take(capsys):
    import json

    from attnviz.model.document import Document, field_listing

    assert main(["export", "--list-fields", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    names = [r["field"] for r in records]
    assert names == [line.split("\t")[0] for line in field_listing().splitlines()]
    d_k = next(r for r in records if r["field"] == "attention.d_k")
    assert d_k["kind"] == "int" and d_k["min"] == 1 and d_k["default"] == Document().attention.d_k
    scale = next(r for r in records if r["field"] == "attention.scale")
    assert scale["default"] is True and scale["undoable"] is True


@pytest.mark.parametrize("command", ["kv", "lessons", "bench"])
def test_every_subcommand_help_carries_examples_that_parse_and_run(command, capsys):
    import importlib
    import shlex

    module = importlib.import_module(f"attnviz.commands.{command}")
    lines = [x.strip() for x in module.EXAMPLES.splitlines()[1:] if x.strip()]
    assert len(lines) >= 3
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "examples:" in capsys.readouterr().out
    for line in lines:
        argv = shlex.split(line)[1:]
        assert argv[0] == command
        if command == "bench":  # minutes of measuring: parsed, not run
            from attnviz.cli import _parser

            _parser(command).parse_args(argv)
            continue
        status = main(argv)
        assert status == 0, (line, capsys.readouterr().err)
        assert capsys.readouterr().out.strip()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("kind", ["fifo preset", "zero card", "huge preset", "broken card"])
def test_a_broken_resources_folder_is_one_line_never_a_hang(tmp_path, kind):
    """ATTNVIZ_RESOURCES may point anywhere: a FIFO, /dev/zero, a huge or broken file among
    its presets or model cards ends the command in one line with status 1."""
    import shutil

    res = tmp_path / "res"
    shutil.copytree(
        Path(__file__).resolve().parents[1] / "resources",
        res,
        ignore=shutil.ignore_patterns("translations", "icons"),
    )
    if kind == "fifo preset":
        (res / "presets" / "banco.json").unlink()
        os.mkfifo(res / "presets" / "banco.json")
    elif kind == "zero card":
        (res / "models" / "zero.json").symlink_to("/dev/zero")
    elif kind == "huge preset":
        (res / "presets" / "banco.json").write_text(" " * (2 << 20))
    else:
        (res / "models" / "broken.json").write_text("{not json")
    env = {**os.environ, "ATTNVIZ_RESOURCES": str(res), "QT_QPA_PLATFORM": "offscreen"}
    export = [
        "export",
        "--preset",
        "banco",
        "--matrix",
        "weights",
        "--out",
        str(tmp_path / "w.csv"),
    ]
    # The export, and the window (which once raised at every panel showing a preset).
    for args in (export, []):
        r = subprocess.run(
            [sys.executable, "-m", "attnviz", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        lines = r.stderr.strip().splitlines()
        assert r.returncode == 1 and len(lines) == 1, r.stderr
        assert lines[0].startswith("attnviz: a resource file cannot be read: ")
