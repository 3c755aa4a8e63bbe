"""One forward pass of a loaded model with interventions inside it: heads ablated by
pre-hooks on their output projection's input, links knocked out in the additive mask the
capture's attention function hands the model's own attention, the clean run's layer
outputs replayed, each layer's W^O input averaged (see :mod:`attnviz.core.hf_predict`,
which asks for the passes; torch is imported only when a pass runs).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, NamedTuple

from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_lm_head import LmHead, out_projection
from attnviz.core.value_text import brief

# --- a forward pass with interventions -------------------------------------------------


def _as_pairs(items, size: int, what: str) -> list[tuple[int, ...]]:
    """``items`` as a list of ``size``-tuples of ints, or ModelError naming ``what``."""
    out = []
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        shape = ", ".join(["…"] * size)
        raise ModelError(f"{what} must be a list of [{shape}], got {brief(items)}")
    for item in items:
        if (
            isinstance(item, (str, bytes))
            or not isinstance(item, Sequence)
            or len(item) != size
            or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in item)
        ):
            raise ModelError(f"each {what} entry must be {size} integers, got {brief(item)}")
        out.append(tuple(int(v) for v in item))
    return out


def _knock(mask, query, key, cuts: list, name: str, layer: int):
    """The additive mask of one attention call with each cut's score at −inf: (row or
    None for every row, head or −1, query, key). A row left no key is refused (its
    softmax would be undefined, or fall back on the keys the mask hides)."""
    import torch

    b, h, s, t = query.shape[0], query.shape[1], query.shape[-2], key.shape[-2]
    low = torch.finfo(query.dtype).min
    if mask is None:
        mask = torch.zeros((b, 1, s, t), dtype=query.dtype)
    elif mask.dtype == torch.bool:
        mask = torch.zeros(mask.shape, dtype=query.dtype).masked_fill(~mask, low)
    mask = mask[:, :, :, :t].expand(b, h, s, t).clone()
    for row, which, q, k in cuts:
        rows = slice(None) if row is None else row
        heads = slice(None) if which < 0 else which
        mask[rows, heads, q, k] = -math.inf
        if not bool((mask[rows, heads, q] > low / 2).any(dim=-1).all()):
            raise ModelError(
                f"{name}: the knockouts leave query {q} of layer {layer} no key to read"
            )
    return mask


class _Run(NamedTuple):
    """What :func:`_forward` returns."""

    logits: Any  # (rows, vocab) float64 tensor at the position
    called: dict  # layer → query heads of its call through attnviz's capture
    residuals: Any  # (layers, rows, n, width) tensor after each layer, or None
    outputs: list  # each layer's own output (with residuals), for a later replay
    tops: Any = None  # (rows, len(tops)) int64 tensor: the top token at each asked position


def _replay(block, output, rows: int):
    """A stand-in for ``block`` answering the clean run's ``output`` in every row (the
    layers before an ablated one compute nothing new); other attributes are the
    block's (a base model may read its attention type)."""
    import torch

    def widen(value):
        if isinstance(value, torch.Tensor) and value.dim() and value.shape[0] == 1:
            return value.expand(rows, *value.shape[1:]).contiguous()
        return value

    class _Replay(torch.nn.Module):
        def forward(self, *args, **kwargs):
            if isinstance(output, tuple):
                return tuple(widen(v) for v in output)
            return widen(output)

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return getattr(block, name)

    return _Replay()


def _w_o_hooks(head: LmHead, ablate: dict, means: dict | None, keep_means: dict | None):
    """Forward pre-hooks on the layers' W^O: row 0's input averaged over the positions
    into ``keep_means`` (registered first, so it sees the clean input), then each
    ablation of ``ablate`` (see :func:`_forward`). Returns the handles."""

    def mean_hook(layer):
        def hook(module, args, kwargs):
            x = args[0] if args else next(iter(kwargs.values()))
            keep_means[layer] = x[0].mean(dim=0).detach().clone()

        return hook

    def pre_hook(layer, per_head):
        def hook(module, args, kwargs):
            x = args[0] if args else next(iter(kwargs.values()))
            mean = None
            if any(how == "mean" for *_, how in ablate[layer]):
                mean = means[layer] if means and layer in means else x[0].mean(dim=0)
            x = x.clone()
            for row, which, how in ablate[layer]:
                cols = slice(which * per_head, (which + 1) * per_head)
                rs = slice(None) if row is None else row
                x[rs, :, cols] = 0.0 if how == "zero" else mean[cols]
            if args:
                return (x, *args[1:]), kwargs
            first = next(iter(kwargs))
            return args, {**kwargs, first: x}

        return hook

    hooks = []
    if keep_means is not None:
        for layer, per_head in (head.head_dims or {}).items():
            if per_head:
                proj = out_projection(head, layer, head.heads[layer] * per_head)
                hooks.append(proj.register_forward_pre_hook(mean_hook(layer), with_kwargs=True))
    for layer in sorted(ablate):
        heads, per_head = head.heads[layer], head.head_dims[layer]
        proj = out_projection(head, layer, heads * per_head)
        hooks.append(proj.register_forward_pre_hook(pre_hook(layer, per_head), with_kwargs=True))
    return hooks


def _forward(
    head: LmHead,
    ids: list[int],
    at: int,
    *,
    rows: int = 1,
    ablate: dict | None = None,
    knockout: dict | None = None,
    residuals: bool = False,
    replay: dict | None = None,
    means: dict | None = None,
    keep_means: dict | None = None,
    tops: Sequence[int] = (),
) -> _Run:
    """One forward pass of ``rows`` copies of ``ids`` through the model, and its head's
    logits at position ``at``.

    ``ablate``: layer → list of (row or None for every row, head, ``"zero"`` or
    ``"mean"``), where a mean is over row 0's positions (row 0 must be the clean run:
    it reaches each layer with the others, so its W^O input there is the clean one), or
    is ``means[layer]`` where given (the clean run's, kept by an earlier run);
    ``knockout``: layer → list of (row or None, head or −1, query, key); ``replay``:
    layer → the output a clean run's ``residuals`` recorded there, given back instead of
    running the layer (the layers before the first intervened one); ``keep_means``: a
    dict filled with layer → row 0's W^O input averaged over the positions, for every
    layer whose heads are known (row 0 must be clean); ``tops``: positions whose most
    likely next token each row's run also gives (``_Run.tops``).
    """
    import torch

    from attnviz.core.hf_record import _LOCAL

    ablate = ablate or {}
    knockout = knockout or {}
    name = head.loaded.info.name
    called: dict[int, int] = {}
    knocked: set[int] = set()

    def edit(module, query, key, mask):
        layer = head.layer_of.get(id(module))
        if layer is None:
            return mask
        called[layer] = int(query.shape[1])
        if layer not in knockout:
            return mask
        knocked.add(layer)
        return _knock(mask, query, key, knockout[layer], name, layer)

    hooks = []
    outputs: list = []
    if residuals:

        def keep(module, args, output):
            outputs.append(output)

        hooks += [block.register_forward_hook(keep) for block in head.layers]
    replay = replay or {}
    for layer, output in replay.items():
        head.layer_list[layer] = _replay(head.layers[layer], output, rows)
    hooks += _w_o_hooks(head, ablate, means, keep_means)
    n = len(ids)
    try:
        _LOCAL.edit = edit
        with torch.no_grad():
            out = head.base(
                input_ids=torch.tensor([ids] * rows),
                attention_mask=torch.ones(rows, n, dtype=torch.long),
            )
            last = out[0] if isinstance(out, tuple) else out.last_hidden_state
            # Only the position's logits: a whole sentence's are n × vocab floats.
            logits = head.head_logits(last[:, at : at + 1], norm=False)[:, -1]
            top = _tops(head, last, tops)
    except ModelError:
        raise
    except Exception as exc:  # a model that cannot run this sentence
        text = " ".join(str(exc).split())[:200]
        raise ModelError(
            f"the model failed on this sentence: {type(exc).__name__}: {text}"
        ) from None
    finally:
        _LOCAL.edit = None
        for h in hooks:
            h.remove()
        for layer in replay:
            head.layer_list[layer] = head.layers[layer]
    missed = sorted(set(knockout) - knocked)
    if missed:
        raise ModelError(
            f"{name}: layer {missed[0]}'s attention does not run where attnviz can knock a link out"
        )
    stack = None
    if residuals:
        stack = torch.stack([(o[0] if isinstance(o, tuple) else o).detach() for o in outputs])
    return _Run(logits.double(), called, stack, outputs, top)


#: Positions whose logits are computed at once for :func:`_tops` (each is a vocabulary).
TOPS_CHUNK = 64


def _tops(head: LmHead, last, positions: Sequence[int]):
    """The most likely next token at each of ``positions`` of every row (ties: the lowest
    id, as ``argmax``), a (rows, len(positions)) int64 tensor, or None when none is asked;
    a few positions at a time, since each position's logits are a whole vocabulary."""
    import torch

    if not len(positions):
        return None
    index = torch.as_tensor(list(positions), dtype=torch.long)
    parts = [
        head.head_logits(last[:, index[i : i + TOPS_CHUNK]], norm=False).argmax(dim=-1)
        for i in range(0, len(index), TOPS_CHUNK)
    ]
    return torch.cat(parts, dim=1)
