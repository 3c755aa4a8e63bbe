"""Dock panels, one module each, named by the panel's id; :func:`panel_class` finds one.

A panel module defines one :class:`~attnviz.ui.panel_base.Panel` subclass whose
``PANEL_ID`` is its row of :data:`attnviz.model.panels.PANELS`. Its title, where it stands,
what it shows and what it exports are that row, so the window can make every dock, tab and
View menu entry without importing the panels behind them: start-up imports only the panels
it shows (:func:`panel_class` imports one module).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from PySide6.QtCore import QCoreApplication

from attnviz.model.panels import TITLE_CONTEXT, panel_ids, panel_spec

__all__ = ["panel_class", "panel_classes", "panel_ids", "panel_title"]


def panel_title(panel_id: str) -> str:
    """The translated title of panel ``panel_id`` (dock tab, View menu), its module not
    imported; ``ValueError`` naming the known ids for an unknown one."""
    return QCoreApplication.translate(TITLE_CONTEXT, panel_spec(panel_id).title)


def _classes_in(module) -> list[type]:
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and getattr(value, "PANEL_ID", "")
    ]


@cache
def panel_classes() -> tuple[type, ...]:
    """Every panel class, in the table's order (imports every panel module); a broken
    panel module raises."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            found += _classes_in(importlib.import_module(f"{__name__}.{info.name}"))
    # A module without a row in the table is refused here (panel_spec raises).
    return tuple(sorted(found, key=lambda c: panel_spec(c.PANEL_ID).order))


def panel_class(panel_id: str) -> type:
    """The panel class of ``panel_id``, importing only its module; ``ValueError`` naming
    the known ones otherwise."""
    panel_spec(panel_id)
    try:
        module = importlib.import_module(f"{__name__}.{panel_id}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{panel_id}":
            raise  # the panel's module is there, something it imports is not
        module = None
    for cls in _classes_in(module) if module is not None else ():
        if panel_id == cls.PANEL_ID:
            return cls
    for cls in panel_classes():  # a panel in a module not named by its id
        if panel_id == cls.PANEL_ID:
            return cls
    raise ValueError(f"unknown panel {panel_id!r}; panels: {', '.join(panel_ids())}")
