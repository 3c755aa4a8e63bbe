"""What a forward pass records, layer by layer, for :mod:`attnviz.core.hf_capture`.

attnviz's attention implementation (``"attnviz_capture"``, registered in transformers'
AttentionInterface) runs the model's own eager attention and keeps what the attention
product received; families whose attention runs in a module of its own (BLOOM, Falcon)
are recorded by a forward hook on that module instead (:data:`HOOKED`). Each thread's
forward pass records into ``_LOCAL.layers``; a long sentence keeps no n × n weights and is
proven by ``_LOCAL.check`` while they exist; ``_LOCAL.progress`` may cancel between layers;
``_LOCAL.stop`` ends the pass once the last layer's attention is recorded (:class:`LastLayer`);
``_LOCAL.edit(module, query, key, mask)`` may return another additive mask for the model's
own attention to use (:mod:`attnviz.core.hf_predict`'s knockouts); ``_LOCAL.row`` says which
row of a batch is recorded (0 unless set: :mod:`attnviz.core.hf_intervened` records the
intervened row of a clean-and-intervened batch).
"""

from __future__ import annotations

import importlib
import sys
import threading
from dataclasses import dataclass, field, replace

import numpy as np

from attnviz.core.hf_errors import ModelError
from attnviz.core.masks import causal_mask
from attnviz.core.score_terms import alibi_slopes
from attnviz.core.wording import counted

#: Up to this many tokens every head's n × n weights are kept; past it q, k and v only
#: (the proof runs during the forward pass, and the layers grid gets block maxima).
LONG_TOKENS = 512
#: Side of the pooled map of a long sentence's weights kept per head.
POOL_CELLS = 256


@dataclass(frozen=True)
class LayerCapture:
    """One layer: what its attention product received and the weights it computed."""

    q: np.ndarray  # (h, n, d) float32, after projections, q-norm and RoPE
    k: np.ndarray  # (h_kv, n, d)
    v: np.ndarray  # (h_kv, n, d_v)
    weights: np.ndarray | None  # (h, n, n) float32: the model's own softmax (None: long)
    allowed: np.ndarray  # (n, n) bool: where the model's mask lets a query look
    scaling: float  # the factor on q·kᵀ (1/√d_head for most families)
    softcap: float | None = None  # Gemma 2's tanh cap of the scores
    window: int | None = None  # sliding window of this layer, when it has one
    alibi: np.ndarray | None = None  # (h,) ALiBi slope of each query head (BLOOM)
    sinks: np.ndarray | None = None  # (h,) sink logit of each query head (gpt-oss)
    #: Past LONG_TOKENS: the model's weights as block maxima (h, P, P), P ≤ POOL_CELLS,
    #: and the proof run against its full weights during the forward pass:
    #: (largest difference, query head where it is), or None when nothing checked it.
    pooled: np.ndarray | None = None
    proof: tuple[float, int] | None = None
    #: DeepSeek Sparse Attention: (n, n) bool, the keys the model's indexer let each query
    #: read (folded into ``allowed`` as its eager attention does), and the rotary layout
    #: under which attnviz's recomputation from the indexer's weights gives the same
    #: selection (None: not recomputed, and the proof refuses the layer).
    selected: np.ndarray | None = None
    index_layout: str | None = None
    #: Keyword arguments the layer's attention was called with that attnviz does not
    #: reproduce (a term, a selection of a kind it does not know): the proof refuses.
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Capture:
    """One sentence through one model: its tokens and every softmax layer's heads.

    ``layers`` are the layers whose softmax attention was captured, in order;
    ``attention_at`` says which of the model's layers each is, and ``kinds`` what each of
    the model's layers does (``"softmax"``, or a hybrid's other mixers: ``"Gated
    DeltaNet"``, ``"Mamba-2"``, …; a layer doing both, as Falcon-H1's, ``"softmax +
    Mamba-2"``). A model layer is addressed by its own index (:meth:`layer`). ``wrapper``
    names the multimodal folder whose language model this is (None: the folder's model).
    """

    name: str
    path: str
    text: str
    kind: str
    tokens: tuple[str, ...]
    special: tuple[bool, ...]
    ids: tuple[int, ...]
    layers: tuple[LayerCapture, ...]
    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden_size: int
    seconds: float = 0.0
    nbytes: int = field(default=0, compare=False)
    kinds: tuple[str, ...] = ()
    attention_at: tuple[int, ...] = ()
    wrapper: str | None = None

    @property
    def layer_count(self) -> int:
        """The model's layers, softmax or not."""
        return len(self.kinds) if self.kinds else len(self.layers)

    def layer_kind(self, layer: int) -> str:
        """What model layer ``layer`` does (``"softmax"`` for most)."""
        return self.kinds[layer] if self.kinds else "softmax"

    def captured(self, layer: int) -> int | None:
        """The position in :attr:`layers` of model layer ``layer``, or None when it has
        no softmax attention."""
        if not self.attention_at:
            return layer if 0 <= layer < len(self.layers) else None
        try:
            return self.attention_at.index(layer)
        except ValueError:
            return None

    def layer(self, layer: int) -> LayerCapture:
        """The softmax attention of model layer ``layer``; :class:`ModelError` naming the
        layer's kind when it has none (a hybrid's Gated DeltaNet, Mamba-2, …)."""
        at = self.captured(layer)
        if at is None:
            if not 0 <= layer < self.layer_count:
                raise ModelError(
                    f"layer {layer} is outside 0…{self.layer_count - 1} "
                    f"({self.name} has {counted(self.layer_count, 'layer')})"
                )
            raise ModelError(
                f"layer {layer} of {self.name} is a {self.layer_kind(layer)} layer, not "
                "softmax attention: it has no attention weights to show"
            )
        return self.layers[at]


_LOCAL = threading.local()  # the list the current thread's forward pass records into


class LastLayer(Exception):  # noqa: N818 (a signal, as LoadCancelled)
    """Raised once the last attention layer is recorded, when the pass was asked to stop
    there (``_LOCAL.stop``): what follows it (the last MLP, the final norm, a pooler) is
    not attention, and the capture keeps none of it."""


def _generic_eager(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kw):
    """Eager attention for a module file without its own (grouped KV heads repeated)."""
    import torch

    groups = query.shape[1] // key.shape[1]
    key = key.repeat_interleave(groups, dim=1)
    value = value.repeat_interleave(groups, dim=1)
    scaling = query.shape[-1] ** -0.5 if scaling is None else scaling
    scores = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        scores = scores + attention_mask[:, :, :, : key.shape[-2]]
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32).to(query.dtype)
    return torch.matmul(weights, value).transpose(1, 2).contiguous(), weights


#: Keyword arguments an attention function is called with that change nothing attnviz
#: draws (cache bookkeeping, positions already turned into q and k, flags eager ignores)
#: or that it reproduces (a window, a cap, sinks, DSA's indices). Any other, when given,
#: refuses the layer: a term attnviz would silently leave out.
KNOWN_KWARGS = frozenset(
    {
        "position_ids", "use_cache", "cache_position", "past_key_values", "past_key_value",
        "output_attentions", "sliding_window", "softcap", "s_aux", "deterministic",
        "is_causal", "dropout", "scaling", "head_mask", "encoder_hidden_states",
        "cu_seq_lens_q", "cu_seq_lens_k", "max_length_q", "max_length_k", "indices",
        "layer_idx", "position_embeddings",
    }
)  # fmt: skip


def _fold_indices(attention_mask, indices, query, key):
    """DSA's top-k ``indices`` (B, S, k) folded into the mask as the model's own eager path
    does (the keys not chosen get the dtype's minimum, or False), and the choice as a
    (S, T) bool array. Under an attention implementation of its own the model hands the
    indices over instead of folding them, for a sparse kernel to use."""
    import torch

    b, s, t = query.shape[0], query.shape[-2], key.shape[-2]
    hidden = torch.ones((b, s, t), dtype=torch.bool, device=indices.device)
    hidden = hidden.scatter(-1, indices.long(), False).unsqueeze(1)
    if attention_mask is None:
        attention_mask = torch.zeros((b, 1, s, t), dtype=query.dtype, device=query.device)
    if attention_mask.dtype == torch.bool:
        attention_mask = attention_mask & ~hidden
    else:
        attention_mask = attention_mask.masked_fill(hidden, torch.finfo(query.dtype).min)
    return attention_mask, (~hidden[0, 0]).cpu().numpy()


def _capture_attention(
    module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kwargs
):
    """The model's own eager attention, recording its inputs and weights on the way."""
    indices = kwargs.pop("indices", None)
    selected = None
    if indices is not None:
        attention_mask, selected = _fold_indices(attention_mask, indices, query, key)
    edit = getattr(_LOCAL, "edit", None)
    if edit is not None:  # attnviz.core.hf_predict: a knockout's −inf scores, each call's layer
        attention_mask = edit(module, query, key, attention_mask)
    eager = getattr(sys.modules.get(type(module).__module__), "eager_attention_forward", None)
    out, weights = (eager or _generic_eager)(
        module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs
    )
    record = getattr(_LOCAL, "layers", None)
    if record is not None:
        unknown = tuple(
            sorted(k for k, v in kwargs.items() if v is not None and k not in KNOWN_KWARGS)
        )
        causal = bool(getattr(module, "is_causal", False))
        allowed = _allowed(attention_mask, query.shape[-2], key.shape[-2], causal)
        scale = query.shape[-1] ** -0.5 if scaling is None else float(scaling)
        # gpt-oss: one learned logit per head in every softmax's denominator.
        sinks = kwargs.get("s_aux", getattr(module, "sinks", None))
        _record_layer(
            record,
            query,
            key,
            value,
            weights,
            allowed,
            scale,
            module,
            softcap=kwargs.get("softcap"),
            window=kwargs.get("sliding_window"),
            sinks=None if sinks is None else _numpy(sinks).astype(np.float64),
            selected=selected,
            unknown=unknown,
        )
    return out, weights


def _indexer_call(module, args, kwargs, output) -> None:
    """A forward hook on a DSA indexer (DeepSeek-V3.2, GLM): recompute its top-k choice
    from its weights and the inputs it was given (:mod:`attnviz.core.dsa`) while they
    exist, and keep the model's choice with the layout that agreed (None: none did)."""
    import torch

    from attnviz.core import dsa

    found = getattr(_LOCAL, "selections", None)
    if found is None:
        return
    names = ("hidden_states", "q_resid", "position_embeddings", "attention_mask")
    hidden, q_resid, (cos, sin), mask = (
        args[i] if i < len(args) else kwargs[name] for i, name in enumerate(names)
    )
    t = hidden.shape[1]
    selected = np.zeros((hidden.shape[1], t), bool)
    np.put_along_axis(selected, output[0].long().cpu().numpy(), True, axis=1)
    mask = mask[0].detach().cpu()
    allowed = mask.numpy() if mask.dtype == torch.bool else (mask.float().numpy() > -1e4)
    visible = allowed.sum(axis=1)
    if np.all(visible <= module.index_topk):  # every row keeps all it sees: nothing to score
        layout = "every key" if np.array_equal(selected & allowed, allowed) else None
        found.append((selected, layout))
        return
    norm = module.k_norm

    def f64(tensor):
        return tensor.detach().cpu().double().numpy()

    call = dsa.IndexerCall(
        f64(hidden[0]), f64(q_resid[0]), f64(cos[0]), f64(sin[0]), allowed,
        f64(module.wq_b.weight), f64(module.wk.weight), f64(norm.weight), f64(norm.bias),
        float(norm.eps), f64(module.weights_proj.weight), int(module.n_heads),
        int(module.head_dim), int(module.qk_rope_head_dim), int(module.index_topk),
        float(module.softmax_scale),
    )  # fmt: skip
    found.append((selected, dsa.recomputed_selection(call, selected)))


def _record_layer(
    record: list, query, key, value, weights, allowed, scale, module=None, **extra
) -> None:
    """Keep one layer: q, k, v and the model's weights — or, past :data:`LONG_TOKENS`,
    q, k, v, the weights pooled for the layers grid and the proof, run here against the
    model's own weights while they exist (the thread's ``check``), block by block."""
    step = getattr(_LOCAL, "progress", None)
    if step is not None:
        # May raise LoadCancelled: a cancel stops the pass layer by layer. The layers done
        # and the total let a long sentence's dialog say how far it is and how long is left.
        step("forward", len(record), getattr(_LOCAL, "total", 0))
    n = query.shape[-2]
    long = n > LONG_TOKENS
    row = getattr(_LOCAL, "row", 0)
    for earlier in record:  # layers of one mask share one array (8,192² booleans: 64 MB)
        if earlier.allowed.shape == allowed.shape and np.array_equal(earlier.allowed, allowed):
            allowed = earlier.allowed
            break
    lc = LayerCapture(
        _numpy(query[row]),
        _numpy(key[row]),
        _numpy(value[row]),
        None if long else _numpy(weights[row], copy=False),
        allowed,
        scale,
        **extra,
    )
    if long:
        import torch

        w = weights[row].detach().float()
        cells = min(n, POOL_CELLS)
        # Block maxima: a strong link stays visible in a thumbnail of a long sentence.
        pooled = torch.nn.functional.adaptive_max_pool2d(w.unsqueeze(0), cells)[0]
        check = getattr(_LOCAL, "check", None)
        proof = None if check is None else check(lc, lambda head: w[head].numpy())
        lc = replace(lc, pooled=_numpy(pooled), proof=proof)
    record.append(lc)
    calls = getattr(_LOCAL, "calls", None)
    if calls is not None:  # which module made the call: its layer is found after the pass
        calls.append((module, getattr(module, "layer_idx", None)))
    if getattr(_LOCAL, "stop", False) and len(record) == getattr(_LOCAL, "total", 0):
        raise LastLayer


def _allowed(attention_mask, n: int, n_k: int, causal: bool) -> np.ndarray:
    """Where the model's mask lets a query look: from its boolean or additive mask (which
    puts the dtype's minimum where hidden), or causal / every pair when it passes none."""
    if attention_mask is None:
        return causal_mask(n) if causal else np.ones((n, n), bool)
    mask = attention_mask[0, 0, :, :n_k].detach().cpu()
    if mask.dtype.is_floating_point:
        return mask.float().numpy() > -1e4
    return mask.numpy().astype(bool)


def _hooked_call(args, kwargs, output, mask_at: int, family: str):
    """``(record, hidden states, mask, weights)`` of a hooked attention call (``record``
    None when no capture is running); the mask is keyword or positional ``mask_at``."""
    record = getattr(_LOCAL, "layers", None)
    if record is None:
        return None, None, None, None
    hidden = args[0] if args else kwargs["hidden_states"]
    mask = kwargs["attention_mask"] if "attention_mask" in kwargs else args[mask_at]
    if output[1] is None:
        raise ModelError(f"{family} returned no attention weights to capture")
    return record, hidden, mask, output[1]


def _bloom_attention(module, args, kwargs, output) -> None:
    """A forward hook on BLOOM's attention, which runs outside the AttentionInterface: its
    q, k, v again from its fused projection (the same linear, the same numbers), the mask
    it was given, its scale and the ALiBi slopes of its heads (scaled by its β)."""
    record, hidden, mask, weights = _hooked_call(args, kwargs, output, 3, "BLOOM")
    if record is None:
        return
    query, key, value = module._reshape(module.query_key_value(hidden))
    n = query.shape[-2]
    slopes = alibi_slopes(module.num_heads) * float(module.beta)
    _record_layer(
        record,
        query,
        key,
        value,
        weights,
        _allowed(mask, n, key.shape[-2], True),
        float(module.inv_norm_factor),
        module,
        alibi=slopes,
    )


def _falcon_attention(module, args, kwargs, output) -> None:
    """A forward hook on Falcon's attention (outside the AttentionInterface): q, k, v again
    from its fused projection, split and turned by RoPE as its forward does, with the
    cos/sin it was given; the weights it returned."""
    record, hidden, mask, weights = _hooked_call(args, kwargs, output, 2, "Falcon")
    if record is None:
        return
    query, key, value = module._split_heads(module.query_key_value(hidden))
    b, n = query.shape[0], query.shape[1]
    kv = module.num_heads if module.new_decoder_architecture else module.num_kv_heads
    query = query.transpose(1, 2).reshape(b, module.num_heads, n, module.head_dim)
    key = key.transpose(1, 2).reshape(b, kv, n, module.head_dim)
    value = value.transpose(1, 2).reshape(b, kv, n, module.head_dim)
    cos, sin = kwargs["position_embeddings"]
    rotate = sys.modules[type(module).__module__].apply_rotary_pos_emb
    query, key = rotate(query, key, cos, sin)
    _record_layer(
        record,
        query,
        key,
        value,
        weights,
        _allowed(mask, n, key.shape[-2], True),
        module.head_dim**-0.5,
        module,
    )


#: model_type → (attention module class name, forward hook): families whose attention runs
#: in a module of its own, outside transformers' AttentionInterface. They load with the
#: eager implementation and each attention module records what it computed.
HOOKED = {
    "bloom": ("BloomAttention", _bloom_attention),
    "falcon": ("FalconAttention", _falcon_attention),
}


#: model_type → the transformers module of its attention class, and a method only the
#: version outside the AttentionInterface has: Falcon's attention joined the interface in
#: transformers 5.25 (its _split_heads went with it); from then on it is captured there.
_OUTSIDE_SINCE_GONE = {"falcon": ("transformers.models.falcon.modeling_falcon", "_split_heads")}


def runs_outside_interface(model_type: str) -> bool:
    """True when ``model_type``'s attention, in the installed transformers, runs outside
    the AttentionInterface (so it loads eager and is recorded by a :data:`HOOKED` hook)."""
    if model_type not in HOOKED:
        return False
    if model_type not in _OUTSIDE_SINCE_GONE:
        return True
    module_name, method = _OUTSIDE_SINCE_GONE[model_type]
    cls = getattr(importlib.import_module(module_name), HOOKED[model_type][0])
    return hasattr(cls, method)


def _hook(model, model_type: str) -> None:
    """Register the capture hook of a :data:`HOOKED` family on every attention module."""
    name, hook = HOOKED[model_type]
    for module in model.modules():
        if type(module).__name__ == name:
            module.register_forward_hook(hook, with_kwargs=True)


def _held_bytes(record: list) -> int:
    """Bytes the layers hold (a mask shared by several layers counted once)."""
    arrays = {
        id(a): a
        for lc in record
        for a in (lc.q, lc.k, lc.v, lc.weights, lc.allowed, lc.pooled)
        if a is not None
    }
    return sum(a.nbytes for a in arrays.values())


def _numpy(t, copy: bool = True) -> np.ndarray:
    """``t`` as a read-only float32 array; ``copy=False`` shares the memory of a float32
    CPU tensor: the model's weights (12 MB a layer at 512 tokens, whose copy would cost a
    tenth of the forward pass), which nothing writes once the layer has returned them —
    and the proof, run after the pass, compares what this memory then holds."""
    src = t.detach().cpu()
    t = src.float()
    if not t.is_contiguous():
        t = t.contiguous()  # a copy, made by torch (a strided numpy copy is slower)
    elif copy and t is src:
        t = t.clone()
    arr = t.numpy()
    arr.flags.writeable = False
    return arr
