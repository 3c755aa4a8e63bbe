"""A loaded model's own language-model head, and where its layers' W^O is.

The head is the family's ``…ForCausalLM`` or ``…ForMaskedLM`` class built around the
loaded model, its tensors read from the folder (or tied as the family ties them), so its
logits, final softcap and logit scale are the model's own. torch and transformers are
imported only when a head is built. Every refusal is a one-line
:class:`~attnviz.core.hf_errors.ModelError`.
"""

from __future__ import annotations

import copy
import weakref
from pathlib import Path

from attnviz.core.hf_errors import ModelError

__all__ = ["LmHead", "lm_head", "out_projection", "out_projection_widths"]

#: Last names of a layer's attention output projection (W^O) across families: Llama's
#: o_proj, GPT-2's c_proj, BERT's attention.output.dense, OPT's out_proj, T5-like wo.
_OUT_NAMES = ("o_proj", "c_proj", "out_proj", "dense", "wo", "o", "out")


class LmHead:
    """A loaded model with its language-model head: the family's head class (built on
    the meta device, its base replaced by the loaded model, the head's tensors read from
    the folder or tied as the family ties them), the model's layers and final norm."""

    def __init__(self, loaded) -> None:
        import torch
        import transformers

        from attnviz.core.hf_config import is_encoder_config
        from attnviz.core.hf_layers import decoder_layers

        info = loaded.info
        name = info.name
        if info.wrapper is not None:
            raise ModelError(
                f"{name}: predictions of a multimodal folder's language model are not supported yet"
            )
        self.masked = is_encoder_config(info.config)
        auto = (
            transformers.AutoModelForMaskedLM if self.masked else transformers.AutoModelForCausalLM
        )
        what = "masked-LM" if self.masked else "causal-LM"
        config = loaded.model.config
        try:
            cls = auto._model_mapping[type(config)]
        except (KeyError, ValueError):
            raise ModelError(
                f"{name}: transformers has no {what} head for {info.model_type}; it predicts "
                "no token"
            ) from None
        with torch.device("meta"):  # nothing allocated: the base is replaced next
            wrapper = cls(copy.deepcopy(config))
        self.prefix = wrapper.base_model_prefix
        if not isinstance(getattr(wrapper, self.prefix, None), torch.nn.Module):
            raise ModelError(f"{name}: {cls.__name__} keeps its model where attnviz cannot find it")
        setattr(wrapper, self.prefix, loaded.model)
        self._fill(wrapper, info, torch)
        wrapper.eval()
        self.wrapper = wrapper
        self.loaded = loaded
        self.base = loaded.model
        self.layers = decoder_layers(self.base, loaded._shape()[0])
        if not self.layers:
            raise ModelError(f"{name}: attnviz finds no list of its layers to intervene in")
        #: The ModuleList holding them, whose entries a replay swaps
        #: (:func:`attnviz.core.hf_predict._forward`).
        self.layer_list = next(
            m
            for m in self.base.modules()
            if isinstance(m, torch.nn.ModuleList) and len(m) and m[0] is self.layers[0]
        )
        self.layer_of = {id(m): i for i, block in enumerate(self.layers) for m in block.modules()}
        self._norm: list | None = None  # [the final norm or None], found when first asked
        self.mask_id = getattr(loaded.tokenizer, "mask_token_id", None)
        #: layer → query heads, and → each head's width of W^O's input, learned by the
        #: model's first run (:func:`attnviz.core.hf_predict._shapes`): the layers whose
        #: attention is softmax.
        self.heads: dict | None = None
        self.head_dims: dict = {}

    @staticmethod
    def _fill(wrapper, info, torch) -> None:
        """Give the head's tensors (still on the meta device) their values: from the
        folder's safetensors under the head class's names, else tied as the family ties
        them; :class:`ModelError` naming the model when its folder holds no head."""
        from safetensors import safe_open

        wanted = {
            n
            for n, t in (
                *wrapper.named_parameters(remove_duplicate=False),
                *wrapper.named_buffers(remove_duplicate=False),
            )
            if t.is_meta
        }
        found = {}
        for file in info.weight_files:
            with safe_open(str(Path(info.path) / file), framework="pt") as fh:
                for key in wanted.intersection(fh.keys()):
                    found[key] = fh.get_tensor(key).to(torch.float32).clone()
        if found:
            wrapper.load_state_dict(found, strict=False, assign=True)
        # The output embedding tied to the input one where the family ties them and the
        # folder keeps one of the two (a folder keeping both, different, keeps both).
        for target, source in wrapper.get_expanded_tied_weights_keys(all_submodels=True).items():
            there = wrapper.get_parameter_or_buffer(target)
            given = wrapper.get_parameter_or_buffer(source)
            if there.is_meta != given.is_meta:
                name, value = (target, given) if there.is_meta else (source, there)
                owner, _, attr = name.rpartition(".")
                setattr(wrapper.get_submodule(owner), attr, value)
        left = sorted(
            n for n, t in (*wrapper.named_parameters(), *wrapper.named_buffers()) if t.is_meta
        )
        if left:
            names = info.config.get("architectures") or [info.model_type]
            raise ModelError(
                f"{info.name} ({', '.join(map(str, names))[:60]}) has no language-model head "
                f"in its weights ({left[0][:60]} is missing): it predicts no token"
            )

    def final_norm(self):
        """The norm the base model applies after its last layer (Llama's norm, GPT-2's
        ln_f: a norm among its modules registered after its list of layers), or None
        where there is none (BERT's layers end in their own LayerNorm)."""
        if self._norm is not None:
            return self._norm[0]
        children = list(self.base.children())
        first = id(self.layers[0])
        after = next(
            (i for i, c in enumerate(children) if any(id(m) == first for m in c.modules())),
            len(children),
        )
        # Registered after the layers: BLOOM's norm of the embeddings comes before them.
        norms = [c for c in children[after + 1 :] if "norm" in type(c).__name__.lower()]
        if len(norms) > 1:
            raise ModelError(
                f"{self.loaded.info.name}: {len(norms)} final norms; attnviz cannot tell which "
                "one the logit lens should use"
            )
        self._norm = [norms[0] if norms else None]
        return self._norm[0]

    def head_logits(self, hidden, norm: bool = True):
        """The family's own head on residual streams ``hidden`` (B, S, width): the final
        norm (unless ``norm`` is False: the base model's output, already through it),
        then the wrapper's forward with its base answering them (so a final softcap or
        logit scale of the family applies as in its forward pass)."""
        import torch

        final = self.final_norm() if norm else None
        normed = hidden if final is None else final(hidden)

        class _Given(torch.nn.Module):  # the base model, answering the given streams
            def forward(self, *args, **kwargs):
                return _Streams(normed)

        setattr(self.wrapper, self.prefix, _Given())
        try:
            ids = torch.zeros(hidden.shape[:2], dtype=torch.long)
            return self.wrapper(input_ids=ids).logits
        finally:
            setattr(self.wrapper, self.prefix, self.base)


class _Streams:
    """What a base model's forward returns, as a head's forward reads it: the last hidden
    state (by name or as ``[0]``) and None for what else it may ask (GPT-2's cross
    attentions, the cache)."""

    def __init__(self, hidden) -> None:
        self.last_hidden_state = hidden

    def __getitem__(self, index):
        return (self.last_hidden_state,)[index]

    def __getattr__(self, name):  # only names not set above
        return None


_HEADS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def lm_head(loaded) -> LmHead:
    """The :class:`LmHead` of ``loaded``, built once per loaded model (and dropped with it)."""
    head = _HEADS.get(loaded)
    if head is None:
        head = _HEADS[loaded] = LmHead(loaded)
    return head


def _in_width(module) -> int | None:
    """The input width of a linear layer (nn.Linear, or GPT-2's transposed Conv1D)."""
    if hasattr(module, "in_features"):
        return int(module.in_features)
    if type(module).__name__ == "Conv1D" and hasattr(module, "nx"):
        return int(module.nx)
    return None


def _projection_candidates(head: LmHead, layer: int) -> list:
    """The modules of ``layer`` that may be its W^O: named as the families name it, under
    its attention."""
    return [
        m
        for path, m in head.layers[layer].named_modules()
        if path.rsplit(".", 1)[-1] in _OUT_NAMES
        and any(w in path.lower() for w in ("attn", "attention"))
    ]


def out_projection_widths(head: LmHead, layer: int) -> set[int]:
    """The input widths of the modules of ``layer`` that may be its W^O (several where
    its names are ambiguous, none where attnviz finds no candidate)."""
    return {w for w in map(_in_width, _projection_candidates(head, layer)) if w is not None}


def out_projection(head: LmHead, layer: int, width: int):
    """The output projection (W^O) of ``layer``: the one linear layer of the block named
    as the families name it, under its attention, that takes ``width`` inputs;
    :class:`ModelError` where there is not exactly one."""
    found = [m for m in _projection_candidates(head, layer) if _in_width(m) == width]
    if len(found) != 1:
        raise ModelError(
            f"{head.loaded.info.name}: layer {layer}'s attention output projection "
            f"({width} inputs) is not where attnviz looks ({len(found)} candidates)"
        )
    return found[0]
