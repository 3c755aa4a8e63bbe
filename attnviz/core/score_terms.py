"""What real models do to the scaled scores besides the scale: a per-query temperature,
capping, ALiBi, a sink.

The chain, in the order the models apply it (Llama 4, Gemma 2, BLOOM, gpt-oss):

1. ``s = c · q kᵀ`` (the scale, :func:`attnviz.core.attention.score_scale`);
1b. temperature tuning (``tuning`` > 0, Llama 4's NoPE layers): query ``i``'s row times
   ``τᵢ = 1 + tuning · ln(⌊(i + 1) / tuning_floor⌋ + 1)``, sharper attention far into a long
   context (Llama 4 scales q itself, which is the same);
2. capping (``softcap`` > 0): ``s ← cap · tanh(s / cap)``, scores squeezed into (−cap, cap);
3. ALiBi (``alibi`` = slope > 0): ``s_ij ← s_ij − slope · |i − j|``, a penalty growing
   with distance (for a causal row this equals BLOOM's ``+ slope · j``: the two differ by
   a constant per row, which the softmax does not see);
4. the mask (−inf where hidden), then the softmax, whose denominator gains ``e^sink`` when
   a sink logit is set (gpt-oss): the weights of a row then sum to less than 1, the rest
   going to "no key at all".

Each term defaults to off, and :class:`ScoreTerms` with every term off changes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnviz.core.value_text import brief

#: Largest score cap, ALiBi slope and |sink logit| (real models: caps of 30–50, slopes
#: below 1, sinks of a few units; beyond these exp() of a long row leaves the float range).
MAX_CAP = 1000.0
MAX_SLOPE = 16.0
MAX_SINK = 100.0
#: Largest temperature-tuning scale (Llama 4's is 0.1) and floor (its is 8,192 positions).
MAX_TUNING = 10.0
MAX_TUNING_FLOOR = 2**31 - 1


def _finite(value, name: str, limit: float, *, positive_or_zero: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {brief(value)}")
    x = float(value)
    if not math.isfinite(x) or abs(x) > limit:
        raise ValueError(f"{name} must be finite and at most {limit:g} in size, got {brief(value)}")
    if positive_or_zero and x < 0:
        raise ValueError(f"{name} must be ≥ 0 (0 = off), got {brief(value)}")
    return x


@dataclass(frozen=True)
class ScoreTerms:
    """The terms after the scale: the temperature ``tuning`` scale (0 = off) and its
    ``tuning_floor``, ``softcap`` (0 = off), ALiBi ``alibi`` slope (0 = off) and the
    ``sink`` logit (None = no sink)."""

    softcap: float = 0.0
    alibi: float = 0.0
    sink: float | None = None
    tuning: float = 0.0
    tuning_floor: int = 8192

    def __post_init__(self) -> None:
        object.__setattr__(self, "softcap", _finite(self.softcap, "softcap", MAX_CAP))
        object.__setattr__(self, "alibi", _finite(self.alibi, "alibi", MAX_SLOPE))
        object.__setattr__(self, "tuning", _finite(self.tuning, "tuning", MAX_TUNING))
        floor = self.tuning_floor
        if isinstance(floor, bool) or not isinstance(floor, (int, np.integer)):
            raise ValueError(f"tuning_floor must be a whole number, got {brief(floor)}")
        if not 1 <= floor <= MAX_TUNING_FLOOR:
            raise ValueError(f"tuning_floor must be between 1 and {MAX_TUNING_FLOOR}, got {floor}")
        object.__setattr__(self, "tuning_floor", int(floor))
        if self.sink is not None:
            sink = _finite(self.sink, "sink", MAX_SINK, positive_or_zero=False)
            object.__setattr__(self, "sink", sink)

    @property
    def plain(self) -> bool:
        """True when every term is off: the logits are the scaled scores."""
        return self.softcap == 0 and self.alibi == 0 and self.sink is None and self.tuning == 0

    @property
    def shapes_scores(self) -> bool:
        """True when tuning, capping or ALiBi change the logits (a sink changes only the
        softmax)."""
        return self.softcap > 0 or self.alibi > 0 or self.tuning > 0

    def row_factors(self, n_q: int, row0: int = 0, row_step: int = 1) -> np.ndarray | None:
        """τ of queries ``row0, row0 + row_step, …`` (float64, ``(n_q, 1)``), or None when
        temperature tuning is off."""
        if self.tuning <= 0:
            return None
        i = row0 + row_step * np.arange(n_q, dtype=np.float64)
        return (1.0 + self.tuning * np.log1p(np.floor((i + 1.0) / self.tuning_floor)))[:, None]

    def logits(
        self, scores: np.ndarray, row0: int = 0, col0: int = 0, row_step: int = 1
    ) -> np.ndarray:
        """Tuned, capped and biased ``scores`` (``(..., n_q, n_k)``; row ``i`` is query
        ``row0 + i·row_step``, column ``j`` key ``col0 + j``); ``scores`` itself when no
        term is on (no copy)."""
        out = scores
        tau = self.row_factors(scores.shape[-2], row0, row_step)
        if tau is not None:
            out = out * tau
        if self.softcap > 0:
            out = self.softcap * np.tanh(out / self.softcap)
        if self.alibi > 0:
            out = out + alibi_bias(*scores.shape[-2:], self.alibi, row0, col0, row_step)
        return out.astype(scores.dtype, copy=False) if out is not scores else out

    def cap_slope(self, scores: np.ndarray, row0: int = 0) -> np.ndarray | float:
        """``∂ logits / ∂ scores`` of the tuning and the capping: ``τᵢ · (1 − tanh²(τᵢ s /
        cap))`` (τᵢ = 1 untuned, the tanh term 1 without a cap); rows from ``row0``."""
        tau = self.row_factors(scores.shape[-2], row0)
        tuned = scores if tau is None else scores * tau
        slope = 1.0 if tau is None else tau
        if self.softcap <= 0:
            return slope
        t = np.tanh(tuned / self.softcap)
        return slope * (1.0 - t * t)


#: Every term off.
PLAIN = ScoreTerms()


def alibi_bias(
    n_q: int, n_k: int, slope: float, row0: int = 0, col0: int = 0, row_step: int = 1
) -> np.ndarray:
    """ALiBi's ``−slope · |i − j|`` for queries ``row0, row0 + row_step, …`` and keys
    ``col0 …`` (float64)."""
    i = (row0 + row_step * np.arange(n_q, dtype=np.float64))[:, None]
    j = np.arange(col0, col0 + n_k, dtype=np.float64)[None, :]
    return -slope * np.abs(i - j)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The slopes of ALiBi's heads (Press et al., as BLOOM and MPT compute them): a
    geometric sequence from 2^(−8/h), interleaved with the next power of two's when ``h``
    is not one."""
    if isinstance(n_heads, bool) or not isinstance(n_heads, (int, np.integer)) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {brief(n_heads)}")
    closest = 2 ** math.floor(math.log2(n_heads))
    base = 2.0 ** (-(2.0 ** -(math.log2(closest) - 3)))
    slopes = [base ** (i + 1) for i in range(closest)]
    if closest != n_heads:
        extra = 2.0 ** (-(2.0 ** -(math.log2(2 * closest) - 3)))
        slopes += [extra ** (i + 1) for i in range(0, 2 * (n_heads - closest), 2)]
    return np.array(slopes)
