"""Prediction figure: one prediction and the ablation map against plain transformers.

``prediction`` builds, in a child process (:func:`~attnviz.benchmarks.run_isolated`) and
without any download, a random Llama decoder that is small but not trivial (4 layers,
8 query heads over 4 key-value heads, width 256, a vocabulary of 4096 words, a sentence of
128 tokens; ``quick``: 64), saves it with a word-level tokenizer in a temporary folder
and opens it as attnviz opens any model. It then times, alternately, best of ``repeats``:

- ``predict_seconds``: :func:`attnviz.core.hf_predict.predict` with one head ablated on a
  sentence already predicted (the panel's case: a head switched off or on again; the
  sentence's clean run is kept, so the intervened row alone runs through attnviz's
  capture attention), against ``forward_seconds``: the plain ``AutoModelForCausalLM``
  forward of the same sentence (transformers' default attention, one row, under
  ``torch.no_grad()``); ``predict_ratio`` (target, issue 40: ≤ 1.2);
  ``first_predict_seconds``: the same prediction on a sentence not predicted before (the
  kept runs forgotten: the clean run, then the intervened row, each alone so that their
  numbers never depend on what ran before), ``first_predict_ratio`` over the plain forward
  and ``batch_ratio`` over ``batch_seconds``, the plain forward of the same two rows in one
  batch (what one batch of both would cost without the capture's eager attention and
  hooks); ``clean_predict_ratio`` is a first prediction with nothing switched off (one
  row) over the plain forward;
- ``map_seconds``: :func:`attnviz.core.hf_predict.ablation_map` against
  ``naive_map_seconds``: the layers × heads plain forwards of the same model, each with
  that head's slice of W^O's input zeroed by a pre-hook (what the map replaces);
  ``map_ratio`` (the issue expects about half).

Both maps must agree (``map_max_error``, in log p) and the clean logits with transformers'
(``logits_max_error``), or the figure fails.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time

from attnviz.benchmarks import run_isolated, skipped
from attnviz.benchmarks.core import TORCH_HINT

ORDER = 75  # after model_capture
SHAPE = dict(layers=4, heads=8, kv_heads=4, width=256, vocab=4096)


def _save_decoder(folder: str, layers: int, heads: int, kv_heads: int, width: int, vocab: int):
    """A random Llama decoder and a word-level tokenizer (``w0`` … ``w{vocab-4}``, [BOS]
    in front) saved in ``folder``."""
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=vocab, hidden_size=width, intermediate_size=4 * width,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
        head_dim=width // heads, max_position_embeddings=1024, bos_token_id=1,
        tie_word_embeddings=False,
    )  # fmt: skip
    model = transformers.LlamaForCausalLM(config)
    with torch.no_grad():  # small random weights would give near-uniform predictions
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 2.0 / width**0.5)
    model.save_pretrained(folder, safe_serialization=True)
    words = {"[UNK]": 0, "[BOS]": 1, "[MASK]": 2} | {f"w{i}": i + 3 for i in range(vocab - 3)}
    tok = Tokenizer(models.WordLevel(words, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", 1)]
    )
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", bos_token="[BOS]", mask_token="[MASK]"
    )
    fast.save_pretrained(folder)


def prediction_child(tokens: int, repeats: int) -> dict:
    """Time attnviz's prediction and ablation map against plain transformers (see the
    module docstring)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import numpy as np
    import torch
    import transformers

    from attnviz.core import hf_predict
    from attnviz.core.sampling import log_softmax
    from attnviz.model.real_model import ModelStore

    layers, heads, width = SHAPE["layers"], SHAPE["heads"], SHAPE["width"]
    with tempfile.TemporaryDirectory(prefix="attnviz-bench-") as folder:
        _save_decoder(folder, **SHAPE)
        loaded = ModelStore().model(folder)
        plain = transformers.AutoModelForCausalLM.from_pretrained(
            folder, local_files_only=True, dtype=torch.float32
        ).eval()
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
        rng = np.random.default_rng(0)
        text = " ".join(f"w{i}" for i in rng.integers(0, SHAPE["vocab"] - 3, tokens - 1))
        enc = tokenizer(text, return_tensors="pt")
        dim = width // heads

        batch = {name: value.repeat(2, 1) for name, value in enc.items()}

        def forward_batch():
            with torch.no_grad():
                return plain(**batch).logits[:, -1].double().numpy()

        def forward(ablate=None):
            hook = None
            if ablate is not None:
                layer, head = ablate

                def pre(_module, args):
                    x = args[0].clone()
                    x[..., head * dim : (head + 1) * dim] = 0.0
                    return (x, *args[1:])

                proj = plain.model.layers[layer].self_attn.o_proj
                hook = proj.register_forward_pre_hook(pre)
            try:
                with torch.no_grad():
                    return plain(**enc).logits[0, -1].double().numpy()
            finally:
                if hook is not None:
                    hook.remove()

        def naive_map():
            clean = log_softmax(forward())
            goal = int(np.argmax(clean))
            values = np.empty((layers, heads))
            for layer in range(layers):
                for head in range(heads):
                    values[layer, head] = log_softmax(forward((layer, head)))[goal] - clean[goal]
            return values

        def first(**kwargs):
            hf_predict.forget_clean_runs(loaded)
            return hf_predict.predict(loaded, text, **kwargs)

        runs = {
            "predict": lambda: hf_predict.predict(loaded, text, ablate=[(1, 2)]),
            "first_predict": lambda: first(ablate=[(1, 2)]),
            "clean_predict": first,
            "forward": forward,
            "batch": forward_batch,
            "map": lambda: hf_predict.ablation_map(loaded, text),
            "naive_map": naive_map,
        }
        for run in runs.values():  # one-off costs: threads, allocator, dispatch
            run()
        times: dict[str, list[float]] = {name: [] for name in runs}
        found: dict = {}
        for i in range(max(1, repeats)):
            for name in runs if i % 2 == 0 else reversed(list(runs)):
                t0 = time.perf_counter()
                found[name] = runs[name]()
                times[name].append(time.perf_counter() - t0)
        pred, amap = found["predict"], found["map"]
        kept_error = float(np.abs(pred.logits - found["first_predict"].logits).max())
        if kept_error > 1e-3:
            raise RuntimeError(f"a kept clean run changed the prediction by {kept_error:.2e}")
        if len(pred.ids) != tokens:
            raise RuntimeError(f"the sentence is {len(pred.ids)} tokens, not {tokens}")
        logits_error = float(np.abs(pred.clean - found["forward"]).max())
        map_error = float(np.abs(amap.values - found["naive_map"]).max())
        if logits_error > 1e-3 or map_error > 1e-3:
            raise RuntimeError(
                f"attnviz and transformers disagree: logits by {logits_error:.2e}, "
                f"the ablation map by {map_error:.2e}"
            )
        best = {name: min(t) for name, t in times.items()}
        return {
            "model": f"random Llama, {layers} layers × {heads} heads, width {width}",
            "tokens": tokens,
            "predict_seconds": round(best["predict"], 5),
            "forward_seconds": round(best["forward"], 5),
            "predict_ratio": round(best["predict"] / best["forward"], 3),
            "first_predict_seconds": round(best["first_predict"], 5),
            "first_predict_ratio": round(best["first_predict"] / best["forward"], 3),
            "clean_predict_seconds": round(best["clean_predict"], 5),
            "clean_predict_ratio": round(best["clean_predict"] / best["forward"], 3),
            "batch_seconds": round(best["batch"], 5),
            "batch_ratio": round(best["first_predict"] / best["batch"], 3),
            "map_seconds": round(best["map"], 4),
            "naive_map_seconds": round(best["naive_map"], 4),
            "map_ratio": round(best["map"] / best["naive_map"], 3),
            "map_in_forwards": round(best["map"] / best["forward"], 1),
            "logits_max_error": float(f"{logits_error:.2e}"),
            "map_max_error": float(f"{map_error:.2e}"),
            "repeats": max(1, repeats),
            "torch_threads": torch.get_num_threads(),
            "torch_version": torch.__version__,
            "transformers_version": transformers.__version__,
        }


def prediction(*, quick: bool = False, tokens: int | None = None, repeats: int | None = None):
    """``prediction``: one prediction with a head switched off (the sentence's clean run
    kept; and a first one, the clean run then the intervened row) against a plain
    transformers forward, and the ablation map against layers × heads plain
    forwards, on a random decoder built here (see the module docstring)."""
    for name in ("torch", "transformers", "tokenizers"):
        if importlib.util.find_spec(name) is None:
            return skipped(f"{name} not installed (torch: {TORCH_HINT})")
    tokens = tokens or (64 if quick else 128)
    repeats = repeats or (3 if quick else 7)
    result = run_isolated(__name__, "prediction_child", tokens=tokens, repeats=repeats)
    return {**result, "target": "predict_ratio ≤ 1.2; map_ratio about 0.5"}


FIGURES = {"prediction": prediction}
