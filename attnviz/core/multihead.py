"""Multi-head attention with grouped-query (GQA) and multi-query (MQA) key/value heads.

Heads are contiguous column blocks: head h owns columns ``h·d_head … (h+1)·d_head − 1``
(what ``x.view(n, h, d_head)`` does). With ``n_kv_heads`` KV heads, query head h reads
KV head ``h // (n_heads / n_kv_heads)``, as torch's ``enable_gqa`` and Hugging Face's
``repeat_kv`` do.
"""

from __future__ import annotations

import numpy as np

from attnviz.core._validate import as_float_array, check_positive_int
from attnviz.core.attention import attention


def split_heads(x, n_heads: int) -> np.ndarray:
    """``(..., n, h·d_head)`` → ``(..., h, n, d_head)``."""
    x = as_float_array(x, "x")
    n_heads = check_positive_int(n_heads, "n_heads")
    width = x.shape[-1]
    if width % n_heads:
        raise ValueError(f"n_heads={n_heads} does not divide the model width {width}")
    d_head = width // n_heads
    y = x.reshape(x.shape[:-1] + (n_heads, d_head))
    return np.swapaxes(y, -2, -3)


def merge_heads(x) -> np.ndarray:
    """``(..., h, n, d_head)`` → ``(..., n, h·d_head)``: concatenate the heads."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"merge_heads expects (..., h, n, d_head), got shape {x.shape}")
    y = np.swapaxes(x, -2, -3)
    return y.reshape(y.shape[:-2] + (y.shape[-2] * y.shape[-1],))


def repeat_kv(x: np.ndarray, n_rep: int) -> np.ndarray:
    """Repeat each KV head ``n_rep`` times along the head axis (``(..., h_kv, n, d)``)."""
    return np.repeat(x, n_rep, axis=-3) if n_rep > 1 else x


def multi_head_attention(
    x,
    w_q,
    w_k,
    w_v,
    w_o,
    *,
    n_heads: int,
    n_kv_heads: int | None = None,
    mask=None,
    scale: bool = True,
    temperature: float = 1.0,
):
    """Project, split into heads, attend per head, concatenate and mix with ``w_o``.

    Parameters
    ----------
    x : ``(..., n, d_model)``
    w_q : ``(d_model, n_heads·d_head)``
    w_k, w_v : ``(d_model, n_kv_heads·d_head)``
    w_o : ``(n_heads·d_head, d_out)``
    n_heads, n_kv_heads : query heads and KV heads (``n_kv_heads`` divides ``n_heads``;
        default ``n_heads`` = MHA, 1 = MQA)
    mask : boolean may-attend mask broadcastable to ``(..., n_heads, n, n)``

    Returns
    -------
    (output, weights) with output ``(..., n, d_out)`` and weights ``(..., n_heads, n, n)``.
    """
    x = as_float_array(x, "x")
    w_q, w_k, w_v, w_o = (
        as_float_array(w, name)
        for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v"), (w_o, "w_o"))
    )
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv = n_heads if n_kv_heads is None else check_positive_int(n_kv_heads, "n_kv_heads")
    if n_heads % n_kv:
        raise ValueError(f"n_kv_heads={n_kv} does not divide n_heads={n_heads}")
    d_model = x.shape[-1]
    for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")):
        if w.ndim != 2 or w.shape[0] != d_model:
            raise ValueError(f"{name} must have shape (d_model={d_model}, ·), got {w.shape}")
    if w_q.shape[1] % n_heads:
        raise ValueError(f"n_heads={n_heads} does not divide the query width {w_q.shape[1]}")
    d_head = w_q.shape[1] // n_heads
    for w, name in ((w_k, "w_k"), (w_v, "w_v")):
        if w.shape[1] != n_kv * d_head:
            raise ValueError(
                f"{name} must have n_kv_heads·d_head = {n_kv}·{d_head} = {n_kv * d_head} "
                f"columns, got {w.shape[1]}"
            )
    if w_o.ndim != 2 or w_o.shape[0] != n_heads * d_head:
        raise ValueError(f"w_o must have {n_heads * d_head} rows, got shape {w_o.shape}")
    q = split_heads(x @ w_q, n_heads)
    k = repeat_kv(split_heads(x @ w_k, n_kv), n_heads // n_kv)
    v = repeat_kv(split_heads(x @ w_v, n_kv), n_heads // n_kv)
    res = attention(q, k, v, mask=mask, scale=scale, temperature=temperature)
    return merge_heads(res.output) @ w_o, res.weights
