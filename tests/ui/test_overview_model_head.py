"""The overview on a real model's head in the window, and a window that keeps its size when a
model's sentence arrives before its first layout."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.model.resolve import long as long_model

pytest.importorskip("transformers")
from tests.core.test_hf_capture import SENTENCE, make_tiny_decoder, oracle_attentions

pytestmark = pytest.mark.slow
WAIT = 60_000


def test_the_overview_maps_the_models_head_and_the_window_keeps_720(qtbot, make_window, tmp_path):
    path = make_tiny_decoder(tmp_path / "bloom", "bloom")  # ALiBi: a term the tiled path lacks
    want = oracle_attentions(path, SENTENCE)[1][1][3]
    w = make_window(large_fonts=True, shown=False)
    w.show()
    # The sentence arrives before the first layout (a session opened at start): the steps'
    # wrapped lines, measured at the panel's first few pixels, once grew the window to 974.
    w.document.attention.update(
        head="model", model_path=path, model_text=SENTENCE, layer=1, model_head=3
    )
    qtbot.waitExposed(w)
    qtbot.wait(50)
    assert (w.width(), w.height()) == (1280, 720)
    panel = w.panels["overview"]
    w.docks["overview"].raise_()
    w.document.long.update(head="model", bins=9, reduce="mean")
    key = panel.resolver.results.key
    qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.key == key, timeout=WAIT)
    np.testing.assert_allclose(panel.view.coarse.values, want, atol=1e-5)
    assert "layer 1, head 3" in panel.caption.text() and "9 tokens" in panel.caption.text()
    assert not panel.n.isVisible() and not panel.backend.isVisible()
    assert panel.bins.isVisible() and panel.head.currentData() == "model"
    # Zoom to exact cells: the model's own weights, hovered with their value.
    w.document.long.update(rows=(2, 6), cols=(0, 4))
    qtbot.waitUntil(lambda: panel.view.detail.exact, timeout=WAIT)
    np.testing.assert_allclose(panel.view.detail.values, want[2:6, 0:4], atol=1e-5)
    # Back to a synthetic head: its fields and controls return.
    w.document.long.update(head="content", rows=(), cols=())
    qtbot.waitUntil(
        lambda: (
            panel.overview is not None
            and panel.overview.key == long_model.overview_key(panel.state.snapshot())
        ),
        timeout=WAIT,
    )
    assert panel.n.isVisible() and panel.overview.q.shape[0] == panel.state.n
    w.docks["overview"].hide()
