"""The table of panels (no Qt): one row per panel, read by the UI, the CLI and the slides.

Each :class:`PanelSpec` is everything a panel is apart from its widgets:

- ``id``: a contract (the dock is ``dock-<id>``, ``--panel <id>``); the panel's class is
  the one :class:`~attnviz.ui.panel_base.Panel` subclass of ``attnviz/ui/panels/<id>.py``;
- ``title``: the dock's tab and the View menu's entry, marked for translation;
- where it stands: ``order`` in the View menu and the default layout, the dock ``area``
  (``"left"`` the tabbed editing docks, ``"right"`` the views beside the heatmap,
  ``"bottom"`` under it) and ``weight``, the share of a slide's width it takes beside
  another panel;
- what it shows: the ``topic`` whose fields it edits and the ``resolver`` it watches (a
  module of :mod:`attnviz.model.resolve`; ``"attention"`` is the one every window keeps
  current, the others compute only while looked at);
- what it exports: the ``data`` names ``--matrix`` takes and the ``reader`` function that
  reads them, ``reader(workspace, name) -> DataArray``.

Adding a panel is one row here and one module in :mod:`attnviz.ui.panels` (CONTRIBUTING.md
walks through it); :func:`check_table` states what every row must satisfy, and the tests
hold the table and the panel modules together.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from attnviz.model import resolve
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.resolve.attention import entropy_data
from attnviz.model.resolve.attention_data import heatmap_data, steps_data
from attnviz.model.resolve.spread import spread_data

AREAS = ("left", "right", "bottom")
# The translation context of every panel's title.
TITLE_CONTEXT = "Panels"


@dataclass(frozen=True)
class PanelSpec:
    """One panel of the table (see the module docstring)."""

    id: str
    order: int
    area: str
    topic: str
    title: str
    resolver: str = "attention"
    weight: int = 2
    # The ``--matrix`` names, in the order ``--help`` and the export dialog list them.
    data: tuple[str, ...] = ()
    # ``reader(workspace, name) -> DataArray`` for each of ``data``. The rows of panels
    # whose resolver is not loaded at start-up call through :mod:`attnviz.model.resolve`'s
    # attributes, which import their module on first use: reading the table costs the
    # window's start nothing.
    reader: Callable | None = None
    # ``"topic.field"`` whose value names the array the panel draws (the heatmap draws
    # ``attention.matrix``): the array a data export writes without ``--matrix``, and
    # the field ``--matrix`` sets for a picture. None: the first of ``data``.
    shows: str | None = None
    # False for a form of widgets (line edits, sliders, combo boxes) that Qt's style paints
    # as pixmaps: its SVG would be mostly pictures of pixels, so a notebook shows it as
    # PNG only. True: the SVG is a vector drawing (rasters only where data are cells).
    vector: bool = True


# Before / after (``display.compare``): a real model's weights with the prediction
# topic's interventions, and intervened − clean (:mod:`attnviz.model.intervened`).
HEATMAP_COMPARE = ("weights_intervened", "weights_difference")
LAYERS_COMPARE = ("layer_weights_intervened", "layer_weights_difference")


def _training_reader(workspace, name: str):
    from attnviz.model.training_curves import training_data  # reads a model's folder

    return training_data(workspace, name)


def _heatmap_reader(workspace, name: str):
    if name in HEATMAP_COMPARE:
        from attnviz.model.intervened import heatmap_compare_data  # a model's: on first use

        return heatmap_compare_data(workspace, name)
    return heatmap_data(workspace, name)


def _layers_reader(workspace, name: str):
    if name in ("head_types", "rollout", "layer_mixing"):  # imported on first use
        from attnviz.model.layer_analysis_data import analysis_data

        return analysis_data(workspace, name)
    if name in LAYERS_COMPARE:
        from attnviz.model.intervened import layers_compare_data

        return layers_compare_data(workspace, name)
    return resolve.heads.layers_data(workspace, name)


PANELS: tuple[PanelSpec, ...] = (
    PanelSpec(
        "editor", 0, "left", "attention", QT_TRANSLATE_NOOP("Panels", "Tokens and vectors"),
        vector=False, data=("q", "k", "v"), reader=heatmap_data,
    ),
    PanelSpec(
        "controls", 10, "left", "attention", QT_TRANSLATE_NOOP("Panels", "Controls"),
        vector=False,
    ),
    # The heatmap prints its cells' numbers on a slide (8 columns of "−1.599" beside the
    # editor): three shares against the controls' and the editor's two.
    PanelSpec(
        "heatmap", 20, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Attention matrix"),
        weight=3, data=("scores", "weights", "output", "mixing", "q", "k", "v", *HEATMAP_COMPARE),
        reader=_heatmap_reader, shows="attention.matrix",
    ),
    # Five keys and the row names of ① to ③ side by side, in the hall's type.
    PanelSpec(
        "steps", 30, "bottom", "attention", QT_TRANSLATE_NOOP("Panels", "Steps for one query"),
        weight=4, vector=False, data=("raw", "scaled", "exp", "weights", "output"),
        reader=steps_data,
    ),
    PanelSpec(
        "positions", 40, "right", "positions", QT_TRANSLATE_NOOP("Panels", "Positions (RoPE)"),
        "positions", 3, data=("frequencies", "alibi", "relative"),
        reader=lambda ws, name: resolve.positions.positions_data(ws, name),
    ),
    PanelSpec(
        "gradient", 50, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Gradient"),
        "gradient", 4, data=("jacobian", "dscores", "dq", "dk", "dv", "d_output"),
        reader=lambda ws, name: resolve.gradient.gradient_data(ws, name),
    ),
    PanelSpec(
        "memory", 60, "bottom", "memory", QT_TRANSLATE_NOOP("Panels", "KV-cache memory"),
        "memory", 3, data=("variants",),
        reader=lambda ws, name: resolve.memory.memory_data(ws, name),
    ),
    PanelSpec(
        "reach", 62, "bottom", "reach", QT_TRANSLATE_NOOP("Panels", "Gradient reach"),
        "reach", 3, data=("reach",),
        reader=lambda ws, name: resolve.reach.reach_data(ws, name),
    ),
    PanelSpec(
        "embedding", 64, "bottom", "embedding", QT_TRANSLATE_NOOP("Panels", "Embedding table"),
        "embedding", 3, data=("counts", "row_norms"),
        reader=lambda ws, name: resolve.embedding.embedding_data(ws, name),
    ),
    PanelSpec(
        "heads", 70, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Heads"),
        "heads", 3, data=("x", "w_q", "w_k", "w_v", "w_o", "weights", "output", "contributions",
                          "contribution_norms", "output_switched"),
        reader=lambda ws, name: resolve.heads.heads_data(ws, name),
    ),
    # Beside the heatmap, not a tab behind it: pick a head in the grid, read it in the
    # matrix (a model brings both forward).
    PanelSpec(
        "layers", 75, "left", "attention", QT_TRANSLATE_NOOP("Panels", "Layers"),
        "heads", 3, data=("weights", "layer_weights", "link", "head_types", "rollout",
                          *LAYERS_COMPARE, "layer_mixing"),
        reader=_layers_reader, shows="display.layers_view",
    ),
    PanelSpec(
        "overview", 80, "right", "long", QT_TRANSLATE_NOOP("Panels", "Long sequence"),
        "long", 3, data=("overview", "block", "q", "k"),
        reader=lambda ws, name: resolve.long_data.overview_data(ws, name),
    ),
    PanelSpec(
        "tiles", 82, "right", "long", QT_TRANSLATE_NOOP("Panels", "FlashAttention"), "long", 3,
        data=("hbm",), reader=lambda ws, name: resolve.long_data.tiles_data(ws, name),
    ),
    # The chapter's cheap diagnostic: how spread each row's weights are (CONTRIBUTING.md
    # builds it as the example of a new panel).
    PanelSpec(
        "entropy", 84, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Entropy per row"),
        weight=3, data=("entropy",), reader=entropy_data,
    ),
    # Why a head attends: the selected query's scores split by rotary pair, and the map of
    # its queries and keys.
    PanelSpec(
        "attribution", 85, "right", "attention",
        QT_TRANSLATE_NOOP("Panels", "Why it attends"), weight=3, data=("terms", "qk_map"),
        reader=lambda ws, name: resolve.attribution.attribution_data(ws, name),
    ),
    # Why √d_k, measured: the spread of q·k against the head's width, and the head's own.
    PanelSpec(
        "spread", 86, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Score spread and d_k"),
        weight=3, data=("spread", "head"), reader=spread_data,
    ),
    # Every token mixer of the chapter's last section as its matrix, on one synthetic head.
    PanelSpec(
        "mixers", 87, "bottom", "mixers", QT_TRANSLATE_NOOP("Panels", "Token mixers"),
        "mixers", 3, data=(
            "mixing", "kinds", "state_sizes", "flops", "bytes", "recall", "decode_costs",
            "receptive_field",
        ),
        reader=lambda ws, name: resolve.mixers.mixers_data(ws, name),
    ),
    # What a real model predicts at a position, sampled, and how switching heads off moves it.
    PanelSpec(
        "prediction", 88, "right", "prediction", QT_TRANSLATE_NOOP("Panels", "Prediction"),
        "prediction", 3, data=("probabilities", "ablation", "lens", "head_logits", "copying"),
        reader=lambda ws, name: resolve.prediction.prediction_data(ws, name),
    ),
    # How the open model learned: its folder's training.csv (a model attnviz trained).
    PanelSpec(
        "training", 89, "right", "attention", QT_TRANSLATE_NOOP("Panels", "Training"),
        weight=3, data=("curves", "milestones"), reader=_training_reader,
    ),
    PanelSpec(
        "lessons", 90, "left", "attention", QT_TRANSLATE_NOOP("Panels", "Lessons"), vector=False
    ),
)  # fmt: skip
_BY_ID = {spec.id: spec for spec in PANELS}


def resolver_names() -> tuple[str, ...]:
    """The resolvers the panels watch (modules of :mod:`attnviz.model.resolve`), the
    always-on ``attention`` first."""
    return tuple(dict.fromkeys(("attention", *(spec.resolver for spec in PANELS))))


def panel_ids() -> tuple[str, ...]:
    """Every panel id in the table's order (``editor``, ``controls``, ``heatmap``, …)."""
    return tuple(spec.id for spec in sorted(PANELS, key=lambda s: s.order))


def panel_spec(panel_id: str) -> PanelSpec:
    """The entry of ``panel_id``; ``ValueError`` naming the known ids otherwise."""
    try:
        return _BY_ID[panel_id]
    except (KeyError, TypeError):
        raise ValueError(f"unknown panel {panel_id!r}; panels: {', '.join(panel_ids())}") from None


def panels_of_resolver(name: str) -> tuple[str, ...]:
    """The panels that draw resolver ``name``'s results, in the table's order."""
    return tuple(pid for pid in panel_ids() if _BY_ID[pid].resolver == name)


def layout_version() -> int:
    """A number that changes whenever a dock is added, removed, renamed or moved to
    another area: a window layout saved under another number is not restored (Qt would
    put a new dock anywhere). Derived from the table, so nobody has to remember to bump it.
    """
    text = ";".join(f"{spec.id}:{spec.area}" for spec in PANELS)
    return zlib.crc32(text.encode("ascii")) & 0x7FFFFFFF


def check_table(panels: tuple[PanelSpec, ...] = PANELS) -> list[str]:
    """What is wrong with the table, one line each (empty when nothing is): ids and
    orders unique, ids usable as file and object names, areas known, a title, a reader
    exactly when there are data names, ``shows`` a ``topic.field``, weights ≥ 1."""
    problems = []
    ids = [spec.id for spec in panels]
    for pid in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"panel id {pid!r} appears more than once")
    orders = [spec.order for spec in panels]
    for order in sorted({o for o in orders if orders.count(o) > 1}):
        problems.append(f"order {order} is taken by more than one panel")
    for spec in panels:
        problems += [f"{spec.id}: {p}" for p in _row_problems(spec)]
    return problems


def _row_problems(spec: PanelSpec) -> list[str]:
    out = []
    if not (spec.id.isidentifier() and spec.id.islower()):
        out.append("the id must be a lower-case Python name (its module is ui/panels/<id>.py)")
    if spec.area not in AREAS:
        out.append(f"area {spec.area!r} is not one of {', '.join(AREAS)}")
    if not spec.title.strip():
        out.append("it has no title")
    if spec.weight < 1:
        out.append("its weight must be at least 1")
    if bool(spec.data) != (spec.reader is not None):
        out.append("data names need a reader, and a reader needs data names")
    if len(set(spec.data)) != len(spec.data):
        out.append("a data name appears twice")
    if spec.shows is not None and spec.shows.count(".") != 1:
        out.append(f"shows {spec.shows!r} is not a topic.field")
    return out
