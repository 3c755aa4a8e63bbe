"""Which layer of a model each captured attention call belongs to, and what the others are.

A hybrid model (Qwen3-Next, Jamba, LFM2, …) mixes its tokens with softmax attention in
some layers only; the others use a Gated DeltaNet, a Mamba-2 block, a short convolution,
a linear or lightning attention. Only the softmax layers call the attention
implementation attnviz captures. :func:`place_calls` gives each captured call its layer
(the attention module's own ``layer_idx`` where it has one, else the first later layer
that holds the module: Zamba2 calls one shared block from several layers), and
:func:`layer_kinds` names what every layer does — ``"softmax"`` where a call was
captured, else the kind its mixer's class says (:data:`MIXER_KINDS`). A layer of no
known kind that made no call is refused in one line naming its class, never guessed.
"""

from __future__ import annotations

import re

from attnviz.core.hf_errors import ModelError

#: What a layer's softmax attention is called where it was captured.
SOFTMAX = "softmax"
#: A layer that mixes no tokens: its only mixer-named block is an MLP (Nemotron-H's).
MLP_ONLY = "no token mixing (MLP only)"
#: (pattern on a mixer module's class name, kind): the first that matches names the kind.
MIXER_KINDS = (
    (re.compile(r"GatedDeltaNet"), "Gated DeltaNet"),
    # Kimi Linear's, and Bailing's hybrid, which runs the same kernel.
    (
        re.compile(r"KimiLinearDelta|KimiDelta|BailingHybridDelta|\bKDA"),
        "KDA (Kimi Delta Attention)",
    ),
    (re.compile(r"DeltaAttention|DeltaNet"), "DeltaNet"),
    (re.compile(r"Lightning"), "lightning attention"),
    (re.compile(r"LinearAttention"), "linear attention"),
    # Mamba (1): Jamba's, and the state-space models of its own (Mamba, Falcon-Mamba).
    (re.compile(r"Jamba.*Mamba|^(Falcon)?MambaMixer$"), "Mamba"),
    (re.compile(r"Mamba|Bamba.*Mixer|FalconH1Mixer"), "Mamba-2"),
    (re.compile(r"ShortConv"), "short convolution"),
)
#: Child names under which a decoder layer keeps its token mixer(s).
MIXER_NAMES = ("self_attn", "attention", "attn", "linear_attn", "mamba", "mixer", "conv",
               "token_mixer", "mamba_decoder", "shared_transformer", "feed_forward")  # fmt: skip
#: A mixer child whose class says it is an MLP: a layer of it alone mixes no tokens.
_MLP = re.compile(r"MLP|FeedForward|Experts|MoE", re.IGNORECASE)


def decoder_layers(model, count: int) -> list:
    """The model's list of ``count`` layers (the longest ``ModuleList`` of that length),
    or ``[]`` when it has none of that length (a model that counts its layers otherwise)."""
    import torch

    found = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == count]
    return list(found[0]) if found else []


def place_calls(layers: list, calls: list, count: int) -> list[int]:
    """The layer (0 … ``count`` − 1) of each captured attention call, in call order.

    ``calls`` holds ``(module, layer_idx)`` of each call. The modules' own indices are
    used when every call has one, all different and in range; a model without a list of
    its layers that made one call per layer (ALBERT's one shared layer) has them in order;
    otherwise each call goes to the first layer, after the previous call's, whose modules
    hold its module. A call no layer holds is refused (:class:`ModelError`)."""
    indices = [idx for _module, idx in calls]
    if (
        all(isinstance(i, int) and 0 <= i < count for i in indices)
        and len(set(indices)) == len(indices)
        and indices == sorted(indices)
    ):
        return indices
    if not layers and len(calls) == count:
        return list(range(count))  # one module for every layer (ALBERT shares its weights)
    held = [{id(m) for m in layer.modules()} for layer in layers]
    out, at = [], 0
    for module, _idx in calls:
        while at < len(held) and id(module) not in held[at]:
            at += 1
        if at == len(held):
            raise ModelError(
                f"an attention call of {type(module).__name__} belongs to no layer of the "
                "model in order; attnviz cannot tell which layer it shows"
            )
        out.append(at)
        at += 1
    return out


def mixer_kind(layer, called: frozenset = frozenset()) -> str | None:
    """The kind of token mixing of a layer besides softmax attention, from the class names
    of its mixer children (:data:`MIXER_KINDS`); :data:`MLP_ONLY` for a layer whose only
    mixer-named child is an MLP; None when nothing is recognised (a plain softmax layer's
    attention module matches none). Children holding a module in ``called`` (the ids of
    the modules whose attention was captured) are its softmax attention: left out."""
    children = [
        (n, m)
        for n, m in layer.named_children()
        if n in MIXER_NAMES and not any(id(sub) in called for sub in m.modules())
    ]
    for _name, module in children:
        for sub in module.modules():
            for pattern, kind in MIXER_KINDS:
                if pattern.search(type(sub).__name__):
                    return kind
    if children and all(_MLP.search(type(m).__name__) for _n, m in children):
        return MLP_ONLY
    return None


def softmax_notes(module, heads: int, head_dim: int, rope: bool | None) -> tuple[str, ...]:
    """What a softmax layer does beside its weights, named in its kind: ``"NoPE"`` when
    the config gives the layer no rotary positions (``rope`` False: Llama 4's every fourth
    layer), ``"gated output"`` when its attention module gates the heads' output (Qwen3-Next:
    a query projection twice as wide, or a gate projection of its own). Neither changes a
    weight: the heatmap stays the model's."""
    notes = []
    if rope is False:
        notes.append("NoPE")
    q_proj = getattr(module, "q_proj", None)
    doubled = getattr(q_proj, "out_features", None) == 2 * heads * head_dim
    if doubled or any(hasattr(module, n) for n in ("gate_proj", "g_proj")):
        notes.append("gated output")
    return tuple(notes)


def layer_kinds(
    layers: list,
    placed: list[int],
    count: int,
    name: str,
    called: frozenset = frozenset(),
    notes: dict | None = None,
) -> tuple[str, ...]:
    """What each of the ``count`` layers does: :data:`SOFTMAX` where a call was
    ``placed`` (``"softmax + Mamba-2"`` where another mixer runs beside it), else its
    mixer's kind; :class:`ModelError` for a layer of neither, naming its class
    (``name``: the model's, for the message; ``called``: as :func:`mixer_kind`'s).
    ``notes`` (layer → :func:`softmax_notes`) are added to a softmax layer's kind:
    ``"softmax (NoPE)"``."""
    kinds = []
    captured = set(placed)
    for i in range(count):
        layer = layers[i] if i < len(layers) else None
        kind = None if layer is None else mixer_kind(layer, called)
        if i in captured:
            # Falcon-H1 and Zamba2's hybrid layers mix with a Mamba-2 block beside it.
            both = kind is not None and kind != MLP_ONLY
            text = f"{SOFTMAX} + {kind}" if both else SOFTMAX
            extra = (notes or {}).get(i, ())
            kinds.append(f"{text} ({', '.join(extra)})" if extra else text)
            continue
        if kind is None:
            what = "its layer" if layer is None else type(layer).__name__
            raise ModelError(
                f"{name}: layer {i} ({what}) made no attention call attnviz captures and "
                "mixes its tokens in a way attnviz does not know; not shown"
            )
        kinds.append(kind)
    return tuple(kinds)
