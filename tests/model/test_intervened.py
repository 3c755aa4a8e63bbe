"""Before / after in the document: ``display.compare`` and the ``--matrix`` arrays of the
intervened run, against transformers' own weights (eager, ``output_attentions=True``, a
pre-hook on W^O's input) on a tiny random Llama with grouped-query attention."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.model.fields import StateError
from attnviz.model.panel_data import panel_data
from attnviz.model.workspace import Workspace

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.core.test_hf_intervened import oracle_attentions  # noqa: E402
from tests.tiny_models import SENTENCE, make_model  # noqa: E402


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    path = make_model(tmp_path_factory.mktemp("llama"), "llama", layers=3)
    oracle = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    return path, oracle


def _workspace(path: str, **prediction) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path, model_text=SENTENCE)
    ws.document.prediction.update(**prediction)
    return ws


def test_the_exports_are_transformers_weights_and_their_difference(llama):
    path, oracle = llama
    ws = _workspace(path, ablate=((0, 3),))
    ws.document.attention.update(layer=2, model_head=1)
    clean = oracle_attentions(oracle, path, SENTENCE)
    after = oracle_attentions(oracle, path, SENTENCE, ablate=[(0, 3)])
    got = panel_data(ws, "heatmap", "weights_intervened")
    np.testing.assert_allclose(got.values, after[2, 1], atol=1e-5)
    assert got.rows == tuple(ws.state.tokens)
    diff = panel_data(ws, "heatmap", "weights_difference").values
    np.testing.assert_allclose(diff, after[2, 1] - clean[2, 1], atol=1e-5)
    assert np.abs(diff).max() > 1e-3
    layer = panel_data(ws, "layers", "layer_weights_difference").values
    assert layer.shape == (4, 10, 10)
    np.testing.assert_array_equal(layer[1], diff)
    np.testing.assert_allclose(
        panel_data(ws, "layers", "layer_weights_intervened").values, after[2], atol=1e-5
    )
    ws.document.attention.update(layer=0)  # before the first intervention: exactly 0
    assert np.count_nonzero(panel_data(ws, "layers", "layer_weights_difference").values) == 0


def test_without_a_model_or_an_intervention_the_export_refuses_in_one_line(llama):
    path, _oracle = llama
    with pytest.raises(ValueError, match="before / after needs a real model") as err:
        panel_data(Workspace(), "heatmap", "weights_difference")
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="no intervention to compare"):
        panel_data(_workspace(path), "layers", "layer_weights_intervened")


def test_display_compare_is_a_choice_field_of_three_values():
    ws = Workspace()
    display = ws.document.display
    assert display.compare == "clean"
    for mode in ("intervened", "difference", "clean"):
        display.update(compare=mode)
        assert display.compare == mode
    with pytest.raises(StateError):
        display.update(compare="after")


def test_a_kept_run_follows_its_capture(llama):
    # A folder changed on disk gives a new capture: the run kept for the old one is not
    # shown with it.
    from attnviz.model import intervened
    from attnviz.model.real_model import STORE

    path, _oracle = llama
    ws = _workspace(path, ablate=((0, 1),))
    first = intervened.compared_for(ws.document)
    assert intervened.compared_for(ws.document) is first  # kept
    STORE.clear()
    again = intervened.compared_for(ws.document)
    assert again is not first and again.clean is not first.clean
    np.testing.assert_array_equal(
        again.layer_maps("difference")[2], first.layer_maps("difference")[2]
    )
