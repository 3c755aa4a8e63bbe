"""Every query head of one captured layer recomputed at once, against the model's weights.

:mod:`attnviz.model.model_proof` proves a real model's heads before anything shows them:
the weights attnviz draws, recomputed from the captured q and k with the settings the
attention topic can express (scale, mask, capping, ALiBi, sink), must be the model's own.
Its reference does that head by head in float64 numpy; :func:`heads_difference` does the
same arithmetic for a whole layer in a handful of torch calls — one batched product
(query head i against KV head i // group), the scale, the mask, the softmax and the
comparison in place in one buffer — so that the proof of a 512-token sentence costs a
fraction of its forward pass.

Precision: a layer of plain scaled scores (sinks included, which touch only the
denominators) is computed in float32, as the model computed its own weights; a layer whose
scores are capped or biased by ALiBi, in float64 (a cap's tanh and the long rows' biases
lose digits in float32), and so is every layer when torch may run float32 products in
bfloat16 or TF32, or whose scaled scores reach past :data:`FLOAT32_LOGITS`. The
differences it returns are the reference's to about the rounding of float32 (1e-6 on
real models): the caller passes a layer on them only well inside the tolerance and lets
the reference decide (and word) everything else.

Nothing here is shown: the caller keeps the per-head maxima. ``None`` when torch cannot
be imported or an array cannot be shared with it; the caller then runs the reference.
"""

from __future__ import annotations

import numpy as np

__all__ = ["heads_difference"]

#: Most score cells computed at once: 4 MiB of float32 (4 heads of 512 tokens), so that
#: the scores and the model's weights they are compared with (as much again) stay in an
#: 8 MiB cache through the five passes over them (scores, softmax, difference, absolute
#: value, largest). MiniLM's proof at 512 tokens on the 2-core machine, quiet: 74.5 ms a
#: whole layer at a time, 63 ms four heads, 61 ms two; with the other core busy the
#: smaller chunks are as fast at best but vary more (every call is one parallel region,
#: which waits for both threads), hence four heads rather than two.
CHUNK_CELLS = 1 << 20


def heads_difference(
    q: np.ndarray,
    k: np.ndarray,
    weights: np.ndarray,
    *,
    scale: float,
    mask: np.ndarray | None = None,
    softcap: float = 0.0,
    alibi: np.ndarray | None = None,
    sinks: np.ndarray | None = None,
    work: dict | None = None,
) -> np.ndarray | None:
    """Per query head, the largest ``|w − weights|`` (float64, ``(h,)``; NaN where either
    is not finite), ``w`` the row softmax of ``scale · q kᵀ`` capped at ``softcap`` (0:
    off), minus ``alibi[h] · |i − j|``, under the boolean ``mask`` (True = may attend,
    ``(n, n)``; None: every key), with ``e^sinks[h]`` in every denominator.

    ``q`` is ``(h, n, d)``; ``k`` is ``(h_kv, n, d)``, query head ``i`` reading KV head
    ``i // (h / h_kv)``; ``weights`` is ``(h, n, n)``. None when torch is not there, an
    array cannot be shared with it, or a row of ``mask`` hides every key. ``work``, a dict
    the caller keeps (across layers), lends its buffer.
    """
    try:
        import torch
    except ImportError:
        return None
    if mask is not None and not np.all(mask.any(axis=-1)):
        return None  # a row with no key at all: the reference's zeros, not a 0/0 here
    tensors = [_shared(torch, a) for a in (q, k, weights)]
    if any(t is None for t in tensors):
        return None
    wide = softcap > 0 or (alibi is not None and np.any(alibi != 0))
    single = _fp32_exact(torch) and all(t.dtype == torch.float32 for t in tensors)
    terms = {"softcap": softcap, "alibi": alibi, "sinks": sinks}
    with torch.no_grad():
        if single and not wide:
            out = _differences(torch, *tensors, torch.float32, scale, mask, terms, work)
            if out is not None:
                return out
        # Logits past FLOAT32_LOGITS: float32's rounding of them could hide (or make) a
        # difference near the tolerance, so the layer is measured in float64.
        return _differences(torch, *tensors, torch.float64, scale, mask, terms, work)


#: The largest |scaled score| a layer is measured with in float32: a logit's rounding
#: is about 6e-8 of its size and moves a weight by at most twice that, so up to 128 the
#: float32 figure is the float64 one to about 1.5e-5, inside the 7.5e-5 between FAST_PASS
#: and the tolerance (MiniLM's largest, 77, agree to below 1e-6). Past it, float64.
FLOAT32_LOGITS = 128.0


def _differences(torch, qt, kt, wt, dtype, scale, mask, terms, work) -> np.ndarray | None:
    """:func:`heads_difference`'s arithmetic in ``dtype``; None when float32 logits are
    past :data:`FLOAT32_LOGITS` (the caller measures again in float64)."""
    softcap, alibi, sinks = terms["softcap"], terms["alibi"], terms["sinks"]
    heads, n = qt.shape[0], qt.shape[1]
    group = heads // kt.shape[0]
    step = max(1, min(heads, CHUNK_CELLS // (n * n)))
    out = np.empty(heads)
    qt, kt = qt.to(dtype), kt.to(dtype)
    # One buffer (CHUNK_CELLS at most), kept by the caller from layer to layer (``work``):
    # a fresh 12 MB array faults its pages in again, which costs as much as the scale
    # and the softmax together.
    buffer = _buffer(torch, work, (step, n, n), dtype)
    hidden = None
    if mask is not None and not mask.all():
        hidden = ~torch.from_numpy(np.ascontiguousarray(mask, dtype=bool))
    distance = None
    if alibi is not None and np.any(alibi != 0):
        pos = torch.arange(n, dtype=dtype)
        distance = (pos[:, None] - pos[None, :]).abs_()
    # Where no score can pass FLOAT32_LOGITS, the scan of every score for one is skipped.
    scan = dtype == torch.float32 and not _logits_bounded(torch, qt, kt, scale)
    for a in range(0, heads, step):
        b = min(a + step, heads)
        scores = buffer[: b - a]
        # Query head i reads KV head i // group (grouped: a copy of n × d rows).
        keys = kt[a:b] if group == 1 else kt[torch.arange(a, b) // group]
        torch.baddbmm(scores, qt[a:b], keys.transpose(1, 2), beta=0.0, alpha=scale, out=scores)
        if scan:
            low, high = torch.aminmax(scores)
            if not max(-float(low), float(high)) <= FLOAT32_LOGITS:  # NaN: float64 too
                return None
        if softcap > 0:
            scores.div_(softcap).tanh_().mul_(softcap)
        if distance is not None:
            for i in range(a, b):
                scores[i - a].sub_(distance, alpha=float(alibi[i]))
        if hidden is not None:
            scores.masked_fill_(hidden, float("-inf"))
        if sinks is None:
            w = _softmax(torch, scores)
        else:
            values = np.asarray(sinks[a:b], np.float64)
            sink = torch.as_tensor(values, dtype=dtype).view(b - a, 1, 1)
            top = torch.maximum(scores.amax(dim=-1, keepdim=True), sink)
            w = scores.sub_(top).exp_()
            w.div_(w.sum(dim=-1, keepdim=True).add_(sink.sub(top).exp_()))
        diff = w.sub_(wt[a:b]).abs_().amax(dim=(1, 2))
        out[a:b] = diff.to(torch.float64).numpy()
    return out


def _logits_bounded(torch, qt, kt, scale: float) -> bool:
    """True when no float32 score ``scale · q·k`` can pass :data:`FLOAT32_LOGITS`.

    Cauchy–Schwarz: ``|q·k| ≤ |q| |k|``, so the largest query norm times the largest key
    norm times ``|scale|`` bounds every score; float32 adds at most ``(d + 2)·2⁻²³`` of
    that bound in rounding (the d products and sums, and the scaling). The norms cost
    n·d, against the n²·h of scanning the scores (≈ 2 ms a layer of MiniLM at 512 tokens,
    whose bounds, 18 to 97, all pass). A bound past the limit, or not finite, says
    nothing: the scores are scanned then."""
    d = qt.shape[-1]
    largest_q = float(torch.linalg.vector_norm(qt.to(torch.float64), dim=-1).amax())
    largest_k = float(torch.linalg.vector_norm(kt.to(torch.float64), dim=-1).amax())
    bound = abs(scale) * largest_q * largest_k * (1 + (d + 2) * 2.0**-23)
    return bound <= FLOAT32_LOGITS  # False for NaN


def _softmax(torch, scores):
    """The row softmax of ``scores``, written over them (torch's kernel reads each entry
    before it writes it); a new array where this torch will not write in place."""
    try:
        return torch.softmax(scores, dim=-1, out=scores)
    except RuntimeError:  # a build that refuses an output overlapping its input
        return torch.softmax(scores, dim=-1)


def _buffer(torch, work: dict | None, shape: tuple, dtype):
    """An empty array of ``shape`` on ``work``'s memory, which grows to the largest asked
    of it and is kept there (a new one, left in ``work``, when it is smaller or of another
    dtype); a new array when there is no ``work``."""
    size = int(np.prod(shape))
    if work is None:
        return torch.empty(shape, dtype=dtype)
    flat = work.get(dtype)
    if flat is None or flat.numel() < size:
        flat = work[dtype] = torch.empty(size, dtype=dtype)
    return flat[:size].view(shape)


def _shared(torch, array: np.ndarray):
    """``array`` as a tensor on the same memory (a captured array is read-only, which
    DLPack carries and ``torch.from_numpy`` warns about); a copy where numpy cannot share
    a read-only array (before DLPack 1.0); None for what torch cannot take."""
    a = np.asarray(array)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    try:
        return torch.from_dlpack(a)
    except (BufferError, TypeError, RuntimeError, ValueError):
        pass
    try:
        return torch.from_numpy(np.array(a))  # a writable copy: no warning, no sharing
    except (TypeError, RuntimeError, ValueError):
        return None


def _fp32_exact(torch) -> bool:
    """True when torch's float32 products are full float32 (no bfloat16 or TF32 inside,
    which ``torch.set_float32_matmul_precision`` or the oneDNN setting can allow on a CPU):
    otherwise the float32 layers are computed in float64."""
    try:
        if torch.get_float32_matmul_precision() != "highest":
            return False
    except AttributeError:
        pass
    try:
        precision = torch.backends.mkldnn.matmul.fp32_precision
    except AttributeError:
        return True
    return precision in ("ieee", "none", None)
