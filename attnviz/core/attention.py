"""Scaled dot-product attention, its backward pass and the softmax Jacobian, in numpy.

Shapes follow the chapter: ``q`` is ``(..., n_q, d_k)``, ``k`` is ``(..., n_k, d_k)``,
``v`` is ``(..., n_k, d_v)``; leading batch/head dimensions broadcast. float32 inputs stay
float32, everything else is computed in float64. Scores that could overflow float32
(q = 1e20 against keys of −1e20) are computed in float64, as float64 inputs would be, so
each row stays a distribution; scores that float32 cannot hold come back in float64.
Scores that could overflow float64 itself are refused with a ``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import (
    as_float_array,
    compute_dtype,
    narrowest,
    result_dtype,
    scale_factor,
)
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.core.value_text import brief


@dataclass(frozen=True)
class AttentionResult:
    """Everything one attention call computes.

    Attributes
    ----------
    scores : the logits the softmax receives, before the mask: the scaled scores
        ``q kᵀ / √d_k / T``, capped and biased when :class:`ScoreTerms` say so
    weights : ``softmax`` of the masked scores (rows of fully masked queries are 0; with
        a sink logit each row sums to less than 1)
    output : ``weights @ v``
    entropy : Shannon entropy of each weight row, in nats (0 for a fully masked row)
    fully_masked : True for each query row that may attend to no key
    """

    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    entropy: np.ndarray
    fully_masked: np.ndarray

    def output_row(self, i: int) -> np.ndarray:
        """Row ``i`` of the output, a copy (the resolver's lazy result computes only it)."""
        return self.output[i].copy()

    @property
    def any_fully_masked(self) -> bool:
        """True when at least one query row had no key to attend to."""
        return bool(self.fully_masked.any())


@dataclass(frozen=True)
class AttentionGradients:
    """Gradients of a scalar loss through one attention call (see :func:`attention_backward`)."""

    dq: np.ndarray
    dk: np.ndarray
    dv: np.ndarray
    dscores: np.ndarray


@dataclass(frozen=True)
class GradientCheck:
    """Largest absolute difference between analytic and central-difference gradients."""

    dq: float
    dk: float
    dv: float

    @property
    def max_error(self) -> float:
        """The worst of the three errors."""
        return max(self.dq, self.dk, self.dv)


def _qk(q, k):
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k (last dimension): q {q.shape} vs k {k.shape}")
    return q, k


def _scale_factor(d_k: int, scale: bool, temperature: float) -> float:
    if not isinstance(scale, (bool, np.bool_)):
        raise ValueError(f"scale must be True or False, got {brief(scale)}")
    return scale_factor(d_k, bool(scale), temperature)


def _scores(q: np.ndarray, k: np.ndarray, c: float, *arrays: np.ndarray):
    """``q kᵀ · c`` in the dtype that holds it (:func:`compute_dtype`), with that dtype and
    the dtype the results come back in (float32 only when every input is float32)."""
    dtype = result_dtype(q, k, *arrays)
    work = compute_dtype(dtype, q, k, c)
    scores = np.matmul(q.astype(work, copy=False), np.swapaxes(k, -1, -2).astype(work, copy=False))
    scores *= c
    return scores, work, dtype


def scaled_scores(q, k, *, scale: bool = True, temperature: float = 1.0) -> np.ndarray:
    """Return ``q @ kᵀ / (√d_k if scale else 1) / temperature``.

    Parameters
    ----------
    q, k : array_like, shapes ``(..., n_q, d_k)`` and ``(..., n_k, d_k)``
    scale : divide by √d_k (the divisor the lesson argues for)
    temperature : extra softmax temperature, > 0

    Returns
    -------
    ndarray of shape ``(..., n_q, n_k)``
    """
    q, k = _qk(q, k)
    scores, _work, dtype = _scores(q, k, _scale_factor(q.shape[-1], scale, temperature))
    return narrowest(scores, dtype)


def softmax(s, axis: int = -1) -> np.ndarray:
    """Max-subtracted softmax along ``axis``.

    ``−inf`` entries (masked scores) get weight 0; a row whose entries are all ``−inf``
    gives zeros, not NaN. NaN or ``+inf`` raise ``ValueError``.
    """
    s = as_float_array(s, "scores", min_ndim=1, allow_neg_inf=True)
    m = np.max(s, axis=axis, keepdims=True)
    # A fully masked row has max −inf; shifting by 0 keeps exp(−inf) = 0 without NaN.
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    total = np.sum(e, axis=axis, keepdims=True)
    safe = np.where(total > 0, total, 1.0)
    return (e / safe).astype(s.dtype, copy=False)


def _check_mask(mask, scores_shape) -> np.ndarray | None:
    if mask is None:
        return None
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        if np.issubdtype(m.dtype, np.integer) and np.isin(m, (0, 1)).all():
            m = m.astype(bool)
        else:
            raise ValueError(f"mask must be boolean (True = may attend), got dtype {m.dtype}")
    try:
        np.broadcast_shapes(m.shape, scores_shape)
    except ValueError as exc:
        raise ValueError(
            f"mask of shape {m.shape} does not broadcast to the scores' shape {scores_shape}"
        ) from exc
    if np.broadcast_shapes(m.shape, scores_shape) != tuple(scores_shape):
        raise ValueError(f"mask of shape {m.shape} would enlarge the scores' shape {scores_shape}")
    return m


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """Entropy in nats of each row of ``weights`` (0·log 0 taken as 0)."""
    w = np.asarray(weights)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)
    return (-terms.sum(axis=-1)).astype(w.dtype, copy=False)


def _softmax_entropy(
    logits: np.ndarray, masked: bool, sink: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Row softmax of ``logits`` (−inf = masked) and the entropy of each row, in nats.

    The entropy uses log w = z − log Σe^z from the softmax itself, so no logarithm is
    taken per entry: on the slider hot path that halves the cost of the pair. With a
    ``sink`` logit the denominator gains e^sink and the entropy is that of the whole
    distribution (the keys and the sink).
    """
    m = np.max(logits, axis=-1, keepdims=True)
    if sink is not None:
        m = np.maximum(m, sink)
    # A fully masked row has max −inf; shifting by 0 keeps exp(−inf) = 0 without NaN.
    m = np.where(np.isfinite(m), m, 0.0)
    z = logits - m
    w = np.exp(z)
    total = np.sum(w, axis=-1, keepdims=True)
    z_sink = None
    if sink is not None:
        z_sink = sink - m
        total = total + np.exp(z_sink)
    total = np.where(total > 0, total, 1.0)
    # In place: the same quotients as e / total without a third n×n array (the slider's
    # hot path at n = 512 spends a tenth of its time allocating and faulting in pages).
    w /= total
    if masked:
        z = np.where(np.isfinite(z), z, 0.0)  # w = 0 there; avoid 0·(−inf) = NaN
    h = np.log(total[..., 0]) - np.einsum("...j,...j->...", w, z)
    if z_sink is not None:
        h = h - (np.exp(z_sink) / total * z_sink)[..., 0]
    return w, np.maximum(h, 0.0)  # rounding can leave −1e-17 for a one-hot row


def _validate_qkv(q, k, v):
    q, k = _qk(q, k)
    v = as_float_array(v, "v")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"k and v must have the same number of keys: k {k.shape} vs v {v.shape}")
    try:
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError as exc:
        raise ValueError(
            f"leading (batch/head) dimensions do not broadcast: q {q.shape}, k {k.shape}, "
            f"v {v.shape}"
        ) from exc
    return q, k, v


def score_scale(d_k: int, scale: bool = True, temperature: float = 1.0) -> float:
    """The factor ``c`` with scores ``= (q kᵀ) · c``: ``1/(√d_k · T)``, or ``1/T`` unscaled."""
    return _scale_factor(d_k, scale, temperature)


def masked_softmax(
    scores: np.ndarray, m, sink: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights, row entropies and fully-masked flags of the logits ``scores`` under the
    boolean mask ``m`` (None: every key allowed), with an optional ``sink`` logit in every
    denominator. The one place both the core and the resolver's display path compute
    them, so their numbers agree bit for bit."""
    logits = scores if m is None else np.where(m, scores, -np.inf)
    weights, entropy = _softmax_entropy(logits, m is not None, sink)
    if m is None:
        fully = np.zeros(scores.shape[:-1], dtype=bool)
    else:
        fully = ~np.broadcast_to(m, scores.shape).any(axis=-1)
    return weights, entropy, fully


def _terms(terms) -> ScoreTerms:
    if terms is None:
        return PLAIN
    if not isinstance(terms, ScoreTerms):
        raise ValueError(f"terms must be ScoreTerms or None, got {type(terms).__name__}")
    return terms


def _attend(
    scores: np.ndarray, v: np.ndarray, m, sink: float | None = None, dtype=None
) -> AttentionResult:
    """The softmax and the output of ``scores`` (logits), computed in their dtype and
    returned in ``dtype`` (default: float32 when the scores and ``v`` are)."""
    dtype = result_dtype(scores, v) if dtype is None else dtype
    weights, entropy, fully = masked_softmax(scores, m, sink)
    output = np.matmul(weights, v.astype(weights.dtype, copy=False)).astype(dtype, copy=False)
    weights = weights.astype(dtype, copy=False)
    return AttentionResult(
        scores=narrowest(scores, dtype),
        weights=weights,
        output=output,
        entropy=entropy.astype(dtype, copy=False),
        fully_masked=fully,
    )


def attention(
    q,
    k,
    v,
    *,
    mask=None,
    scale: bool = True,
    temperature: float = 1.0,
    terms: ScoreTerms | None = None,
) -> AttentionResult:
    """Scaled dot-product attention ``softmax(mask(q kᵀ/√d_k/T)) v``.

    Parameters
    ----------
    q, k, v : array_like, shapes ``(..., n_q, d_k)``, ``(..., n_k, d_k)``, ``(..., n_k, d_v)``
    mask : boolean array broadcastable to ``(..., n_q, n_k)``, True = may attend
        (see :mod:`attnviz.core.masks`); masked scores become −inf before the softmax
    scale : divide the scores by √d_k
    temperature : softmax temperature, > 0
    terms : capping, ALiBi and a sink logit after the scale (None: none of them)

    Returns
    -------
    AttentionResult
        A fully masked query row gets zero weights, zero output and entropy 0, and is
        flagged in ``fully_masked`` (with a sink, all its weight goes to the sink).
    """
    q, k, v = _validate_qkv(q, k, v)
    t = _terms(terms)
    c = _scale_factor(q.shape[-1], scale, temperature)
    scores, _work, dtype = _scores(q, k, c, v)
    return _attend(t.logits(scores), v, _check_mask(mask, scores.shape), t.sink, dtype)


def attention_from_scores(
    scores, v, *, mask=None, terms: ScoreTerms | None = None
) -> AttentionResult:
    """The rest of :func:`attention` from already scaled ``scores`` (``(..., n_q, n_k)``).

    For callers that keep ``q kᵀ`` and only rescale it (a temperature slider):
    ``attention_from_scores(q @ kᵀ * score_scale(d_k, scale, T), v, terms=t)`` equals
    ``attention(q, k, v, scale=scale, temperature=T, terms=t)`` exactly.
    """
    scores = as_float_array(scores, "scores")
    v = as_float_array(v, "v")
    if v.shape[-2] != scores.shape[-1]:
        raise ValueError(f"scores have {scores.shape[-1]} keys but v has {v.shape[-2]} rows")
    t = _terms(terms)
    return _attend(t.logits(scores), v, _check_mask(mask, scores.shape), t.sink)


def _unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the leading axes that broadcasting added or stretched."""
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad


def attention_backward(
    d_output,
    q,
    k,
    v,
    *,
    mask=None,
    scale: bool = True,
    temperature: float = 1.0,
    terms: ScoreTerms | None = None,
) -> AttentionGradients:
    """Backward pass of one attention call, as the chapter writes it.

    ``dV = Aᵀ dO``, ``dA = dO Vᵀ``, ``dS = A ⊙ (dA − rowsum(dA ⊙ A))``,
    ``dQ = c · dS K``, ``dK = c · dSᵀ Q`` with ``c = 1/(√d_k · T)`` (or ``1/T`` unscaled).
    ``dscores`` is the gradient with respect to the logits the softmax receives; without
    a sink each of its rows sums to 0, and it is 0 wherever the mask hides a key. With
    capping, dQ and dK go on through its slope ``1 − tanh²(s/cap)``; ALiBi's bias is a
    constant and a sink adds a constant to the denominator, so dS keeps its formula.
    """
    q, k, v = _validate_qkv(q, k, v)
    t = _terms(terms)
    c = _scale_factor(q.shape[-1], scale, temperature)
    scores, work, dtype = _scores(q, k, c, v)
    a = _attend(t.logits(scores), v, _check_mask(mask, scores.shape), t.sink, work).weights
    q, k, v = (x.astype(work, copy=False) for x in (q, k, v))
    d_o = as_float_array(d_output, "d_output")
    expected = np.broadcast_shapes(a.shape[:-2], v.shape[:-2]) + (a.shape[-2], v.shape[-1])
    try:
        fits = np.broadcast_shapes(d_o.shape, expected) == expected
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"d_output must have the output's shape {expected}, got {d_o.shape}")
    d_o = np.broadcast_to(d_o, expected)
    dv = np.matmul(np.swapaxes(a, -1, -2), d_o)
    da = np.matmul(d_o, np.swapaxes(v, -1, -2))
    ds = a * (da - np.sum(da * a, axis=-1, keepdims=True))
    ds_scaled = ds * t.cap_slope(scores)
    dq = np.matmul(ds_scaled, k) * c
    dk = np.matmul(np.swapaxes(ds_scaled, -1, -2), q) * c
    dtype = np.float32 if dtype == np.float32 and d_o.dtype == np.float32 else np.float64
    return AttentionGradients(
        dq=_unbroadcast(dq, q.shape).astype(dtype, copy=False),
        dk=_unbroadcast(dk, k.shape).astype(dtype, copy=False),
        dv=_unbroadcast(dv, v.shape).astype(dtype, copy=False),
        dscores=ds.astype(dtype, copy=False),
    )


def softmax_jacobian(a) -> np.ndarray:
    """Jacobian ``∂a/∂s = diag(a) − a aᵀ`` of the softmax at one weight row ``a``."""
    a = as_float_array(a, "a", min_ndim=1)
    if a.ndim != 1:
        raise ValueError(f"softmax_jacobian takes one row (1-D), got shape {a.shape}")
    return np.diag(a) - np.outer(a, a)


def finite_difference_check(
    q,
    k,
    v,
    d_output,
    *,
    mask=None,
    scale: bool = True,
    temperature: float = 1.0,
    terms: ScoreTerms | None = None,
    eps: float = 1e-6,
) -> GradientCheck:
    """Compare :func:`attention_backward` with central finite differences.

    The loss is ``sum(output · d_output)``, so its exact gradient is what the backward
    pass returns. Runs in float64; costs two forward passes per input entry, so keep the
    inputs small.
    """
    q64, k64, v64 = (
        as_float_array(x, n).astype(np.float64) for x, n in ((q, "q"), (k, "k"), (v, "v"))
    )
    d_o = as_float_array(d_output, "d_output").astype(np.float64)
    opts = {"mask": mask, "scale": scale, "temperature": temperature, "terms": terms}
    grads = attention_backward(d_o, q64, k64, v64, **opts)

    def loss(qq, kk, vv) -> float:
        out = attention(qq, kk, vv, **opts).output
        return float(np.sum(out * d_o))

    def numeric(which: int) -> np.ndarray:
        args = [q64.copy(), k64.copy(), v64.copy()]
        x = args[which]
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            orig = x[idx]
            x[idx] = orig + eps
            plus = loss(*args)
            x[idx] = orig - eps
            minus = loss(*args)
            x[idx] = orig
            g[idx] = (plus - minus) / (2 * eps)
        return g

    return GradientCheck(
        dq=float(np.max(np.abs(grads.dq - numeric(0)))),
        dk=float(np.max(np.abs(grads.dk - numeric(1)))),
        dv=float(np.max(np.abs(grads.dv - numeric(2)))),
    )
