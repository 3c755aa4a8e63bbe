"""Dock panels, one module each; :func:`panel_classes` finds them.

A panel module defines one panel class with ``PANEL_ID`` (the dock is ``dock-<id>``, a
contract), ``TITLE``, ``ORDER`` (place in the View menu and the default layout) and
``AREA`` (``"left"``: the tabbed editing docks; ``"right"``: the tabbed views beside the
heatmap; ``"bottom"``: under the heatmap). Adding a panel means adding a module.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache


@cache
def panel_classes() -> tuple[type, ...]:
    """Every panel class, ordered by ``ORDER``; a broken panel module raises."""
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
    return tuple(sorted(found, key=lambda c: (c.ORDER, c.PANEL_ID)))


def panel_ids() -> tuple[str, ...]:
    """The ids of every panel (``editor``, ``controls``, ``heatmap``, …)."""
    return tuple(c.PANEL_ID for c in panel_classes())


def panel_class(panel_id: str) -> type:
    """The panel class of ``panel_id``; ``ValueError`` naming the known ones otherwise."""
    for cls in panel_classes():
        if panel_id == cls.PANEL_ID:
            return cls
    raise ValueError(f"unknown panel {panel_id!r}; panels: {', '.join(panel_ids())}")
