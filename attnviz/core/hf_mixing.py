"""A real hybrid's non-softmax layer as its mixing matrix, captured from the model and proven.

Every token mixer of a hybrid model mixes its values linearly: ``out_t = Σ_s M[t, s] v_s``
(see :mod:`attnviz.core.mixers` for the synthetic forms). Here ``v`` are the values
entering the layer's token-mixing core and ``out`` its output before any output gate, norm
or projection, both captured in the model's own forward pass:

- Gated DeltaNet (Qwen3-Next, Qwen3.5, OLMo hybrid): the recurrent kernel the module calls
  (``torch_chunk_gated_delta_rule``) is wrapped for the pass, and its q, k, v (after the
  short convolution and activation), g (the log decay) and β are kept with its output;
  ``M`` comes from the delta rule run on them
  (:func:`~attnviz.core.mixing_matrices.delta_rule_matrix`). KDA (Kimi Linear, Bailing's
  hybrid): the same rule with a decay per key channel, through
  ``chunk_kimi_delta_attention``.
- Mamba-2 (Nemotron-H, Granite 4 hybrids, Bamba, Falcon-H1, Zamba2): the SSD scan
  ``mamba2_chunk_scan``; v is the x entering it, the heads are the SSM heads, C and B
  stand where q and k do, and M carries Δ, the decay e^{ΔA} and the D skip on its
  diagonal (:func:`~attnviz.core.mixing_matrices.ssd_matrix`).
- Mamba (1) (Jamba): its selective scan ``mamba_selective_scan``, one head per channel
  (:func:`~attnviz.core.mixing_matrices.selective_matrix`); the scan gates its own output
  with silu(z), so the same kernel is run once more on the same inputs without the gate for
  the output before it.
- Short convolutions (LFM2): no kernel function of their own, so hooks on the block's
  input projection (B, C and x) and on its output projection's input (``y = C ⊙
  conv(B ⊙ x)``); the heads are the channels, each a banded M with its gates
  (:func:`~attnviz.core.mixing_matrices.conv_matrix`).
- Lightning attention (MiniMax): hooks on the block's activation (q, k, v) and its norm's
  input; ``M[t, s] = (q_t · k_s) e^{−λ_h (t − s)}``, its heads' slope rates λ_h.

``M`` is computed in float64 and, before anything shows it, ``M @ v`` is compared with the
kernel's own output (:func:`prove_head`): a head that does not match is refused in one line
naming the mechanism. torch and transformers are imported by the caller's model only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np

from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_layers import MIXER_KINDS, MIXER_NAMES, MLP_ONLY, decoder_layers, mixer_kind
from attnviz.core.mixing_matrices import (
    conv_matrix,
    delta_rule_matrix,
    selective_matrix,
    ssd_matrix,
)

__all__ = [
    "MIXING_TOLERANCE",
    "MixingLayer",
    "capture_mixing",
    "capture_mixing_layers",
    "delta_rule_matrix",
    "prove_head",
    "ssd_matrix",
]

#: Largest ``|M @ v − out|`` relative to the head's largest ``|out|`` (plus
#: :data:`MIXING_FLOOR`): the kernel runs in float32 (a few 1e-7 relative on tiny models),
#: M in float64.
MIXING_TOLERANCE = 1e-4
#: An absolute floor, for a head whose output is all but 0.
MIXING_FLOOR = 1e-6
#: Gated DeltaNet kernels by the names a modeling module calls them (transformers' torch
#: forms, and the flash-linear-attention ones a module may hold instead).
GDN_KERNELS = (
    "torch_chunk_gated_delta_rule", "torch_recurrent_gated_delta_rule",
    "chunk_gated_delta_rule", "fused_recurrent_gated_delta_rule",
)  # fmt: skip


#: Kimi Delta Attention's kernels (Kimi Linear, Bailing's hybrid): the gated delta rule
#: with a decay per key channel.
KDA_KERNELS = ("chunk_kimi_delta_attention", "recurrent_kimi_delta_attention", "chunk_kda",
               "fused_recurrent_kda")  # fmt: skip


@dataclass(frozen=True)
class MixingLayer:
    """One non-softmax layer of one sentence, as its core received and returned it.

    ``q``, ``k`` (heads, n, d_k) as the recurrence reads them (normalised and scaled where
    the kernel does), ``v`` and ``out`` (heads, n, d_v) the values and the kernel's own
    output (float64 copies of its float32), ``gates`` named (heads, n) or (heads, n, d_k)
    arrays. Heads are the layer's value heads."""

    kind: str
    layer: int
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    out: np.ndarray
    gates: dict = field(default_factory=dict)

    @property
    def heads(self) -> int:
        """The layer's value heads (what ``M`` is drawn for)."""
        return int(self.v.shape[0])

    def matrix(self, head: int) -> np.ndarray:
        """The (n, n) mixing matrix of ``head``, float64, unproven (see :func:`prove_head`)."""
        g = self.gates
        if self.kind in ("Gated DeltaNet", "DeltaNet", "KDA (Kimi Delta Attention)"):
            return delta_rule_matrix(self.q[head], self.k[head], g["beta"][head], g["alpha"][head])
        if self.kind == "Mamba-2":  # q, k: C and B
            dt, decay, d = g["dt"][head], g["log_decay"][head], float(g["D"][head])
            return ssd_matrix(self.q[head], self.k[head], dt, decay, d)
        if self.kind == "Mamba":  # a state decay per channel and state dimension
            return selective_matrix(g["C"], g["B"], g["dt"][head], g["A"][head], g["D"][head])
        if self.kind == "short convolution":  # q, k: the output and input gates C and B
            return conv_matrix(self.q[head], self.k[head], g["taps"][head])
        if self.kind == "lightning attention":  # (q_t·k_s) e^{−λ(t−s)}: SSD with Δ = 1
            n = self.q.shape[1]
            step = np.full(n, -float(g["slope"][head]))
            return ssd_matrix(self.q[head], self.k[head], np.ones(n), step)
        raise ModelError(f"layer {self.layer}: no mixing matrix for a {self.kind} layer")


def prove_head(mixing: MixingLayer, head: int, m: np.ndarray | None = None) -> np.ndarray:
    """The proven mixing matrix of ``head``: ``M @ v`` must be the kernel's own output to
    :data:`MIXING_TOLERANCE`, else :class:`ModelError` of one line naming the mechanism."""
    m = mixing.matrix(head) if m is None else m
    out = mixing.out[head]
    err = float(np.max(np.abs(m @ mixing.v[head] - out))) if out.size else 0.0
    scale = float(np.max(np.abs(out))) if out.size else 0.0
    if not err <= MIXING_TOLERANCE * scale + MIXING_FLOOR:  # NaN refuses too
        raise ModelError(
            f"layer {mixing.layer} head {head}: the {mixing.kind} mixing matrix does not "
            f"reproduce the model's own kernel output (largest difference {err:.2g}); not shown"
        )
    return m


class _DoneError(Exception):
    """Raised by the hook after the layer asked for: the rest of the pass is not needed."""


def _numpy(t) -> np.ndarray:
    return t.detach().to("cpu").double().numpy()


def _l2norm(x: np.ndarray) -> np.ndarray:
    """As transformers' (and FLA's) ``l2norm``: ``x / √(Σ x² + 1e-6)``."""
    return x / np.sqrt((x * x).sum(axis=-1, keepdims=True) + 1e-6)


def _heads_first(t) -> np.ndarray:
    """(1, n, heads, d) → (heads, n, d), float64."""
    return _numpy(t)[0].transpose(1, 0, 2)


def _gdn_layer(kind: str, layer: int, call: dict, _mixer) -> MixingLayer:
    """A Gated DeltaNet (or KDA) kernel call (its arguments and output) as a
    :class:`MixingLayer`: q and k as the kernel reads them (grouped heads repeated,
    L2-normalised when asked, q over √d_k), α = e^g (a head's, or KDA's per key channel)."""
    q, k, v = (_heads_first(call[n]) for n in ("query", "key", "value"))
    heads = v.shape[0]
    if q.shape[0] != heads:  # each query/key head serves heads / h_k value heads
        q = np.repeat(q, heads // q.shape[0], axis=0)
        k = np.repeat(k, heads // k.shape[0], axis=0)
    if call.get("use_qk_l2norm_in_kernel"):
        q, k = _l2norm(q), _l2norm(k)
    q = q / np.sqrt(q.shape[-1])
    g = _numpy(call["g"])[0]
    # (n, heads): one decay a head (Gated DeltaNet); (n, heads, d_k): one a key channel (KDA).
    g = g.T if g.ndim == 2 else g.transpose(1, 0, 2)
    beta = _numpy(call["beta"])[0].T
    gates = {"g": g, "alpha": np.exp(g), "beta": beta}
    return MixingLayer(kind, layer, q, k, v, _heads_first(call["out"]), gates)


def _ssd_layer(kind: str, layer: int, call: dict, _mixer) -> MixingLayer:
    """A Mamba-2 scan call (``mamba2_chunk_scan``) as a :class:`MixingLayer`: v is the x
    entering the scan, q and k its C and B (groups repeated over the SSM heads), Δ after
    the bias, softplus and clamp the scan applies, ``a = Δ·A`` and the D skip."""
    import torch

    x = _heads_first(call["hidden_states"])
    heads = x.shape[0]
    c, b = (_heads_first(call[n]) for n in ("C", "B"))
    c = np.repeat(c, heads // c.shape[0], axis=0)
    b = np.repeat(b, heads // b.shape[0], axis=0)
    dt = call["dt"].detach().double()
    if call.get("dt_bias") is not None:
        dt = dt + call["dt_bias"].detach().double()
    if call.get("dt_softplus"):
        dt = torch.nn.functional.softplus(dt)
    low, high = call.get("dt_limit", (0.0, float("inf")))
    dt = dt.clamp(min=low, max=high)[0].T.numpy()
    a = _numpy(call["A"])
    d = call.get("D")
    d_skip = np.zeros(heads) if d is None else _numpy(d).reshape(heads, -1)[:, 0]
    gates = {"dt": dt, "log_decay": dt * a[:, None], "D": d_skip}
    return MixingLayer(kind, layer, c, b, x, _heads_first(call["out"]), gates)


def _conv_layer(kind: str, layer: int, call: dict, mixer) -> MixingLayer:
    """A gated short convolution's B, C, x (its input projection's output, in that
    order) and ``y`` (its output projection's input) as a :class:`MixingLayer`: one head
    per channel, q and k its gates C and B, v its x, the taps of its convolution."""
    bcx = _numpy(call["in_proj"])[0]  # (n, 3 · channels)
    b, c, x = np.split(bcx, 3, axis=-1)
    taps = _numpy(mixer.conv.weight)[:, 0, :]  # (channels, K)
    bias = getattr(mixer.conv, "bias", None)
    if bias is not None and np.any(_numpy(bias) != 0):
        raise ModelError(
            f"layer {layer}: its short convolution adds a bias, which no mixing matrix holds; "
            "not shown"
        )
    out = _numpy(call["out"])[0]
    q, k, v, y = (a.T[:, :, None] for a in (c, b, x, out))  # (n, channels) → (channels, n, 1)
    return MixingLayer(kind, layer, q, k, v, y, {"taps": taps})


def _hooked_conv(mixer, calls: list):
    """Hooks on a short-convolution block's projections (their own modules: no kernel
    function to wrap) that keep B, C, x and ``y``."""
    seen = {}

    def keep_in(_module, _args, output):
        seen["in_proj"] = output

    def keep_out(_module, args):
        calls.append(seen | {"out": args[0]})

    return (
        mixer.in_proj.register_forward_hook(keep_in),
        mixer.out_proj.register_forward_pre_hook(keep_out),
    )


def _lightning_layer(kind: str, layer: int, call: dict, mixer) -> MixingLayer:
    """A lightning attention block's activated q, k, v (its projection after the
    activation) and output (its norm's input) as a :class:`MixingLayer`: the decay
    e^{−λ_h} per step of each head (MiniMax's slope rates), no softmax and no scale."""
    heads = mixer.num_attention_heads
    qkv = _numpy(call["qkv"])[0]
    n = qkv.shape[0]
    q, k, v = np.split(qkv.reshape(n, heads, -1), 3, axis=-1)
    q, k, v = (a.transpose(1, 0, 2) for a in (q, k, v))
    out = _numpy(call["out"])[0].reshape(n, heads, -1).transpose(1, 0, 2)
    slope = _numpy(mixer.slope_rate).reshape(heads)
    return MixingLayer(kind, layer, q, k, v, out, {"slope": slope})


def _hooked_lightning(mixer, calls: list):
    """Hooks on a lightning attention block (its recurrence runs inline): the activated
    q, k, v and its output before the norm."""
    seen = {}

    def keep_qkv(_module, _args, output):
        seen.setdefault("qkv", output)

    def keep_out(_module, args):
        calls.append(seen | {"out": args[0]})

    return (
        mixer.act_fn.register_forward_hook(keep_qkv),
        mixer.norm.register_forward_pre_hook(keep_out),
    )


def _selective_layer(kind: str, layer: int, call: dict, _mixer) -> MixingLayer:
    """A Mamba (1) selective scan call (``mamba_selective_scan``, Jamba's) as a
    :class:`MixingLayer`: one head per channel of the scan, v its x, Δ after the bias and
    softplus, A per channel and state dimension, B and C shared by the channels."""
    import torch

    x = _numpy(call["hidden_states"])[0][:, :, None]  # (channels, n, 1)
    dt = call["dt"].detach().double()
    if call.get("delta_bias") is not None:
        dt = dt + call["delta_bias"].detach().double()[..., None]
    if call.get("delta_softplus"):
        dt = torch.nn.functional.softplus(dt)
    dt = dt[0].numpy()  # (channels, n)
    b, c = (_numpy(call[n])[0] for n in ("B", "C"))  # as given: (state, n)
    channels = x.shape[0]
    d = call.get("D")
    d_skip = np.zeros(channels) if d is None else _numpy(d).reshape(channels)
    out = _numpy(call["out"])[0][:, :, None]
    gates = {"dt": dt, "A": _numpy(call["A"]), "D": d_skip, "B": b.T, "C": c.T}
    return MixingLayer(kind, layer, x, x, x, out, gates)


#: kind → (the kernels' names as a modeling module calls them, the names of their
#: positional arguments, what makes a :class:`MixingLayer` of a call).
KERNELS = {
    "Gated DeltaNet": (GDN_KERNELS, ("query", "key", "value", "g", "beta"), _gdn_layer),
    "KDA (Kimi Delta Attention)": (KDA_KERNELS, ("query", "key", "value", "g", "beta"), _gdn_layer),
    "Mamba-2": (
        ("mamba2_chunk_scan",),
        ("hidden_states", "dt", "A", "B", "C", "chunk_size"),
        _ssd_layer,
    ),
    "Mamba": (
        ("mamba_selective_scan",),
        ("hidden_states", "dt", "A", "B", "C", "D"),
        _selective_layer,
    ),
    # Hooked on their own modules (:func:`_hooked_conv`, :func:`_hooked_lightning`).
    "short convolution": ((), (), _conv_layer),
    "lightning attention": ((), (), _lightning_layer),
}
#: Blocks whose recurrence runs inline: hooks on their parts, in place of a kernel.
HOOKED = {"short convolution": _hooked_conv, "lightning attention": _hooked_lightning}


def _wrap(where: dict, names, positional, calls: dict, active: list) -> dict:
    """Wrap each of ``names`` found in ``where`` (a modeling module's globals, or a mixer's
    own attributes: transformers 5.0 keeps ``self.chunk_gated_delta_rule``) so its call's
    arguments (the first ones named by ``positional``) and first output land in
    ``calls[active[0]]`` while ``active[0]`` is a layer asked for (the other layers of its
    kind call the same function: None then); returns the originals (to put back)."""
    saved = {}
    for name in names:
        original = where.get(name)
        if not callable(original):
            continue
        saved[name] = original

        def wrapped(*args, __original=original, **kwargs):
            result = __original(*args, **kwargs)
            if active[0] is None:
                return result
            first = result[0] if isinstance(result, tuple) else result
            given = dict(zip(positional, args, strict=False))
            if kwargs.get("z") is not None:
                # Jamba's scan gates its output itself (y · silu(z)): the same kernel on
                # the same inputs without the gate gives the output before it.
                ungated = __original(*args, **(kwargs | {"z": None, "return_last_state": False}))
                first = ungated[0] if isinstance(ungated, tuple) else ungated
            calls[active[0]].append(given | kwargs | {"out": first})
            return result

        where[name] = wrapped
    return saved


def _mixer_of(loaded, layer: int):
    """``(kind, module)`` of model layer ``layer``'s token mixer besides softmax."""
    cfg = loaded.config
    count = getattr(cfg, "num_hidden_layers", None) or getattr(cfg, "num_layers", None) or 0
    blocks = decoder_layers(loaded.text_model, count)
    if not 0 <= layer < len(blocks):
        raise ModelError(f"layer {layer} is outside 0…{max(len(blocks) - 1, 0)}")
    block = blocks[layer]
    kind = mixer_kind(block)
    mixer = next(
        (m for n, m in block.named_children() if n in MIXER_NAMES and mixer_kind_of(m) == kind),
        None,
    )
    if kind == MLP_ONLY:
        raise ModelError(f"layer {layer} mixes no tokens (an MLP only): it has no mixing matrix")
    if kind not in KERNELS or mixer is None:
        raise ModelError(
            f"layer {layer} is a {kind or 'softmax'} layer: attnviz does not capture its "
            "mixing core; not shown"
        )
    return kind, mixer


def capture_mixing(loaded, text: str, layer: int) -> MixingLayer:
    """Run ``text`` through ``loaded`` (a :class:`~attnviz.core.hf_capture.LoadedModel`)
    and keep what the token-mixing core of model layer ``layer`` receives and returns.

    :class:`ModelError` (one line) for a layer out of range, a layer of a kind attnviz
    cannot capture, or a pass in which its core was not seen."""
    return capture_mixing_layers(loaded, text, (layer,))[layer]


def capture_mixing_layers(loaded, text: str, layers) -> dict[int, MixingLayer]:
    """:func:`capture_mixing` of every model layer in ``layers`` in one pass of ``text``
    (stopped after the last of them): ``{layer: MixingLayer}``."""
    import torch

    layers = sorted(set(int(i) for i in layers))
    if not layers:
        return {}
    ids = loaded.tokenize(text)[0]
    mixers = {layer: _mixer_of(loaded, layer) for layer in layers}
    calls: dict[int, list] = {layer: [] for layer in layers}
    active: list = [None]  # the layer asked for whose mixer is running, else None
    last = layers[-1]

    def start(layer):
        def hook(_module, _args):
            active[0] = layer

        return hook

    def stop(layer):
        def hook(_module, _args, _output):
            active[0] = None
            if layer == last:
                raise _DoneError  # the rest of the pass is not needed

        return hook

    saved: list = []  # (where, originals): each module's globals wrapped once
    wrapped: set = set()
    handles: list = []
    with loaded._lock:
        try:
            for layer, (kind, mixer) in mixers.items():
                names, positional, _build = KERNELS[kind]
                module_globals = vars(sys.modules[type(mixer).__module__])
                if (id(module_globals), names) not in wrapped:
                    wrapped.add((id(module_globals), names))
                    saved.append(
                        (module_globals, _wrap(module_globals, names, positional, calls, active))
                    )
                saved.append((vars(mixer), _wrap(vars(mixer), names, positional, calls, active)))
                handles += [
                    mixer.register_forward_pre_hook(start(layer)),
                    mixer.register_forward_hook(stop(layer)),
                ]
                if kind in HOOKED:
                    handles += HOOKED[kind](mixer, calls[layer])
            with torch.no_grad():
                loaded.text_model(
                    input_ids=torch.tensor([ids]),
                    attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                )
        except _DoneError:
            pass
        except ModelError:
            raise
        except Exception as exc:  # a model that cannot run this sentence
            raise ModelError(
                f"the model failed on this sentence: {type(exc).__name__}: {str(exc)[:160]}"
            ) from None
        finally:
            for handle in handles:
                handle.remove()
            for where, originals in reversed(saved):  # the module's own functions back
                where.update(originals)
    out = {}
    for layer, (kind, mixer) in mixers.items():
        if len(calls[layer]) != 1:
            raise ModelError(
                f"layer {layer}: its {kind} kernel ran {len(calls[layer])} times in one pass "
                "(attnviz proves one call a layer, through a kernel it knows); not shown"
            )
        out[layer] = KERNELS[kind][2](kind, layer, calls[layer][0], mixer)
    return out


def mixer_kind_of(module) -> str | None:
    """The kind (:data:`attnviz.core.hf_layers.MIXER_KINDS`) of one mixer module."""
    for sub in module.modules():
        for pattern, kind in MIXER_KINDS:
            if pattern.search(type(sub).__name__):
                return kind
    return None
