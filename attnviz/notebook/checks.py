"""The types of :func:`attnviz.figure`'s arguments, checked before anything is built.

Each check returns the value as the rest of the code wants it (numpy's integers and floats
as Python's, a path as text) or raises :class:`~attnviz.notebook.options.FigureError`: a
one-line ``ValueError`` naming the argument, what it must be, and what it got — never a
``TypeError`` from deep inside. Nothing here imports Qt.
"""

from __future__ import annotations

import math
import numbers
import os

import numpy as np

from attnviz.commands._args import shorten
from attnviz.notebook.errors import FigureError


def shown(value) -> str:
    """``value`` as a message quotes it: short, one line, with its type when the text alone
    could be mistaken for another (``'8' (str)``, ``8.5 (float)``)."""
    text = shorten(value, 40) if isinstance(value, str) else _short_repr(value)
    kind = type(value).__name__
    if kind in ("bool", "NoneType") or kind in text:
        return text
    return f"{text} ({kind})"


def _short_repr(value) -> str:
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__: the type still says what it is
        return f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"


def whole_number(name: str, value, lo: int, hi: int, unit: str = "") -> int:
    """``value`` as an ``int`` from ``lo`` to ``hi``: a Python or numpy integer, or a float
    with nothing after the point (``640.0``); never a bool."""
    what = f"{name} must be a whole number{unit} from {lo} to {hi}, got {shown(value)}"
    if isinstance(value, (bool, np.bool_)):
        raise FigureError(what)
    integral = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    )
    if not integral or not lo <= int(value) <= hi:
        raise FigureError(what)
    return int(value)


def real_number(name: str, value) -> float:
    """``value`` as a finite ``float`` (a Python or numpy number, not a bool)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
    ):
        raise FigureError(f"{name} must be a finite number, got {shown(value)}")
    return float(value)


def flag(name: str, value) -> bool:
    """``value`` when it is ``True`` or ``False`` (numpy's too): ``"no"`` or ``0`` is not."""
    if not isinstance(value, (bool, np.bool_)):
        raise FigureError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def text(name: str, value, *, optional: bool = False) -> str | None:
    """``value`` when it is a string (or None, when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        kind = "a string or None" if optional else "a string"
        raise FigureError(f"{name} must be {kind}, got {shown(value)}")
    return value


def choice(name: str, value, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise FigureError(f"unknown {name} {shown(value)}; expected {' or '.join(choices)}")
    return value


def path_text(name: str, value, *, optional: bool = False) -> str | None:
    """``value`` as the text of a path: a string or an ``os.PathLike`` naming one (a file
    name in bytes is refused: it says nothing a string cannot)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            if "\0" in path:
                raise FigureError(f"{name}: a path cannot hold a NUL character")
            return path
    kind = "a path (a string or pathlib.Path)" + (" or None" if optional else "")
    raise FigureError(f"{name} must be {kind}, got {shown(value)}")


def max_seconds(value) -> float | None:
    """``max_seconds`` as a float above 0 (``inf`` allowed), or None: no limit."""
    if value is None:
        return None
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Real)
        or math.isnan(value)
        or value <= 0
    ):
        raise FigureError(
            f"max_seconds must be a number of seconds above 0, or None, got {shown(value)}"
        )
    return float(value)
