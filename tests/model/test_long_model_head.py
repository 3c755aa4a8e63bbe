"""The overview's ``model`` head: a real model's head (mask, scale, ALiBi, sinks, windows)
mapped and zoomed as a long head, against transformers' own weights."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.model.panel_data import panel_data
from attnviz.model.resolve import _long_model
from attnviz.model.resolve import long as long_model
from attnviz.model.workspace import Workspace

pytest.importorskip("transformers")
from tests.core.test_hf_capture import SENTENCE, make_tiny_decoder, oracle_attentions

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["bloom", "gpt_oss", "mistral"])
def tiny(request, tmp_path_factory):
    """A tiny model (ALiBi, a sink per head, a sliding window) and transformers' weights."""
    path = make_tiny_decoder(tmp_path_factory.mktemp(request.param) / "m", request.param)
    return path, oracle_attentions(path, SENTENCE)[1]


def _workspace(path, layer=1, head=3) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(
        head="model", model_path=path, model_text=SENTENCE, layer=layer, model_head=head
    )
    return ws


def _pooled(a: np.ndarray, bins: int, how) -> np.ndarray:
    groups = np.array_split(np.arange(a.shape[0]), bins)
    return np.array([[how(a[np.ix_(r, c)]) for c in groups] for r in groups])


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 3), (2, 1)])
def test_the_map_and_the_zoom_are_the_models_weights(tiny, layer, head):
    path, oracle = tiny
    ws = _workspace(path, layer, head)
    resolver = ws.resolver_for("long")
    for reduce, how in (("mean", np.mean), ("max", np.max)):
        ws.document.long.update(head="model", bins=4, reduce=reduce)
        res = resolver.results
        want = oracle[layer][head]
        n = want.shape[0]
        assert (res.values["n"], res.values["d_k"], res.values["bins"]) == (n, 8, 4)
        assert res.values["causal"] and res.source.layer == layer and res.source.head == head
        ov = resolver.overview_now()
        assert ov.map.shape == (4, 4)
        np.testing.assert_allclose(ov.map, _pooled(want, 4, how), atol=1e-5)
    np.testing.assert_allclose(long_model.exact_block(ov, 0, n, 0, n), want, atol=1e-5)
    np.testing.assert_allclose(long_model.exact_block(ov, 2, 5, 1, 4), want[2:5, 1:4], atol=1e-5)
    ws.document.long.update(rows=(3, 7), cols=(0, 5))
    block = panel_data(ws, "overview", "block")
    np.testing.assert_allclose(block.values, want[3:7, 0:5], atol=1e-5)
    assert block.rows[0] == "3" and block.columns[-1] == "4"
    np.testing.assert_allclose(
        long_model.region_map(ov, 0, n, 0, n, 3, "max"), _pooled(want, 3, np.max), atol=1e-5
    )


def test_the_map_follows_the_head_and_the_terms(tiny):
    path, oracle = tiny
    ws = _workspace(path, 1, 3)
    resolver = ws.resolver_for("long")
    ws.document.long.update(head="model", bins=9)
    first = resolver.overview_now()
    ws.document.attention.update(model_head=2)
    assert resolver.cached_overview() is None  # another head: a new map
    np.testing.assert_allclose(resolver.overview_now().map, oracle[1][2], atol=1e-5)
    # A what-if on the terms is drawn too (the heatmap draws it): here a cap of 1.
    ws.document.attention.update(softcap=1.0)
    capped = resolver.overview_now().map
    assert not np.allclose(capped, oracle[1][2], atol=1e-3)
    heatmap = ws.resolver.results.attention.weights
    np.testing.assert_allclose(capped, heatmap, atol=1e-12)
    # And temperature tuning (every row past the first floor of 2 sharpened).
    ws.document.attention.update(tuning=0.8, tuning_floor=2)
    tuned = resolver.overview_now().map
    assert not np.allclose(tuned, capped, atol=1e-3)
    np.testing.assert_allclose(tuned, ws.resolver.results.attention.weights, atol=1e-12)
    assert first.map.shape == (9, 9)
    # Another sentence is the model's own head again: every term follows the model.
    ws.document.attention.update(model_text=SENTENCE + " again")
    assert ws.document.attention.tuning == 0.0 and ws.document.attention.softcap == 0.0


def test_without_a_model_the_map_says_what_to_open():
    ws = Workspace()
    ws.document.long.update(head="model")
    res = ws.resolver_for("long").results
    assert res.source is None and res.values["n"] == 4096
    assert res.tiles.q.shape[0] == 16  # the tiles demo keeps a synthetic head
    with pytest.raises(ValueError, match="open a model first"):
        ws.resolver_for("long").overview_now()
    with pytest.raises(ValueError, match="open a model first"):
        panel_data(ws, "overview", "overview")


def test_a_zoom_past_the_sentence_is_the_whole_and_bins_follow_n(tiny):
    path, oracle = tiny
    ws = _workspace(path)
    ws.document.long.update(head="model", bins=256, rows=(100, 900), cols=(0, 2000))
    res = ws.resolver_for("long").results
    n = oracle[1][3].shape[0]
    assert res.values["bins"] == n and res.window == (0, n, 0, n)
    assert long_model.overview_seconds(res.values) > 0
    assert res.need_bytes == _long_model.model_bytes(n, 8, n)
