"""``attnviz generate`` and :func:`attnviz.generate` against the core's generation and
transformers' own greedy ``generate``, on a tiny random Llama; their refusals in one line."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest

from attnviz.cli import main as cli_main

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import MASKED, SENTENCE, make_model  # noqa: E402

PROMPT = "the cat sat on the"


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> str:
    return make_model(tmp_path_factory.mktemp("llama"), "llama")


def _transformers_greedy(path: str, text: str, count: int) -> list[int]:
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    enc = tok(text, return_tensors="pt")
    out = model.generate(**enc, max_new_tokens=count, do_sample=False, eos_token_id=None,
                         pad_token_id=0)  # fmt: skip
    return out[0, enc["input_ids"].shape[1] :].tolist()


def test_the_cli_generates_what_transformers_does_greedily(llama, capsys, monkeypatch):
    from attnviz.core import hf_generate

    # transformers is told of no end of sequence either: four tokens each.
    monkeypatch.setattr(hf_generate, "_eos", lambda _loaded: set())
    assert cli_main(["generate", "--model", llama, "--text", SENTENCE, "--count", "4",
                     "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    want = _transformers_greedy(llama, SENTENCE, 4)
    assert out["ids"] == want and len(want) == 4
    assert out["prompt"] == SENTENCE and out["text"].startswith(SENTENCE + " ")
    assert out["seed"] is None and out["count"] == 4 and len(out["probs"]) == len(out["ids"])
    assert all(0 < p <= 1 for p in out["probs"])


def test_the_cli_samples_with_the_topics_settings_and_interventions(llama, capsys):
    from attnviz.core.hf_generate import generate
    from attnviz.model.real_model import STORE

    argv = ["generate", "--model", llama, "--text", PROMPT, "--count", "3", "--seed", "7",
            "--set", "prediction.temperature=1.5", "--set", "prediction.top_k=5",
            "--set", "prediction.ablate=[[1, 2]]", "--set", "prediction.ablation=mean",
            "--json"]  # fmt: skip
    assert cli_main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    want = generate(STORE.model(llama), PROMPT, count=3, seed=7, temperature=1.5, top_k=5,
                    ablate=[[1, 2]], ablation="mean")  # fmt: skip
    assert tuple(out["ids"]) == want.ids and out["text"] == want.text
    # One row or a clean-and-intervened batch (a kept clean run): float32 rounding apart.
    assert out["probs"] == pytest.approx(list(want.probs), abs=1e-5)
    assert out["ablate"] == [[1, 2]] and out["ablation"] == "mean" and out["top_k"] == 5
    clean = generate(STORE.model(llama), PROMPT, count=3, seed=7, temperature=1.5, top_k=5)
    assert clean.probs != want.probs  # the head off moved the distribution
    # The text output: the sentence, then each token with its probability.
    assert cli_main(argv[:-1]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == want.text and lines[1].startswith(f"  {want.tokens[0]!r}  p = ")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--text", "x"], "the prediction needs a real model"),
        (["--count", "0"], "--count: must be a whole number from 1 to 256"),
        (["--count", "1e400"], "--count: expected a whole number"),
        (["--seed", "-2"], "--seed: must be a whole number from -1"),
        (["--set", "prediction.top_p=2"], "top_p must be between"),
        (["--set", "prediction.knockout=[[9, 0, 0, 0]]"], "layer 9 is outside 0…1"),
    ],
)
def test_the_cli_refuses_in_one_line(llama, capsys, argv, says):
    model = [] if argv[0] == "--text" else ["--model", llama]
    with pytest.raises(SystemExit) as exit_:
        cli_main(["generate", *model, *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err and err.startswith("attnviz generate: error:")


def test_an_encoder_is_refused_in_one_line(tmp_path, capsys):
    path = make_model(tmp_path, "bert")
    with pytest.raises(SystemExit):
        cli_main(["generate", "--model", path, "--text", MASKED])
    err = capsys.readouterr().err.strip()
    assert "it fills a [MASK], it does not generate" in err and "\n" not in err


def test_an_interrupt_keeps_the_tokens_made(llama, capsys, monkeypatch):
    from attnviz.core import hf_generate
    from attnviz.model import generation

    real = generation.generate_in
    # The tiny model's end of sequence is a token it likes: not this test's subject.
    monkeypatch.setattr(hf_generate, "_eos", lambda _loaded: set())

    def interrupted(workspace, **kwargs):
        made = []

        def progress(fraction):
            made.append(fraction)
            if len(made) == 2:  # Ctrl-C while the third token is on its way
                os.kill(os.getpid(), signal.SIGINT)

        return real(workspace, **{**kwargs, "progress": progress})

    monkeypatch.setattr(generation, "generate_in", interrupted)
    assert threading.current_thread() is threading.main_thread()
    assert cli_main(["generate", "--model", llama, "--text", PROMPT, "--count", "6"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "stopped after 2 of 6 tokens" and len(out) == 4


def test_the_notebook_generates_as_the_core_does(llama):
    import attnviz
    from attnviz.core.hf_generate import generate
    from attnviz.model.real_model import STORE

    got = attnviz.generate(llama, PROMPT, count=3, seed=11, set={"prediction.top_p": 0.9})
    want = generate(STORE.model(llama), PROMPT, count=3, seed=11, top_p=0.9)
    assert got == want
    greedy = attnviz.generate(model=llama, text=PROMPT, count=2)
    assert greedy.ids == generate(STORE.model(llama), PROMPT, count=2).ids


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"count": 0}, "count must be a whole number from 1 to 256, got 0"),
        ({"count": True}, "count must be a whole number"),
        ({"seed": 1.5}, "seed must be a whole number"),
        ({"seed": float("nan")}, "seed must be a whole number"),
        ({"set": {"prediction.temperature": 0}}, "temperature"),
        ({"model": None}, "the prediction needs a real model"),
    ],
)
def test_the_notebook_refuses_in_one_line(llama, kwargs, says):
    import attnviz

    args = {"model": llama, "text": PROMPT, **kwargs}
    with pytest.raises(attnviz.FigureError) as err:
        attnviz.generate(**args)
    assert says in str(err.value) and "\n" not in str(err.value)
