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
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from attnviz.commands._args import SIZE_RANGE
from attnviz.commands._workspace import build_workspace
from attnviz.model.panels import panel_ids
from attnviz.model.topic_presets import all_preset_ids
from attnviz.notebook import checks
from attnviz.notebook.errors import FigureError

__all__ = ["LANGS", "THEMES", "FigureError", "Look", "build", "check_panel", "set_items"]

THEMES = ("light", "dark")
#: The languages a figure is drawn in (those :mod:`attnviz.ui.language` ships).
LANGS = ("en", "pt_BR")


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

    @classmethod
    def checked(cls, width, height, theme, lang) -> Look:
        """The look of these arguments, or :class:`FigureError` naming the first one out of
        range or of a wrong type (numpy's integers are whole numbers)."""
        lo, hi = SIZE_RANGE
        return cls(
            checks.whole_number("width", width, lo, hi, " of pixels"),
            checks.whole_number("height", height, lo, hi, " of pixels"),
            checks.choice("theme", theme, THEMES),
            checks.choice("lang", lang, LANGS),
        )


def _json(name: str, value) -> str:
    try:
        if isinstance(value, (np.generic, np.ndarray)):  # a numpy scalar or array
            value = value.tolist()
        if isinstance(value, tuple):
            value = list(value)
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as exc:
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
    if not isinstance(values, (Mapping, str, list, tuple)):
        raise FigureError(
            f"set must be a dict {{'topic.field': value}} or a list of 'topic.field=value' "
            f"strings, got {checks.shown(values)}"
        )
    if isinstance(values, Mapping):
        items = []
        for name, value in values.items():
            if not isinstance(name, str) or not name.strip():
                raise FigureError(f"set: a field is named 'topic.field', got {checks.shown(name)}")
            items.append(f"{name.strip()}={_json(name, value)}")
        return items
    if isinstance(values, str):
        values = [values]
    items = list(values)
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise FigureError(
                f"set: {checks.shown(item)}: write 'topic.field=value', e.g. attention.d_k=8"
            )
    return items


def check_panel(panel) -> str:
    """``panel`` when it is a panel id, else :class:`FigureError` listing them."""
    if not isinstance(panel, str) or panel not in panel_ids():
        raise FigureError(f"unknown panel {checks.shown(panel)}; panels: {', '.join(panel_ids())}")
    return panel


def build(*, preset=None, session=None, model=None, text=None, set=None):
    """The workspace: the defaults, then ``preset``, ``session``, ``model``/``text`` and
    each ``set`` field in order, as ``attnviz export`` builds it.

    Returns
    -------
    attnviz.model.workspace.Workspace
    """
    checks.text("preset", preset, optional=True)
    if preset is not None and preset not in all_preset_ids():
        raise FigureError(
            f"unknown preset {checks.shown(preset)}; known: {', '.join(all_preset_ids())}"
        )
    args = SimpleNamespace(
        preset=preset,
        session=checks.path_text("session", session, optional=True),
        model=checks.path_text("model", model, optional=True),
        text=checks.text("text", text, optional=True),
        set=set_items(set),
    )
    with warnings.catch_warnings():
        # A model's first load imports transformers, whose tqdm warns, in a notebook without
        # ipywidgets, that it cannot draw progress bars: attnviz never shows any.
        warnings.filterwarnings("ignore", message="IProgress not found")
        return build_workspace(args, _Refusals())
