"""Every painted widget of every panel takes the theme the panel is given: one that kept
the light theme drew dark ink on a dark figure (the tiles panel's HBM bars did)."""

from __future__ import annotations

import pytest

from attnviz.model.panels import PANELS
from attnviz.model.workspace import Workspace
from attnviz.ui.panels import panel_class
from attnviz.ui.theme import theme_named
from attnviz.ui.widgets.painted import PaintedWidget


@pytest.mark.parametrize("panel_id", [p.id for p in PANELS])
def test_every_painted_widget_takes_the_panels_theme(qtbot, panel_id):
    dark = theme_named("dark")
    panel = panel_class(panel_id).create(Workspace(), None)
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    panel.apply_theme(dark)
    painted = panel.findChildren(PaintedWidget)
    kept = [type(w).__name__ + ":" + w.objectName() for w in painted if w.theme != dark]
    assert kept == []


def test_an_exported_picture_is_the_themes_background_to_its_edges():
    """A figure that cannot grow to the whole canvas (the prediction panel's keeps a share
    for its other views) left a transparent band, white under a dark figure."""
    from PySide6.QtGui import QColor

    from attnviz.ui.export import ExportSpec
    from attnviz.ui.panel_export import render_panel_image

    dark = theme_named("dark")
    image = render_panel_image(Workspace(), "prediction", ExportSpec(1280, 720, theme="dark"))
    for x, y in ((5, 715), (640, 715), (1275, 715)):
        assert image.pixelColor(x, y) == QColor(dark.background)
