"""A hybrid's and a sparse-attention model's heads through the document, the heads panel,
the layers grid's data and the command line: softmax layers the model's own, a DSA layer
drawn with its indexer's choice of keys, every other layer refused naming its kind."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.hf_capture import LayerCapture
from attnviz.model.fields import StateError
from attnviz.model.model_proof import prove_capture
from attnviz.model.panel_data import panel_data
from attnviz.model.real_model import layer_choices, layer_kinds, layer_maps, link_strength

pytest.importorskip("transformers")
pytest.importorskip("torch")

from tests.core.test_hf_families_2026 import TEXT, _oracle, _tiny
from tests.model.test_real_model import model_workspace


def _open(tmp_path, family: str):
    _tiny(tmp_path, family)
    ws = model_workspace(str(tmp_path), TEXT)
    return ws, ws.state.capture()


@pytest.mark.slow
def test_a_hybrid_opens_on_its_first_softmax_layer_and_refuses_the_others(tmp_path):
    ws, cap = _open(tmp_path, "qwen3_next")
    s = ws.state
    assert s.layer == 1 and layer_kinds(cap)[0] == "Gated DeltaNet"  # layer 0 is not softmax
    from attnviz.core.hf_capture import load_model

    oracle = _oracle(load_model(str(tmp_path), free_bytes=None), list(cap.ids), cap.attention_at)
    for at, theirs in zip(cap.attention_at, oracle, strict=True):
        for head in range(cap.n_heads):
            s.update(layer=at, model_head=head)
            np.testing.assert_allclose(
                ws.resolver.results.attention.weights, theirs[head], atol=1e-5
            )
    before = s.snapshot()
    with pytest.raises(StateError, match="layer 2 of .* is a Gated DeltaNet layer"):
        s.update(layer=2, matrix="weights")  # its M only (tests/model/test_real_mixing.py)
    assert s.snapshot()["layer"] == before["layer"]  # nothing changed
    maps, _value = layer_maps(cap)
    assert [m is None for m in maps] == [True, False, True, False]
    link = link_strength(cap, 3, 1)
    assert np.isnan(link[0]).all() and np.isfinite(link[1]).all()
    s.update(selected_cell=(3, 1))
    exported = panel_data(ws, "layers", "link")  # the linear layers' rows are NaN
    assert exported.rows == ("layer 0", "layer 1", "layer 2", "layer 3")
    np.testing.assert_array_equal(np.isnan(exported.values[:, 0]), [True, False, True, False])


@pytest.mark.slow
def test_weights_of_a_hybrids_other_layer_are_refused_in_one_line(tmp_path, capsys):
    from attnviz.cli import main

    _tiny(tmp_path, "qwen3_next")
    argv = ["export", "--model", str(tmp_path), "--text", TEXT, "--panel", "heatmap"]
    out = tmp_path / "w.npy"
    assert main([*argv, "--matrix", "weights", "--out", str(out)]) == 0  # layer 1, softmax
    out.unlink()
    assert (
        main([*argv, "--set", "attention.layer=2", "--matrix", "weights", "--out", str(out)]) == 1
    )
    assert not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "layer 2" in err[0] and "Gated DeltaNet layer" in err[0]


@pytest.mark.slow
@pytest.mark.parametrize("family", ["deepseek_v32", "glm_moe_dsa"])
def test_a_sparse_attention_head_is_drawn_with_its_indexers_choice(tmp_path, family):
    ws, cap = _open(tmp_path, family)
    s = ws.state
    for at, lc in zip(cap.attention_at, cap.layers, strict=True):
        for head in range(cap.n_heads):
            s.update(layer=at, model_head=head)
            res = ws.resolver.results
            # The heatmap's mask is the causal mask and the indexer's choice; its weights
            # are the model's: zero off the choice, equal on it.
            np.testing.assert_array_equal(res.mask, lc.allowed)
            np.testing.assert_allclose(res.attention.weights, lc.weights[head], atol=1e-5)
            assert not res.attention.weights[~lc.selected].any()
        heads = ws.resolver_for("heads").results
        np.testing.assert_allclose(heads.weights, lc.weights, atol=1e-5)
    # The layers grid hatches what the indexer left out, within the causal mask.
    for lc, chosen in zip(cap.layers, layer_choices(cap), strict=True):
        np.testing.assert_array_equal(chosen, lc.allowed)
        assert chosen.sum(axis=1).max() == 3


def _layer(**extra) -> LayerCapture:
    n = 3
    q = np.ones((1, n, 2), np.float32)
    w = np.full((1, n, n), 1 / n, np.float32)
    return LayerCapture(q, q, q, w, np.ones((n, n), bool), 2**-0.5, **extra)


def test_a_layer_called_with_what_attnviz_does_not_reproduce_is_refused():
    from attnviz.core.hf_capture import Capture, ModelError

    def capture(lc):
        return Capture("m", "/m", "t", "decoder", ("a",) * 3, (False,) * 3, (0, 1, 2), (lc,),
                       1, 1, 2, 2)  # fmt: skip

    prove_capture(capture(_layer()))
    with pytest.raises(ModelError, match="layer 0: its attention is called with topk_indices"):
        prove_capture(capture(_layer(unknown=("topk_indices",))))
    chosen = np.eye(3, dtype=bool)
    with pytest.raises(ModelError, match="keys its sparse-attention indexer chose are not"):
        prove_capture(capture(_layer(selected=chosen)))
