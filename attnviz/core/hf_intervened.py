"""Every layer's attention weights of a run with interventions, recorded inside the model.

The interventions are :mod:`attnviz.core.hf_predict`'s, run by its own forward pass
(hooks on W^O's input for an ablation, −inf in the additive mask for a knockout): a
batch of two rows, row 0 the clean run (a ``mean`` ablation reads its W^O input there)
and row 1 the intervened one, which the capture's attention function records
(:mod:`attnviz.core.hf_record`, ``_LOCAL.row``). What comes back has the clean capture's
shape: every softmax layer's q, k, v and the model's own (h, n, n) weights, with, per
knocked-out layer, which links each query head may still read (the proof hides the cut
ones as it hides a sparse indexer's unchosen keys: :mod:`attnviz.model.intervened`).

An ablation changes what a layer writes, not its own weights: the first layer whose
weights can differ is the one after the first ablated layer, or the first knocked-out
layer itself (:func:`first_changed`). Every refusal is a one-line
:class:`~attnviz.core.hf_errors.ModelError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_forward import _as_pairs, _forward
from attnviz.core.hf_predict import _check_interventions, _clean, _prepare
from attnviz.core.hf_record import _LOCAL, LONG_TOKENS, Capture, _held_bytes

__all__ = ["InterventionRun", "first_changed", "intervened_run"]


@dataclass(frozen=True)
class InterventionRun:
    """The intervened run of a captured sentence.

    ``capture`` is the clean capture with the intervened row's layers; ``keep`` maps a
    knocked-out model layer to its (h, n, n) bool array, False where a link was cut;
    ``first`` is the first model layer whose weights an intervention can change.
    """

    capture: Capture
    keep: dict
    first: int


def first_changed(ablate: Sequence, knockout: Sequence) -> int | None:
    """The first model layer whose attention weights ``ablate`` ([layer, head], …) and
    ``knockout`` ([layer, head, query, key], …) can change; None when there is neither.
    An ablated head changes its layer's output, so the layers after it; a knockout
    changes its own layer's weights."""
    found = [layer + 1 for layer, _h in _as_pairs(ablate, 2, "ablate")]
    found += [layer for layer, *_ in _as_pairs(knockout, 4, "knockout")]
    return min(found) if found else None


def _keep_masks(heads: dict, n: int, cuts: dict) -> dict:
    """model layer → (h, n, n) bool, False at each cut link (head −1: every head)."""
    out = {}
    for layer, items in cuts.items():
        keep = np.ones((heads[layer], n, n), bool)
        for _row, which, q, k in items:
            keep[slice(None) if which < 0 else which, q, k] = False
        out[layer] = keep
    return out


def intervened_run(
    loaded,
    capture: Capture,
    *,
    ablate: Sequence = (),
    ablation: str = "zero",
    knockout: Sequence = (),
) -> InterventionRun:
    """``capture``'s sentence through ``loaded`` again with ``ablate`` (replaced as
    ``ablation`` says) and ``knockout`` applied inside the forward pass, every softmax
    layer's weights recorded (:class:`InterventionRun`). Refused in one line past
    :data:`~attnviz.core.hf_record.LONG_TOKENS` tokens (a long capture keeps no n × n
    weights to compare), without any intervention, or when the pass does not make one
    attention call per captured layer."""
    n = len(capture.ids)
    if n > LONG_TOKENS:
        raise ModelError(
            f"the intervened run is compared up to {LONG_TOKENS} tokens; this sentence has {n}"
        )
    first = first_changed(ablate, knockout)
    if first is None:
        raise ModelError("no intervention to compare: set prediction.ablate or prediction.knockout")
    # Position −1: the logits are not used, and an encoder needs no [MASK] for them.
    head, ids, _tokens, at = _prepare(loaded, capture.text, -1)
    if tuple(ids) != capture.ids:
        raise ModelError(f"{capture.name}: the sentence's tokens are not the captured ones")
    record: list = []
    with loaded._lock:
        if head.heads is None:  # the model's first run: its heads, to check the requests
            _clean(head, ids, at)
        per_layer, cuts = _check_interventions(head, n, ablate, ablation, knockout)
        _LOCAL.layers, _LOCAL.row = record, 1
        try:
            _forward(head, ids, at, rows=2, ablate=per_layer, knockout=cuts)
        finally:
            _LOCAL.layers, _LOCAL.row = None, 0
    if len(record) != len(capture.layers):
        raise ModelError(
            f"{capture.name}: the intervened run made {len(record)} attention calls, the "
            f"capture {len(capture.layers)}; not compared"
        )
    run = replace(capture, layers=tuple(record), nbytes=_held_bytes(record))
    return InterventionRun(run, _keep_masks(head.heads, n, cuts), first)
