"""Generation: a loaded decoder's next tokens, greedy or sampled with a seed, appended to
its sentence.

Each step is one prediction at the last token (:func:`attnviz.core.hf_predict.predict`,
with the same interventions: heads ablated, links knocked out), its sampling distribution
(:func:`attnviz.core.sampling.probabilities`: temperature, then top-k, then top-p, as
transformers' warpers) and a choice:

- **greedy** (``seed`` None): the most likely token (the first among equals, as
  ``torch.argmax`` and transformers' greedy search take it);
- **sampled** (``seed`` an integer): ``numpy.random.default_rng(seed).choice(vocab,
  p=probabilities)``, one Generator for the whole run. The tokens are therefore a function
  of the seed and the probabilities alone: the same seed over the same logits gives the
  same tokens on every machine, which transformers' ``torch.multinomial`` does not
  promise; the tests replay our probabilities through transformers' own warpers.

Generation stops after ``count`` tokens, after the model's end-of-sequence token (kept, as
transformers' ``generate`` keeps it), or when ``stop`` is set between two tokens (the
tokens made so far are returned, ``stopped`` True). Each step runs the whole sentence
again (no key-value cache: attnviz proves every layer of the sentence it shows).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_lm_head import lm_head
from attnviz.core.sampling import probabilities
from attnviz.core.value_text import brief
from attnviz.core.work import as_cancel, as_progress

__all__ = ["MAX_COUNT", "Generated", "choose", "generate"]

#: The most tokens one call generates.
MAX_COUNT = 256


@dataclass(frozen=True)
class Generated:
    """What :func:`generate` made: the new tokens, the sentence with them appended, and
    the probability each had when it was chosen."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    text: str  # the sentence with the new tokens appended
    probs: tuple[float, ...]
    stopped: bool = False  # ``stop`` was set before ``count`` tokens
    ended: bool = False  # the last token is the model's end of sequence


def choose(probs: np.ndarray, rng: np.random.Generator | None = None) -> int:
    """A token id from the sampling distribution ``probs``: the most likely (the first
    among equals) without ``rng``, else ``rng.choice(len(probs), p=probs)``."""
    probs = np.asarray(probs, dtype=np.float64)
    if rng is None:
        return int(np.argmax(probs))
    return int(rng.choice(probs.size, p=probs / probs.sum()))


def _eos(loaded) -> set[int]:
    """The model's end-of-sequence ids (its generation config's, else its config's)."""
    found: set[int] = set()
    for owner in (getattr(loaded.model, "generation_config", None), loaded.model.config):
        value = getattr(owner, "eos_token_id", None)
        if value is None:
            continue
        found |= {int(v) for v in (value if isinstance(value, (list, tuple)) else [value])}
        break
    return found


def _appended(tokenizer, ids: list[int], new: int) -> str:
    """The text ``new`` adds after ``ids`` as the tokenizer decodes them (the difference
    of the two decodings; a space and the token alone where they do not share a prefix)."""
    before = tokenizer.decode(ids, skip_special_tokens=False)
    after = tokenizer.decode([*ids, new], skip_special_tokens=False)
    if after.startswith(before):
        return after[len(before) :]
    return " " + tokenizer.decode([new], skip_special_tokens=False)


def generate(
    loaded,
    text: str,
    *,
    count: int = 1,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int | None = None,
    ablate: Sequence = (),
    ablation: str = "zero",
    knockout: Sequence = (),
    stop=None,
    progress: Callable[[float], None] | None = None,
) -> Generated:
    """``count`` tokens after ``text`` (see the module docstring), chosen from the
    intervened run's sampling distribution at the last token; greedy without ``seed``."""
    from attnviz.core.hf_predict import predict, token_text

    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise ModelError(f"count must be an integer in 1…{MAX_COUNT}, got {brief(count)}")
    if not 1 <= count <= MAX_COUNT:
        raise ModelError(f"count must be in 1…{MAX_COUNT}, got {count}")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0
    ):
        raise ModelError(f"seed must be an integer ≥ 0 (None: greedy), got {brief(seed)}")
    stopped = as_cancel(stop)
    report = as_progress(progress)
    loaded.check_files()
    if lm_head(loaded).masked:
        raise ModelError(
            f"{loaded.info.name} is an encoder: it fills a [MASK], it does not generate"
        )
    rng = None if seed is None else np.random.default_rng(int(seed))
    eos = _eos(loaded)
    tokenizer = loaded.tokenizer
    ids: list[int] = []
    probs: list[float] = []
    sentence = text
    context = list(loaded.tokenize(text)[0])
    halted = ended = False
    for step in range(int(count)):
        if stopped is not None and stopped():
            halted = True
            break
        pred = predict(loaded, sentence, ablate=ablate, ablation=ablation, knockout=knockout)
        p = probabilities(pred.logits, temperature, top_k, top_p)
        new = choose(p, rng)
        sentence += _appended(tokenizer, context, new)
        # The sentence is what is shown and proven: where its tokens are not the ones
        # chosen (a merge across the seam), the next step reads its own.
        context = list(loaded.tokenize(sentence)[0])
        ids.append(new)
        probs.append(float(p[new]))
        if report is not None:
            report((step + 1) / count)
        if new in eos:
            ended = True
            break
    tokens = tuple(token_text(loaded, i) for i in ids)
    return Generated(tuple(ids), tokens, sentence, tuple(probs), halted, ended)
