"""What the attention resolver reads before it computes: the mask its fields describe
(causal, padding, documents, a window, chunks, a real model's own selection) and the rotary
frequencies and rotation of q and k (the positions topic's RoPE). Split from
:mod:`attnviz.model.resolve.attention`, which imports them from here."""

from __future__ import annotations

import numpy as np

from attnviz.core import masks
from attnviz.core.rope import apply_rope, rope_frequencies
from attnviz.model.topics.attention import AttentionState
from attnviz.model.topics.positions import PositionsState, scaling_dict

#: Fields of the positions topic that change the rotation (the dial's positions do not).
ROPE_KEYS = frozenset(
    {
        "base",
        "rope_type",
        "factor",
        "original_context",
        "low_freq_factor",
        "high_freq_factor",
        "beta_fast",
        "beta_slow",
    }
)


def mask_key(state: AttentionState) -> tuple:
    """The mask settings of ``state`` as a hashable key (equal keys, equal masks)."""
    return (
        state.n,
        state.causal,
        state.padding,
        state.segments,
        state.window,
        state.window_causal,
        state.chunk,
        model_mask_key(state.head, state.model_path, state.model_text, state.layer),
    )


def model_mask_key(head: str, path: str, text: str, layer: int) -> tuple | None:
    """What a real model's head adds to the mask, hashable: the model layer whose keys a
    sparse-attention indexer chose (DeepSeek-V3.2), looked up when the mask is made."""
    return (path, text, layer) if head == "model" else None


def _model_selection(key: tuple) -> np.ndarray | None:
    """The keys each query may read in a real model's layer (a DSA indexer's choice,
    proven), or None when the layer reads them all."""
    from attnviz.model import real_model  # the model chain, on first use only

    path, text, layer = key
    try:
        cap = real_model.STORE.capture(path, text)
        if cap.captured(layer) is None:
            return None  # a hybrid's other layer: causal, no indexer
        return cap.layer(layer).selected
    except real_model.ModelError as exc:
        raise ValueError(str(exc)) from None


def mask_from_key(key: tuple) -> np.ndarray | None:
    """The combined may-attend mask for a :func:`mask_key` (a key without its last
    entries, the chunk and the model's, has none), or None when all are off."""
    n, causal, padding, segments, window, window_causal, *rest = key
    chunk = rest[0] if rest else 0
    selection = _model_selection(rest[1]) if len(rest) > 1 and rest[1] is not None else None
    parts = []
    if causal:
        parts.append(masks.causal_mask(n))
    if not all(padding):
        parts.append(masks.padding_mask(np.array(padding, dtype=bool)))
    if len(set(segments)) > 1:
        parts.append(masks.document_mask(np.array(segments)))
    if window > 0:
        parts.append(masks.sliding_window_mask(n, window, causal=window_causal))
    if 0 < chunk < n:  # a chunk as long as the sentence hides nothing
        parts.append(masks.chunked_mask(n, chunk))
    if selection is not None and selection.shape == (n, n):
        parts.append(selection)
    if not parts:
        return None
    return np.broadcast_to(masks.combine(*parts), (n, n)).copy()


def build_mask(state: AttentionState) -> np.ndarray | None:
    """The combined may-attend mask of the state's mask settings, or None when all are off."""
    return mask_from_key(mask_key(state))


def rotate(q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray) -> tuple:
    """Q and K turned by token index: pair i of row m by m·θ_i (interleaved pairs).

    With an odd width the last dimension has no partner and stays as it is.
    """
    pairs = inv_freq.shape[0]
    if pairs == 0:
        return q, k
    pos = np.arange(q.shape[0], dtype=np.float64)
    out = []
    for x in (q, k):
        y = np.array(x, dtype=np.float64)
        y[:, : 2 * pairs] = apply_rope(x[:, : 2 * pairs], pos, inv_freq, layout="interleaved")
        out.append(y)
    return tuple(out)


def rope_width(state: AttentionState) -> int:
    """How many leading dimensions RoPE turns: ``rope_dims`` (0 = all), at most d_k."""
    dims = state.rope_dims
    return state.d_k if dims == 0 else min(dims, state.d_k)


def rope_key(state: AttentionState, positions: PositionsState) -> tuple | None:
    """What the rotation depends on, hashable: ``(width, positions fields)``; None when
    RoPE is off."""
    if not state.rope:
        return None
    fields = tuple((name, positions.get(name)) for name in sorted(ROPE_KEYS))
    return (rope_width(state), fields)


def rope_frequencies_for(d_k: int, positions: dict) -> np.ndarray:
    """θ_i for the pairs of a d_k-wide head (an odd d_k leaves its last dimension out)."""
    width = d_k - d_k % 2
    if width < 2:
        return np.zeros(0)
    return rope_frequencies(width, positions["base"], scaling_dict(positions))
