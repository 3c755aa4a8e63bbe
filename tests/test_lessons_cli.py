"""``attnviz lessons`` and ``attnviz export --lesson``: the list, the check, the slide deck."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.cli import main
from attnviz.commands._lesson_export import slide_name
from attnviz.model.lessons import lesson_by_id, shipped_lessons

LINE = re.compile(r"^([a-z][a-z0-9-]*)\t([^\t]+)\t(\d+)$")


def _one_line_exit_2(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


def test_the_list_gives_id_title_and_steps_one_per_line(capsys):
    assert main(["lessons"]) == 0
    lines = capsys.readouterr().out.splitlines()
    lessons = shipped_lessons()
    assert len(lines) == len(lessons) >= 12
    for line, lesson in zip(lines, lessons, strict=True):
        lesson_id, title, steps = LINE.match(line).groups()
        assert (lesson_id, title, int(steps)) == (lesson.id, lesson.title["en"], len(lesson))
    assert lines[0] == "sqrt-dk\tWhy divide by √d_k\t7"


def test_the_list_in_portuguese_and_as_json(capsys):
    assert main(["lessons", "--lang", "pt_BR"]) == 0
    pt = capsys.readouterr().out.splitlines()
    assert pt[0] == "sqrt-dk\tPor que dividir por √d_k\t7"
    assert main(["lessons", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[3] == {
        "id": "hand-worked",
        "title": "Q, K, V and the hand-worked example",
        "steps": 11,
        "source": lesson_by_id("hand-worked").source,
    }


def test_the_check_plays_every_lesson_in_a_subprocess():
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "lessons", "--check", "--no-slides"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0] == "sqrt-dk: 7 steps ok"
    assert all(line.endswith(" ok") for line in r.stdout.splitlines())


def test_the_numbers_check_honours_set(capsys):
    """``--check --no-slides --set``: the numbers are checked with the field set after each
    step's own state, as the slides are (d_k = 64 instead of 256 changes every quote)."""
    assert main(["lessons", "--check", "--no-slides", "--lesson", "sqrt-dk"]) == 0
    assert capsys.readouterr().out == "sqrt-dk: 7 steps ok\n"
    argv = ["lessons", "--check", "--no-slides", "--lesson", "sqrt-dk", "--set", "attention.d_k=64"]
    assert main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    # q·k over 64 dimensions of 0.25·(2, 1, 0)… is a quarter of what 256 give: 2, 1, 0.
    assert "sqrt-dk step 1: quote '8' is 2.0 on the panels" in lines
    assert "sqrt-dk step 1: quote '256' is 64.0 on the panels" in lines
    assert not [x for x in lines if "attention.d_k is" in x]  # set on purpose: not a finding
    argv[-1] = "display.decimals=2"  # no number changes, only how it is drawn
    assert main(argv) == 0
    assert capsys.readouterr().out == "sqrt-dk: 7 steps ok with display.decimals=2\n"


def test_a_set_value_a_step_refuses_is_a_finding_not_a_traceback(capsys):
    # The blog's first three steps have two tokens: query 2 does not exist there.
    argv = ["lessons", "--check", "--no-slides", "--lesson", "blog"]
    assert main([*argv, "--set", "attention.selected_query=2"]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        f"blog step {i}: --set attention.selected_query: selected query 2 is outside 0…1"
        for i in (1, 2, 3)
    ]
    assert "Traceback" not in out.err
    # With the slides too (in a process of its own, as Qt wants): the same lines, once each.
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "lessons", "--check", "--lesson", "blog", "--set",
         "attention.selected_query=2"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.splitlines() == out.out.splitlines()


def test_bad_arguments_are_one_line(capsys):
    assert "invalid choice: 'fr'" in _one_line_exit_2(capsys, "lessons", "--lang", "fr")
    line = _one_line_exit_2(capsys, "export", "--lesson", "nope", "--out", "deck")
    assert line.startswith("attnviz export: error: unknown lesson 'nope'; lessons: sqrt-dk")
    line = _one_line_exit_2(capsys, "export", "--lesson", "blog", "--out", "deck.png")
    assert "must be a folder" in line
    line = _one_line_exit_2(
        capsys, "export", "--lesson", "blog", "--preset", "banco", "--out", "deck"
    )
    assert line.endswith("drop --preset")
    assert "out of range" in _one_line_exit_2(
        capsys, "export", "--lesson", "blog", "--out", "deck", "--width", "9"
    )
    assert "give --out DIR" in _one_line_exit_2(capsys, "export", "--lesson", "blog")


def test_slide_names_sort_by_step():
    assert [slide_name(i, 11) for i in (0, 9, 10)] == ["01.png", "10.png", "11.png"]
    assert slide_name(4, 120) == "005.png"


@pytest.mark.parametrize("lang", ["en", "pt_BR"])
def test_a_lesson_becomes_one_png_per_step_of_the_exact_size(tmp_path, lang):
    """In a subprocess: the slide deck a lecturer makes from one command."""
    out = tmp_path / "deck"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--lesson",
            "kv-cache",
            "--out",
            str(out),
            "--width",
            "1280",
            "--height",
            "720",
            "--theme",
            "dark",
            "--lang",
            lang,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    n = len(lesson_by_id("kv-cache"))
    assert sorted(p.name for p in out.iterdir()) == [f"{i:02d}.png" for i in range(1, n + 1)]
    assert f"wrote {n} slides of lesson kv-cache" in r.stdout and lang in r.stdout
    from PySide6.QtGui import QImage

    for path in out.iterdir():
        image = QImage(str(path))
        assert (image.width(), image.height()) == (1280, 720)
        # The dark presentation theme: a black page.
        assert image.pixelColor(2, image.height() // 2).name() == "#000000"


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_a_special_or_huge_lesson_file_is_one_line_and_never_read_whole(tmp_path, kind):
    import os
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1] / "resources"
    res = tmp_path / "res"
    for part in ("presets", "models", "lessons"):
        shutil.copytree(root / part, res / part)
    bad = res / "lessons" / "zz.json"
    if kind == "fifo":
        os.mkfifo(bad)  # would block the reader forever
        says = "not a regular file"
    elif kind == "device":
        bad.symlink_to("/dev/zero")  # would read until memory runs out
        says = "not a regular file"
    else:
        bad.write_text("[" + " " * (3 << 20) + "]")
        says = "larger than"
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "lessons"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ATTNVIZ_RESOURCES": str(res)},
    )
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and "zz.json" in lines[0], r.stderr
    assert says in lines[0] and "Traceback" not in r.stderr


def _stderr_of(args, *, terminal: bool) -> str:
    """``attnviz ARGS`` with stderr a terminal (a pseudo-terminal) or a pipe."""
    import os
    import pty

    cmd = [sys.executable, "-m", "attnviz", *args]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    if not terminal:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300).stderr
    leader, follower = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=300)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_slides_say_how_far_they_are_on_a_terminal_only(tmp_path):
    args = ["export", "--lesson", "reach", "--out", str(tmp_path / "s")]
    err = _stderr_of(args, terminal=True)
    assert "slide 1 of 4" in err and "slide 4 of 4" in err
    assert "slide" not in _stderr_of(args, terminal=False)  # a pipe or a log: nothing
    err = _stderr_of(["lessons", "--check", "--lesson", "reach"], terminal=True)
    assert "slide 4 of 4" in err
