"""Export every panel of every preset (PNG, SVG and each data array as NPY and CSV) into a
folder, or compare two such folders byte for byte: the proof that a refactoring changed no output.

    python packaging/compare_exports.py write OUT      # from the checkout to test
    python packaging/compare_exports.py compare A B    # exit 1 and the list when any differ

Run ``write`` in two checkouts (``git worktree add /tmp/before <commit>``) with the same
Python, then ``compare``. An export a preset refuses is kept as its one-line message, so a
refusal that changes is a difference too. It uses only ``attnviz.cli.main``, the table of
panels (or, before it existed, the UI's panel list) and ``panel_data.data_names``, so it runs
on older commits as well.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("ATTNVIZ_LANG", "en")


def _panel_ids() -> tuple[str, ...]:
    try:
        from attnviz.model.panels import panel_ids
    except ImportError:  # before the table of panels
        from attnviz.ui.panels import panel_ids
    return tuple(p for p in panel_ids() if p not in ("lesson", "lessons"))


def _export(argv: list[str], out: Path) -> None:
    """Run ``attnviz export`` in this process; a refusal becomes ``out``'s .refused text."""
    from attnviz.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            status = main(["export", *argv, "--out", str(out)])
        except SystemExit as exc:
            status = exc.code
    if status != 0:
        message = err.getvalue().replace(str(out), out.name).strip()
        out.with_name(out.name + ".refused").write_text(f"{status}: {message}\n")


def write(folder: Path) -> int:
    """Every preset × panel × (png, svg, each data name as npy and csv) into ``folder``."""
    from attnviz.model.panel_data import data_names
    from attnviz.model.topic_presets import all_preset_ids

    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for preset in all_preset_ids():
        for panel in _panel_ids():
            base = ["--preset", preset, "--panel", panel]
            for ext in ("png", "svg"):
                _export(
                    [*base, "--width", "480", "--height", "320"], folder / f"{preset}.{panel}.{ext}"
                )
                count += 1
            for name in data_names(panel):
                for ext in ("npy", "csv"):
                    out = folder / f"{preset}.{panel}.{name}.{ext}"
                    _export([*base, "--matrix", name], out)
                    count += 1
        print(f"{preset}: done", file=sys.stderr, flush=True)
    print(f"{count} exports in {folder}")
    return 0


def compare(a: Path, b: Path) -> int:
    """0 when the two folders hold the same files with the same bytes, else 1 and a list."""
    names_a = {p.name for p in a.iterdir()}
    names_b = {p.name for p in b.iterdir()}
    differ = sorted(n for n in names_a & names_b if (a / n).read_bytes() != (b / n).read_bytes())
    only = sorted(names_a ^ names_b)
    for name in differ:
        print(f"differs: {name}")
    for name in only:
        print(f"only in {'the first' if name in names_a else 'the second'}: {name}")
    same = len(names_a & names_b) - len(differ)
    print(f"{same} of {len(names_a | names_b)} files byte-identical")
    return 1 if differ or only else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        sys.exit(write(Path(sys.argv[2])))
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    sys.exit(__doc__)
