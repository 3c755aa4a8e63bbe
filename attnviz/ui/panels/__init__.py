"""Dock panels, one module each; :func:`panel_classes` finds them.

A panel module defines one panel class with ``PANEL_ID`` and ``TITLE``; where it stands,
what it shows and what it watches are its row of :data:`attnviz.model.panels.PANELS`.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from attnviz.model.panels import panel_ids, panel_spec

__all__ = ["panel_class", "panel_classes", "panel_ids"]


@cache
def panel_classes() -> tuple[type, ...]:
    """Every panel class, in the table's order; a broken panel module raises."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and getattr(value, "PANEL_ID", "")
            ):
                found.append(value)
    # A module without a row in the table is refused here (panel_spec raises).
    return tuple(sorted(found, key=lambda c: panel_spec(c.PANEL_ID).order))


def panel_class(panel_id: str) -> type:
    """The panel class of ``panel_id``; ``ValueError`` naming the known ones otherwise."""
    for cls in panel_classes():
        if panel_id == cls.PANEL_ID:
            return cls
    raise ValueError(f"unknown panel {panel_id!r}; panels: {', '.join(panel_ids())}")
