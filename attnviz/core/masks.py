"""Boolean attention masks: True means "this query may attend to this key".

Every mask broadcasts against scores of shape ``(..., n_q, n_k)``; pass one (or a
:func:`combine` of several) as ``mask=`` to :func:`attnviz.core.attention.attention`.
Keeping masks as separate, swappable arrays means a masking strategy changes without
touching the projections.
"""

from __future__ import annotations

import numpy as np

from attnviz.core._validate import check_positive_int


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Query i sees key j iff ``j ≤ i + max(n_k − n_q, 0)``.

    With ``n_k > n_q`` the queries are the last ``n_q`` positions of the keys (decoding
    with a cache), so the diagonal is aligned to the bottom right.
    """
    n_q = check_positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else check_positive_int(n_k, "n_k")
    offset = max(n_k - n_q, 0)
    i = np.arange(n_q)[:, None]
    j = np.arange(n_k)[None, :]
    return j <= i + offset


def padding_mask(valid) -> np.ndarray:
    """Hide the keys whose flag in ``valid`` (shape ``(..., n_k)``) is False from every query.

    Returns shape ``(..., 1, n_k)``, which broadcasts over the query axis.
    """
    v = np.asarray(valid)
    if v.ndim < 1 or v.shape[-1] == 0:
        raise ValueError(f"padding_mask: valid must be a non-empty 1-D flag array, got {v.shape}")
    if v.dtype != np.bool_:
        if np.issubdtype(v.dtype, np.number) and np.isin(v, (0, 1)).all():
            v = v.astype(bool)
        else:
            raise ValueError(f"padding_mask: valid must be boolean flags, got dtype {v.dtype}")
    return v[..., None, :]


def document_mask(segment_ids) -> np.ndarray:
    """Query i sees key j iff both lie in the same packed document (equal segment id)."""
    s = np.asarray(segment_ids)
    if s.ndim < 1 or s.shape[-1] == 0:
        raise ValueError(f"document_mask: segment_ids must be a non-empty array, got {s.shape}")
    if not np.issubdtype(s.dtype, np.integer):
        raise ValueError(f"document_mask: segment ids must be integers, got dtype {s.dtype}")
    return s[..., :, None] == s[..., None, :]


def sliding_window_mask(n: int, window: int, causal: bool = True) -> np.ndarray:
    """Query i sees key j iff ``0 ≤ i − j < window`` (``|i − j| < window`` when not causal)."""
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
    d = np.arange(n)[:, None] - np.arange(n)[None, :]
    if causal:
        return (d >= 0) & (d < window)
    return np.abs(d) < window


def chunked_mask(n: int, chunk: int) -> np.ndarray:
    """Query i sees key j iff both are in the same chunk of ``chunk`` tokens
    (``i // chunk == j // chunk``): Llama 4's chunked attention, with :func:`causal_mask`."""
    n = check_positive_int(n, "n")
    chunk = check_positive_int(chunk, "chunk")
    block = np.arange(n) // chunk
    return block[:, None] == block[None, :]


def combine(*masks) -> np.ndarray:
    """Logical AND of masks, broadcast together (``None`` entries are skipped)."""
    present = [np.asarray(m) for m in masks if m is not None]
    if not present:
        raise ValueError("combine: give at least one mask")
    for m in present:
        if m.dtype != np.bool_:
            raise ValueError(f"combine: masks must be boolean, got dtype {m.dtype}")
    try:
        return np.logical_and.reduce(np.broadcast_arrays(*present))
    except ValueError as exc:
        shapes = ", ".join(str(m.shape) for m in present)
        raise ValueError(f"combine: mask shapes do not broadcast: {shapes}") from exc
