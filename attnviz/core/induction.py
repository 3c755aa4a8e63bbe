"""Training a 2-layer Llama-style decoder until induction heads form (torch, on the CPU).

The model (:func:`model_config`): hidden size 64, 2 heads per layer, a vocabulary of
about a hundred readable words (:data:`WORDS`). It learns from random word sequences
repeated twice (``[BOS] w1 … wL w1 … wL``): the first half cannot be predicted, the second
can by copying — what a previous-token head in layer 0 and an induction head in layer 1
do together (Olsson et al. 2022). The loss stays near chance for a few hundred steps, then
falls as the circuit forms (the "phase change").

Two traps, measured: with one fixed repeat length the model copies by position (its
induction score on other lengths is 0.06), so each batch draws its length from
:data:`REPEAT_LENGTHS`; with 4 heads several induction heads form and ablating one
changes little, so 2 heads keep the circuit visible.

Deterministic: the same seed gives the same weights on the same machine and torch (torch's
threads are pinned to 1 while training; 1 and 2 threads differ after 100 steps). The
batches come from numpy's ``Generator(seed)``. numpy, torch and transformers are imported
when training or saving, never at import.
"""

from __future__ import annotations

import csv
import json
import math
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from attnviz.core.head_types import induction_score, previous_token_score
from attnviz.core.work import as_cancel

#: Largest seed: as every seed of the app (a spin box holds a signed 32-bit number).
MAX_SEED = 2**31 - 1

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_STEPS",
    "MAX_STEPS",
    "REPEAT_LENGTHS",
    "WORDS",
    "Curve",
    "TrainingResult",
    "copy_accuracy",
    "estimate_seconds",
    "evaluate",
    "model_config",
    "out_problem",
    "phase_change_step",
    "repeat_batch",
    "save_folder",
    "train",
    "write_folder",
]

#: The vocabulary: short words a lecturer can read aloud (no word twice); a block of text
#: rather than a list literal, so that it reads as a page.
WORDS = tuple(
    """
    apple river stone cloud green house table light music paper bread water horse night
    chair dream glass heart money ocean piano queen radio smile tiger train voice whale
    yellow zebra bird candle door eagle field garden honey island jacket kite lemon mango
    needle orange pencil rabbit sugar tomato umbrella violin window basket circle forest
    guitar hammer igloo jungle kettle ladder mirror nest onion parrot quilt rocket salad
    tunnel valley wagon yogurt button camera desert engine feather ghost hill ink jar
    key lamp moon nut owl pear ring sun tree vase wolf box cup fox hat map pig sock
    bell coin drum egg fish
    """.split()  # noqa: SIM905
)
#: Token ids: [UNK] 0, [BOS] 1 (put in front of every sentence), then the words.
SPECIALS = ("[UNK]", "[BOS]")
VOCAB = len(SPECIALS) + len(WORDS)
#: Repeat lengths a batch draws from (both ends included): varied, so the model must copy
#: by content, not by position.
REPEAT_LENGTHS = (12, 32)
#: Sequences per training batch.
BATCH = 32
#: Steps of a default run, and the most a run may ask for.
DEFAULT_STEPS = 1000
MAX_STEPS = 100_000
#: Adam's learning rate (constant after a short warm-up).
LEARNING_RATE = 3e-3
WARMUP_STEPS = 50
#: The curves are measured every this many steps (and at the last one).
EVAL_EVERY = 25
#: Sequences of the fixed evaluation set, with their own seed offset (never trained on).
EVAL_SEQUENCES = 16
EVAL_SEED_OFFSET = 1_000_003
#: Seconds per step of one thread, for the estimate before a run (measured on the
#: reference machine; the run's first steps refine it).
SECONDS_PER_STEP = 0.035
#: The columns of ``training.csv``.
CSV_COLUMNS = ("step", "loss", "previous_token", "induction", "copy_accuracy")


def model_config() -> dict:
    """The LlamaConfig keyword arguments of the induction model."""
    return dict(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=32,
        max_position_embeddings=2 * REPEAT_LENGTHS[1] + 1,
        bos_token_id=1,
        eos_token_id=None,
        pad_token_id=None,
        tie_word_embeddings=False,
    )


def estimate_seconds(steps: int) -> float:
    """Seconds a run of ``steps`` takes on one thread of the reference machine."""
    evals = steps // EVAL_EVERY + 1
    return steps * SECONDS_PER_STEP + evals * 0.02 + 1.0


def repeat_batch(rng, count: int, length: int):
    """``count`` sequences ``[BOS] w1 … wL w1 … wL`` of ``length`` distinct random words
    (int64 ids, shape ``(count, 2·length + 1)``), drawn from numpy Generator ``rng``."""
    import numpy as np

    words = np.stack([rng.permutation(len(WORDS))[:length] + len(SPECIALS) for _ in range(count)])
    bos = np.ones((count, 1), dtype=np.int64)
    return np.concatenate([bos, words, words], axis=1).astype(np.int64)


def copy_accuracy(logits, ids, length: int) -> float:
    """The share of the repeat's copyable tokens (its 2nd … L-th words) that the model's
    top prediction gets right; the repeat's first word cannot be known, so it is left out.

    ``logits`` ``(count, n, vocab)``, ``ids`` ``(count, n)`` with ``n = 2·length + 1``.
    """
    import numpy as np

    logits, ids = np.asarray(logits), np.asarray(ids)
    # Position p predicts token p + 1; the repeat's words sit at length + 1 … 2·length.
    positions = np.arange(length + 1, 2 * length)
    guess = logits[:, positions].argmax(axis=-1)
    return float((guess == ids[:, positions + 1]).mean())


@dataclass
class Curve:
    """One row of ``training.csv``: the step, the training loss (mean since the row
    before), the best previous-token and induction scores over every head, copy accuracy."""

    step: int
    loss: float
    previous_token: float
    induction: float
    copy_accuracy: float

    def row(self) -> list[str]:
        """The row as ``training.csv`` writes it."""
        return [
            str(self.step),
            f"{self.loss:.6f}",
            f"{self.previous_token:.6f}",
            f"{self.induction:.6f}",
            f"{self.copy_accuracy:.6f}",
        ]


@dataclass
class TrainingResult:
    """A trained model (a ``LlamaForCausalLM``), its curves, seed and steps."""

    model: object
    curves: list[Curve] = field(default_factory=list)
    seed: int = 0
    steps: int = 0
    seconds: float = 0.0


def _eval_set(seed: int):
    """The fixed evaluation batches: a few sequences at each of three lengths."""
    import numpy as np

    rng = np.random.default_rng(seed + EVAL_SEED_OFFSET)
    low, high = REPEAT_LENGTHS
    lengths = (low, (low + high) // 2, high)
    return [(n, repeat_batch(rng, EVAL_SEQUENCES, n)) for n in lengths]


def evaluate(model, batches) -> tuple[float, float, float, list]:
    """Best previous-token score, best induction score (each the best head of the model,
    averaged over the sequences) and copy accuracy of ``model`` on ``batches`` (pairs of
    repeat length and ids); also the per-head scores, ``[(layer, previous, induction)]``.

    The attention weights are the model's own (``output_attentions`` of its eager
    attention).
    """
    import numpy as np
    import torch

    prev, ind, acc = [], [], []
    with torch.no_grad():
        for length, ids in batches:
            out = model(torch.as_tensor(ids), output_attentions=True)
            weights = np.stack([a.numpy() for a in out.attentions])  # (L, B, H, n, n)
            prev.append(previous_token_score(weights).mean(axis=1))
            ind.append(induction_score(weights, _positions_as_tokens(length)).mean(axis=1))
            acc.append(copy_accuracy(out.logits.numpy(), ids, length))
    prev_heads, ind_heads = np.mean(prev, axis=0), np.mean(ind, axis=0)
    heads = [(layer, prev_heads[layer], ind_heads[layer]) for layer in range(len(prev_heads))]
    return float(prev_heads.max()), float(ind_heads.max()), float(np.mean(acc)), heads


def _positions_as_tokens(length: int):
    """A stand-in token sequence with the repeat structure of every sequence of ``length``
    (their words are distinct, so they repeat exactly where this does)."""
    import numpy as np

    words = np.arange(length) + len(SPECIALS)
    return np.concatenate([[1], words, words])


def _set_lr(optimizer, step: int) -> None:
    lr = LEARNING_RATE * min(1.0, (step + 1) / WARMUP_STEPS)
    for group in optimizer.param_groups:
        group["lr"] = lr


def train(
    seed: int = 0,
    steps: int = DEFAULT_STEPS,
    progress: Callable[[Curve, float], None] | None = None,
    cancel=None,
) -> TrainingResult:
    """Train the induction model for ``steps`` steps from ``seed``.

    ``progress(curve, seconds)`` is called at each measured step (every
    :data:`EVAL_EVERY` and the last); ``cancel()`` returning True (or raising
    :class:`~attnviz.core.work.Cancelled`) stops the run with ``Cancelled``. torch's threads
    are pinned to 1 during the run and restored after.
    """
    import time

    import numpy as np
    import torch
    import transformers

    from attnviz.core.work import Cancelled

    if not (isinstance(steps, int) and 1 <= steps <= MAX_STEPS):
        raise ValueError(f"steps must be a whole number from 1 to {MAX_STEPS:,}, got {steps!r}")
    if not (isinstance(seed, int) and 0 <= seed <= MAX_SEED):
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED:,}, got {seed!r}")
    should_stop = as_cancel(cancel) or (lambda: False)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    start = time.perf_counter()
    try:
        torch.manual_seed(seed)
        config = transformers.LlamaConfig(**model_config())
        config._attn_implementation = "eager"
        model = transformers.LlamaForCausalLM(config)
        optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.0)
        rng = np.random.default_rng(seed)
        evals = _eval_set(seed)
        curves: list[Curve] = []
        losses: list[float] = []
        low, high = REPEAT_LENGTHS
        for step in range(1, steps + 1):
            if should_stop():
                raise Cancelled()
            length = int(rng.integers(low, high + 1))
            ids = torch.as_tensor(repeat_batch(rng, BATCH, length))
            model.train()
            logits = model(ids).logits[:, :-1]
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1)
            )
            _set_lr(optimizer, step - 1)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(float(loss.detach()))
            if step % EVAL_EVERY == 0 or step == steps:
                model.eval()
                prev, ind, acc, _ = evaluate(model, evals)
                curve = Curve(step, float(np.mean(losses)), prev, ind, acc)
                losses.clear()
                curves.append(curve)
                if progress is not None:
                    progress(curve, time.perf_counter() - start)
        model.eval()
        return TrainingResult(model, curves, seed, steps, time.perf_counter() - start)
    finally:
        torch.set_num_threads(threads)


def save_tokenizer(folder: str | os.PathLike) -> None:
    """A word-level tokenizer of :data:`WORDS`, putting [BOS] in front of every sentence."""
    import transformers
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {name: i for i, name in enumerate(SPECIALS)}
    vocab |= {w: i + len(SPECIALS) for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(
        single="[BOS] $A", special_tokens=[("[BOS]", 1)]
    )
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", bos_token="[BOS]"
    )
    fast.save_pretrained(str(folder))


def save_folder(result: TrainingResult, folder: str | os.PathLike) -> None:
    """Write the trained model as a Hugging Face folder (``LlamaForCausalLM``, safetensors,
    the word tokenizer), its ``training.csv`` and ``TRAINED_WITH.json`` (which torch,
    transformers, Python and machine made it, the seed and steps)."""
    import torch
    import transformers

    folder = Path(folder)
    transformers.utils.logging.disable_progress_bar()  # no shard bar on the terminal
    result.model.save_pretrained(str(folder), safe_serialization=True)
    save_tokenizer(folder)
    with open(folder / "training.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(c.row() for c in result.curves)
    note = {
        "seed": result.seed,
        "steps": result.steps,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "threads": 1,
        "note": "The same seed gives the same weights with the same torch on the same kind of "
        "machine; another torch or CPU may round differently.",
    }
    (folder / "TRAINED_WITH.json").write_text(json.dumps(note, indent=2) + "\n", encoding="utf-8")
    for path in folder.iterdir():  # the weights are written 0600 (a temporary file renamed)
        os.chmod(path, 0o644)


def write_folder(result: TrainingResult, out: str | os.PathLike) -> Path:
    """Write :func:`save_folder` into a temporary folder beside ``out``, then rename it to
    ``out`` (which must not exist, or be an empty folder): an interrupted or failed write
    leaves no half folder. Returns the folder written."""
    import shutil
    import tempfile

    out = Path(out)
    temp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    try:
        save_folder(result, temp)
        os.chmod(temp, 0o755)  # mkdtemp's 0700 would hide the model from other users
        os.replace(temp, out)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return out


def out_problem(out: str | os.PathLike) -> str | None:
    """Why ``out`` cannot become the new model folder (asked before training, so a
    refusal comes before the minute of training, not after it), or None."""
    import tempfile

    out = Path(out)
    folder = out.parent if str(out.parent) else Path(".")
    try:
        if not folder.is_dir():
            return f"the folder {folder} does not exist"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"no permission to write in {folder}"
        if out.is_symlink() or (out.exists() and not out.is_dir()):
            return "it exists and is not a folder"
        if out.is_dir() and any(out.iterdir()):
            return "the folder exists and is not empty (choose a new one)"
        # A folder made and removed now: a read-only file system (where root's access()
        # still says yes) is refused before the minute of training, not after it.
        os.rmdir(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".probe", dir=folder))
    except OSError as exc:  # a name over NAME_MAX, a link loop, an unreadable folder
        return exc.strerror or type(exc).__name__
    return None


#: Most rows ``training.csv`` may hold (a run measured every step of a million).
MAX_CURVE_ROWS = 1_000_000


def parse_curves(text: str) -> list[Curve]:
    """The rows of a ``training.csv`` (:data:`CSV_COLUMNS` as its header, steps rising,
    every value finite, the scores in [0, 1]); a ``ValueError`` saying the first thing
    wrong, in one line, otherwise."""
    try:
        return _parse_curves(csv.reader(text.splitlines()))
    except csv.Error as exc:  # a field over the csv module's limit
        raise ValueError(f"it is not a CSV table: {exc}") from None


def _parse_curves(rows) -> list[Curve]:
    header = next(rows, None)
    if header is None or tuple(h.strip() for h in header) != CSV_COLUMNS:
        raise ValueError(f"its header is not {','.join(CSV_COLUMNS)}")
    curves: list[Curve] = []
    for line, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(curves) >= MAX_CURVE_ROWS:
            raise ValueError(f"more than {MAX_CURVE_ROWS:,} rows")
        if len(row) != len(CSV_COLUMNS):
            raise ValueError(f"line {line} has {len(row)} values, not {len(CSV_COLUMNS)}")
        try:
            step, *values = int(row[0]), *(float(v) for v in row[1:])
        except ValueError:
            raise ValueError(f"line {line} holds something that is not a number") from None
        if not all(math.isfinite(v) for v in values) or values[0] < 0:
            raise ValueError(f"line {line} holds a value that is not a finite loss or score")
        if not all(0.0 <= v <= 1.0 for v in values[1:]):
            raise ValueError(f"line {line} holds a score outside [0, 1]")
        if step < 0 or (curves and step <= curves[-1].step):
            raise ValueError(f"line {line}: the steps do not rise")
        curves.append(Curve(step, *values))
    if not curves:
        raise ValueError("it holds no row")
    return curves


def phase_change_step(curves: list[Curve], threshold: float = 0.5) -> int | None:
    """The first measured step whose induction score passes ``threshold`` (None if none):
    where the loss leaves its plateau."""
    return next((c.step for c in curves if c.induction > threshold), None)


def chance_loss() -> float:
    """The loss of a uniform guess over the words (what the curve starts near)."""
    return math.log(len(WORDS))
