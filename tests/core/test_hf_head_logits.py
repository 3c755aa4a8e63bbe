"""Each head's direct effect on the target's logit, against transformers itself.

The oracle is the same folder loaded by transformers (eager attention), written family by
family with the formulas spelled out: hooks on W^O's input give each head's slice, times
W^O's columns of that head (nn.Linear's weight[:, cols], GPT-2's Conv1D weight[cols, :]),
through Gemma's post-attention RMSNorm (1 + w) with the clean attention output's RMS and
the config's epsilon, through the final norm with the clean residual's RMS (or mean and
standard deviation for GPT-2's LayerNorm), onto the target's unembedding row minus the
vocabulary's mean. The logit they add up to is read from a hook on the lm_head's output:
the logits before Gemma's final softcap. Every 1-D tensor (norm weights, biases) is
randomised first, so a norm's gain, Gemma's 1 + w and the biases all matter.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.core.hf_capture import ModelError, load_model
from attnviz.core.hf_head_logits import head_logits

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import MASKED, SENTENCE, WORDS, make_model, save_tokenizer  # noqa: E402

pytestmark = pytest.mark.slow


def randomise_vectors(path: str, seed: int = 5) -> None:
    """Give the folder's 1-D tensors (norm gains, biases) random values."""
    from safetensors.torch import load_file, save_file

    file = f"{path}/model.safetensors"
    tensors = load_file(file)
    gen = torch.Generator().manual_seed(seed)
    for key, t in tensors.items():
        if t.dim() == 1 and t.dtype.is_floating_point:
            tensors[key] = (t + 0.3 * torch.randn(t.shape, generator=gen)).contiguous()
    save_file(tensors, file, metadata={"format": "pt"})


def _oracle(path: str, family: str, text: str, at: int, target: int):
    """(heads (layers, 4), mlps, embeddings, biases, constant, pre-softcap centred logit)
    of transformers' model, each through the frozen final norm onto the target's row."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    enc = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)(
        text, return_tensors="pt"
    )
    gpt2 = family == "gpt2"
    blocks = model.transformer.h if gpt2 else model.model.layers
    seen: dict = {}
    hooks = []

    def keep(key, side):
        def hook(_m, args, out=None):
            value = args[0] if side == "in" else (out[0] if isinstance(out, tuple) else out)
            seen[key] = value[0, at].detach().double()

        return hook

    for i, block in enumerate(blocks):
        proj = block.attn.c_proj if gpt2 else block.self_attn.o_proj
        hooks.append(proj.register_forward_pre_hook(keep(("x", i), "in")))
        hooks.append(proj.register_forward_hook(keep(("o", i), "out")))
        mlp_out = block.post_feedforward_layernorm if family == "gemma3_text" else block.mlp
        hooks.append(mlp_out.register_forward_hook(keep(("mlp", i), "out")))
    final = model.transformer.ln_f if gpt2 else model.model.norm
    hooks.append(final.register_forward_pre_hook(keep("r", "in")))
    hooks.append(model.lm_head.register_forward_hook(keep("z", "out")))
    with torch.no_grad():
        out = model(**enc, output_hidden_states=True)
    for h in hooks:
        h.remove()
    with torch.no_grad():
        return _terms(model, family, seen, out, at, target)


def _terms(model, family: str, seen: dict, out, at: int, target: int):
    """The oracle's terms from what its hooks saw (the formulas, family by family)."""
    cfg = model.config
    gpt2 = family == "gpt2"
    blocks = model.transformer.h if gpt2 else model.model.layers
    final = model.transformer.ln_f if gpt2 else model.model.norm
    r = seen["r"]
    if gpt2:
        w, b = final.weight.double(), final.bias.double()
        std = torch.sqrt(r.var(unbiased=False) + cfg.layer_norm_epsilon)

        def through_final(t):
            return (t - t.mean()) * w / std

        constant_vec = b
    else:
        gain = final.weight.double() + (1.0 if family == "gemma3_text" else 0.0)
        rms = torch.sqrt((r * r).mean() + cfg.rms_norm_eps)

        def through_final(t):
            return t * gain / rms

        constant_vec = torch.zeros_like(r)
    w_u = model.lm_head.weight.double()
    u = w_u[target] - w_u.mean(dim=0)
    layers, width = len(blocks), cfg.hidden_size // 4
    heads = np.zeros((layers, 4))
    biases = np.zeros(layers)
    for i, block in enumerate(blocks):
        x = seen[("x", i)]
        if gpt2:
            weight, bias = block.attn.c_proj.weight.double(), block.attn.c_proj.bias.double()
        else:
            weight, bias = block.self_attn.o_proj.weight.double().T, None
        post = lambda t: t  # noqa: E731
        if family == "gemma3_text":
            o = seen[("o", i)]
            g = block.post_attention_layernorm.weight.double() + 1.0
            rms_o = torch.sqrt((o * o).mean() + cfg.rms_norm_eps)
            post = lambda t, g=g, rms_o=rms_o: t * g / rms_o  # noqa: E731
        for h in range(4):
            cols = slice(h * width, (h + 1) * width)
            heads[i, h] = float(through_final(post(x[cols] @ weight[cols])) @ u)
        if bias is not None:
            biases[i] = float(through_final(bias) @ u)
    mlps = np.array([float(through_final(seen[("mlp", i)]) @ u) for i in range(layers)])
    embeddings = float(through_final(out.hidden_states[0][0, at].double()) @ u)
    constant = float(constant_vec @ u)
    z = seen["z"]
    return heads, mlps, embeddings, biases, constant, float(z[target] - z.mean())


@pytest.fixture(scope="module", params=["llama", "qwen3", "gemma3_text", "gpt2"])
def tiny(request, tmp_path_factory):
    family = request.param
    path = make_model(tmp_path_factory.mktemp(family), family)
    randomise_vectors(path)
    return family, path, load_model(path)


@pytest.mark.parametrize("position, target", [(None, None), (4, "river")])
def test_each_heads_term_matches_transformers_through_frozen_norms(tiny, position, target):
    family, path, loaded = tiny
    found = head_logits(loaded, SENTENCE, position=position, target=target)
    n = len(loaded.tokenize(SENTENCE)[0])
    assert found.position == (n - 1 if position is None else position)
    if target is not None:
        assert found.target_token == "river"
    heads, mlps, embeddings, biases, constant, logit = _oracle(
        path, family, SENTENCE, found.position, found.target
    )
    np.testing.assert_allclose(found.values, heads, atol=1e-4)
    np.testing.assert_allclose(found.mlp, mlps, atol=1e-4)
    np.testing.assert_allclose(found.bias, biases, atol=1e-4)
    assert found.embeddings == pytest.approx(embeddings, abs=1e-4)
    assert found.constant == pytest.approx(constant, abs=1e-4)
    assert found.logit == pytest.approx(logit, abs=1e-4)
    # Every residual writer's direct term: together the clean pre-softcap logit exactly.
    assert found.total() == pytest.approx(logit, abs=1e-4)
    assert np.abs(found.values).max() > 1e-2  # the heads do write something
    np.testing.assert_array_equal(found.mixer, 0.0)  # no other token mixer here
    if family == "gpt2":
        assert np.abs(found.bias).max() > 1e-3 and abs(found.constant) > 1e-3


def test_gemmas_terms_are_shares_of_the_logit_before_its_softcap(tmp_path):
    path = make_model(tmp_path, "gemma3_text")
    found = head_logits(load_model(path), SENTENCE)
    assert found.softcap == 3.0
    model = transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    enc = transformers.AutoTokenizer.from_pretrained(path)(SENTENCE, return_tensors="pt")
    with torch.no_grad():
        capped = model(**enc).logits[0, -1].double().numpy()
    # The capped logits stay within ±3: the terms add up to something the cap would squash.
    assert np.abs(capped).max() < 3.0 < abs(found.logit)
    assert abs(found.logit - (capped[found.target] - capped.mean())) > 0.5


def test_a_masked_lm_encoder_is_refused_in_one_line(tmp_path):
    path = make_model(tmp_path, "bert")
    with pytest.raises(ModelError, match="masked-LM head transforms the residual") as err:
        head_logits(load_model(path), MASKED)
    assert "\n" not in str(err.value)


def test_bad_targets_and_positions_are_refused_in_one_line(tiny):
    _family, _path, loaded = tiny
    for kwargs, match in [
        ({"position": 99}, "outside the sentence"),
        ({"target": "the cat"}, "give one token"),
        ({"target": 10_000}, "outside the vocabulary"),
        ({"position": "x"}, "position must be an integer"),
    ]:
        with pytest.raises(ModelError, match=match) as err:
            head_logits(loaded, SENTENCE, **kwargs)
        assert "\n" not in str(err.value)


def test_a_hybrids_other_mixers_are_their_own_terms(tmp_path):
    """LFM2: short convolutions in layers 0 and 2 (NaN heads, a mixer term each), softmax
    attention in 1 and 3; the terms still add up to transformers' logit."""
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
    found = head_logits(load_model(str(tmp_path), free_bytes=None), SENTENCE)
    assert np.isnan(found.values[[0, 2]]).all() and not np.isnan(found.values[[1, 3]]).any()
    assert (found.mixer[[0, 2]] != 0).all() and (found.mixer[[1, 3]] == 0).all()
    model.eval()
    enc = transformers.AutoTokenizer.from_pretrained(str(tmp_path))(SENTENCE, return_tensors="pt")
    seen = {}
    hook = model.lm_head.register_forward_hook(lambda _m, _a, out: seen.update(z=out))
    with torch.no_grad():
        model(**enc)
    hook.remove()
    z = seen["z"][0, -1].double().numpy()
    assert found.logit == pytest.approx(z[found.target] - z.mean(), abs=1e-4)
    assert found.total() == pytest.approx(found.logit, abs=1e-4)


def _saved(path, model) -> str:
    """``model`` with random weights (1-D tensors too), saved with the word tokenizer."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.5)
            else:
                p.add_(0.3 * torch.randn_like(p))
    model.save_pretrained(str(path), safe_serialization=True)
    save_tokenizer(path)
    return str(path)


def test_a_logit_scale_is_part_of_the_unembedding(tmp_path):
    """Cohere multiplies its logits by logit_scale (and runs attention and MLP side by
    side on one norm): a linear step, so the terms still add up to its own logit."""
    torch.manual_seed(4)
    config = transformers.CohereConfig(
        vocab_size=len(WORDS) + 3, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, logit_scale=0.5,
    )  # fmt: skip
    path = _saved(tmp_path, transformers.CohereForCausalLM(config))
    found = head_logits(load_model(path), SENTENCE)
    model = transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True).eval()
    enc = transformers.AutoTokenizer.from_pretrained(path)(SENTENCE, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[0, -1].double().numpy()
    assert found.logit == pytest.approx(logits[found.target] - logits.mean(), abs=1e-4)
    assert found.total() == pytest.approx(found.logit, abs=1e-4)
    assert np.isfinite(found.values).all() and np.abs(found.values).max() > 1e-2


def test_a_block_that_adds_its_own_residual_is_refused_in_one_line(tmp_path):
    """BLOOM's attention and MLP add the residual inside themselves: their outputs are
    not what they write, and attnviz says so rather than guess."""
    torch.manual_seed(3)
    config = transformers.BloomConfig(
        vocab_size=len(WORDS) + 3, hidden_size=32, n_layer=2, n_head=4, bos_token_id=1
    )
    path = _saved(tmp_path, transformers.BloomForCausalLM(config))
    with pytest.raises(ModelError, match="layer 0's output is not its input plus") as err:
        head_logits(load_model(path), SENTENCE)
    assert "\n" not in str(err.value)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_position_and_target_add_up_to_transformers_logit(tiny, data):
    """Any position, any token as the target (or an id): the terms of every writer add up
    to transformers' own logit there (before the softcap), minus the vocabulary's mean."""
    _family, path, loaded = tiny
    n = len(loaded.tokenize(SENTENCE)[0])
    position = data.draw(st.integers(-n, n - 1), label="position")
    target = data.draw(st.integers(0, len(WORDS) + 2) | st.sampled_from(WORDS), label="target")
    found = head_logits(loaded, SENTENCE, position=position, target=target)
    assert found.position == position % n
    z = _pre_softcap(path, found.position)
    assert found.logit == pytest.approx(z[found.target] - z.mean(), abs=1e-4)
    assert found.total() == pytest.approx(found.logit, abs=1e-4)


_MODELS: dict = {}


def _pre_softcap(path: str, at: int) -> np.ndarray:
    """transformers' logits at ``at`` before a final softcap (a hook on lm_head)."""
    if path not in _MODELS:
        _MODELS[path] = (
            transformers.AutoModelForCausalLM.from_pretrained(path, local_files_only=True).eval(),
            transformers.AutoTokenizer.from_pretrained(path)(SENTENCE, return_tensors="pt"),
        )
    model, enc = _MODELS[path]
    seen = {}
    hook = model.lm_head.register_forward_hook(lambda _m, _a, out: seen.update(z=out))
    with torch.no_grad():
        model(**enc)
    hook.remove()
    return seen["z"][0, at].double().numpy()
