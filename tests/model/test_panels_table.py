"""The table of panels holds every panel once, and the UI's panel modules are its rows."""

from __future__ import annotations

import pytest

from attnviz.model.document import Document
from attnviz.model.panel_data import data_panels
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
    with pytest.raises(ValueError, match="unknown panel 'nope'; panels: editor, controls"):
        panel_spec("nope")


def test_the_ui_panel_modules_are_the_tables_rows():
    pytest.importorskip("PySide6")
    from attnviz.ui.panels import panel_classes

    assert tuple(c.PANEL_ID for c in panel_classes()) == panel_ids()
    for cls in panel_classes():
        assert not hasattr(cls, "ORDER") and not hasattr(cls, "AREA"), cls  # the table's
