"""The table of panels (no Qt): one entry per panel, read by the UI, the CLI and the slides.

Each :class:`PanelSpec` says what a panel is apart from its widgets: its ``id`` (a
contract: the dock is ``dock-<id>``, ``--panel <id>``), where it stands (``order`` in the
View menu and the default layout, the dock ``area``: ``"left"`` the tabbed editing docks,
``"right"`` the views beside the heatmap, ``"bottom"`` under it), the ``topic`` whose
fields it shows, the lazy ``resolver`` it watches (a module of
:mod:`attnviz.model.resolve`; None: the attention resolver every window has) and its
``weight`` — the share of a slide's width it takes beside another panel — and its export
data: the ``--matrix`` names and the function of a resolver module that reads them
(:func:`attnviz.model.panel_data.panel_data`). Adding a panel means a row here and a
module in :mod:`attnviz.ui.panels`; a test holds the two together.
"""

from __future__ import annotations

from dataclasses import dataclass

AREAS = ("left", "right", "bottom")


@dataclass(frozen=True)
class PanelSpec:
    """One panel of the table (see the module docstring)."""

    id: str
    order: int
    area: str
    topic: str
    resolver: str | None = None
    weight: int = 2
    #: The ``--matrix`` names, in the order ``--help`` and the export dialog list them.
    data: tuple[str, ...] = ()
    #: False for a form of widgets (line edits, sliders, combo boxes) that Qt's style paints
    #: as pixmaps: its SVG would be mostly pictures of pixels, so a notebook shows it as
    #: PNG only. True: the SVG is a vector drawing (rasters only where data are cells).
    vector: bool = True
    #: ``"module:function"`` in :mod:`attnviz.model.resolve` that reads them:
    #: ``function(workspace, name) -> DataArray``. A string, so that reading the table
    #: imports no resolver (the CLI's start-up) and the resolvers import no table.
    data_source: str | None = None


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec(
        "editor",
        0,
        "left",
        "attention",
        vector=False,
        data=("q", "k", "v"),
        data_source="attention:heatmap_data",
    ),
    PanelSpec("controls", 10, "left", "attention", vector=False),
    # The heatmap prints its cells' numbers on a slide (8 columns of "−1.599" beside the
    # editor): three shares against the controls' and the editor's two.
    PanelSpec(
        "heatmap",
        20,
        "right",
        "attention",
        weight=3,
        data=("scores", "weights", "output", "q", "k", "v"),
        data_source="attention:heatmap_data",
    ),
    # Five keys and the row names of ① to ③ side by side, in the hall's type.
    PanelSpec(
        "steps",
        30,
        "bottom",
        "attention",
        weight=4,
        vector=False,
        data=("raw", "scaled", "weights", "output"),
        data_source="attention:steps_data",
    ),
    PanelSpec(
        "positions",
        40,
        "right",
        "positions",
        "positions",
        3,
        data=("frequencies", "alibi", "relative"),
        data_source="positions:positions_data",
    ),
    PanelSpec(
        "gradient",
        50,
        "right",
        "attention",
        "gradient",
        4,
        data=("jacobian", "dscores", "dq", "dk", "dv", "d_output"),
        data_source="gradient:gradient_data",
    ),
    PanelSpec(
        "memory",
        60,
        "bottom",
        "memory",
        "memory",
        3,
        data=("variants",),
        data_source="memory:memory_data",
    ),
    PanelSpec(
        "reach", 62, "bottom", "reach", "reach", 3, data=("reach",), data_source="reach:reach_data"
    ),
    PanelSpec(
        "embedding",
        64,
        "bottom",
        "embedding",
        "embedding",
        3,
        data=("counts", "row_norms"),
        data_source="embedding:embedding_data",
    ),
    PanelSpec(
        "heads",
        70,
        "right",
        "attention",
        "heads",
        3,
        data=("x", "w_q", "w_k", "w_v", "w_o", "weights", "output"),
        data_source="heads:heads_data",
    ),
    PanelSpec(
        "layers",
        75,
        "right",
        "attention",
        "heads",
        3,
        data=("weights", "layer_weights", "link"),
        data_source="heads:layers_data",
    ),
    PanelSpec(
        "overview",
        80,
        "right",
        "long",
        "long",
        3,
        data=("overview", "block", "q", "k"),
        data_source="long:overview_data",
    ),
    PanelSpec("tiles", 82, "right", "long", "long", 3),
    PanelSpec("lessons", 90, "left", "attention", vector=False),
)
_BY_ID = {spec.id: spec for spec in PANELS}


def resolver_names() -> tuple[str, ...]:
    """The lazy resolvers the panels watch (modules of :mod:`attnviz.model.resolve`)."""
    return tuple(dict.fromkeys(spec.resolver for spec in PANELS if spec.resolver))


def panel_ids() -> tuple[str, ...]:
    """Every panel id in the table's order (``editor``, ``controls``, ``heatmap``, …)."""
    return tuple(spec.id for spec in sorted(PANELS, key=lambda s: s.order))


def panel_spec(panel_id: str) -> PanelSpec:
    """The entry of ``panel_id``; ``ValueError`` naming the known ids otherwise."""
    try:
        return _BY_ID[panel_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown panel {panel_id!r}; panels: {', '.join(panel_ids())}") from None
