"""The intervened run's attention weights against transformers itself.

The oracle is the same folder loaded by transformers with eager attention and
``output_attentions=True``: its weights of every layer, with a forward pre-hook on W^O's
input for an ablation (zeros, or the clean run's mean over positions) and an additive
−inf mask handed to one layer's attention for a knockout. Tiny random Llama (grouped
query heads: 4 on 2 KV heads) and GPT-2 (Conv1D projections), three layers each.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.hf_capture import ModelError, load_model
from attnviz.core.hf_intervened import first_changed, intervened_run
from attnviz.model.intervened import Compared, prove_run

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.core.test_hf_predict import attention, clean_means, out_proj  # noqa: E402
from tests.tiny_models import SENTENCE, make_model  # noqa: E402

LAYERS = 3


def oracle_attentions(model, path, text, ablate=(), means=None, knockout=(), heads=4):
    """transformers' eager weights of every layer (layers, h, n, n) with W^O input columns
    replaced by pre-hooks and knockouts added to one layer's additive mask."""
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    enc = tok(text, return_tensors="pt")
    n = enc["input_ids"].shape[1]
    family = model.config.model_type
    width = 32 // heads
    hooks = []
    for layer, head in ablate:

        def pre(module, args, layer=layer, head=head):
            x = args[0].clone()
            cols = slice(head * width, (head + 1) * width)
            x[..., cols] = 0.0 if means is None else means[layer][cols]
            return (x, *args[1:])

        hooks.append(out_proj(model, family, layer).register_forward_pre_hook(pre))
    by_layer: dict = {}
    for layer, head, q, k in knockout:
        by_layer.setdefault(layer, []).append((head, q, k))
    for layer, cuts in by_layer.items():

        def mask_hook(module, args, kwargs, cuts=cuts):
            mask = kwargs.get("attention_mask")
            if mask is None:
                mask = torch.zeros(1, 1, n, n)
            elif mask.dtype == torch.bool:
                mask = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
            mask = mask.expand(1, heads, n, n).clone()
            for head, q, k in cuts:
                mask[0, slice(None) if head < 0 else head, q, k] = float("-inf")
            return args, {**kwargs, "attention_mask": mask}

        hooks.append(
            attention(model, family, layer).register_forward_pre_hook(mask_hook, with_kwargs=True)
        )
    try:
        with torch.no_grad():
            out = model(**enc, output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    return np.stack([a[0].double().numpy() for a in out.attentions])


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def tiny(request, tmp_path_factory):
    family = request.param
    path = make_model(tmp_path_factory.mktemp(family), family, layers=LAYERS)
    oracle = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    loaded = load_model(path)
    return family, path, loaded, loaded.capture(SENTENCE), oracle


def weights(capture) -> np.ndarray:
    return np.stack([lc.weights.astype(np.float64) for lc in capture.layers])


def test_the_clean_capture_is_transformers_own_weights(tiny):
    # The oracle's baseline: without interventions both give the same weights.
    _family, path, _loaded, cap, oracle = tiny
    np.testing.assert_allclose(weights(cap), oracle_attentions(oracle, path, SENTENCE), atol=1e-5)


CASES = {
    "zero two heads": dict(ablate=[(0, 1), (1, 3)]),
    "mean two heads": dict(ablate=[(0, 2), (1, 0)], ablation="mean"),
    "a knockout of one head": dict(knockout=[(1, 2, 7, 3)]),
    "a knockout of every head": dict(knockout=[(1, -1, 8, 1)]),
    "both": dict(ablate=[(0, 0)], knockout=[(2, 1, 5, 5), (2, 3, 9, 0)]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_intervened_weights_are_transformers_weights_with_hooks(tiny, case):
    _family, path, loaded, cap, oracle = tiny
    kw = CASES[case]
    run = intervened_run(loaded, cap, **kw)
    means = None
    if kw.get("ablation") == "mean":
        means = clean_means(oracle, path, SENTENCE, [layer for layer, _h in kw["ablate"]])
    expected = oracle_attentions(
        oracle, path, SENTENCE, kw.get("ablate", ()), means, kw.get("knockout", ())
    )
    got = weights(run.capture)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert np.abs(got - weights(cap)).max() > 1e-3  # the intervention changed weights
    proven = prove_run(cap, run)  # passes the proof, its cut links hidden
    np.testing.assert_allclose(weights(proven), expected, atol=1e-5)


def test_layers_before_the_first_intervention_differ_by_exactly_zero(tiny):
    _family, _path, loaded, cap, _oracle = tiny
    run = intervened_run(loaded, cap, ablate=[(1, 2)])
    assert run.first == 2  # an ablated head changes what its layer writes, not its weights
    diff = Compared(cap, prove_run(cap, run), run.first).layer_maps("difference")
    assert np.count_nonzero(diff[0]) == 0 and np.count_nonzero(diff[1]) == 0
    assert np.abs(diff[2]).max() > 1e-3


def test_a_knocked_out_row_renormalises_and_the_other_heads_keep_their_weights(tiny):
    _family, _path, loaded, cap, _oracle = tiny
    clean = cap.layers[1].weights
    q = 8
    k = int(np.argmax(clean[2, q]))  # the key head 2's query reads most
    run = intervened_run(loaded, cap, knockout=[(1, 2, q, k)])
    w = run.capture.layers[1].weights.astype(np.float64)
    assert w[2, q, k] == 0.0
    assert w[2, q].sum() == pytest.approx(1.0, abs=1e-6)
    # The rest of the row is the clean row without that key, renormalised.
    rest = np.delete(clean[2, q].astype(np.float64), k)
    np.testing.assert_allclose(np.delete(w[2, q], k), rest / rest.sum(), atol=1e-6)
    for head in (0, 1, 3):  # the same inputs: the other heads of the layer are unchanged
        np.testing.assert_array_equal(w[head], clean[head])
    assert run.first == 1 and int((~run.keep[1]).sum()) == 1


def test_the_proof_refuses_a_run_whose_cut_links_it_was_not_told_of(tiny):
    _family, _path, loaded, cap, _oracle = tiny
    run = intervened_run(loaded, cap, knockout=[(1, 2, 7, 3)])
    hidden = type(run)(run.capture, {}, run.first)  # as if no link had been cut
    with pytest.raises(ModelError) as err:
        prove_run(cap, hidden)
    assert "layer 1, head 2" in str(err.value) and "\n" not in str(err.value)


def test_a_layer_that_changed_before_the_intervention_is_refused(tiny):
    _family, _path, loaded, cap, _oracle = tiny
    run = intervened_run(loaded, cap, knockout=[(1, 2, 7, 3)])
    late = type(run)(run.capture, run.keep, 2)  # claims layer 1 is upstream
    with pytest.raises(ModelError, match="layer 1 changed by .* before the first intervention"):
        prove_run(cap, late)


def test_refusals_are_one_line(tiny, monkeypatch):
    _family, _path, loaded, cap, _oracle = tiny
    with pytest.raises(ModelError, match="no intervention to compare"):
        intervened_run(loaded, cap)
    with pytest.raises(ModelError, match="head 9 of layer 0 is outside"):
        intervened_run(loaded, cap, ablate=[(0, 9)])
    with pytest.raises(ModelError, match="knockout key 40 is outside"):
        intervened_run(loaded, cap, knockout=[(0, 0, 1, 40)])
    import attnviz.core.hf_intervened as mod

    monkeypatch.setattr(mod, "LONG_TOKENS", 4)
    with pytest.raises(ModelError, match="compared up to 4 tokens; this sentence has 10"):
        intervened_run(loaded, cap, ablate=[(0, 0)])


def test_first_changed():
    assert first_changed([], []) is None
    assert first_changed([(3, 0), (1, 2)], []) == 2
    assert first_changed([(3, 0)], [(2, -1, 4, 1)]) == 2
    assert first_changed([(0, 0)], [(2, -1, 4, 1)]) == 1
