"""The heatmap of a real hybrid's Gated DeltaNet layer: its proven mixing matrix, titled by
its kind (never softmax), without the softmax rows' entropy strip; a softmax layer's M is
its weights, with the strip."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")
from attnviz.model.workspace import Workspace
from attnviz.ui.export import ExportSpec, default_title
from attnviz.ui.panels.heatmap import HeatmapPanel
from tests.core.test_hf_families_2026 import TEXT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def qwen3_next(qwen3_next_folder):
    return qwen3_next_folder


def test_a_gated_deltanet_layer_is_drawn_as_its_mixing_matrix_titled_by_kind(qtbot, qwen3_next):
    ws = Workspace()
    ws.state.update(head="model", model_path=qwen3_next, model_text=TEXT)
    panel = HeatmapPanel(ws)
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    ws.state.update(layer=2, model_head=1)
    caption = panel.caption.text()
    assert "layer 2 · head 1 · Gated DeltaNet" in caption and "softmax" not in caption
    m = ws.resolver.results.matrix("mixing")
    drawn = panel.view.value_at(5, 3)
    assert drawn == pytest.approx(m[5, 3], abs=1e-6)  # the cell shown is M's
    assert not panel.view.entropy_plot.isVisible()  # no softmax rows to measure
    assert "M  query" in panel.hover_text(5, 3)
    title = default_title(ws.state)
    assert "Gated DeltaNet" in title and "softmax" not in title
    ws.state.update(layer=3)  # softmax: M is its weights, with the entropies beside
    caption = panel.caption.text()
    assert "softmax (gated output)" in caption and "M = A = softmax(S)" in caption
    np.testing.assert_array_equal(
        ws.resolver.results.matrix("mixing"), ws.resolver.results.attention.weights
    )
    assert panel.view.entropy_plot.isVisible()
    assert ExportSpec(matrix="mixing").matrix == "mixing"


def test_the_steps_say_a_gated_deltanet_head_is_not_softmax(qtbot, qwen3_next):
    from attnviz.ui.panels.steps import StepsPanel

    ws = Workspace()
    ws.state.update(head="model", model_path=qwen3_next, model_text=TEXT)
    panel = StepsPanel(ws)
    qtbot.addWidget(panel)
    assert "not softmax attention" not in panel.model_line.text()  # layer 1: softmax
    ws.state.update(layer=0)
    text = panel.model_line.text()
    assert "Gated DeltaNet is not softmax attention" in text and "heatmap" in text
