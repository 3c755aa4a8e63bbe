"""The table of panels holds every panel once, and the UI's panel modules are its rows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attnviz.model.document import Document
from attnviz.model.panel_data import DataArray, data_panels, panel_data
from attnviz.model.panels import (
    AREAS,
    PANELS,
    check_table,
    layout_version,
    panel_ids,
    panel_spec,
)
from attnviz.model.workspace import Workspace

#: The ids of waves 2 and 3: scripts say --panel ID and dock-ID (DESIGN.md).
CONTRACT_IDS = {
    "editor", "controls", "heatmap", "steps", "gradient", "positions", "memory", "reach",
    "embedding", "heads", "overview", "tiles", "layers", "lessons",
}  # fmt: skip


def test_every_row_is_one_panel_with_a_topic_and_a_resolver_that_exist():
    assert check_table() == []
    ids = [spec.id for spec in PANELS]
    assert len(set(ids)) == len(ids)
    assert len({spec.order for spec in PANELS}) == len(PANELS)  # one place each
    topics = set(Document().topics)
    ws = Workspace()
    for spec in PANELS:
        assert spec.area in AREAS and spec.topic in topics and spec.weight >= 1
        assert ws.resolver_for(spec.resolver).topic is ws.document[spec.topic]
        assert spec.title.strip() and "&" not in spec.title, spec.id
    assert set(data_panels()) <= set(ids)  # every --matrix owner is a panel
    assert panel_ids()[:3] == ("editor", "controls", "heatmap")
    assert set(panel_ids()) >= CONTRACT_IDS  # more may come; none of these may go
    with pytest.raises(ValueError, match="unknown panel 'nope'; panels: editor, controls"):
        panel_spec("nope")


def test_the_table_check_names_each_broken_row():
    good = PANELS[0]
    rows = (
        good,
        replace(good, order=good.order + 1),  # the same id twice
        replace(good, id="Bad-id", order=-1, area="top", title=" ", weight=0),
        replace(good, id="noreader", order=-2, reader=None),
        replace(good, id="twice", order=-3, data=("q", "q")),
        replace(good, id="shows", order=-4, shows="matrix"),
        replace(good, id="clash", order=-3),
    )
    problems = check_table(rows)
    assert "panel id 'editor' appears more than once" in problems
    assert "order -3 is taken by more than one panel" in problems
    for line in (
        "Bad-id: the id must be a lower-case Python name (its module is ui/panels/<id>.py)",
        "Bad-id: area 'top' is not one of left, right, bottom",
        "Bad-id: it has no title",
        "Bad-id: its weight must be at least 1",
        "noreader: data names need a reader, and a reader needs data names",
        "twice: a data name appears twice",
        "shows: shows 'matrix' is not a topic.field",
    ):
        assert line in problems


def test_the_layout_version_follows_the_docks_and_their_areas():
    import attnviz.model.panels as panels

    version = layout_version()
    assert version == layout_version() and 0 < version < 2**31  # a QMainWindow version
    moved = tuple(replace(s, area="left") if s.id == "reach" else s for s in PANELS)
    added = (*PANELS, replace(PANELS[-1], id="entropy_extra", order=999))
    for table in (moved, added, PANELS[:-1]):
        original = panels.PANELS
        panels.PANELS = table
        try:
            assert layout_version() != version
        finally:
            panels.PANELS = original
    # A new title or weight leaves a saved layout as good as it was.
    panels.PANELS = tuple(replace(s, weight=s.weight + 1) for s in PANELS)
    try:
        assert layout_version() == version
    finally:
        panels.PANELS = original


def test_every_data_name_of_the_table_is_read_by_its_source():
    # The table alone names the arrays (no registry filled by importing modules): each
    # name reads an array through the row's own function: of the default workspace, or of
    # the one its panel needs (projections for the heads' matrices, a slope for ALiBi); the
    # layers panel's and the before / after arrays show a real model and say so in one line.
    needs = {"x": {"attention.head": "projections"}, "alibi": {"positions.alibi_slope": 0.5}}
    for name in ("w_q", "w_k", "w_v", "w_o", "contributions", "contribution_norms"):
        needs[name] = needs["x"]
    needs["output_switched"] = {"attention.head": "projections", "attention.heads_off": [1]}
    for spec in PANELS:
        assert bool(spec.data) == (spec.reader is not None), spec.id
        assert callable(spec.reader) or spec.reader is None, spec.id
        for name in spec.data:
            ws = Workspace()
            # The head types score the synthetic head too (one layer of one head).
            model_only = spec.id == "layers" and name != "head_types"
            if model_only or name.endswith(("_intervened", "_difference")):
                with pytest.raises(ValueError, match="set attention.head=model"):
                    panel_data(ws, spec.id, name)
                continue
            if spec.id in ("prediction", "training"):
                why = "needs a real model" if spec.id == "prediction" else "a model attnviz trained"
                with pytest.raises(ValueError, match=why) as err:
                    panel_data(ws, spec.id, name)
                assert "\n" not in str(err.value)
                continue
            for path, value in needs.get(name, {}).items():
                topic, _, field = path.partition(".")
                ws.document[topic].update(**{field: value})
            out = panel_data(ws, spec.id, name)
            assert isinstance(out, DataArray) and out.values.size > 0, (spec.id, name)
    ws = Workspace()
    with pytest.raises(ValueError, match="has no data 'nope'; known: raw, scaled"):
        panel_data(ws, "steps", "nope")


def test_the_ui_panel_modules_are_the_tables_rows():
    pytest.importorskip("PySide6")
    from attnviz.ui.panels import panel_classes

    assert tuple(c.PANEL_ID for c in panel_classes()) == panel_ids()
    for cls in panel_classes():
        assert not hasattr(cls, "ORDER") and not hasattr(cls, "AREA"), cls  # the table's


def test_resolvers_are_named_and_an_unknown_name_is_refused():
    import importlib
    import pkgutil

    from attnviz.model import resolve
    from attnviz.model.workspace import RESOLVER_NAMES

    modules = {
        m.name
        for m in pkgutil.iter_modules(resolve.__path__)
        if hasattr(importlib.import_module(f"attnviz.model.resolve.{m.name}"), "RESOLVER")
    }
    # The always-on attention resolver is one of them, named like the others.
    assert set(RESOLVER_NAMES) == modules | {"attention"}
    assert {spec.resolver for spec in PANELS} <= set(RESOLVER_NAMES)
    ws = Workspace()
    assert ws.resolver_for("attention") is ws.resolver is ws.existing_resolver("attention")
    assert ws.resolver.EAGER and ws.resolver.watched and ws.resolver.topic is ws.state
    with pytest.raises(ValueError, match="no resolver 'nope'; known: attention, positions"):
        ws.resolver_for("nope")


def test_a_lazy_resolver_is_made_once_on_first_use_and_announced():
    ws = Workspace()
    made = []
    ws.resolver_created.connect(lambda name, resolver: made.append((name, resolver)))
    assert ws.existing_resolver("gradient") is None
    gradient = ws.resolver_for("gradient")
    assert made == [("gradient", gradient)]
    assert ws.existing_resolver("gradient") is gradient
    assert ws.resolver_for("gradient") is gradient and len(made) == 1  # not made again
    assert ws.existing_resolver("reach") is None
