"""The induction training (short runs, seconds): the data, the loss falling from chance,
determinism, a cancel, and the folder transformers opens (no half folder on a failure)."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from attnviz.core import induction
from attnviz.core.work import Cancelled

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def test_the_data_is_distinct_words_repeated_twice_from_the_seed():
    a = induction.repeat_batch(np.random.default_rng(3), 5, 12)
    b = induction.repeat_batch(np.random.default_rng(3), 5, 12)
    assert a.shape == (5, 25) and a.dtype == np.int64
    assert np.array_equal(a, b)
    assert (a[:, 0] == 1).all()  # [BOS]
    assert np.array_equal(a[:, 1:13], a[:, 13:])
    for row in a:
        assert len(set(row[1:13].tolist())) == 12
    assert a[:, 1:].min() >= len(induction.SPECIALS) and a.max() < induction.VOCAB
    c = induction.repeat_batch(np.random.default_rng(4), 5, 12)
    assert not np.array_equal(a, c)


def test_copy_accuracy_counts_the_repeats_predictable_words():
    length = 4
    ids = induction.repeat_batch(np.random.default_rng(0), 2, length)
    n = 2 * length + 1
    logits = np.zeros((2, n, induction.VOCAB))
    # Right at every position p → ids[p + 1] …
    for p in range(n - 1):
        logits[np.arange(2), p, ids[:, p + 1]] = 1.0
    assert induction.copy_accuracy(logits, ids, length) == 1.0
    # … and wrong at one of the 2 × 3 copyable predictions (positions 5, 6, 7).
    logits[0, 6] = 0.0
    logits[0, 6, 0] = 1.0
    assert induction.copy_accuracy(logits, ids, length) == pytest.approx(5 / 6)
    # The repeat's first word (position 4 predicts it) is not counted.
    logits[:, 4] = 0.0
    assert induction.copy_accuracy(logits, ids, length) == pytest.approx(5 / 6)


@pytest.fixture(scope="module")
def short_run():
    seen = []
    result = induction.train(
        seed=0, steps=150, progress=lambda curve, seconds: seen.append((curve, seconds))
    )
    return result, seen


def test_a_short_run_starts_near_chance_and_its_loss_falls(short_run):
    result, seen = short_run
    curves = result.curves
    assert [c.step for c in curves] == [25, 50, 75, 100, 125, 150]
    assert [c for c, _ in seen] == curves
    # A uniform guess over 105 ids costs ln 105 ≈ 4.65 nats: where the first 25 steps sit.
    assert curves[0].loss == pytest.approx(math.log(induction.VOCAB), abs=0.1)
    assert curves[-1].loss < curves[0].loss - 0.04
    for c in curves:
        assert 0 <= c.previous_token <= 1 and 0 <= c.induction <= 1
        assert 0 <= c.copy_accuracy <= 1


def test_the_curves_are_the_models_own_measures(short_run):
    """evaluate() again on the final model gives the last row's scores."""
    result, _ = short_run
    prev, ind, acc, heads = induction.evaluate(result.model, induction._eval_set(result.seed))
    last = result.curves[-1]
    assert (prev, ind, acc) == pytest.approx(
        (last.previous_token, last.induction, last.copy_accuracy)
    )
    assert len(heads) == 2 and heads[0][1].shape == (2,)


def weights(model) -> dict:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def test_two_runs_give_the_same_weights_and_threads_are_restored():
    torch.set_num_threads(2)
    try:
        a = induction.train(seed=5, steps=40)
        assert torch.get_num_threads() == 2
        b = induction.train(seed=5, steps=40)
        c = induction.train(seed=6, steps=40)
    finally:
        torch.set_num_threads(2)
    wa, wb, wc = weights(a.model), weights(b.model), weights(c.model)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert [x.row() for x in a.curves] == [x.row() for x in b.curves]
    assert any(not torch.equal(wa[k], wc[k]) for k in wa)


def test_a_cancel_stops_the_run_and_restores_threads():
    threads = torch.get_num_threads()
    calls = []
    with pytest.raises(Cancelled):
        induction.train(
            seed=0,
            steps=1000,
            progress=lambda c, s: calls.append(c.step),
            cancel=lambda: bool(calls),
        )
    assert calls == [25]
    assert torch.get_num_threads() == threads


@pytest.mark.parametrize("steps", [0, -1, 10**9, 2.5, "100"])
def test_bad_steps_are_refused(steps):
    with pytest.raises(ValueError, match="steps must be a whole number"):
        induction.train(steps=steps)


def test_the_folder_opens_in_transformers_with_the_same_logits(short_run, tmp_path):
    result, _ = short_run
    out = induction.write_folder(result, tmp_path / "model")
    names = sorted(p.name for p in out.iterdir())
    assert "model.safetensors" in names and "tokenizer.json" in names
    assert [p.name for p in tmp_path.iterdir()] == ["model"]  # no temporary left
    loaded = transformers.AutoModelForCausalLM.from_pretrained(str(out)).eval()
    assert type(loaded).__name__ == "LlamaForCausalLM"
    tok = transformers.AutoTokenizer.from_pretrained(str(out))
    ids = tok("apple river stone apple river stone").input_ids
    assert tok.convert_ids_to_tokens(ids) == ["[BOS]"] + ["apple", "river", "stone"] * 2
    with torch.no_grad():
        x = torch.tensor([ids])
        assert torch.allclose(loaded(x).logits, result.model(x).logits, atol=1e-6)
    with open(out / "training.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == induction.CSV_COLUMNS
    assert [float(r[1]) for r in rows[1:]] == pytest.approx([c.loss for c in result.curves])
    note = json.loads((out / "TRAINED_WITH.json").read_text())
    assert note["torch"] == torch.__version__ and note["seed"] == 0 and note["steps"] == 150


def test_a_failed_write_leaves_no_half_folder(short_run, tmp_path, monkeypatch):
    result, _ = short_run

    def broken(folder):
        raise KeyboardInterrupt  # Ctrl-C while the tokenizer is written

    monkeypatch.setattr(induction, "save_tokenizer", broken)
    with pytest.raises(KeyboardInterrupt):
        induction.write_folder(result, tmp_path / "model")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_with_files_is_never_replaced(short_run, tmp_path):
    result, _ = short_run
    out = tmp_path / "model"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(OSError):
        induction.write_folder(result, out)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_the_phase_change_is_the_first_step_past_the_threshold():
    curves = [induction.Curve(s, 4.6, 0.1, i, 0.0) for s, i in [(25, 0.1), (50, 0.6), (75, 0.9)]]
    assert induction.phase_change_step(curves) == 50
    assert induction.phase_change_step(curves, 0.95) is None
