"""The shipped builtin:induction model, measured with transformers itself.

Fresh random repeats (a seed the training never drew from) of 16, 20 and 24 words: layer 0
has a previous-token head, layer 1 an induction head, the model copies the repeat; zeroing
either head's slice of W^O's input (a forward pre-hook on o_proj, the oracle of
tests/core/test_hf_predict.py) breaks the copy; attnviz's capture of the induction head is
transformers' eager weights; and the shipped folder is what ``train(seed=0)`` makes on this
machine (slow: a full run).
"""

from __future__ import annotations

import csv
import json
import platform
from pathlib import Path

import numpy as np
import pytest

from attnviz.core import induction
from attnviz.core.builtin_models import builtin_folder, resolve_model_path
from attnviz.core.head_types import induction_score, previous_token_score
from attnviz.core.hf_capture import ModelError, load_model
from attnviz.core.hf_predict import predict

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

LENGTHS = (16, 20, 24)
FOLDER = builtin_folder("induction")


@pytest.fixture(scope="module")
def model():
    return transformers.LlamaForCausalLM.from_pretrained(
        FOLDER, attn_implementation="eager", dtype=torch.float32
    ).eval()


@pytest.fixture(scope="module")
def repeats():
    rng = np.random.default_rng(20260)
    return {n: induction.repeat_batch(rng, 32, n) for n in LENGTHS}


def run(model, ids, ablate=None):
    """Logits and attention of ``ids``; ``ablate`` (layer, head): that head's slice of
    o_proj's input set to 0 at every position."""
    hooks = []
    if ablate is not None:
        layer, head = ablate
        d = model.config.head_dim

        def zero(_module, args):
            x = args[0].clone()
            x[..., head * d : (head + 1) * d] = 0
            return (x,)

        o_proj = model.model.layers[layer].self_attn.o_proj
        hooks.append(o_proj.register_forward_pre_hook(zero))
    try:
        with torch.no_grad():
            out = model(torch.as_tensor(ids), output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    return out.logits.numpy(), np.stack([a.numpy() for a in out.attentions])


def scores(model, ids, n):
    _, w = run(model, ids)  # (layers, batch, heads, n, n)
    tokens = ids[0].tolist()  # every row repeats at the same places (distinct words)
    return previous_token_score(w).mean(axis=1), induction_score(w, tokens).mean(axis=1)


@pytest.fixture(scope="module")
def circuit(model, repeats):
    """The previous-token head of layer 0 and the induction head of layer 1 (best scores
    over the three lengths)."""
    prev = np.mean([scores(model, ids, n)[0] for n, ids in repeats.items()], axis=0)
    ind = np.mean([scores(model, ids, n)[1] for n, ids in repeats.items()], axis=0)
    return (0, int(prev[0].argmax())), (1, int(ind[1].argmax()))


@pytest.mark.parametrize("n", LENGTHS)
def test_layer_0_has_a_previous_token_head_and_layer_1_an_induction_head(model, repeats, n):
    prev, ind = scores(model, repeats[n], n)
    assert prev[0].max() >= 0.4
    assert ind[1].max() >= 0.4
    # And not the other way round: layer 0 cannot copy (it sees no earlier layer's shift).
    assert ind[0].max() < 0.2


@pytest.mark.parametrize("n", LENGTHS)
def test_the_model_copies_the_repeat(model, repeats, n):
    logits, _ = run(model, repeats[n])
    assert induction.copy_accuracy(logits, repeats[n], n) >= 0.9


@pytest.mark.parametrize("n", LENGTHS)
def test_zeroing_either_head_of_the_circuit_breaks_the_copy(model, repeats, circuit, n):
    previous_head, induction_head = circuit
    ids = repeats[n]
    for head in (induction_head, previous_head):
        logits, _ = run(model, ids, ablate=head)
        assert induction.copy_accuracy(logits, ids, n) <= 0.5, head


def test_attnviz_ablation_is_the_hooks(model, repeats, circuit):
    """attnviz's own ablation (hf_predict, inside the model's forward) predicts what the
    hooked transformers model does, at every copyable position of one sentence."""
    _, induction_head = circuit
    ids = repeats[16][:1]
    logits, _ = run(model, ids, ablate=induction_head)
    loaded = load_model("builtin:induction")
    words = [induction.WORDS[i - len(induction.SPECIALS)] for i in ids[0, 1:]]
    text = " ".join(words)
    for p in range(17, 32):
        got = predict(loaded, text, position=p, ablate=[induction_head])
        np.testing.assert_allclose(got.logits, logits[0, p], atol=1e-4)


def test_attnviz_capture_of_the_induction_head_is_transformers_weights(model, repeats, circuit):
    _, (layer, head) = circuit
    loaded = load_model("builtin:induction")
    ids = repeats[20][:1]
    text = " ".join(induction.WORDS[i - len(induction.SPECIALS)] for i in ids[0, 1:])
    cap = loaded.capture(text)
    _, w = run(model, ids)
    got = np.asarray(cap.layer(layer).weights)[head]
    np.testing.assert_allclose(got, w[layer, 0, head], atol=1e-6)
    assert induction_score(got, ids[0].tolist()) >= 0.4


def test_the_shipped_curves_show_the_phase_change():
    with open(f"{FOLDER}/training.csv", encoding="utf-8") as f:
        rows = [dict(zip(induction.CSV_COLUMNS, map(float, r), strict=True))
                for r in list(csv.reader(f))[1:]]  # fmt: skip
    change = induction.phase_change_step(
        [induction.Curve(int(r["step"]), *list(r.values())[1:]) for r in rows]
    )
    assert change is not None and 200 <= change <= 900
    before = [r["loss"] for r in rows if r["step"] < change - 100]
    after = rows[-1]
    assert min(before) > 4.0  # the plateau near chance (ln 103 ≈ 4.63) …
    assert after["loss"] < 3.0  # … then the fall: the second half is copied
    assert after["induction"] > 0.5 and after["copy_accuracy"] > 0.9


def test_unknown_builtin_names_are_refused_in_one_line():
    with pytest.raises(ModelError, match=r"^builtin:nope: no such shipped model \(shipped: "):
        resolve_model_path("builtin:nope")
    with pytest.raises(ModelError, match="no such shipped model"):
        load_model("builtin:")
    assert resolve_model_path("some/folder") == "some/folder"


@pytest.mark.slow
def test_the_shipped_model_is_what_seed_0_trains_on_this_machine():
    """The first 200 of its 1,000 steps (a full run is 45 s of one CPU thread, too long for
    every suite): the curves' rows through step 200 are the shipped training.csv's, so the
    same seed draws the same sequences into the same initial weights under the same
    optimiser; two runs of one seed give the same weights (test_induction.py), and the whole
    run was checked by hand (attnviz train induction --seed 0 writes the shipped csv). Another
    torch or CPU may round differently, as TRAINED_WITH.json says: then nothing to compare."""
    note = json.loads(Path(FOLDER, "TRAINED_WITH.json").read_text(encoding="utf-8"))
    if (note["torch"], note["machine"]) != (torch.__version__, platform.machine()):
        pytest.skip(f"shipped by torch {note['torch']} on {note['machine']}")
    steps = 200
    result = induction.train(seed=0, steps=steps)
    with open(f"{FOLDER}/training.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    done = [c.row() for c in result.curves]
    assert len(done) >= 8 and done == rows[: len(done)]
    assert int(done[-1][0]) == steps
