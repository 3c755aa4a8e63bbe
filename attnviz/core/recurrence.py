"""How much gradient reaches a token ``t`` steps back: RNN, LSTM cell path, attention.

Each curve comes from an actual seeded simulation, not from a closed formula:

- ``"rnn"``: a tanh RNN ``h_s = tanh(W h_{s−1} + x_s)``. The gradient that reaches ``t`` steps
  back is the product of the Jacobians ``diag(1 − h_s²) W``; its size is the Frobenius norm of
  that product over ``√hidden`` (the RMS gain over every direction the loss could pull in).
  ``W`` is ``weight_scale`` times a random orthogonal matrix, so at scale 1 it neither grows
  nor shrinks a vector and the whole loss comes from ``tanh' < 1``.
- ``"lstm"``: a full LSTM cell with random weights is run forward; along the cell state
  ``c_s = f_s ⊙ c_{s−1} + i_s ⊙ g_s`` the gradient of unit j is multiplied by its forget
  gates only, ``∏ f_s[j]``. The curve is the typical unit: the geometric mean of these
  products over units (``reduce="geometric"``). ``reduce="rms"`` gives the norm of the
  gradient vector instead, which at long range is carried by the few units whose forget
  gates happen to sit highest, so it bends upward on the log plot and varies more by seed.
- ``"attention"``: one attention step links the last token to every token directly, so
  nothing is multiplied along the way. With ``score_std = 0`` (no content preference) every
  token gets the same weight and the curve is exactly 1; with random scores the ratio
  ``a_j / a_last`` fluctuates with content but shows no trend with distance.

The defaults (seed 0) reproduce the textbook chapter's figures: RNN 3.9e-4 at 64 tokens and
1.4e-14 at 256, LSTM 4.0e-2 and 1.9e-6 (the chapter: 5e-4, 1e-14, 4e-2, 2e-6), per-step
factors ≈ 0.882 and ≈ 0.95; seeds 0 to 7 all stay within a factor of 2 of the chapter. The
simulations first run ``burn_in`` steps so that the window starts in the stationary regime
instead of at ``h = 0``, where ``tanh'`` is 1 and the curve would bend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnviz.core._parallel import serial_blas
from attnviz.core._validate import check_choice, check_number, check_positive_int

KINDS = ("rnn", "lstm", "attention")

# Calibrated so that seed 0 lands on the chapter's numbers (see the module docstring); the
# input scale sets how deep into tanh's flat tails the RNN runs, the forget bias how close
# to 1 the LSTM's forget gates sit.
RNN_DEFAULTS = {"hidden": 128, "input_scale": 0.204}
LSTM_DEFAULTS = {"hidden": 256, "input_scale": 1.0, "forget_bias": 3.5}
REDUCTIONS = ("geometric", "rms")

_LOG_MAX = 700.0  # exp() of more overflows float64; a growing gradient is clipped there


@dataclass(frozen=True)
class DecayFit:
    """Least-squares line through ``ln g[t]`` against ``t``.

    Attributes
    ----------
    factor : per-step multiplier ``exp(slope)`` (1 = no decay)
    log_intercept : fitted ``ln g[0]``
    residual_rms : RMS distance of ``ln g`` from the line, in nats (0 = perfectly exponential)
    """

    factor: float
    log_intercept: float
    residual_rms: float

    @property
    def half_life(self) -> float:
        """Steps for the gradient to halve (inf when it does not decay)."""
        if self.factor >= 1.0:
            return math.inf
        return math.log(0.5) / math.log(self.factor)


def _orthogonal(rng: np.random.Generator, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(n, n)))
    return q * np.sign(np.diag(r))  # sign fix: uniformly (Haar) distributed, not QR-biased


def _from_logs(logs: np.ndarray) -> np.ndarray:
    return np.exp(np.clip(logs, -np.inf, _LOG_MAX))


def _rnn(T, hidden, weight_scale, input_scale, burn_in, rng) -> np.ndarray:
    w = weight_scale * _orthogonal(rng, hidden)
    h = np.zeros(hidden)
    derivs = np.empty((T, hidden))
    for s in range(burn_in + T):
        h = np.tanh(w @ h + input_scale * rng.normal(size=hidden))
        if s >= burn_in:
            derivs[s - burn_in] = 1.0 - h * h
    logs = np.zeros(T)
    prod = np.eye(hidden)
    acc = 0.0
    for t in range(1, T):
        # ∂h_last/∂h_{last−t} = J_last ⋯ J_{last−t+1}, with J_s = diag(1 − h_s²) W
        prod = prod @ (derivs[T - t][:, None] * w)
        gain = np.linalg.norm(prod) / math.sqrt(hidden)
        if gain == 0.0:
            logs[t:] = -np.inf
            break
        # renormalize each step and keep the scale in log space: no underflow at long T
        acc += math.log(gain)
        prod /= gain
        logs[t] = acc
    return _from_logs(logs)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # the tanh form never overflows


def _lstm(T, hidden, weight_scale, input_scale, forget_bias, burn_in, rng, reduce) -> np.ndarray:
    w_x = rng.normal(size=(4 * hidden, hidden)) * (weight_scale / math.sqrt(hidden))
    w_h = rng.normal(size=(4 * hidden, hidden)) * (weight_scale / math.sqrt(hidden))
    bias = np.zeros(4 * hidden)
    bias[hidden : 2 * hidden] = forget_bias
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    log_f = np.empty((T, hidden))
    for s in range(burn_in + T):
        z = w_x @ (input_scale * rng.normal(size=hidden)) + w_h @ h + bias
        i, f, o = (_sigmoid(z[k * hidden : (k + 1) * hidden]) for k in range(3))
        g = np.tanh(z[3 * hidden :])
        c = f * c + i * g
        h = o * np.tanh(c)
        if s >= burn_in:
            with np.errstate(divide="ignore"):  # a gate of exactly 0 cuts the path: log −inf
                log_f[s - burn_in] = np.log(f)
    # ∂c_last/∂c_{last−t} along the cell path = f_last ⊙ ⋯ ⊙ f_{last−t+1}
    per_unit = np.concatenate([np.zeros((1, hidden)), np.cumsum(log_f[:0:-1], axis=0)])
    if reduce == "geometric":
        return _from_logs(per_unit.mean(axis=1))
    # RMS over units, computed from logs (log-mean-exp) so that long T does not underflow
    top = per_unit.max(axis=1, keepdims=True)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):  # every path cut: log 0 = −inf, a gradient of 0
        mean_sq = np.mean(np.exp(2 * (per_unit - safe_top)), axis=1)
        rms_log = safe_top[:, 0] + 0.5 * np.log(mean_sq)
    return _from_logs(np.where(np.isfinite(top[:, 0]), rms_log, -np.inf))


def _attention(T, score_std, rng) -> np.ndarray:
    scores = rng.normal(size=T) * score_std
    # share of token j relative to the last one, a_j / a_last, read back from the end
    return np.exp(np.clip(scores[::-1] - scores[-1], -745.0, _LOG_MAX))


def gradient_reach(
    T: int,
    kind: str = "rnn",
    *,
    hidden: int | None = None,
    weight_scale: float = 1.0,
    input_scale: float | None = None,
    forget_bias: float | None = None,
    score_std: float = 0.0,
    reduce: str = "geometric",
    burn_in: int = 100,
    seed: int = 0,
) -> np.ndarray:
    """Gradient magnitude reaching each earlier token, relative to the last one.

    Parameters
    ----------
    T : sequence length, ≥ 1
    kind : ``"rnn"``, ``"lstm"`` or ``"attention"`` (see the module docstring)
    hidden : state width (default 128 for the RNN, 256 for the LSTM)
    weight_scale : scale of the random recurrent weights (1 = the chapter's setting)
    input_scale : standard deviation of the random inputs (default 0.2 RNN, 1.0 LSTM)
    forget_bias : LSTM forget-gate bias (default 3.5: gates average ≈ 0.95 in log terms)
    score_std : attention only: spread of the random scores (0 = uniform weights)
    reduce : LSTM only: ``"geometric"`` (the typical unit) or ``"rms"`` (the vector norm)
    burn_in : steps simulated before the window, ≥ 0
    seed : seed of ``numpy.random.default_rng``; the same seed gives the same curve

    Returns
    -------
    ndarray of shape ``(T,)``, float64
        ``g[t]`` = gradient reaching the token ``t`` steps before the last, over the gradient
        at the last; ``g[0] = 1`` and the first token's share is ``g[T − 1]``.
    """
    T = check_positive_int(T, "T")
    check_choice(kind, KINDS, "kind")
    check_choice(reduce, REDUCTIONS, "reduce")
    weight_scale = check_number(weight_scale, "weight_scale", minimum=0.0)
    score_std = check_number(score_std, "score_std", minimum=0.0)
    burn_in = check_positive_int(burn_in, "burn_in", minimum=0)
    seed = check_positive_int(seed, "seed", minimum=0)
    rng = np.random.default_rng(seed)
    if kind == "attention":
        return _attention(T, score_std, rng)
    defaults = RNN_DEFAULTS if kind == "rnn" else LSTM_DEFAULTS
    hidden = check_positive_int(defaults["hidden"] if hidden is None else hidden, "hidden")
    if input_scale is None:
        input_scale = defaults["input_scale"]
    input_scale = check_number(input_scale, "input_scale", minimum=0.0)
    if forget_bias is None:
        forget_bias = LSTM_DEFAULTS["forget_bias"]
    forget_bias = check_number(forget_bias, "forget_bias")
    # Thousands of small products in a row: BLAS threads would only wait for each other
    # (one thread is 5 to 50 times faster on a busy two-core machine).
    with serial_blas():
        if kind == "rnn":
            return _rnn(T, hidden, weight_scale, input_scale, burn_in, rng)
        return _lstm(T, hidden, weight_scale, input_scale, forget_bias, burn_in, rng, reduce)


def fit_decay(g, *, start: int = 0) -> DecayFit:
    """Fit ``ln g[t] ≈ a + t·ln r`` by least squares over ``t ≥ start``.

    Entries that are 0 (a path cut or underflowed) are left out; at least two positive
    entries are needed.
    """
    g = np.asarray(g, dtype=np.float64)
    if g.ndim != 1:
        raise ValueError(f"g must be 1-D, got shape {g.shape}")
    if not np.all(np.isfinite(g)) or np.any(g < 0):
        raise ValueError("g must hold finite, non-negative gradient magnitudes")
    start = check_positive_int(start, "start", minimum=0)
    t = np.arange(g.shape[0])[start:]
    vals = g[start:]
    keep = vals > 0
    if keep.sum() < 2:
        raise ValueError("fit_decay needs at least two positive entries of g")
    t, logs = t[keep].astype(np.float64), np.log(vals[keep])
    slope, intercept = np.polyfit(t, logs, 1)
    resid = logs - (intercept + slope * t)
    return DecayFit(
        factor=float(math.exp(slope)),
        log_intercept=float(intercept),
        residual_rms=float(np.sqrt(np.mean(resid * resid))),
    )


def decay_factor(g, *, start: int = 0) -> float:
    """Per-step decay factor of a reach curve, ``exp`` of the slope of its log (see fit_decay)."""
    return fit_decay(g, start=start).factor
