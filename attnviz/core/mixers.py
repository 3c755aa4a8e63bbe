"""Token mixers as matrices: softmax, its sparse cousins, linear and delta-rule recurrences.

Every mixer here maps the values ``v`` (n × d_v) of a sequence to outputs
``out_t = Σ_s M[t, s] v_s``: its n × n mixing matrix ``M`` is exact, also for the
recurrent kinds, whose state is linear in the values (S_0 = 0). All kinds are causal.

- ``softmax``: ``M = softmax(q kᵀ/√d)`` over ``s ≤ t`` (Vaswani et al. 2017).
- ``window``: the same over the last ``window`` keys, ``t − window < s ≤ t``
  (sliding-window attention, Longformer / Mistral).
- ``top_k``: the ``top_k`` largest causal scores of each row, softmax over those only.
- ``strided``: the strided pattern of the Sparse Transformer (Child et al. 2019): the
  ``stride`` most recent keys and every ``stride``-th one before them,
  ``(t − s) < l  or  (t − s) mod l = 0``.
- ``linear``: linear attention (Katharopoulos et al. 2020),
  ``S_t = S_{t−1} + φ(k_t) v_tᵀ``, ``z_t = z_{t−1} + φ(k_t)``,
  ``out_t = S_tᵀ φ(q_t)`` (divided by ``z_tᵀ φ(q_t)`` when normalised), with φ elu+1,
  ReLU or the identity.
- ``decayed``: a scalar decay γ, ``S_t = γ S_{t−1} + k_t v_tᵀ``, ``out_t = S_tᵀ q_t``:
  RetNet's recurrent form (Sun et al. 2023, keys scaled by 1/√d) and Mamba-2's SSD with
  a constant scalar ``A`` (Dao & Gu 2024; C = q, B = k, x = v), ``M[t, s] = γ^{t−s} q_t·k_s``.
- ``deltanet``: the delta rule (Schlag et al. 2021; Yang et al. 2024, "Parallelizing
  Linear Transformers with the Delta Rule"), S ∈ R^{d_v × d_k}:
  ``S_t = S_{t−1} (I − β k_t k_tᵀ) + β v_t k_tᵀ``, ``out_t = S_t q_t``, with q and k
  L2-normalised as in that paper.
- ``gated_deltanet``: Gated DeltaNet (Yang, Kautz & Hatamizadeh 2025),
  ``S_t = α S_{t−1} (I − β k_t k_tᵀ) + β v_t k_tᵀ``.

The delta rule's ``M`` comes from running its recurrence on the values' identity basis:
``S_t = Σ_s v_s w_{t,s}ᵀ`` with ``w_{t,s}`` the rows of an n × d_k matrix ``W_t`` that
obeys the same update (``W_t = α W_{t−1}(I − β k kᵀ) + β e_t k_tᵀ``), so
``M[t, s] = w_{t,s} · q_t``. Here β and α are the same at every step (a model computes them
per token from its input; a constant shows the mechanism).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = (
    "softmax", "window", "top_k", "strided", "linear", "decayed", "deltanet", "gated_deltanet",
)  # fmt: skip
FEATURE_MAPS = ("elu1", "relu", "identity")
#: The kinds whose state is a fixed d × d matrix (what a linear layer trades for the cache).
RECURRENT = ("linear", "decayed", "deltanet", "gated_deltanet")


@dataclass(frozen=True)
class MixerParams:
    """The settings of every kind (each kind reads its own).

    window : keys a sliding-window row sees (itself included)
    top_k : largest scores a top-k row keeps
    stride : the strided pattern's period l
    feature_map : φ of linear attention (``elu1``, ``relu``, ``identity``)
    normalised : linear attention divides by ``Σ_s φ(q_t)·φ(k_s)``
    decay : γ of the decayed kind
    beta : β, the delta rule's writing strength
    alpha : α, Gated DeltaNet's forgetting gate
    """

    window: int = 8
    top_k: int = 4
    stride: int = 4
    feature_map: str = "elu1"
    normalised: bool = True
    decay: float = 0.9
    beta: float = 0.5
    alpha: float = 0.95


#: The settings of a fresh topic.
DEFAULTS = MixerParams()


def feature(x: np.ndarray, name: str) -> np.ndarray:
    """φ(x) of linear attention: ``elu1`` = elu(x) + 1 (positive), ``relu``, ``identity``."""
    if name == "elu1":
        return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "identity":
        return x
    raise ValueError(f"unknown feature map {name!r}; expected one of {', '.join(FEATURE_MAPS)}")


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Each row over its L2 norm (a zero row stays zero)."""
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norm, out=np.zeros_like(x), where=norm > 0)


def _causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


def _masked_softmax(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Row softmax over the kept entries; the others are exactly 0."""
    shown = np.where(keep, scores, -np.inf)
    top = shown.max(axis=1, keepdims=True)
    e = np.where(keep, np.exp(shown - top), 0.0)
    return e / e.sum(axis=1, keepdims=True)  # every row keeps its diagonal: no 0/0


def keep_pattern(kind: str, q: np.ndarray, k: np.ndarray, params: MixerParams) -> np.ndarray:
    """Which causal pairs (t, s) a softmax-family kind lets through (n × n booleans)."""
    n = q.shape[0]
    t, s = np.indices((n, n))
    gap = t - s
    if kind == "softmax":
        return gap >= 0
    if kind == "window":
        return (gap >= 0) & (gap < params.window)
    if kind == "strided":
        return (gap >= 0) & ((gap < params.stride) | (gap % params.stride == 0))
    if kind == "top_k":
        scores = np.where(gap >= 0, q @ k.T, -np.inf)
        # Stable order on the negated scores: of equal scores the earlier key is kept, so
        # a row keeps exactly min(top_k, t + 1) pairs.
        order = np.argsort(-scores, axis=1, kind="stable")
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(n)[None, :].repeat(n, 0), axis=1)
        return (gap >= 0) & (ranks < params.top_k)
    raise ValueError(f"{kind} is not a softmax-family kind")


def _delta_matrix(q: np.ndarray, k: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    """M of the (gated) delta rule from its recurrence on the identity basis of v."""
    n, d = k.shape
    w = np.zeros((n, d))  # row s: w_{t,s}, what v_s contributes to S_t (as S_t = Σ v_s w_sᵀ)
    m = np.zeros((n, n))
    for t in range(n):
        kt = k[t]
        # W (I − β k kᵀ) = W − β (W k) kᵀ, then α, then the new write β e_t k_tᵀ.
        w -= beta * np.outer(w @ kt, kt)
        w *= alpha
        w[t] += beta * kt
        m[t] = w @ q[t]
    return m


def mixing_matrix(kind: str, q, k, params: MixerParams = DEFAULTS) -> np.ndarray:
    """The n × n matrix M of ``kind`` (see the module docstring): ``out = M @ v``."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    if q.ndim != 2 or q.shape != k.shape or q.shape[0] == 0 or q.shape[1] == 0:
        raise ValueError(f"q and k must be two n × d arrays of one shape, got {q.shape}, {k.shape}")
    n, d = q.shape
    causal = _causal(n)
    if kind in ("softmax", "window", "top_k", "strided"):
        scores = (q @ k.T) / np.sqrt(d)
        return _masked_softmax(scores, keep_pattern(kind, q / np.sqrt(d), k, params))
    if kind == "linear":
        fq, fk = feature(q, params.feature_map), feature(k, params.feature_map)
        m = np.where(causal, fq @ fk.T, 0.0)
        if params.normalised:
            den = m.sum(axis=1, keepdims=True)
            # A row whose normaliser is 0 (ReLU features that share no direction) reads
            # nothing: 0, not 0/0.
            m = np.divide(m, den, out=np.zeros_like(m), where=np.abs(den) > 1e-300)
        return m
    if kind == "decayed":
        t, s = np.indices((n, n))
        gap = np.where(causal, t - s, 0)
        return np.where(causal, params.decay ** gap.astype(float), 0.0) * (q @ k.T) / np.sqrt(d)
    if kind == "deltanet":
        return _delta_matrix(unit_rows(q), unit_rows(k), params.beta, 1.0)
    if kind == "gated_deltanet":
        return _delta_matrix(unit_rows(q), unit_rows(k), params.beta, params.alpha)
    raise ValueError(f"unknown mixer kind {kind!r}; expected one of {', '.join(KINDS)}")


def synthetic_qkv(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standard normal q, k, v (n × d each) from ``seed``: one synthetic head."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)), rng.standard_normal((n, d)), rng.standard_normal((n, d))


def output_error(out: np.ndarray, reference: np.ndarray) -> float:
    """‖out − reference‖_F / ‖reference‖_F (the absolute error when the reference is 0)."""
    diff = float(np.linalg.norm(out - reference))
    ref = float(np.linalg.norm(reference))
    return diff / ref if ref > 0 else diff


def kept_fraction(m: np.ndarray) -> float:
    """The share of the n(n+1)/2 causal pairs whose weight is not 0."""
    n = m.shape[0]
    return float(np.count_nonzero(m[_causal(n)])) / (n * (n + 1) / 2)
