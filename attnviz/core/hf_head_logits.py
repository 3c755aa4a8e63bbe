"""Each head's direct effect on the target's logit: an attribution, not a proof.

A decoder's residual stream at the predicted position is a sum of what writes to it: the
embeddings, then each layer's attention and MLP. A softmax layer's attention write is
its heads' outputs through their slices of the output projection (head h's part of
W^O's input times W^O's columns of h; the projection's bias is no head's), through a
norm on the attention's output where the family has one (Gemma's post-attention norm)
with its scale frozen at the clean run. The final norm, its scale frozen at the clean
run too (RMSNorm: the clean residual's RMS; LayerNorm: its standard deviation, and a
term's own mean subtracted), and the unembedding row of the target then map each term to
a number; their sum is the model's logit of the target. Freezing the scales makes the map
linear, which is what lets a head own a share of the logit; the model itself is not
linear, so a head's term is what it writes *directly*, not what removing it would do (the
ablation map measures that).

The logit is the target's **minus the mean over the vocabulary** (softmax ignores a
shift, so this is the part of the logit that moves a probability), and it is the logit
**before** a final softcap (Gemma's ``c · tanh(z / c)`` is not linear: a share of ``z``
is defined, a share of the capped logit is not).

Every assumption is checked on the model's own clean run, and refused in one line
(:class:`~attnviz.core.hf_errors.ModelError`) where it fails: each layer's output is its
input plus its attention and MLP writes, the heads add up to W^O's output, the frozen
norms reproduce the norms' outputs and the unembedding reproduces the model's logits (times
its logit scale, a linear step, where the family has one: Cohere, Granite).
A masked-LM encoder is refused: its head transforms the residual (dense, GELU, LayerNorm)
before the unembedding, so no head owns a share of a logit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_forward import _forward
from attnviz.core.hf_lm_head import LmHead, out_projection
from attnviz.core.hf_predict import _prepare, _shapes, _target, _token

__all__ = ["HeadLogits", "head_logits"]

#: Names of a layer's MLP among its children across families (Llama's mlp, LFM2's
#: feed_forward, Mixtral's block_sparse_moe).
MLP_NAMES = ("mlp", "feed_forward", "ffn", "block_sparse_moe", "moe")
#: How near two vectors of the clean run must be (relative to their size) to be the same.
NEAR = 1e-4


@dataclass(frozen=True)
class HeadLogits:
    """The direct terms of the target's logit (minus the vocabulary's mean, before a final
    softcap) at ``position``; ``values`` (layers, heads) float64 holds the heads' (NaN where
    a layer is not softmax attention or has fewer heads). The other writers: ``embeddings``,
    per layer ``bias`` (the output projection's bias and a post-attention norm's bias),
    ``mlp``, ``mixer`` (the whole token mixer of a layer that is not softmax attention: its
    write minus its MLP's; 0 elsewhere) and ``constant`` (the final norm's and the
    unembedding's biases). They sum to ``logit``."""

    values: np.ndarray
    embeddings: float
    bias: np.ndarray  # (layers,)
    mlp: np.ndarray  # (layers,)
    mixer: np.ndarray  # (layers,)
    constant: float
    logit: float  # the clean run's target logit minus the vocabulary's mean, pre-softcap
    softcap: float | None  # the model's final logit softcap, when it has one
    target: int
    target_token: str
    position: int

    def total(self) -> float:
        """The sum of every term: equal to :attr:`logit` up to float rounding."""
        heads = float(np.nansum(self.values))
        rest = float(self.bias.sum() + self.mlp.sum() + self.mixer.sum())
        return heads + rest + self.embeddings + self.constant


# --- linear maps frozen at the clean run ------------------------------------------------


def _near(a, b) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    scale = 1.0 + max(float(np.abs(a).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
    return a.shape == b.shape and float(np.abs(a - b).max(initial=0.0)) <= NEAR * scale


class _Frozen:
    """A norm as the linear map it is at one input: ``t ↦ (t − mean t if centred) · scale``,
    plus ``bias`` (the norm's own, written once, not by any term)."""

    def __init__(self, scale: np.ndarray, centred: bool, bias: np.ndarray) -> None:
        self.scale, self.centred, self.bias = scale, centred, bias

    def __call__(self, t: np.ndarray) -> np.ndarray:
        t = np.asarray(t, np.float64)
        if self.centred:
            t = t - t.mean(axis=-1, keepdims=True)
        return t * self.scale

    @staticmethod
    def identity(width: int) -> _Frozen:
        return _Frozen(np.ones(width), False, np.zeros(width))


def _freeze(norm, x: np.ndarray, y: np.ndarray, name: str, what: str) -> _Frozen:
    """``norm`` frozen at its clean input ``x`` (output ``y``): an RMSNorm (weight w, or
    Gemma's 1 + w) or a LayerNorm (centred, with a bias), whichever reproduces ``y``; its
    one scalar 1 / RMS (or 1 / std) is fitted to ``y``, so the norm's epsilon is its own."""
    weight = getattr(norm, "weight", None)
    bias = getattr(norm, "bias", None)
    w = None if weight is None else weight.detach().double().cpu().numpy().reshape(-1)
    b = np.zeros_like(x) if bias is None else bias.detach().double().cpu().numpy().reshape(-1)
    gains = [np.ones_like(x)] if w is None else [w, 1.0 + w]
    best = None
    for gain in gains:
        for centred in (False, True):
            z = (x - x.mean() if centred else x) * gain
            zz = float(z @ z)
            if zz == 0.0:
                continue
            k = float((y - b) @ z) / zz  # the frozen 1/RMS, or 1/std
            err = float(np.abs(k * z + b - y).max())
            if best is None or err < best[0]:
                best = (err, _Frozen(k * gain, centred, b))
    if best is None or not _near(best[1](x) + best[1].bias, y):
        raise ModelError(
            f"{name}: {what} is neither an RMSNorm nor a LayerNorm attnviz can freeze, so a "
            "head's direct effect is not defined"
        )
    return best[1]


def _matrix(proj, width: int):
    """W^O as (inputs, outputs) float64, and its bias (outputs,) or zeros: nn.Linear keeps
    (outputs, inputs), GPT-2's Conv1D (inputs, outputs)."""
    weight = proj.weight.detach().double().cpu().numpy()
    m = weight if type(proj).__name__ == "Conv1D" else weight.T
    bias = getattr(proj, "bias", None)
    b = np.zeros(m.shape[1]) if bias is None else bias.detach().double().cpu().numpy()
    return m, b


def _mlp(head: LmHead, layer: int):
    block = head.layers[layer]
    found = [m for n, m in block.named_children() if n in MLP_NAMES]
    if len(found) != 1:
        raise ModelError(
            f"{head.loaded.info.name}: layer {layer}'s MLP is not where attnviz looks "
            f"({len(found)} candidates), so its direct terms cannot be told apart"
        )
    return found[0]


def _norms(head: LmHead, layer: int) -> list:
    """The norms a block applies itself (its children), where a post-norm may be."""
    return [
        m for _n, m in head.layers[layer].named_children() if "norm" in type(m).__name__.lower()
    ]


# --- the clean run, recorded ---------------------------------------------------------


def _first(value):
    return value[0] if isinstance(value, (tuple, list)) else value


class _Recorder:
    """Forward hooks that keep, at one position of row 0, what each module took and gave."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.seen: dict = {}  # (key, "in" | "out") → (width,) float64
        self.hooks: list = []

    def _keep(self, key, side, value) -> None:
        value = _first(value)
        self.seen[(key, side)] = value[0, self.at].detach().double().cpu().numpy().copy()

    def watch(self, module, key, *, inputs: bool = True, outputs: bool = True) -> None:
        if inputs:

            def pre(_m, args, kwargs):
                first = args[0] if args else kwargs.get("hidden_states")
                self._keep(key, "in", next(iter(kwargs.values())) if first is None else first)

            self.hooks.append(module.register_forward_pre_hook(pre, with_kwargs=True))
        if outputs:
            self.hooks.append(
                module.register_forward_hook(lambda _m, _a, out: self._keep(key, "out", out))
            )

    def get(self, key, side):
        return self.seen.get((key, side))

    def need(self, key, side, name: str, what: str):
        """What ``key`` took or gave, or ModelError: the module did not run in the pass."""
        found = self.get(key, side)
        if found is None:
            raise ModelError(f"{name}: {what} does not run where attnviz looks")
        return found

    def remove(self) -> None:
        for h in self.hooks:
            h.remove()


def _post_norm(rec: _Recorder, layer: int, norms: list, raw, name: str, what: str):
    """The frozen norm of the block that takes ``raw`` (a post-norm on it), else identity."""
    for i, _norm in enumerate(norms):
        x = rec.get(("norm", layer, i), "in")
        if x is not None and _near(x, raw):
            return _freeze(norms[i], x, rec.get(("norm", layer, i), "out"), name, what)
    return _Frozen.identity(raw.shape[0])


def head_logits(loaded, text: str, *, position: int | None = None, target=None) -> HeadLogits:
    """Each head's direct effect on the target's logit at ``position`` (default: the last
    token), minus the vocabulary's mean and before a final softcap, with the final norm's
    (and a post-attention norm's) scale frozen at the clean run; ``target`` a token, an id,
    or None for the clean top-1. See the module's docstring for what is checked."""
    import torch

    head, ids, _tokens, at = _prepare(loaded, text, position)
    name = loaded.info.name
    if head.masked:
        raise ModelError(
            f"{name}: a masked-LM head transforms the residual (dense, GELU, LayerNorm) before "
            "its unembedding, so a head has no direct share of a logit; decoders only"
        )
    with loaded._lock:
        if head.heads is None:  # the model's first run: which layers are softmax attention
            head.heads, head.head_dims = _shapes(head, _forward(head, ids, at).called)
        layers = len(head.layers)
        rec = _Recorder(at)
        projs, norms = {}, {}
        rec.watch(head.layers[0], "embed", outputs=False)
        final = head.final_norm()
        if final is not None:
            rec.watch(final, "final")
        for layer in range(layers):
            count, dim = head.heads.get(layer, 0), head.head_dims.get(layer, 0)
            if count and dim:
                projs[layer] = out_projection(head, layer, count * dim)
                rec.watch(projs[layer], ("proj", layer))
            rec.watch(_mlp(head, layer), ("mlp", layer), inputs=False)
            norms[layer] = _norms(head, layer)
            for i, norm in enumerate(norms[layer]):
                rec.watch(norm, ("norm", layer, i))
        try:
            run = _forward(head, ids, at, residuals=True)
        finally:
            rec.remove()
        with torch.no_grad():
            return _attribute(head, rec, run, projs, norms, target, at)


def _attribute(head: LmHead, rec: _Recorder, run, projs, norms, target, at) -> HeadLogits:
    name = head.loaded.info.name
    layers = len(head.layers)
    residual = run.residuals[:, 0, at].double().cpu().numpy()  # after each layer
    last = residual[-1]
    final_norm = head.final_norm()
    if final_norm is None:
        final, normed = _Frozen.identity(last.shape[0]), last
    else:
        if not _near(rec.need("final", "in", name, "its final norm"), last):
            raise ModelError(f"{name}: the final norm does not take the last layer's output")
        normed = rec.get("final", "out")
        final = _freeze(final_norm, last, normed, name, "its final norm")
    unembed = head.wrapper.get_output_embeddings()
    weight = getattr(unembed, "weight", None)
    vocab = run.logits.shape[-1]
    if weight is None or tuple(weight.shape) != (vocab, last.shape[0]):
        raise ModelError(f"{name}: its unembedding is not a linear layer attnviz can read")
    w_u = weight.detach().double().cpu().numpy()
    b_u = getattr(unembed, "bias", None)
    b_u = np.zeros(vocab) if b_u is None else b_u.detach().double().cpu().numpy()
    z = w_u @ normed + b_u  # the logits before a final softcap
    cap = getattr(head.wrapper.config, "final_logit_softcapping", None)
    cap = float(cap) if cap else None
    clean = run.logits[0].cpu().numpy()
    if not _near(z if cap is None else cap * np.tanh(z / cap), clean):
        # A logit scale (Cohere multiplies, Granite divides) is linear: part of the row.
        zz = float(z @ z)
        scale = float(clean @ z) / zz if zz else 0.0
        if cap is not None or not _near(scale * z, clean):
            raise ModelError(
                f"{name}: its logits are more than a scaled unembedding of the final norm's "
                "output, so a head's direct effect is not defined"
            )
        w_u, b_u, z = scale * w_u, scale * b_u, scale * z
    goal = _target(head.loaded, target, clean)
    u = w_u[goal] - w_u.mean(axis=0)  # the target's row minus the vocabulary's mean

    def logit(t) -> float:
        return float(final(t) @ u)

    heads_max = max(head.heads.values(), default=0)
    values = np.full((layers, heads_max), np.nan)
    bias, mlp, mixer = np.zeros(layers), np.zeros(layers), np.zeros(layers)
    before = rec.need("embed", "in", name, "its first layer")
    embeddings = logit(before)
    for layer in range(layers):
        after = residual[layer]
        raw_mlp = rec.need(("mlp", layer), "out", name, f"layer {layer}'s MLP")
        post_mlp = _post_norm(rec, layer, norms[layer], raw_mlp, name, f"layer {layer}'s MLP norm")
        mlp_write = post_mlp(raw_mlp) + post_mlp.bias
        mlp[layer] = logit(mlp_write)
        if layer not in projs:
            mixer[layer] = logit(after - before - mlp_write)
            before = after
            continue
        count, dim = head.heads[layer], head.head_dims[layer]
        what = f"layer {layer}'s attention output projection"
        x, o = (
            rec.need(("proj", layer), "in", name, what),
            rec.need(("proj", layer), "out", name, what),
        )
        m, b = _matrix(projs[layer], count * dim)
        per_head = np.stack(
            [x[h * dim : (h + 1) * dim] @ m[h * dim : (h + 1) * dim] for h in range(count)]
        )
        if not _near(per_head.sum(axis=0) + b, o):
            raise ModelError(f"{name}: layer {layer}'s heads do not add up to its W^O output")
        post = _post_norm(rec, layer, norms[layer], o, name, f"layer {layer}'s attention norm")
        written = post(per_head)
        attn_write = written.sum(axis=0) + post(b) + post.bias
        if not _near(before + attn_write + mlp_write, after):
            raise ModelError(
                f"{name}: layer {layer}'s output is not its input plus its attention and MLP "
                "(a block attnviz does not decompose), so a head's direct effect is not defined"
            )
        values[layer, :count] = [logit(t) for t in written]
        bias[layer] = logit(post(b) + post.bias)
        before = after
    constant = float(final.bias @ u + b_u[goal] - b_u.mean())
    result = HeadLogits(
        values,
        embeddings,
        bias,
        mlp,
        mixer,
        constant,
        float(z[goal] - z.mean()),
        cap,
        goal,
        _token(head.loaded, goal),
        at,
    )
    if abs(result.total() - result.logit) > NEAR * (1.0 + abs(result.logit)):
        raise ModelError(f"{name}: the direct terms do not add up to the target's logit")
    return result
