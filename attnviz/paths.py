"""Where the shipped resources live: source checkout, installed wheel or frozen bundle."""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path

_ENV = "ATTNVIZ_RESOURCES"


class ResourceError(ValueError):
    """A shipped resource file (a preset, a model card) that cannot be read: a broken
    installation or an ``ATTNVIZ_RESOURCES`` folder holding a FIFO, a device, a huge or a
    malformed file. One line naming the file; the command line ends on it with status 1."""


@cache
def resources_dir() -> Path:
    """Return the folder that holds presets, model cards, icons and translations.

    Looked up in order: the ``ATTNVIZ_RESOURCES`` environment variable, a PyInstaller
    bundle (``sys._MEIPASS/resources``), the top of a source checkout, and the
    ``attnviz/resources`` package of an installed wheel.
    """
    candidates: list[Path] = []
    if os.environ.get(_ENV):
        candidates.append(Path(os.environ[_ENV]))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidates.append(Path(frozen) / "resources")
    here = Path(__file__).resolve().parent
    candidates += [here.parent / "resources", here / "resources"]
    for path in candidates:
        if (path / "presets").is_dir():
            return path
    raise FileNotFoundError(
        "attnviz resources not found; looked in: " + ", ".join(str(p) for p in candidates)
    )


def resource(*parts: str) -> Path:
    """Return the path of one resource file, e.g. ``resource("presets", "banco.json")``."""
    return resources_dir().joinpath(*parts)
