"""One step of decoding, per token mixer: what token t reads, writes and computes.

At step t (1-based) a new token's query arrives. A softmax-family head appends its key
and value to the KV cache and reads the cache (t entries; a sliding window keeps a ring
of ``window`` slots, slot (t − 1) mod window taking the new token over the one ``window``
steps older). A linear, decayed or delta-rule head reads its fixed d × d state, updates it
with the new key and value and writes it back: the same work at every step.

The FLOPs of a step are :func:`attnviz.core.mixer_costs.token_costs`' (the cost curves of
the mixers panel count the same); the bytes are split into what the step reads and what
it writes (a cache kind's read is the cost curves' bytes, plus the new k and v written; a
state is read and written back whole). Without a cache, generating token t means running
the head over the whole prefix again, every row 1 … t as if each were decoded: the sum of
the steps' costs up to t (for softmax 2·d·t·(t + 1) FLOPs against 4·d·t with a cache).
Projections and the rest of the layer are not counted, as in the cost curves.

Numbers only: no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.mixer_costs import BYTES, state_numbers, token_costs
from attnviz.core.mixers import DEFAULTS, KINDS, RECURRENT, MixerParams, feature, unit_rows

#: The columns of a step's costs, in the order :meth:`StepCosts.row` gives them.
COLUMNS = (
    "held_numbers", "flops", "bytes_read", "bytes_written", "bytes",
    "recompute_flops", "recompute_bytes",
)  # fmt: skip


@dataclass(frozen=True)
class StepCosts:
    """What decoding token ``t`` costs one head of ``kind`` (see the module docstring).

    held_numbers : numbers kept after the step (cache entries × 2·d, or the state)
    flops : multiply-adds × 2 of this step
    bytes_read, bytes_written : bytes the step moves each way; ``bytes`` their sum
    recompute_flops, recompute_bytes : the same step without a cache: the prefix rerun
    """

    kind: str
    t: int
    held_numbers: int
    flops: int
    bytes_read: int
    bytes_written: int
    recompute_flops: int
    recompute_bytes: int

    @property
    def bytes(self) -> int:
        """Bytes moved by the step, read and written."""
        return self.bytes_read + self.bytes_written

    def row(self) -> tuple[int, ...]:
        """The step's numbers in :data:`COLUMNS` order."""
        return (
            self.held_numbers, self.flops, self.bytes_read, self.bytes_written, self.bytes,
            self.recompute_flops, self.recompute_bytes,
        )  # fmt: skip


def _check_step(t, d) -> tuple[int, int]:
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 1:
        raise ValueError(f"the decoding step t must be an integer ≥ 1, got {t!r}")
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"the head width d must be an integer ≥ 1, got {d!r}")
    return int(t), int(d)


def _read_written(kind: str, t, d: int, params: MixerParams):
    """Bytes read and written by step ``t`` (array-like t)."""
    _flops, moved = token_costs(kind, t, d, params)
    if kind in RECURRENT:
        half = moved // 2  # the state read, then written back whole
        return half, half
    # A cache kind reads what the cost curves count and appends its new key and value.
    return moved, np.full(np.shape(moved), 2 * d * BYTES, dtype=np.int64)


def step_costs(kind: str, t: int, d: int, params: MixerParams = DEFAULTS) -> StepCosts:
    """The costs of decoding token ``t`` (1-based) with a head of width ``d``."""
    t, d = _check_step(t, d)
    if kind not in KINDS:
        raise ValueError(f"unknown mixer kind {kind!r}; expected one of {', '.join(KINDS)}")
    steps = np.arange(1, t + 1)
    flops, _moved = token_costs(kind, steps, d, params)
    read, written = _read_written(kind, steps, d, params)
    held = state_numbers(kind, t, d, params)
    return StepCosts(
        kind, t, int(held), int(flops[-1]), int(read[-1]), int(written[-1]),
        int(flops.sum()), int(read.sum() + written.sum()),
    )  # fmt: skip


def all_step_costs(t: int, d: int, params: MixerParams = DEFAULTS) -> dict[str, StepCosts]:
    """:func:`step_costs` of every kind, in :data:`~attnviz.core.mixers.KINDS` order."""
    return {kind: step_costs(kind, t, d, params) for kind in KINDS}


def ring_slots(t: int, window: int) -> np.ndarray:
    """The tokens (1-based) a sliding window's ring holds after step ``t``: slot j holds
    the latest token s ≤ t with (s − 1) mod ``window`` = j, 0 where no token has come yet
    (``min(t, window)`` slots are filled)."""
    t, window = _check_step(t, window)
    slots = np.arange(window)
    # The latest s ≡ j + 1 (mod window) not after t.
    latest = t - ((t - 1 - slots) % window)
    return np.where(latest >= 1, latest, 0).astype(np.int64)


def recurrent_state(kind: str, k, v, t: int, params: MixerParams = DEFAULTS) -> np.ndarray:
    """The d × d state a recurrent kind holds after step ``t`` (keys and values 1 … t):
    the matrix S_t with out_t = S_t · read(q_t), where read is φ for linear attention
    (then divided by φ(q_t)·z_t when normalised), q/√d for the decayed kind and q/|q| for
    the delta rules, written as loops over the steps (the recurrence decoding runs)."""
    k = np.asarray(k, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if kind not in RECURRENT:
        raise ValueError(f"{kind} keeps a KV cache, not a fixed state")
    if k.ndim != 2 or k.shape != v.shape or not 1 <= t <= k.shape[0]:
        raise ValueError(f"k and v must be two n × d arrays with n ≥ t = {t}")
    d = k.shape[1]
    if kind == "linear":
        keys = feature(k, params.feature_map)
    elif kind == "decayed":
        keys = k
    else:
        keys = unit_rows(k)
    state = np.zeros((d, d))
    for s in range(t):
        if kind == "decayed":
            state *= params.decay
        elif kind in ("deltanet", "gated_deltanet"):
            # S ← α S (I − β k kᵀ): what the state said for k is partly erased first.
            state -= params.beta * np.outer(state @ keys[s], keys[s])
            if kind == "gated_deltanet":
                state *= params.alpha
        strength = params.beta if kind in ("deltanet", "gated_deltanet") else 1.0
        state += strength * np.outer(v[s], keys[s])
    return state


def recurrent_normaliser(k, t: int, params: MixerParams = DEFAULTS) -> np.ndarray:
    """Linear attention's z_t = Σ_{s ≤ t} φ(k_s), the d numbers it keeps beside S."""
    return feature(np.asarray(k, dtype=np.float64)[:t], params.feature_map).sum(axis=0)
