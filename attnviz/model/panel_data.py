"""The data arrays every panel exports (``attnviz export --panel ID --matrix NAME``), no Qt.

The table of panels (:mod:`attnviz.model.panels`) names each panel's arrays and the
function of a resolver module that reads them from a
:class:`~attnviz.model.workspace.Workspace`; ``.csv`` and ``.npy`` exports, the export
dialog and the tests all go through :func:`panel_data`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attnviz.model.panels import PANELS, panel_spec


@dataclass(frozen=True)
class DataArray:
    """One exported array, with the labels of its rows and columns when they have names."""

    values: np.ndarray
    rows: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None


def data_panels() -> tuple[str, ...]:
    """Panels that have data arrays, in the table's order."""
    return tuple(spec.id for spec in PANELS if spec.data)


def data_names(panel: str) -> tuple[str, ...]:
    """The ``--matrix`` names of ``panel`` in the table's order (none: only pictures)."""
    spec = next((spec for spec in PANELS if spec.id == panel), None)
    return spec.data if spec is not None else ()


def _reader(source: str) -> Callable:
    module, _, function = source.partition(":")
    return getattr(importlib.import_module(f"attnviz.model.resolve.{module}"), function)


def panel_data(workspace, panel: str, name: str) -> DataArray:
    """Array ``name`` of ``panel`` for the workspace's current fields."""
    names = data_names(panel)
    if name not in names:
        known = ", ".join(names) or "none (this panel exports pictures only)"
        raise ValueError(f"panel {panel!r} has no data {name!r}; known: {known}")
    out = _reader(panel_spec(panel).data_source)(workspace, name)
    if not isinstance(out, DataArray):
        out = DataArray(np.asarray(out))
    return out
