"""The data arrays every panel exports (``attnviz export --panel ID --matrix NAME``), no Qt.

The table of panels (:mod:`attnviz.model.panels`) names each panel's arrays and the
function that reads them from a :class:`~attnviz.model.workspace.Workspace`; ``.csv`` and
``.npy`` exports, the export dialog, the notebook figures and the tests all go through
:func:`panel_data` (and :func:`write_panel_data` to a file).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.panels import PANELS, panel_spec
from attnviz.model.topics import topic_classes

__all__ = [
    "DataArray",
    "data_names",
    "data_panels",
    "panel_data",
    "picture_field",
    "picture_refusal",
    "show_in_picture",
    "shown_data_name",
    "write_panel_data",
]


def data_panels() -> tuple[str, ...]:
    """Panels that have data arrays, in the table's order."""
    return tuple(spec.id for spec in PANELS if spec.data)


def data_names(panel: str) -> tuple[str, ...]:
    """The ``--matrix`` names of ``panel`` in the table's order (none: only pictures)."""
    spec = next((spec for spec in PANELS if spec.id == panel), None)
    return spec.data if spec is not None else ()


def shown_data_name(workspace, panel: str) -> str | None:
    """The array a data export of ``panel`` writes when no name is given: the one the
    panel draws (its row's ``shows`` field: the heatmap's shown matrix), else its first
    array; None for a panel of pictures only."""
    spec = panel_spec(panel)
    if spec.shows is not None:
        topic, _, field = spec.shows.partition(".")
        return workspace.document[topic].get(field)
    return spec.data[0] if spec.data else None


def picture_field(panel: str, name: str) -> tuple[str, str] | None:
    """``(topic, field)`` to set so that a picture of ``panel`` draws array ``name``
    (``--matrix weights`` on the heatmap), or None when its pictures do not choose that
    way (no ``shows`` field, or ``name`` is not one of its choices: the heatmap's q)."""
    spec = panel_spec(panel)
    if spec.shows is None:
        return None
    topic, _, field = spec.shows.partition(".")
    classes = {cls.NAME: cls for cls in topic_classes()}
    return (topic, field) if name in classes[topic].field(field).choices else None


def show_in_picture(workspace, panel: str, name: str | None) -> bool:
    """Make a picture of ``panel`` draw array ``name`` by setting its row's ``shows``
    field (``--matrix weights`` for the heatmap); False, nothing set, when its pictures
    do not choose so (or ``name`` is None)."""
    found = None if name is None else picture_field(panel, name)
    if found is None:
        return False
    topic, field = found
    workspace.document[topic].update(**{field: name})
    return True


def picture_refusal(workspace, panel: str) -> str | None:
    """Why a picture of ``panel`` would show nothing true for the workspace's settings,
    in one line (what its data export refuses with), or None.

    The overview draws its map: with ``long.head=model`` and no model open there is none,
    and a picture would be of an empty, "computing" panel.
    """
    if panel == "overview":
        return workspace.resolver_for("long").map_refusal()
    return not_softmax(workspace, panel)


#: Panel → its arrays (None: all) that put the attention topic's q and k through a
#: softmax: not what a hybrid's Gated DeltaNet, Mamba-2, … head computes.
SOFTMAX_ARRAYS = {"steps": None, "gradient": None, "entropy": None, "spread": ("head",)}


def not_softmax(workspace, panel: str, name: str | None = None) -> str | None:
    """Why array ``name`` of ``panel`` (its pictures: None) is not shown for the head the
    attention topic shows — a real model's head that is not softmax attention — in one
    line naming its kind; None otherwise."""
    if panel not in SOFTMAX_ARRAYS:
        return None
    names = SOFTMAX_ARRAYS[panel]
    if name is not None and names is not None and name not in names:
        return None
    s = workspace.document["attention"]
    if s.head != "model":
        return None
    from attnviz.model import real_mixing, real_model

    cap = real_model.STORE.cached(s.model_path, s.model_text)
    if cap is None or real_mixing.is_softmax_head(cap, s.layer, s.model_head):
        return None
    kind = real_mixing.head_kind(cap, s.layer, s.model_head)
    return (
        f"layer {s.layer} head {s.model_head} of {cap.name} is {kind}, not softmax attention: "
        f"the {panel} panel's softmax is not what it computes; its mixing matrix is the "
        "heatmap's (--matrix mixing)"
    )


def panel_data(workspace, panel: str, name: str) -> DataArray:
    """Array ``name`` of ``panel`` for the workspace's current fields."""
    names = data_names(panel)
    if name not in names:
        known = ", ".join(names) or "none (this panel exports pictures only)"
        raise ValueError(f"panel {panel!r} has no data {name!r}; known: {known}")
    problem = not_softmax(workspace, panel, name)
    if problem:
        raise ValueError(problem)
    out = panel_spec(panel).reader(workspace, name)
    if not isinstance(out, DataArray):
        out = DataArray(np.asarray(out))
    return out


def write_panel_data(workspace, panel: str, name: str, path) -> tuple[Path, DataArray]:
    """Write array ``name`` of ``panel`` to ``path`` (``.csv`` or ``.npy``); the CSV's
    corner cell is the array's own (:attr:`DataArray.corner`) or its name. Returns the
    path written and the array. ``ValueError`` (a :class:`DataFileError` among them) when
    it cannot be read or written."""
    from attnviz.model.data_files import write_data

    data = panel_data(workspace, panel, name)
    corner = data.corner if data.corner is not None else name
    return write_data(data, path, corner=corner), data
