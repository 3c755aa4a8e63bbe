"""Each head's contribution to the multi-head output, through W^O (exact arithmetic).

The output projection is a block product: the concatenation's column block h (head h's
output, ``(n, d_head)``) meets W^O's row block h (rows ``h·d_head … (h+1)·d_head − 1``),
so

    O = concat(O_1 … O_h) · W^O = Σ_h O_h · W^O_h

and each term ``O_h · W^O_h`` ``(n, d_model)`` is what head h adds to the output. Switching
heads off sets their slice of W^O's input to 0 (the prediction topic's ``zero`` ablation):
the output is then the sum of the other heads' terms, and with every head off it is 0
(the bias, when there is one). This is arithmetic on the heads' own numbers, a proof of how
the output is made; on a real model's logits the same split is an attribution, because the
layers after W^O (norms, the MLP) are not linear.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from attnviz.core.multihead import merge_heads


def _checked(head_outputs, w_o) -> tuple[np.ndarray, np.ndarray]:
    heads = np.asarray(head_outputs, dtype=np.float64)
    w_o = np.asarray(w_o, dtype=np.float64)
    if heads.ndim != 3:
        raise ValueError(f"head outputs must be (h, n, d_head), got shape {heads.shape}")
    h, _n, d = heads.shape
    if w_o.ndim != 2 or w_o.shape[0] != h * d:
        raise ValueError(f"W^O must have h·d_head = {h * d} rows, got shape {w_o.shape}")
    return heads, w_o


def check_heads_off(off: Iterable[int], n_heads: int) -> tuple[int, ...]:
    """The heads switched off, sorted and once each; ``ValueError`` for one outside
    ``0 … n_heads − 1``."""
    out = set()
    for head in off:
        if isinstance(head, bool) or not isinstance(head, (int, np.integer)):
            raise ValueError(f"a head is an integer, got {type(head).__name__}")
        if not 0 <= head < n_heads:
            raise ValueError(f"head {int(head)} is outside 0…{n_heads - 1}")
        out.add(int(head))
    return tuple(sorted(out))


def head_contributions(head_outputs, w_o) -> np.ndarray:
    """Each head's term of the output, ``(h, n, d_model)``: ``O_h · W^O_h``.

    ``head_outputs`` is ``(h, n, d_head)`` (each head's A_h V_h), ``w_o`` is
    ``(h·d_head, d_model)``. The terms sum to ``concat · W^O`` (to the rounding of the
    sum's order: a few units in the last place).
    """
    heads, w_o = _checked(head_outputs, w_o)
    h, _n, d = heads.shape
    blocks = w_o.reshape(h, d, w_o.shape[1])
    return np.matmul(heads, blocks)


def switched_output(head_outputs, w_o, off: Iterable[int] = (), bias=None) -> np.ndarray:
    """The output with heads ``off`` switched off, ``(n, d_model)``.

    Their slice of W^O's input (columns ``h·d_head … (h+1)·d_head − 1`` of the
    concatenation) is set to 0 before the product, as the prediction's ``zero`` ablation
    does inside a real model; ``bias`` (``(d_model,)``, optional) is added after it.
    """
    heads, w_o = _checked(head_outputs, w_o)
    off = check_heads_off(off, heads.shape[0])
    kept = heads.copy()
    kept[list(off)] = 0.0
    out = merge_heads(kept) @ w_o
    return out if bias is None else out + np.asarray(bias, dtype=np.float64)


def contribution_norms(contributions) -> np.ndarray:
    """The size of each head's term per query row, ``(n, h)``: ``‖O_h · W^O_h‖`` of row i
    (the Euclidean norm over d_model)."""
    c = np.asarray(contributions, dtype=np.float64)
    if c.ndim != 3:
        raise ValueError(f"contributions must be (h, n, d_model), got shape {c.shape}")
    return np.linalg.norm(c, axis=-1).T
