"""Multi-head attention with grouped-query (GQA) and multi-query (MQA) key/value heads.

Heads are contiguous column blocks: head h owns columns ``h·d_head … (h+1)·d_head − 1``
(what ``x.view(n, h, d_head)`` does). With ``n_kv_heads`` KV heads, query head h reads
KV head ``h // (n_heads / n_kv_heads)``, as torch's ``enable_gqa`` and Hugging Face's
``repeat_kv`` do.

:func:`project_head` gives the Q, K and V of one query head (what the heatmap shows),
:func:`project_heads` those of every head, and :func:`attention_flops` counts the
multiply-adds of each product, to compare one wide head with many narrow ones.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

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
    n_heads, n_kv = check_head_layout(n_heads, n_heads if n_kv_heads is None else n_kv_heads)
    d_head = _check_projections(x, w_q, w_k, w_v, n_heads, n_kv)
    if w_o.ndim != 2 or w_o.shape[0] != n_heads * d_head:
        raise ValueError(f"w_o must have {n_heads * d_head} rows, got shape {w_o.shape}")
    q = split_heads(x @ w_q, n_heads)
    k = repeat_kv(split_heads(x @ w_k, n_kv), n_heads // n_kv)
    v = repeat_kv(split_heads(x @ w_v, n_kv), n_heads // n_kv)
    res = attention(q, k, v, mask=mask, scale=scale, temperature=temperature)
    return merge_heads(res.output) @ w_o, res.weights


def check_head_layout(n_heads: int, n_kv_heads: int) -> tuple[int, int]:
    """``(n_heads, n_kv_heads)`` as ints; ``ValueError`` unless n_kv_heads divides n_heads."""
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv = check_positive_int(n_kv_heads, "n_kv_heads")
    if n_heads % n_kv:
        raise ValueError(f"n_kv_heads={n_kv} does not divide n_heads={n_heads}")
    return n_heads, n_kv


def kv_head_of(head: int, n_heads: int, n_kv_heads: int) -> int:
    """The KV head query head ``head`` reads: ``head // (n_heads / n_kv_heads)``."""
    n_heads, n_kv = check_head_layout(n_heads, n_kv_heads)
    if not 0 <= head < n_heads:
        raise ValueError(f"head {head} is outside 0…{n_heads - 1}")
    return head // (n_heads // n_kv)


def kv_groups(n_heads: int, n_kv_heads: int) -> tuple[tuple[int, ...], ...]:
    """The query heads of each KV head, in order (one group per KV head)."""
    n_heads, n_kv = check_head_layout(n_heads, n_kv_heads)
    size = n_heads // n_kv
    return tuple(tuple(range(g * size, (g + 1) * size)) for g in range(n_kv))


def _check_projections(x, w_q, w_k, w_v, n_heads: int, n_kv: int) -> int:
    """Validate the shapes; return d_head."""
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
    return d_head


def project_head(x, w_q, w_k, w_v, head: int, *, n_heads: int, n_kv_heads: int):
    """``(q, k, v)`` of query head ``head``, each ``(n, d_head)``.

    q = X W_Q[:, head block]; k and v come from the block of the KV head the query head
    reads (:func:`kv_head_of`). Only the needed columns are multiplied.
    """
    x = as_float_array(x, "x")
    w_q, w_k, w_v = (as_float_array(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    n_heads, n_kv = check_head_layout(n_heads, n_kv_heads)
    d = _check_projections(x, w_q, w_k, w_v, n_heads, n_kv)
    g = kv_head_of(head, n_heads, n_kv)
    q = x @ w_q[:, head * d : (head + 1) * d]
    k = x @ w_k[:, g * d : (g + 1) * d]
    v = x @ w_v[:, g * d : (g + 1) * d]
    return q, k, v


def project_heads(x, w_q, w_k, w_v, *, n_heads: int, n_kv_heads: int):
    """``(q, k, v)`` of every head: q ``(n_heads, n, d_head)``, k and v ``(n_kv_heads, n,
    d_head)`` (not repeated; query head h reads KV head :func:`kv_head_of`)."""
    x = as_float_array(x, "x")
    w_q, w_k, w_v = (as_float_array(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    n_heads, n_kv = check_head_layout(n_heads, n_kv_heads)
    _check_projections(x, w_q, w_k, w_v, n_heads, n_kv)
    return (
        split_heads(x @ w_q, n_heads),
        split_heads(x @ w_k, n_kv),
        split_heads(x @ w_v, n_kv),
    )


@dataclass(frozen=True)
class FlopCount:
    """Floating-point operations of one attention layer (a multiply-add counts 2).

    ``q_proj`` … ``out_proj`` are the matrix products; ``total`` is their sum;
    ``score_entries`` is how many scores are computed (and exponentiated by the softmax);
    ``kv_cache`` is how many numbers each token keeps in the KV cache (K and V).
    """

    q_proj: int
    k_proj: int
    v_proj: int
    scores: int
    mix: int
    out_proj: int
    total: int
    score_entries: int
    kv_cache: int

    @property
    def multiply_adds(self) -> int:
        """Multiply-adds of the matrix products: ``total`` / 2 (each is 2 FLOPs)."""
        return self.total // 2

    def as_dict(self) -> dict[str, int]:
        """The counts by field name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def attention_flops(n: int, d_model: int, n_heads: int, n_kv_heads: int, d_head: int) -> FlopCount:
    """Count the FLOPs of one attention layer over ``n`` tokens.

    Q = X W_Q: 2·n·d_model·h·d_head; K and V: 2·n·d_model·h_kv·d_head each; S = Q Kᵀ per
    head: 2·n²·d_head, times h; A V likewise; concat · W^O: 2·n·h·d_head·d_model. With
    D = h·d_head fixed, h heads of width D/h cost what one head of width D costs: every
    product above depends on h only through D (the softmax, h·n² entries, does not).
    """
    for value, name in ((n, "n"), (d_model, "d_model"), (d_head, "d_head")):
        check_positive_int(value, name)
    n_heads, n_kv = check_head_layout(n_heads, n_kv_heads)
    n, d_model, d_head = int(n), int(d_model), int(d_head)
    width, kv_width = n_heads * d_head, n_kv * d_head
    counts = {
        "q_proj": 2 * n * d_model * width,
        "k_proj": 2 * n * d_model * kv_width,
        "v_proj": 2 * n * d_model * kv_width,
        "scores": 2 * n * n * d_head * n_heads,
        "mix": 2 * n * n * d_head * n_heads,
        "out_proj": 2 * n * width * d_model,
    }
    return FlopCount(
        **counts,
        total=sum(counts.values()),
        score_entries=n_heads * n * n,
        kv_cache=2 * kv_width,
    )


def projection_shape(
    name: str, n: int, d_model: int, n_heads: int, n_kv_heads: int, d_head: int
) -> tuple[int, int]:
    """The shape of ``x`` ``(n, d_model)``, ``w_q`` ``(d_model, h·d_head)``, ``w_k`` and
    ``w_v`` ``(d_model, h_kv·d_head)`` or ``w_o`` ``(h·d_head, d_model)``."""
    return {
        "x": (n, d_model),
        "w_q": (d_model, n_heads * d_head),
        "w_k": (d_model, n_kv_heads * d_head),
        "w_v": (d_model, n_kv_heads * d_head),
        "w_o": (n_heads * d_head, d_model),
    }[name]


def fit_projection(
    name: str,
    typed: np.ndarray,
    seeded: np.ndarray,
    old_layout: tuple[int, int] | None = None,
    new_layout: tuple[int, int] | None = None,
) -> np.ndarray:
    """``typed`` carried into the shape of ``seeded``: kept where it still fits, the new
    entries taken from ``seeded``.

    Given the ``(heads, d_head)`` layout ``typed`` was made for and the one of ``seeded``,
    a W matrix is fitted head block by head block, so head i keeps its own columns (rows
    of W^O) when heads are added or removed or get wider; otherwise the top-left corner
    is kept (also for ``x``: the first tokens and dimensions).
    """
    out = np.array(seeded, dtype=np.float64)
    if name != "x" and old_layout is not None and new_layout is not None:
        # Work on "lines": one per head dimension (columns of W_Q/K/V, rows of W^O).
        a = typed if name == "w_o" else typed.T
        b = np.array(out if name == "w_o" else out.T)
        (h_a, d_a), (h_b, d_b) = old_layout, new_layout
        if a.shape[0] == h_a * d_a and b.shape[0] == h_b * d_b:
            a = a.reshape(h_a, d_a, a.shape[1])
            b = b.reshape(h_b, d_b, b.shape[1])
            h, d, m = (min(x, y) for x, y in zip(a.shape, b.shape, strict=True))
            b[:h, :d, :m] = a[:h, :d, :m]
            b = b.reshape(h_b * d_b, b.shape[2])
            return b if name == "w_o" else np.ascontiguousarray(b.T)
    r, c = (min(x, y) for x, y in zip(typed.shape, out.shape, strict=True))
    out[:r, :c] = typed[:r, :c]
    return out
