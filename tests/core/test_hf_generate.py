"""Generation against transformers itself: greedy equal to ``generate``, sampled equal to
our probabilities replayed through transformers' warpers with the same numpy Generator,
the stop, the end of sequence, the refusals."""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core.hf_capture import load_model  # noqa: E402
from attnviz.core.hf_errors import ModelError  # noqa: E402
from attnviz.core.hf_generate import choose, generate  # noqa: E402
from tests.tiny_models import MASKED, SENTENCE, make_model  # noqa: E402


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def decoder(request, tmp_path_factory):
    path = make_model(tmp_path_factory.mktemp(request.param), request.param, layers=3)
    oracle = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    return path, load_model(path), oracle, tok


def test_greedy_is_transformers_generate(decoder):
    _path, loaded, oracle, tok = decoder
    enc = tok(SENTENCE, return_tensors="pt")
    with torch.no_grad():
        out = oracle.generate(**enc, max_new_tokens=6, do_sample=False, pad_token_id=0)
    want = out[0, enc["input_ids"].shape[1] :].tolist()
    got = generate(loaded, SENTENCE, count=6)
    assert list(got.ids) == want
    assert len(got.probs) == len(want) and all(0 < p <= 1 for p in got.probs)
    # The sentence grew by those tokens, and reads back as them.
    ids = loaded.tokenize(got.text)[0]
    assert ids[-len(want) :] == want and len(ids) == enc["input_ids"].shape[1] + len(want)


def _replayed(oracle, tok, seed, count, temperature, top_k, top_p):
    """transformers' logits of each prefix through its warpers (TemperatureLogitsWarper,
    TopK, TopP), then numpy's Generator seeded alike choosing from those probabilities."""
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    rng = np.random.default_rng(seed)
    ids = tok(SENTENCE, return_tensors="pt")["input_ids"]
    chosen, probs = [], []
    for _ in range(count):
        with torch.no_grad():
            scores = oracle(input_ids=ids).logits[:, -1].double()
        scores = TemperatureLogitsWarper(temperature)(ids, scores)
        if top_k:
            scores = TopKLogitsWarper(top_k)(ids, scores)
        if top_p < 1:
            scores = TopPLogitsWarper(top_p)(ids, scores)
        p = torch.softmax(scores, dim=-1)[0].numpy()
        new = int(rng.choice(p.size, p=p / p.sum()))
        chosen.append(new)
        probs.append(p[new])
        ids = torch.cat([ids, torch.tensor([[new]])], dim=1)
    return chosen, probs


@pytest.mark.parametrize(
    ("seed", "temperature", "top_k", "top_p"),
    [(0, 1.0, 0, 1.0), (7, 1.5, 5, 1.0), (3, 2.0, 0, 0.9)],
)
def test_sampled_tokens_are_the_seeds_over_transformers_probabilities(
    decoder, seed, temperature, top_k, top_p
):
    _path, loaded, oracle, tok = decoder
    got = generate(
        loaded, SENTENCE, count=8, seed=seed, temperature=temperature, top_k=top_k, top_p=top_p
    )
    want, probs = _replayed(oracle, tok, seed, len(got.ids), temperature, top_k, top_p)
    assert list(got.ids) == want
    np.testing.assert_allclose(got.probs, probs, atol=1e-5)
    again = generate(
        loaded, SENTENCE, count=8, seed=seed, temperature=temperature, top_k=top_k, top_p=top_p
    )
    assert again == got  # the seed alone decides


def test_a_high_temperature_sample_differs_from_greedy(decoder):
    _path, loaded, _oracle, _tok = decoder
    greedy = generate(loaded, SENTENCE, count=8)
    runs = {generate(loaded, SENTENCE, count=8, seed=s, temperature=5.0).ids for s in range(4)}
    assert len(runs) > 1 and any(r != greedy.ids for r in runs)


def test_generation_with_a_head_ablated_follows_the_intervened_run(decoder):
    path, loaded, _oracle, tok = decoder
    from attnviz.core.hf_predict import predict

    got = generate(loaded, SENTENCE, count=3, ablate=[(0, 1), (2, 3)])
    text = SENTENCE
    for new in got.ids:
        pred = predict(loaded, text, ablate=[(0, 1), (2, 3)])
        assert new == int(np.argmax(pred.logits))
        text = text + " " + tok.convert_ids_to_tokens(new)


def test_stop_returns_the_tokens_made_so_far(decoder, monkeypatch):
    import attnviz.core.hf_generate as module

    _path, loaded, _oracle, _tok = decoder
    monkeypatch.setattr(module, "_eos", lambda _loaded: set())  # GPT-2's ends at once
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 2

    seen = []
    got = generate(loaded, SENTENCE, count=10, stop=stop, progress=seen.append)
    assert got.stopped and len(got.ids) == 2 and seen == [0.1, 0.2]
    assert got.ids == generate(loaded, SENTENCE, count=2).ids


def test_the_end_of_sequence_ends_it(decoder, monkeypatch):
    _path, loaded, _oracle, _tok = decoder
    first = generate(loaded, SENTENCE, count=1).ids[0]
    import attnviz.core.hf_generate as module

    monkeypatch.setattr(module, "_eos", lambda _loaded: {first})
    got = generate(loaded, SENTENCE, count=5)
    assert got.ids == (first,) and got.ended and not got.stopped


def test_choose_greedy_takes_the_first_of_equals():
    assert choose(np.array([0.2, 0.4, 0.4])) == 1
    rng = np.random.default_rng(5)
    p = np.array([0.1, 0.2, 0.7])
    assert choose(p, np.random.default_rng(5)) == int(rng.choice(3, p=p))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(count=0), "count must be in"),
        (dict(count=1.5), "count must be an integer"),
        (dict(seed=-1), "seed must be an integer"),
        (dict(temperature=0.0), "temperature"),
    ],
)
def test_bad_settings_are_refused_in_one_line(decoder, kwargs, match):
    _path, loaded, _oracle, _tok = decoder
    with pytest.raises(ValueError, match=match) as err:
        generate(loaded, SENTENCE, **kwargs)
    assert "\n" not in str(err.value)


def test_an_encoder_does_not_generate(tmp_path):
    loaded = load_model(make_model(tmp_path, "bert"))
    with pytest.raises(ModelError, match="it does not generate"):
        generate(loaded, MASKED)
