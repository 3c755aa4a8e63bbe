"""A real model's head says what it is: model, layer, head and the layer's kind, on screen
and in exports; its layers grid opens beside the matrix; the preset box names the model."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("transformers")
from attnviz.ui.export import ExportSpec, build_figure, default_title
from attnviz.ui.window_export import _settle
from tests.core.test_hf_families_2026 import _tiny

pytestmark = pytest.mark.slow
SENTENCE = "the river bank"
WAIT = 120_000


@pytest.fixture(scope="module")
def llama4(tmp_path_factory):
    """A tiny Llama 4 whose last layer is NoPE: kinds softmax, softmax, softmax, NoPE."""
    folder = tmp_path_factory.mktemp("models") / "tiny-llama4"
    _tiny(folder, "llama4_text")
    return str(folder)


def test_a_models_head_is_named_everywhere_and_its_layers_open_beside_the_matrix(
    make_window, qtbot, llama4
):
    w = make_window(large_fonts=True)
    w.models.open_path(llama4, SENTENCE)
    qtbot.waitUntil(lambda: not w.models.busy, timeout=WAIT)
    assert w.models.last_error == ""
    _settle(0.2)
    # The grid and the matrix side by side, both in front, not tabs of one group.
    layers, heatmap = w.docks["layers"], w.docks["heatmap"]
    assert w._dock_shown["layers"] and w._dock_shown["heatmap"]
    assert layers not in w.tabifiedDockWidgets(heatmap)
    assert layers.geometry().right() < heatmap.geometry().left()
    # The preset box names the model instead of going blank.
    assert w.preset_picker.currentText() == "Model: tiny-llama4"
    w.document.attention.update(layer=3, model_head=2)
    _settle(0.1)
    heading = "tiny-llama4 · layer 3 · head 2 · softmax (NoPE)"
    assert heading in w.panels["heatmap"].caption.text()
    assert w.panels["steps"].model_line.text() == f"<b>{heading}</b>"
    assert w.panels["steps"].model_line.isVisible()
    assert "Kind: softmax (NoPE)." in w.panels["layers"].summary.text()
    assert default_title(w.state).startswith(heading + "   ·   A = softmax(S)")
    view = build_figure(w.state, w.resolver.results, ExportSpec(1280, 720, "light", False))
    try:
        assert view.title.text.startswith(heading)
    finally:
        view.close()
    # Layer 0 is softmax with positions; a synthetic head has no model heading at all.
    w.document.attention.update(layer=0, model_head=1)
    assert "tiny-llama4 · layer 0 · head 1 · softmax<" in w.panels["heatmap"].caption.text()
    w.apply_preset("banco")
    assert "tiny-llama4" not in w.panels["heatmap"].caption.text()
    assert not w.panels["steps"].model_line.isVisible()
    assert w.preset_picker.currentData() == "banco"


def test_an_exported_svg_of_a_models_head_is_titled_with_it(tmp_path, llama4):
    out = tmp_path / "head.svg"
    done = subprocess.run(
        [sys.executable, "-m", "attnviz", "export", "--model", llama4, "--text", SENTENCE,
         "--set", "attention.layer=3", "--set", "attention.model_head=2", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    svg = out.read_text(encoding="utf-8")
    assert "tiny-llama4 · layer 3 · head 2 · softmax (NoPE)" in svg
