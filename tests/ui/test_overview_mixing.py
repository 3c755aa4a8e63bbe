"""The overview panel on a hybrid's Gated DeltaNet head: its mixing matrix M drawn signed
(diverging colours, levels ±the largest |M| shown), caption, bar and hover saying M and the
kind; a softmax layer of the same model as before; random switches between the two."""

from __future__ import annotations

import random

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

from attnviz.model import real_mixing, real_model  # noqa: E402
from attnviz.ui import workers  # noqa: E402
from attnviz.ui.heatmap_look import colormap_for  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _tiny  # noqa: E402
from tests.model.test_long_mixing import pooled  # noqa: E402
from tests.ui.soak import Action, Soak, send_mouse_move  # noqa: E402

pytestmark = pytest.mark.slow
WAIT = 60_000


@pytest.fixture(scope="module")
def qwen3_next(tmp_path_factory):
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Qwen3-Next")
    folder = tmp_path_factory.mktemp("qwen3_next")
    _tiny(folder, "qwen3_next")  # Gated DeltaNet, softmax, Gated DeltaNet, softmax
    yield str(folder)
    real_model.STORE.clear()
    real_mixing.clear()


@pytest.fixture
def window(make_window, qtbot, qwen3_next):
    w = make_window(front="overview")
    w.document.attention.update(head="model", model_path=qwen3_next, model_text=TEXT)
    w.document.attention.update(layer=0, model_head=1)
    w.document.long.update(head="model", bins=4, reduce="mean")
    yield w
    w.docks["overview"].hide()
    if workers._POOL:
        qtbot.waitUntil(lambda: workers._POOL[0].activeThreadCount() == 0, timeout=WAIT)


def _ready(qtbot, panel) -> None:
    key = panel.resolver.results.key
    qtbot.waitUntil(lambda: panel.overview is not None and panel.overview.key == key, timeout=WAIT)


def test_a_gated_deltanet_head_is_drawn_as_signed_m(window, qtbot, qwen3_next):
    panel = window.panels["overview"]
    _ready(qtbot, panel)
    m = real_mixing.mixing_matrix(qwen3_next, TEXT, 0, 1)[1]
    np.testing.assert_allclose(panel.view.coarse.values, pooled(m, 4, "mean"), atol=1e-12)
    top = float(np.abs(panel.view.coarse.values).max())
    assert panel.view._levels == pytest.approx((-top, top))
    assert panel.view.colorbar.colorMap() is colormap_for("diverging")
    assert panel.view.colorbar.axis.labelText == "M (Gated DeltaNet)"
    caption = panel.caption.text()
    assert "layer 0, head 1, Gated DeltaNet" in caption and "block of M" in caption
    assert "weight" not in caption
    assert not panel.log_color.isEnabled() and "signed" in panel.log_color.toolTip()
    panel.view.hover(5, 0)
    assert "mean M = " in panel.hover.text() and "weight" not in panel.hover.text()
    # "max": each cell the entry of largest |M|, signed, and said so.
    window.document.long.update(reduce="max", log_color=True)
    _ready(qtbot, panel)
    np.testing.assert_allclose(panel.view.coarse.values, pooled(m, 4, "max"), atol=1e-12)
    assert np.any(panel.view.coarse.values < 0)  # negatives drawn, not clipped
    assert "largest |M|" in panel.caption.text()
    assert not panel.log_color.isChecked() and not panel.log_color.isEnabled()
    assert panel.reduce.currentText() == "largest |M| of the block"
    assert not panel.view.log  # a signed M is never drawn in log colours
    window.document.long.update(bins=13)  # a cell a token: each one entry of M
    _ready(qtbot, panel)
    np.testing.assert_array_equal(panel.view.coarse.values, m)
    assert "each cell one entry of M" in panel.caption.text()
    # Zoomed to exact cells: M itself, hovered with its value.
    window.document.long.update(rows=(3, 9), cols=(0, 6))
    qtbot.waitUntil(lambda: panel.view.detail.exact, timeout=WAIT)
    np.testing.assert_array_equal(panel.view.detail.values, m[3:9, 0:6])
    top = float(np.abs(m[3:9, 0:6]).max())
    assert panel.view._levels == pytest.approx((-top, top))
    assert "M itself, exact" in panel.caption.text()
    panel.view.hover(6, 4)
    assert panel.hover.text().startswith("query 6, key 4: M = ")
    assert any(t.startswith("\u2212") for t in panel.view.cell_texts())  # signed cells
    # A softmax layer of the same hybrid: weights again, viridis, log colours back.
    window.document.long.update(rows=(), cols=())
    window.document.attention.update(layer=1, model_head=0)
    _ready(qtbot, panel)
    assert panel.view.colorbar.colorMap() is colormap_for("viridis")
    assert panel.view.colorbar.axis.labelText.startswith("log₁₀ weight")
    assert panel.log_color.isEnabled() and panel.log_color.isChecked() and panel.view.log
    assert "Gated DeltaNet" not in panel.caption.text()
    assert panel.reduce.currentText() == "max of the block"


def test_soak_switching_between_softmax_and_gated_deltanet_heads(window, qtbot, qwen3_next):
    """Random layer, head, reduce, zoom and hover events while the map recomputes; at the
    end the drawn map is the current head's: pooled M, or weights, never mixed up."""
    panel = window.panels["overview"]
    rng = random.Random(41)
    doc = window.document
    actions = [
        Action("layer", lambda: doc.attention.update(layer=rng.randint(0, 3),
                                                     model_head=rng.randint(0, 3))),
        Action("head", lambda: doc.attention.update(model_head=rng.randint(0, 3))),
        Action("reduce, bins", lambda: doc.long.update(reduce=rng.choice(["mean", "max"]),
                                                       bins=rng.choice([3, 4, 13]))),
        Action("log colour", lambda: doc.long.update(log_color=rng.random() < 0.5)),
        Action("zoom", lambda: doc.long.update(rows=(2, 9), cols=(0, 7))),
        Action("unzoom", lambda: doc.long.update(rows=(), cols=())),
        Action("hover", lambda: panel.view.hover(rng.randint(0, 12), rng.randint(0, 12))),
        Action("mouse", lambda: send_mouse_move(panel.view.viewport(), rng.randint(0, 300),
                                                rng.randint(0, 200))),
        Action("cancel", lambda: panel.resolver.cancel_overview()),
        Action("compute", lambda: panel._on_q_run()),
    ]  # fmt: skip
    Soak(rng, actions).run(50)
    doc.long.update(rows=(), cols=())
    # The button cancels a map on its way: ask for one only once none is running.
    qtbot.waitUntil(lambda: not panel.resolver.map_running, timeout=WAIT)
    if panel.overview is None or panel.overview.key != panel.resolver.results.key:
        panel._on_q_run()
    _ready(qtbot, panel)
    state = doc.attention
    kind, m = real_mixing.mixing_matrix(qwen3_next, TEXT, state.layer, state.model_head)
    bins, reduce = panel.overview.map.shape[0], doc.long.reduce
    if state.layer % 2 == 0:  # Gated DeltaNet
        assert kind == "Gated DeltaNet" and panel.overview.signed
        np.testing.assert_allclose(panel.view.coarse.values, pooled(m, bins, reduce), atol=1e-12)
        assert panel.view.colorbar.axis.labelText == "M (Gated DeltaNet)"
    else:
        assert not panel.overview.signed
        groups = np.array_split(np.arange(m.shape[0]), bins)
        how = np.mean if reduce == "mean" else np.max
        want = np.array([[how(m[np.ix_(r, c)]) for c in groups] for r in groups])
        np.testing.assert_allclose(panel.view.coarse.values, want, atol=1e-5)
        assert "M (" not in panel.view.colorbar.axis.labelText
