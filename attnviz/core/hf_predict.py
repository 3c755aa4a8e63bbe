"""What a loaded model predicts, and how switching a head off or a link out moves it.

The prediction is the model's own: its logits, from its own language-model head
(:mod:`attnviz.core.hf_lm_head`). Interventions run inside its forward pass:

- **ablation** of (layer, head): the head's slice of the output projection's input
  (columns head·d … (head+1)·d − 1 of W^O's input) set to 0 at every position (``zero``),
  or to its mean over the sentence's positions in the clean run (``mean``), by a forward
  pre-hook on the layer's output projection;
- **knockout** (layer, head, query, key; head −1: every head of the layer): that score
  set to −inf before the softmax, so the row renormalises, by adding −inf to the additive
  mask the capture's attention function hands the model's own eager attention
  (:mod:`attnviz.core.hf_record`).

:func:`probabilities` (temperature, top-k, top-p; numpy only) comes from
:mod:`attnviz.core.sampling`. torch and transformers are imported only when a model is
used, as in :mod:`attnviz.core.hf_capture`. Every refusal is a one-line
:class:`~attnviz.core.hf_errors.ModelError` (a ValueError for :func:`probabilities`'
arguments).
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from attnviz.core.copying import copy_accuracy, copyable
from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_forward import _as_pairs, _forward
from attnviz.core.hf_lm_head import LmHead, lm_head, out_projection_widths
from attnviz.core.sampling import log_softmax, probabilities
from attnviz.core.value_text import brief
from attnviz.core.work import Cancelled, as_cancel, as_progress

__all__ = [
    "ABLATIONS",
    "AblationMap",
    "Lens",
    "Prediction",
    "ablation_map",
    "forget_clean_runs",
    "logit_lens",
    "predict",
    "probabilities",
    "target_id",
    "token_text",
]

#: How an ablated head's output is replaced: by zeros, or by its clean mean over positions.
ABLATIONS = ("zero", "mean")


# --- what the caller sees -------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    """One sentence's prediction at ``position``: the clean run's logits and, with the
    interventions applied, the intervened run's (equal to the clean ones without any)."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    position: int  # 0 … n − 1
    clean: np.ndarray  # (vocab,) float64 logits of the clean run
    logits: np.ndarray  # (vocab,) float64 logits with the interventions
    ablate: tuple[tuple[int, int], ...] = ()
    ablation: str = "zero"
    knockout: tuple[tuple[int, int, int, int], ...] = ()
    #: Seconds the forward pass took per row of its batch (the base of an estimate of
    #: what more passes cost: the ablation map's).
    row_seconds: float = 0.0
    #: Multiply-adds of one row of that pass (:func:`row_flops`).
    row_flops: float = 0.0

    def probabilities(
        self, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, clean: bool = False
    ) -> np.ndarray:
        """The sampling distribution (:func:`probabilities`) of the intervened run (or the
        clean one)."""
        return probabilities(self.clean if clean else self.logits, temperature, top_k, top_p)


@dataclass(frozen=True)
class AblationMap:
    """log p(target) with one head zero-ablated minus clean, (layers, heads) float64;
    NaN where a layer is not softmax attention (or has fewer heads)."""

    values: np.ndarray
    target: int
    target_token: str
    clean_logp: float
    position: int
    #: Copy accuracy on the sentence (:mod:`attnviz.core.copying`) with that one head
    #: zero-ablated, (layers, heads); NaN where the map is, or when nothing repeats.
    copying: np.ndarray | None = None
    copy_clean: float = float("nan")  # the same, nothing switched off
    copy_count: int = 0  # the sentence's copyable tokens


@dataclass(frozen=True)
class Lens:
    """The logit lens: each layer's residual at ``position`` through the final norm and
    the unembedding; per layer its ``top`` tokens (ids, probabilities) and the target's
    probability."""

    top_ids: np.ndarray  # (layers, top) int64
    top_probs: np.ndarray  # (layers, top) float64
    target_probs: np.ndarray  # (layers,) float64
    target: int
    target_token: str
    position: int


def _prepare(loaded, text: str, position):
    """(head, ids, tokens, position ≥ 0) of a sentence; the default position is the
    last token for a decoder and the [MASK] for a masked-LM encoder."""
    loaded.check_files()
    head = lm_head(loaded)
    ids, tokens, _special = loaded.tokenize(text)
    n = len(ids)
    if position is None:
        if head.masked:
            if head.mask_id is None or head.mask_id not in ids:
                mask = getattr(loaded.tokenizer, "mask_token", None) or "[MASK]"
                raise ModelError(
                    f"{loaded.info.name} predicts the masked token: put {mask} in the sentence"
                )
            position = ids.index(head.mask_id)
        else:
            position = -1
    if isinstance(position, bool) or not isinstance(position, numbers.Integral):
        raise ModelError(f"position must be an integer, got {brief(position)}")
    if not -n <= position < n:
        raise ModelError(f"position {position} is outside the sentence's {n} tokens")
    return head, ids, tokens, int(position) % n


def _clean(head: LmHead, ids: list[int], at: int, means: dict | None = None) -> np.ndarray:
    """The clean run's logits at ``at`` (vocab,) float64 (``means``: filled as
    :func:`_forward`'s ``keep_means``). The first run of a model learns each layer's heads
    and their width of W^O's input (:func:`_shapes`)."""
    run = _forward(head, ids, at, keep_means=means)
    if head.heads is None:
        head.heads, head.head_dims = _shapes(head, run.called)
    return run.logits[0].numpy().copy()


class _Kept(NamedTuple):
    """A sentence's clean run, kept: its logits at the position, each layer's W^O input
    averaged over the positions (None: not recorded), and the seconds it took."""

    clean: np.ndarray
    means: dict | None
    row_seconds: float


#: Clean runs kept per model (a sentence and a position each; a vocabulary of 150,000 is
#: 1.2 MB of logits): switching heads on the same sentence then runs only the intervened
#: row.
KEPT_RUNS = 8


def _kept(head: LmHead, ids: list[int], at: int) -> _Kept | None:
    runs = getattr(head, "_clean_runs", None)
    if runs is None:
        return None
    found = runs.get((tuple(ids), at))
    if found is not None:
        runs.move_to_end((tuple(ids), at))
    return found


def _keep(head: LmHead, ids: list[int], at: int, kept: _Kept) -> None:
    from collections import OrderedDict

    runs = getattr(head, "_clean_runs", None)
    if runs is None:
        runs = head._clean_runs = OrderedDict()
    runs[(tuple(ids), at)] = kept
    runs.move_to_end((tuple(ids), at))
    while len(runs) > KEPT_RUNS:
        runs.popitem(last=False)


def _shapes(head: LmHead, called: dict) -> tuple[dict, dict]:
    """layer → query heads and → each head's width of W^O's input, for the layers whose
    attention runs through attnviz's capture (all, for a family hooked outside it)."""
    heads = dict(called)
    if not heads and not _state_space(head.loaded):
        # BLOOM, Falcon: attention outside the interface; every layer softmax.
        layers, count, _kv, _dim = head.loaded._shape()
        heads = dict.fromkeys(range(layers), count)
    dims = {}
    for layer, count in heads.items():
        widths = {w for w in out_projection_widths(head, layer) if w % count == 0}
        dims[layer] = min(widths) // count if len(widths) == 1 else 0
    return heads, dims


def _state_space(loaded) -> bool:
    """True for a model whose every layer mixes its tokens without softmax attention (a
    Mamba-2 or Falcon-Mamba): it has no attention heads to switch off."""
    from attnviz.core.hf_layers import decoder_layers, mixer_kind

    cfg = loaded.config
    count = getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "num_layers", None) or 0
    blocks = decoder_layers(loaded.text_model, count)
    return bool(blocks) and all(mixer_kind(b) is not None for b in blocks)


def _check_interventions(head: LmHead, n: int, ablate, ablation, knockout):
    """The interventions as per-layer lists, or ModelError naming the first bad one."""
    if ablation not in ABLATIONS:
        raise ModelError(f"ablation must be one of {', '.join(ABLATIONS)}, got {brief(ablation)}")
    count = len(head.layers)
    per_layer: dict = {}
    for layer, which in _as_pairs(ablate, 2, "ablate"):
        _check_head(head, layer, which, count, allow_all=False)
        if head.head_dims.get(layer, 0) == 0:
            raise ModelError(
                f"{head.loaded.info.name}: layer {layer}'s attention output projection is not "
                "where attnviz looks"
            )
        per_layer.setdefault(layer, []).append((1, which, ablation))  # row 0 stays clean
    cuts: dict = {}
    for layer, which, q, k in _as_pairs(knockout, 4, "knockout"):
        _check_head(head, layer, which, count, allow_all=True)
        for name, v in (("query", q), ("key", k)):
            if not 0 <= v < n:
                raise ModelError(f"knockout {name} {v} is outside the sentence's {n} tokens")
        cuts.setdefault(layer, []).append((1, which, q, k))
    return per_layer, cuts


def _check_head(head: LmHead, layer: int, which: int, count: int, allow_all: bool) -> None:
    if not 0 <= layer < count:
        raise ModelError(f"layer {layer} is outside 0…{count - 1}")
    if layer not in head.heads:
        raise ModelError(f"layer {layer} is not softmax attention: it has no heads to switch off")
    heads = head.heads[layer]
    if not (0 <= which < heads or (allow_all and which == -1)):
        also = " (−1: all)" if allow_all else ""
        raise ModelError(f"head {which} of layer {layer} is outside 0…{heads - 1}{also}")


def predict(
    loaded,
    text: str,
    *,
    position: int | None = None,
    ablate: Sequence = (),
    ablation: str = "zero",
    knockout: Sequence = (),
) -> Prediction:
    """The model's logits for ``text`` at ``position`` (default: the last token, or the
    [MASK] of a masked-LM encoder), clean and with ``ablate`` ([layer, head] pairs,
    replaced as ``ablation`` says: ``"zero"`` or ``"mean"``) and ``knockout`` ([layer,
    head or −1, query, key]) applied inside its forward pass."""
    head, ids, tokens, at = _prepare(loaded, text, position)
    with loaded._lock:  # one forward pass at a time: the hooks record per thread
        start, rows = time.perf_counter(), 0
        kept = _kept(head, ids, at)
        if kept is None:
            means: dict = {}
            clean, rows = _clean(head, ids, at, means), 1  # the first run learns the heads
            kept = _Kept(clean, means or None, time.perf_counter() - start)
            _keep(head, ids, at, kept)
        per_layer, cuts = _check_interventions(head, len(ids), ablate, ablation, knockout)
        if per_layer and ablation == "mean" and kept.means is None:
            # The model's first run knew no W^O to average over: once more, keeping them.
            means, t0 = {}, time.perf_counter()
            _clean(head, ids, at, means)
            kept = kept._replace(means=means, row_seconds=time.perf_counter() - t0)
            _keep(head, ids, at, kept)
            rows += 1
        clean = logits = kept.clean.copy()
        if per_layer or cuts:
            # The intervened row alone, as the clean one ran: the same numbers whatever
            # ran before (a batch of two would round each row differently).
            logits = _forward(
                head, ids, at, ablate=_every_row(per_layer), knockout=_every_row(cuts),
                means=kept.means,
            ).logits[0].numpy().copy()  # fmt: skip
            rows += 1
        row_seconds = (time.perf_counter() - start) / rows if rows else kept.row_seconds
        flops = row_flops(head, len(ids))
    return Prediction(
        tuple(tokens),
        tuple(ids),
        at,
        clean,
        logits,
        tuple(tuple(p) for p in _as_pairs(ablate, 2, "ablate")),
        ablation,
        tuple(tuple(p) for p in _as_pairs(knockout, 4, "knockout")),
        row_seconds,
        flops,
    )


def forget_clean_runs(loaded) -> None:
    """Drop the clean runs kept for ``loaded`` (the next prediction of each sentence
    runs clean and intervened rows again): what a first prediction costs."""
    runs = getattr(lm_head(loaded), "_clean_runs", None)
    if runs is not None:
        runs.clear()


def _every_row(per_layer: dict) -> dict:
    """Interventions given for row 1 of a clean-and-intervened batch, for every row."""
    return {layer: [(None, *rest) for _row, *rest in items] for layer, items in per_layer.items()}


def row_flops(head: LmHead, n: int) -> float:
    """Multiply-adds of one row of a forward pass over ``n`` tokens: each weight of the
    layers once per token, the scores and their weighted sum (n² × width per layer), and
    the head at one position; the embedding is a lookup. A floor of what a pass costs
    (:func:`attnviz.core.cell_timing.flop_seconds` prices one)."""
    weights = getattr(head, "_layer_weights", None)
    if weights is None:
        weights = sum(p.numel() for layer in head.layers for p in layer.parameters())
        out = head.wrapper.get_output_embeddings()
        weights = (weights, 0 if out is None else out.weight.numel())
        head._layer_weights = weights
    widths = [h * head.head_dims.get(layer, 0) for layer, h in (head.heads or {}).items()]
    return float(weights[0] * n + 2 * n * n * sum(widths) + weights[1])


def _target(loaded, target, clean: np.ndarray) -> int:
    """A token id: ``target`` (an id, or a token of the vocabulary), or the clean top-1."""
    vocab = clean.shape[-1]
    if target is None or (isinstance(target, str) and not target):
        return int(np.argmax(clean))
    if isinstance(target, numbers.Integral) and not isinstance(target, bool):
        if not 0 <= target < vocab:
            raise ModelError(f"target id {target} is outside the vocabulary's {vocab} tokens")
        return int(target)
    if not isinstance(target, str):
        raise ModelError(f"target must be a token or a token id, got {brief(target)}")
    tok = loaded.tokenizer
    found = tok.convert_tokens_to_ids(target)
    if isinstance(found, int) and (found != tok.unk_token_id or target == tok.unk_token):
        return found
    ids = tok(target, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        raise ModelError(
            f"target {brief(target)} is {len(ids)} tokens for {loaded.info.name}; give one token"
        )
    return int(ids[0])


def _token(loaded, token_id: int) -> str:
    return str(loaded.tokenizer.convert_ids_to_tokens(int(token_id)))


def target_id(loaded, target, logits) -> int:
    """The id of ``target`` (a token of the vocabulary, or an id; None or empty: the
    most likely of ``logits``), or a one-line ModelError."""
    return _target(loaded, target, np.asarray(logits))


def token_text(loaded, token_id: int) -> str:
    """The vocabulary's token of ``token_id`` as the tokenizer writes it (``Ġcat``)."""
    return _token(loaded, token_id)


def ablation_map(
    loaded,
    text: str,
    *,
    position: int | None = None,
    target=None,
    cancel=None,
    progress: Callable[[float], None] | None = None,
) -> AblationMap:
    """layers × heads of log p(target) at ``position`` with that one head zero-ablated,
    minus the clean run's (NaN for layers that are not softmax attention).

    The heads of a layer run as one batch, and the layers before it are not run again:
    they answer the clean run's outputs (about half the layers × heads passes' work). A
    clean row in each batch proves that replay: where its prediction is not the clean
    run's, the layer is run again whole, and so are the ones after it. ``cancel``
    (callable or ``is_set()``) is asked between layers
    (:class:`~attnviz.core.work.Cancelled`), ``progress(fraction)`` told after each.

    The same passes give each head's copy accuracy on the sentence
    (:func:`attnviz.core.copying.copy_accuracy`: its copyable tokens that the most likely
    next token gets right), clean and with the head off, where the sentence repeats."""
    cancelled = as_cancel(cancel)
    report = as_progress(progress)
    head, ids, _tokens, at = _prepare(loaded, text, position)
    with loaded._lock:
        positions, expected = copyable(ids)
        run = _forward(head, ids, at, residuals=True, tops=positions)
        if head.heads is None:
            head.heads, head.head_dims = _shapes(head, run.called)
        clean = run.logits[0].numpy()
        goal = _target(loaded, target, clean)
        base = float(log_softmax(clean)[goal])
        layers = len(head.layers)
        width = max(head.heads.values(), default=0)
        if width == 0:  # a state-space model (Mamba-2…): no softmax head in any layer
            raise ModelError(
                f"{loaded.info.name} has no attention heads to switch off: none of its "
                f"{layers} layers is softmax attention"
            )
        values = np.full((layers, width), np.nan)
        copying = np.full((layers, width), np.nan)
        near = 1e-4 * (1.0 + float(np.abs(clean).max()))
        replays = True
        for layer in range(layers):
            if cancelled is not None and cancelled():
                raise Cancelled("the ablation map was cancelled")
            heads = head.heads.get(layer, 0)
            if heads and head.head_dims.get(layer, 0):
                cuts = {layer: [(h, h, "zero") for h in range(heads)]}  # row h: head h off
                replay = dict(enumerate(run.outputs[:layer])) if replays else None
                # Row `heads` is clean: it checks the replay.
                batch = _forward(
                    head, ids, at, rows=heads + 1, ablate=cuts, replay=replay, tops=positions
                )
                logits = batch.logits.numpy()
                if replay and float(np.abs(logits[heads] - clean).max()) > near:
                    replays = False  # the layers depend on more than their input
                    batch = _forward(head, ids, at, rows=heads + 1, ablate=cuts, tops=positions)
                    logits = batch.logits.numpy()
                logp = log_softmax(logits[:heads])[:, goal]
                values[layer, :heads] = logp - base
                if positions.size:
                    copying[layer, :heads] = copy_accuracy(batch.tops[:heads].numpy(), expected)
            if report is not None:
                report((layer + 1) / layers)
    copy_clean = (
        float(copy_accuracy(run.tops[0].numpy(), expected)) if positions.size else float("nan")
    )
    return AblationMap(
        values, goal, _token(loaded, goal), base, at, copying, copy_clean, int(positions.size)
    )


def logit_lens(
    loaded,
    text: str,
    *,
    position: int | None = None,
    target=None,
    top: int = 5,
) -> Lens:
    """The logit lens at ``position``: the residual after each layer through the model's
    final norm and its own head; per layer the ``top`` tokens and the target's
    probability. The last layer's is checked against the model's logits (a final norm
    attnviz did not find would show there)."""
    import torch

    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1:
        raise ModelError(f"top must be an integer ≥ 1, got {brief(top)}")
    head, ids, _tokens, at = _prepare(loaded, text, position)
    with loaded._lock:
        run = _forward(head, ids, at, residuals=True)
        logits, stack = run.logits, run.residuals
        if head.heads is None:
            head.heads, head.head_dims = _shapes(head, run.called)
        with torch.no_grad():
            lens = head.head_logits(stack[:, 0, at : at + 1, :])[:, 0].double().numpy()
    clean = logits[0].numpy()
    scale = 1.0 + float(np.abs(clean).max())
    if float(np.abs(lens[-1] - clean).max()) > 1e-4 * scale:
        raise ModelError(
            f"{loaded.info.name}: the last layer's lens differs from the model's logits; "
            "its final norm is not where attnviz looks"
        )
    goal = _target(loaded, target, clean)
    probs = np.exp(log_softmax(lens))
    top = min(int(top), probs.shape[-1])
    order = np.argsort(-probs, axis=-1, kind="stable")[:, :top]
    return Lens(
        order.astype(np.int64),
        np.take_along_axis(probs, order, axis=-1),
        probs[:, goal].copy(),
        goal,
        _token(loaded, goal),
        at,
    )
