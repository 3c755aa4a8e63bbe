"""The table of panels holds every panel once, and the UI's panel modules are its rows."""

from __future__ import annotations

import pytest

from attnviz.model.document import Document
from attnviz.model.panel_data import DataArray, data_panels, panel_data
from attnviz.model.panels import AREAS, PANELS, panel_ids, panel_spec
from attnviz.model.workspace import Workspace


def test_every_row_is_one_panel_with_a_topic_and_a_resolver_that_exist():
    ids = [spec.id for spec in PANELS]
    assert len(set(ids)) == len(ids) == 14
    assert len({spec.order for spec in PANELS}) == len(PANELS)  # one place each
    topics = set(Document().topics)
    ws = Workspace()
    for spec in PANELS:
        assert spec.area in AREAS and spec.topic in topics and spec.weight >= 1
        if spec.resolver is not None:
            assert ws.resolver_for(spec.resolver).topic is ws.document[spec.topic]
    assert set(data_panels()) <= set(ids)  # every --matrix owner is a panel
    assert panel_ids()[:3] == ("editor", "controls", "heatmap")
    # The 14 ids are a contract (DESIGN.md, wave 3): scripts say --panel ID and dock-ID.
    assert set(panel_ids()) == {
        "editor",
        "controls",
        "heatmap",
        "steps",
        "gradient",
        "positions",
        "memory",
        "reach",
        "embedding",
        "heads",
        "overview",
        "tiles",
        "layers",
        "lessons",
    }
    with pytest.raises(ValueError, match="unknown panel 'nope'; panels: editor, controls"):
        panel_spec("nope")


def test_every_data_name_of_the_table_is_read_by_its_source():
    # The table alone names the arrays (no registry filled by importing modules): each
    # name reads an array through the row's own function: of the default workspace, or of
    # the one its panel needs (projections for the heads' matrices, a slope for ALiBi); the
    # layers panel's show a real model and say so in one line.
    needs = {"x": {"attention.head": "projections"}, "alibi": {"positions.alibi_slope": 0.5}}
    for name in ("w_q", "w_k", "w_v", "w_o"):
        needs[name] = needs["x"]
    for spec in PANELS:
        assert bool(spec.data) == (spec.data_source is not None), spec.id
        for name in spec.data:
            ws = Workspace()
            if spec.id == "layers":
                with pytest.raises(ValueError, match="set attention.head=model"):
                    panel_data(ws, spec.id, name)
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
    assert set(RESOLVER_NAMES) == modules
    assert {spec.resolver for spec in PANELS} - {None} <= modules
    with pytest.raises(ValueError, match="no resolver 'attention'; known: positions"):
        Workspace().resolver_for("attention")


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
