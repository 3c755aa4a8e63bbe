"""Any output path, any kind of thing already at it: ``attnviz export`` writes a regular file
or says why in one line (exit 1 or 2), before work, and touches nothing else.

Hypothesis draws the name (long, dotted, spaced, non-ASCII, a lone surrogate, a missing
folder, every format's suffix and some no format has) and what already lies at it (nothing,
a file, a folder, a FIFO, a socket, a link to /dev/null, a link in a loop, a dangling link,
a read-only folder). A FIFO would block the export forever: a watchdog fails the example
instead of hanging the suite.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attnviz.cli import main
from tests.special_files import plant, watchdog

pytestmark = pytest.mark.skipif(os.name != "posix", reason="special files are POSIX's")

SUFFIXES = [".png", ".svg", ".csv", ".npy", ".PNG", ".txt", ".png.", ""]
KINDS = [
    "nothing",
    "file",
    "folder",
    "fifo",
    "socket",
    "dev-null",
    "loop",
    "dangling",
    "missing-folder",
    "read-only-folder",
]
SENTINEL = b"keep me"

stems = st.one_of(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
        min_size=1,
        max_size=40,
    ),
    st.builds(lambda n: "a" * n, st.integers(200, 300)),  # near and past NAME_MAX (255)
    st.sampled_from(["out", " out ", ".hidden", "-dash", "ção", "\udcff", "x" * 255, "..."]),
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    stem=stems, suffix=st.sampled_from(SUFFIXES), kind=st.sampled_from(KINDS), data=st.booleans()
)
# What it found on the first run: a newline or a record separator in the name printed the
# refusal on two lines; a byte that is not UTF-8 (argv's surrogate escape) was written as
# U+FFFD, beside the file asked for, or ended in a UnicodeEncodeError on a strict stderr.
@example(stem="a\nb", suffix=".png", kind="folder", data=False)
@example(stem="\x1e", suffix=".csv", kind="folder", data=True)
@example(stem="\udcff", suffix=".png", kind="nothing", data=False)
@example(stem="\udcff", suffix=".svg", kind="folder", data=False)
def test_any_output_path_is_written_or_refused_in_one_line(qapp, capsys, stem, suffix, kind, data):
    with tempfile.TemporaryDirectory() as root:
        root = Path(root)
        (root / "sentinel").write_bytes(SENTINEL)
        folder = root / "out"
        folder.mkdir()
        name = stem + suffix
        try:
            out = folder / name
            if kind == "missing-folder":
                out = folder / "missing" / name
            elif kind not in ("nothing", "read-only-folder"):
                plant(kind, out)
        except (OSError, UnicodeError, ValueError):
            return  # a name this file system cannot hold at all: nothing to export to
        if kind == "read-only-folder":
            folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        argv = [
            "export",
            "--panel",
            "heatmap",
            "--width",
            "96",
            "--height",
            "64",
            "--out",
            str(out),
        ]
        if data:
            argv[3:3] = ["--matrix", "weights"]
        try:
            with watchdog(20):
                status = main(argv)
        except SystemExit as exc:  # argparse's refusals
            status = exc.code
        finally:
            folder.chmod(stat.S_IRWXU)
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        if status == 0:
            assert out.is_file() and out.stat().st_size > 0, (name, kind)
            assert captured.err == ""
        else:
            assert status in (1, 2), (status, captured.err)
            lines = captured.err.splitlines()
            assert len(lines) == 1 and lines[0].startswith("attnviz export"), captured.err
            assert kind != "file" or out.read_bytes() == b"old contents"  # refused: untouched
        assert (root / "sentinel").read_bytes() == SENTINEL
        assert sorted(p.name for p in root.iterdir()) == ["out", "sentinel"]
        left = {p.name for p in folder.iterdir()}
        assert left <= {out.name} and (status != 0 or left == {out.name}), left  # no temp
        if kind == "fifo":
            assert stat.S_ISFIFO(out.lstat().st_mode)  # refused, never replaced or opened
        if kind in ("dev-null", "loop", "dangling") and status == 0:
            pytest.fail(f"wrote through a {kind} link: {name!r}")
