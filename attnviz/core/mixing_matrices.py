"""The mixing matrices of the recurrent token mixers, per token, in float64 (no torch).

Each mixer here is linear in its values, ``out_t = Σ_s M[t, s] v_s``, with gates that
change from token to token as a model computes them (:mod:`attnviz.core.mixers` has the
same forms with constant gates, for the synthetic heads). :mod:`attnviz.core.hf_mixing`
fills them from a real model's kernel and proves each against the kernel's output.
"""

from __future__ import annotations

import numpy as np

__all__ = ["conv_matrix", "delta_rule_matrix", "selective_matrix", "ssd_matrix"]


def delta_rule_matrix(q, k, beta, alpha) -> np.ndarray:
    """M of the gated delta rule ``S_t = (I − β_t k_t k_tᵀ) α_t S_{t−1} + β_t k_t v_tᵀ``,
    ``out_t = S_tᵀ q_t`` (S: d_k × d_v, S_0 = 0), for one head.

    ``q``, ``k``: (n, d_k); ``beta``: (n,); ``alpha``: (n,) or (n, d_k) (KDA's gate per
    key channel, ``diag(α_t)`` in place of the scalar). The state is linear in the values:
    ``S_t = Wᵀ V`` with ``W`` (n × d_k) obeying the same update with ``e_t`` for ``v_t``
    (as :func:`attnviz.core.mixers.mixing_matrix` does for constant gates), so
    ``M[t, s] = (W_t q_t)_s`` exactly. Only rows s ≤ t of ``W`` are ever non-zero."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    beta = np.asarray(beta, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    n, d = k.shape
    if alpha.ndim == 1:
        alpha = np.repeat(alpha[:, None], d, axis=1)
    w = np.zeros((n, d))
    m = np.zeros((n, n))
    for t in range(n):
        kt = k[t]
        live = w[:t]
        live *= alpha[t]  # S' = diag(α_t) S  ⇔  W' = W diag(α_t)
        live -= beta[t] * np.outer(live @ kt, kt)  # (I − β k kᵀ) S'
        w[t] = beta[t] * kt  # the new write β k_t e_tᵀ
        m[t, : t + 1] = w[: t + 1] @ q[t]
    return m


def ssd_matrix(c, b, dt, log_decay, d_skip: float = 0.0) -> np.ndarray:
    """M of Mamba-2's scan (SSD; Dao & Gu 2024) for one SSM head:
    ``h_t = e^{a_t} h_{t−1} + Δ_t B_t x_tᵀ``, ``y_t = C_tᵀ h_t + D x_t``, so
    ``M[t, s] = (C_t · B_s) · e^{a_{s+1} + … + a_t} · Δ_s`` for s ≤ t, plus ``D`` on the
    diagonal.

    ``c``, ``b``: (n, d_state); ``dt``: Δ (n,), after its bias, softplus and clamp;
    ``log_decay``: ``a_t = Δ_t A`` (n,); ``d_skip``: the head's D."""
    c = np.asarray(c, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dt = np.asarray(dt, dtype=np.float64)
    cum = np.cumsum(np.asarray(log_decay, dtype=np.float64))
    n = c.shape[0]
    causal = np.tril(np.ones((n, n), dtype=bool))
    # cum_t − cum_s ≤ 0 below the diagonal; above it the difference could overflow e^x.
    decay = np.exp(np.where(causal, cum[:, None] - cum[None, :], -np.inf))
    m = (c @ b.T) * decay * dt[None, :]
    m[np.diag_indices(n)] += d_skip
    return m


def conv_matrix(c, b, taps) -> np.ndarray:
    """M of a gated short convolution (LFM2's): ``y_t = C_t Σ_j w_j B_{t−K+1+j} x_{t−K+1+j}``
    for one channel, causal (the convolution's K − 1 zeros on the left), so
    ``M[t, s] = C_t · w_{K−1−(t−s)} · B_s`` on the band ``0 ≤ t − s < K`` and 0 elsewhere.

    ``c``, ``b``: the channel's gates (n,); ``taps``: its K convolution weights, oldest
    first (``Conv1d.weight[channel, 0]``)."""
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    taps = np.asarray(taps, dtype=np.float64).reshape(-1)
    n, width = c.shape[0], taps.shape[0]
    lag = np.subtract.outer(np.arange(n), np.arange(n))  # t − s
    band = (lag >= 0) & (lag < width)
    weight = np.where(band, taps[np.clip(width - 1 - lag, 0, width - 1)], 0.0)
    return c[:, None] * weight * b[None, :]


def selective_matrix(c, b, dt, a, d_skip: float = 0.0) -> np.ndarray:
    """M of Mamba's selective scan (Gu & Dao 2023) for one channel:
    ``h_t = e^{Δ_t A} ⊙ h_{t−1} + Δ_t B_t x_t`` (a decay per state dimension),
    ``y_t = C_t · h_t + D x_t``, so ``M[t, s] = Σ_i C_t[i] B_s[i] Δ_s e^{A_i (Δ_{s+1} + … + Δ_t)}``
    plus ``D`` on the diagonal.

    ``c``, ``b``: (n, d_state); ``dt``: the channel's Δ (n,); ``a``: its A (d_state,)."""
    c = np.asarray(c, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dt = np.asarray(dt, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    n = c.shape[0]
    cum = np.cumsum(dt)
    gap = cum[:, None] - cum[None, :]  # Δ_{s+1} + … + Δ_t for s ≤ t
    causal = np.tril(np.ones((n, n), dtype=bool))
    m = np.zeros((n, n))
    for i in range(a.shape[0]):  # a few state dimensions: one n × n pass each
        decay = np.exp(np.where(causal, a[i] * gap, -np.inf))
        m += np.outer(c[:, i], b[:, i]) * decay
    m *= dt[None, :]
    m[np.diag_indices(n)] += d_skip
    return m
