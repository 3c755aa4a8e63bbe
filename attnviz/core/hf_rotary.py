"""The rotary layout of a real model's layer: which dimensions RoPE pairs, and how fast
each pair turns (for the attribution panel's split of a score by pair).

The captured q and k are already rotated (:mod:`attnviz.core.hf_record`), so the split of a
score needs only the pairing and, to label the pairs, their frequencies. transformers rotates
most families with ``rotate_half`` (pairs ``(i, i + w/2)``); the families of
:data:`INTERLEAVED` rotate ``(2i, 2i+1)`` (their modeling files' ``rotate_every_two`` or
an interleaved ``rotate_half``). The frequencies are the model's own ``inv_freq`` buffer
(its scaling applied), the one of the layer's type where a model keeps one per type
(Gemma 3's sliding and full layers).
"""

from __future__ import annotations

import numpy as np

#: model_type → rotates pairs (2i, 2i+1) in transformers' modeling file.
INTERLEAVED = frozenset({"gptj", "codegen", "glm", "glm4", "cohere", "cohere2"})
#: GPT-J and CodeGen compute their sinusoids from this base, not from the config.
_GPTJ_BASE = 10000.0


def _layer_type(config, layer: int) -> str | None:
    types = getattr(config, "layer_types", None)
    if isinstance(types, (list, tuple)) and 0 <= layer < len(types):
        return str(types[layer])
    return None


def _buffers(module) -> dict[str, np.ndarray]:
    out = {}
    for name, buf in module.named_buffers():
        last = name.rsplit(".", 1)[-1]
        if last.endswith("inv_freq") and "original" not in last:
            out[last] = buf.detach().to("cpu").double().numpy()
    return out


def rotary_layout(model_type: str, config, module, layer: int) -> tuple[str, np.ndarray]:
    """``(layout, inv_freq)`` of model layer ``layer``: ``"half"`` or ``"interleaved"``,
    and the θ_i of its rotated pairs, fastest first (empty: a layer without RoPE, such
    as Llama 4's NoPE layers or GPT-2's).

    ``module`` is the language model (its buffers are searched), ``config`` its text config.
    """
    layout = "interleaved" if model_type in INTERLEAVED else "half"
    no_rope = getattr(config, "no_rope_layers", None)
    if isinstance(no_rope, (list, tuple)) and 0 <= layer < len(no_rope) and not no_rope[layer]:
        return layout, np.zeros(0)
    if getattr(config, "qk_nope_head_dim", None) and getattr(config, "qk_rope_head_dim", None):
        # MLA (DeepSeek-V2/V3) turns the LAST qk_rope_head_dim dimensions of a head, after
        # its unrotated ones: the split stays exact, but no pair is labelled with a period
        # rather than the wrong pairs.
        return layout, np.zeros(0)
    if model_type in ("gptj", "codegen"):
        rot = getattr(config, "rotary_dim", None)
        if not rot:
            return layout, np.zeros(0)
        return layout, 1.0 / _GPTJ_BASE ** (np.arange(0, int(rot), 2, dtype=np.float64) / rot)
    found = _buffers(module)
    if not found:
        return layout, np.zeros(0)
    kind = _layer_type(config, layer)
    for name, inv in found.items():
        if kind is not None and name.startswith(kind):
            return layout, inv
    return layout, next(iter(found.values()))
