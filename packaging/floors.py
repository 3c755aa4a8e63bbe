"""Install the declared minimum of every runtime dependency: ``python packaging/floors.py DIR``.

Reads ``[project] dependencies`` of pyproject.toml, turns each ``name>=X`` (with any other
clauses) into ``name==X`` and installs them into ``DIR`` with ``pip install --target``;
``make test-floors`` then runs the self-test and a core + UI subset with ``DIR`` first on
the path, so every floor the project declares is one that passes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parents[1]


def floor_pins(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """``["PySide6-Essentials==6.7", "numpy==1.24", …]``: each dependency at its minimum."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    pins = []
    for requirement in data["project"]["dependencies"]:
        match = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*(?:\[[^\]]*\])?\s*.*?>=\s*([\w.]+)", requirement)
        if match is None:
            raise SystemExit(f"floors: {requirement!r} declares no minimum (name>=X)")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python packaging/floors.py DIR", file=sys.stderr)
        return 2
    pins = floor_pins()
    print("floors:", " ".join(pins))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--target", argv[0], *pins], check=True
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
