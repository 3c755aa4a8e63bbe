"""What a figure shows, from keyword arguments: the workspace ``attnviz export`` would build.

:func:`attnviz.figure` takes the command line's options as Python values (``set`` as a
dict or a list of ``"topic.field=value"`` strings) and builds the workspace through the
same function as ``attnviz export`` (:func:`attnviz.commands._workspace.build_workspace`),
so a figure and the command line agree on every number. What the command line would refuse
with exit status 2 is raised here as :class:`FigureError`, one line, never a ``SystemExit``.
No Qt is imported: ``.data()`` works without it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace

from attnviz.commands._args import SIZE_RANGE, one_line
from attnviz.commands._workspace import build_workspace
from attnviz.model.panels import panel_ids
from attnviz.model.topic_presets import all_preset_ids

THEMES = ("light", "dark")
#: The languages a figure is drawn in (those :mod:`attnviz.ui.language` ships).
LANGS = ("en", "pt_BR")
#: The command line's option names that start a message built for it.
_FLAGS = ("--set", "--model", "--session", "--text", "--preset")


class FigureError(ValueError):
    """A figure that cannot be made or saved as asked; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(_without_dashes(one_line(message)))


def _without_dashes(message: str) -> str:
    # The command line's "--set attention.d_k: ..." names a keyword argument here:
    # "set: attention.d_k: ...".
    for flag in _FLAGS:
        if message.startswith(flag):
            rest = message[len(flag) :].removeprefix(":")
            return f"{flag[2:]}: {rest.strip()}"
    return message


class _Refusals:
    """What :func:`build_workspace` calls ``parser`` for: its ``error`` raises instead of
    exiting."""

    prog = "attnviz.figure"

    def error(self, message: str):
        raise FigureError(message)


@dataclass(frozen=True)
class Look:
    """How a figure is drawn: pixel size, theme and language."""

    width: int = 1280
    height: int = 720
    theme: str = "light"
    lang: str = "en"

    def check(self) -> None:
        """Raise :class:`FigureError` naming the first value out of range."""
        lo, hi = SIZE_RANGE
        for name in ("width", "height"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise FigureError(
                    f"{name} must be a whole number of pixels from {lo} to {hi}, got {value!r}"
                )
        if self.theme not in THEMES:
            raise FigureError(f"unknown theme {self.theme!r}; expected light or dark")
        if self.lang not in LANGS:
            raise FigureError(f"unknown lang {self.lang!r}; expected {' or '.join(LANGS)}")


def _json(name: str, value) -> str:
    if hasattr(value, "tolist"):  # a numpy scalar or array
        value = value.tolist()
    if isinstance(value, tuple):
        value = list(value)
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise FigureError(
            f"set: {name}: {type(value).__name__} is not a field value ({exc})"
        ) from None


def set_items(values) -> list[str]:
    """``set=`` as the command line's ``--set`` strings, in order.

    Parameters
    ----------
    values : dict, list of str, str or None
        ``{"attention.d_k": 8}`` (a value is written as JSON, so ``"yarn"`` stays a
        string), or ``["attention.d_k=8", ...]`` read as ``--set`` reads them.

    Returns
    -------
    list of str
        ``["attention.d_k=8", ...]``.
    """
    if values is None:
        return []
    if isinstance(values, Mapping):
        items = []
        for name, value in values.items():
            if not isinstance(name, str) or not name.strip():
                raise FigureError(f"set: a field is named 'topic.field', got {name!r}")
            items.append(f"{name.strip()}={_json(name, value)}")
        return items
    if isinstance(values, str):
        values = [values]
    items = list(values)
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise FigureError(f"set: {item!r}: write 'topic.field=value', e.g. attention.d_k=8")
    return items


def check_panel(panel) -> str:
    """``panel`` when it is a panel id, else :class:`FigureError` listing them."""
    if panel not in panel_ids():
        raise FigureError(f"unknown panel {panel!r}; panels: {', '.join(panel_ids())}")
    return panel


def build(*, preset=None, session=None, model=None, text=None, set=None):
    """The workspace: the defaults, then ``preset``, ``session``, ``model``/``text`` and
    each ``set`` field in order, as ``attnviz export`` builds it.

    Returns
    -------
    attnviz.model.workspace.Workspace
    """
    if preset is not None and preset not in all_preset_ids():
        raise FigureError(f"unknown preset {preset!r}; known: {', '.join(all_preset_ids())}")
    args = SimpleNamespace(
        preset=preset,
        session=None if session is None else os.fspath(session),
        model=None if model is None else os.fspath(model),
        text=text,
        set=set_items(set),
    )
    if text is not None and not isinstance(text, str):
        raise FigureError(f"text must be a string, got {type(text).__name__}")
    return build_workspace(args, _Refusals())
