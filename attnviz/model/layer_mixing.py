"""Every non-softmax layer of a real hybrid as its proven mixing matrices (no Qt).

The layers grid draws a hybrid's Gated DeltaNet, Mamba-2, short-convolution… layers as
their mixing matrices ``M`` (``out_t = Σ_s M[t, s] v_s``), and rollout runs through them.
One pass of the sentence captures what every such layer's core received and returned
(:func:`attnviz.core.hf_mixing.capture_mixing_layers`); each head's ``M`` is proven against
the kernel's own output (:func:`~attnviz.core.hf_mixing.prove_head`) before it is kept.
A layer the pass cannot prove keeps a one-line refusal instead, and the others stand.

- :func:`model_mixing`: per model layer a :class:`LayerMixing` (None for a layer of
  softmax heads only, or one that mixes no tokens): the first :data:`MOST_HEADS` heads'
  ``M``, whole up to :data:`~attnviz.core.hf_record.LONG_TOKENS` tokens, past it pooled to
  :data:`~attnviz.core.block_pool.SIDE` cells a side by each block's value farthest from 0.
- :func:`mixing_layer_mean`: one layer's mean over *all* its non-softmax heads of
  ``rownorm(|M|)`` — what rollout puts where a softmax layer's mean weights stand.

Both are slow on a real model (a pass, then an n × n matrix per head): the layers panel
runs them on a worker; their results are kept per (folder, sentence).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core import hf_mixing
from attnviz.core.block_pool import block_extreme
from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_layers import MLP_ONLY
from attnviz.core.hf_record import LONG_TOKENS
from attnviz.core.work import Cancelled
from attnviz.model.kept import Kept

__all__ = [
    "MOST_HEADS",
    "LayerMixing",
    "abs_rows",
    "mixing_layer_mean",
    "mixing_layers",
    "model_mixing",
]

#: Heads of one layer the grid draws at most (a Mamba layer's channels run to thousands).
MOST_HEADS = 32
_KEPT = 4


@dataclass(frozen=True)
class LayerMixing:
    """The proven mixing matrices of one model layer's non-softmax heads.

    ``first`` is the model head of ``matrices[0]`` (a layer with attention heads beside its
    SSM heads numbers those first); ``heads`` the layer's heads of ``kind``, of which
    ``matrices`` holds the first ``len(matrices)`` (``(h, P, P)``, float64, read-only;
    ``pooled``: P cells standing for blocks of tokens, each the value farthest from 0).
    ``scale`` is the largest ``|M|`` of the layer (the grid's colour scale). With a
    ``refusal`` (one line) there are no matrices."""

    layer: int
    kind: str
    first: int
    heads: int
    matrices: np.ndarray | None
    pooled: bool
    scale: float
    refusal: str = ""


def mixing_layers(capture) -> list[int]:
    """The model layers of ``capture`` with heads that are not softmax attention and do
    mix tokens (a Gated DeltaNet, a Mamba-2 block beside attention, …)."""
    from attnviz.model.real_mixing import beside, is_softmax

    out = []
    for layer in range(capture.layer_count):
        kind = capture.layer_kind(layer)
        if kind == MLP_ONLY:
            continue
        if not is_softmax(capture, layer) or beside(capture, layer):
            out.append(layer)
    return out


def _captured(path: str, text: str, layers: list[int]) -> dict:
    """``{layer: MixingLayer or ModelError}``: one pass for all; where it fails, a pass
    per layer, so that one layer the pass cannot prove leaves the others."""
    from attnviz.model import real_mixing

    try:
        return real_mixing.layers_mixing(path, text, layers)
    except ModelError:
        pass
    out: dict = {}
    for layer in layers:
        try:
            out[layer] = real_mixing.layer_mixing(path, text, layer)
        except ModelError as exc:
            out[layer] = exc
    return out


_GRIDS = Kept(_KEPT)
_MEANS = Kept(_KEPT)


def _key(path: str, text: str, *rest) -> tuple:
    from attnviz.model import real_model

    loaded = real_model.STORE.loaded(path)
    return (real_model.normalize_path(path), text, id(loaded), *rest)


def _tick(progress, cancel, done: int, total: int) -> None:
    if cancel is not None and cancel():
        raise Cancelled("the mixing matrices were cancelled")
    if progress is not None:
        progress(done / max(total, 1))


def model_mixing(
    path: str, text: str, most: int = MOST_HEADS, progress=None, cancel=None
) -> tuple[LayerMixing | None, ...]:
    """Per model layer of the model in folder ``path`` on ``text``: a :class:`LayerMixing`
    of its non-softmax heads (the first ``most``), or None. ``progress(fraction)`` and
    ``cancel() -> bool`` are polled between heads (:class:`Cancelled`)."""
    from attnviz.model import real_mixing, real_model

    key = _key(path, text, most)
    found = _GRIDS.get(key)
    if found is not None:
        return found
    capture = real_model.STORE.capture(path, text)
    layers = mixing_layers(capture)
    captured = _captured(path, text, layers) if layers else {}
    out: list[LayerMixing | None] = [None] * capture.layer_count
    total = sum(min(most, c.heads) for c in captured.values() if not isinstance(c, Exception))
    done = 0
    for layer in layers:
        first = real_mixing.softmax_heads(capture, layer)
        kind = real_mixing.head_kind(capture, layer, first)
        got = captured[layer]
        if isinstance(got, Exception):
            out[layer] = LayerMixing(layer, kind, first, 0, None, False, 0.0, str(got))
            continue
        shown = []
        try:
            for head in range(min(most, got.heads)):
                _tick(progress, cancel, done, total)
                m = hf_mixing.prove_head(got, head)
                shown.append(block_extreme(m) if m.shape[0] > LONG_TOKENS else m)
                done += 1
        except ModelError as exc:  # a head that does not reproduce the kernel: one line
            out[layer] = LayerMixing(layer, kind, first, got.heads, None, False, 0.0, str(exc))
            continue
        stack = np.stack(shown)
        stack.flags.writeable = False
        scale = float(np.max(np.abs(stack))) if stack.size else 0.0
        pooled = got.v.shape[1] > LONG_TOKENS
        out[layer] = LayerMixing(layer, kind, first, got.heads, stack, pooled, scale)
    _tick(progress, None, total, total)
    result = tuple(out)
    _GRIDS.put(key, result)
    return result


def abs_rows(m: np.ndarray) -> np.ndarray:
    """``|M|`` with each row summing to 1 (a row of zeros stays zeros): a mixing matrix
    read as shares of what each token takes from each other, as attention weights are."""
    a = np.abs(np.asarray(m, dtype=np.float64))
    sums = a.sum(axis=1, keepdims=True)
    return np.divide(a, sums, out=np.zeros_like(a), where=sums > 0)


def mixing_layer_mean(path: str, text: str, layer: int, progress=None, cancel=None):
    """``(kind, heads, Σ_h rownorm(|M_h|))`` over every non-softmax head of model layer
    ``layer`` (each proven; summed as they come, so a layer of thousands of channels never
    holds more than one n × n matrix). :class:`ModelError` (one line) when one is not
    proven."""
    from attnviz.model import real_mixing, real_model

    key = _key(path, text, layer)
    found = _MEANS.get(key)
    if found is not None:
        return found
    capture = real_model.STORE.capture(path, text)
    kind = real_mixing.head_kind(capture, layer, real_mixing.softmax_heads(capture, layer))
    got = real_mixing.layer_mixing(path, text, layer)
    total = None
    for head in range(got.heads):
        _tick(progress, cancel, head, got.heads)
        share = abs_rows(hf_mixing.prove_head(got, head))
        total = share if total is None else total + share
    result = (kind, got.heads, total)
    _MEANS.put(key, result)
    return result


def clear() -> None:
    """Forget every kept result (tests; a model that changed on disk)."""
    _GRIDS.clear()
    _MEANS.clear()
