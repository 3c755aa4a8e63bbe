"""The data arrays every panel exports (``attnviz export --panel ID --matrix NAME``), no Qt.

A resolver module registers, per panel, the names of its arrays and how to read each from
a :class:`~attnviz.model.workspace.Workspace`; ``.csv`` and ``.npy`` exports, the export
dialog and the tests all go through :func:`panel_data`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np


@dataclass(frozen=True)
class DataArray:
    """One exported array, with the labels of its rows and columns when they have names."""

    values: np.ndarray
    rows: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None


_PROVIDERS: dict[str, dict[str, Callable]] = {}


def provides(panel: str, name: str):
    """Register the decorated ``function(workspace) -> DataArray`` as ``panel``'s ``name``."""

    def register(function: Callable) -> Callable:
        _PROVIDERS.setdefault(panel, {})[name] = function
        return function

    return register


@cache
def _load_all() -> None:
    import attnviz.model.resolve as package

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")


def data_panels() -> tuple[str, ...]:
    """Panels that have data arrays."""
    _load_all()
    return tuple(_PROVIDERS)


def data_names(panel: str) -> tuple[str, ...]:
    """The ``--matrix`` names of ``panel`` in registration order (none: only pictures)."""
    _load_all()
    return tuple(_PROVIDERS.get(panel, {}))


def panel_data(workspace, panel: str, name: str) -> DataArray:
    """Array ``name`` of ``panel`` for the workspace's current fields."""
    names = data_names(panel)
    if name not in names:
        known = ", ".join(names) or "none (this panel exports pictures only)"
        raise ValueError(f"panel {panel!r} has no data {name!r}; known: {known}")
    out = _PROVIDERS[panel][name](workspace)
    if not isinstance(out, DataArray):
        out = DataArray(np.asarray(out))
    return out
