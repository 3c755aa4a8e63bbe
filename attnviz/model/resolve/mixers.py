"""The mixers topic's resolver: one synthetic head through every token mixer.

For the topic's q, k, v (:func:`attnviz.core.mixers.synthetic_qkv`) it computes each kind's
mixing matrix and output, the output's error against dense causal softmax, the share of
causal pairs kept, the state held after n tokens, the FLOPs and bytes of sequences up to
:data:`COST_MAX` tokens (:mod:`attnviz.core.mixer_costs`) with the lengths where each kind
becomes cheaper than softmax, and the recall curves (:mod:`attnviz.core.recall`). The recall
sweep at its largest takes about a second, so the resolver computes in the background.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core._parallel import serial_blas
from attnviz.core.decode_step import COLUMNS as DECODE_COLUMNS
from attnviz.core.decode_step import all_step_costs
from attnviz.core.mixer_costs import all_costs, cost_grid, crossing, state_numbers
from attnviz.core.mixers import (
    KINDS,
    MixerParams,
    kept_fraction,
    mixing_matrix,
    output_error,
    synthetic_qkv,
)
from attnviz.core.recall import recall_curves
from attnviz.core.receptive_field import receptive_field
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.lazy import LazyResolver

#: The cost curves run from 1 to this many tokens (128k, a long context of 2026).
COST_MAX = 131_072
#: The fields the results depend on, in the order :func:`compute_mixers` takes them.
INPUTS = (
    "n", "d", "seed", "window", "top_k", "stride", "feature_map", "normalised", "decay",
    "beta", "alpha", "recall_pairs",
)  # fmt: skip
#: The columns of the ``kinds`` export, one row per kind.
KIND_COLUMNS = (
    "error_vs_softmax", "kept_fraction", "state_numbers", "flops", "bytes",
    "flops_crossing", "bytes_crossing",
)  # fmt: skip


@dataclass(frozen=True)
class MixersResults:
    """Everything the panel draws (arrays read-only)."""

    n: int
    d: int
    params: MixerParams
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    matrices: dict[str, np.ndarray]
    errors: dict[str, float]
    kept: dict[str, float]
    state: dict[str, int]
    state_long: dict[str, int]  # after COST_MAX tokens
    lengths: np.ndarray  # the cost curves' lengths (a log grid of 1 … COST_MAX)
    flops: dict[str, np.ndarray]
    bytes: dict[str, np.ndarray]
    crossings: dict[str, tuple[int | None, int | None]]  # (FLOPs, bytes) against softmax
    recall_lengths: np.ndarray
    recall: dict[str, np.ndarray]

    def kinds_table(self) -> np.ndarray:
        """The ``kinds`` export: one row per kind, :data:`KIND_COLUMNS`; a crossing of 0
        means never cheaper than softmax up to :data:`COST_MAX` tokens (not NaN: an export
        compares equal to itself)."""
        rows = []
        for kind in KINDS:
            fx, bx = self.crossings[kind]
            rows.append(
                [
                    self.errors[kind],
                    self.kept[kind],
                    self.state[kind],
                    self.flops[kind][-1],
                    self.bytes[kind][-1],
                    0 if fx is None else fx,
                    0 if bx is None else bx,
                ]
            )
        return np.array(rows, dtype=np.float64)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def compute_mixers(
    n, d, seed, window, top_k, stride, feature_map, normalised, decay, beta, alpha, recall_pairs
) -> MixersResults:
    """Every kind on the seed's head (pure; see the module docstring)."""
    params = MixerParams(window, top_k, stride, feature_map, normalised, decay, beta, alpha)
    q, k, v = synthetic_qkv(n, d, seed)
    with serial_blas():
        matrices = {kind: _frozen(mixing_matrix(kind, q, k, params)) for kind in KINDS}
    dense = matrices["softmax"] @ v
    errors = {kind: output_error(m @ v, dense) for kind, m in matrices.items()}
    kept = {kind: kept_fraction(m) for kind, m in matrices.items()}
    state = {kind: int(state_numbers(kind, n, d, params)) for kind in KINDS}
    state_long = {kind: int(state_numbers(kind, COST_MAX, d, params)) for kind in KINDS}
    totals = all_costs(COST_MAX, d, params)
    grid = cost_grid(COST_MAX)
    soft_f, soft_b = totals["softmax"]
    crossings = {
        kind: (crossing(f, soft_f), crossing(b, soft_b)) if kind != "softmax" else (None, None)
        for kind, (f, b) in totals.items()
    }
    # The totals at n itself close each curve's table (what the kinds export reads).
    flops = {kind: _frozen(np.append(f[grid - 1], f[n - 1])) for kind, (f, _b) in totals.items()}
    moved = {kind: _frozen(np.append(b[grid - 1], b[n - 1])) for kind, (_f, b) in totals.items()}
    lengths, curves = recall_curves(recall_pairs, d, params, seed)
    return MixersResults(
        n, d, params, _frozen(q), _frozen(k), _frozen(v), matrices, errors, kept, state, state_long,
        _frozen(grid), flops, moved, crossings, _frozen(lengths),
        {kind: _frozen(c) for kind, c in curves.items()},
    )  # fmt: skip


class MixersResolver(LazyResolver):
    """Lazy resolver of the ``mixers`` topic (the kind drawn is not an input: switching it
    redraws the results it already has)."""

    TOPIC = "mixers"
    BACKGROUND = True
    IGNORES = frozenset({"preset_id", "kind", "view", "decode_step", "depth"})

    def key(self) -> tuple:
        values = self.topic.snapshot()
        return tuple(values[name] for name in INPUTS)

    def compute_key(self, key: tuple) -> MixersResults:
        return compute_mixers(*key)


RESOLVER = MixersResolver


def _tokens(n: int) -> tuple[str, ...]:
    return tuple(str(t) for t in range(n))


def params_of(values: dict) -> MixerParams:
    """The kinds' settings of a snapshot of the topic."""
    return MixerParams(
        values["window"], values["top_k"], values["stride"], values["feature_map"],
        values["normalised"], values["decay"], values["beta"], values["alpha"],
    )  # fmt: skip


def decode_token(values: dict) -> int:
    """The token the decode stepper and the reach picture show: ``decode_step``, at most n."""
    return min(values["decode_step"], values["n"])


def decode_costs_data(values: dict) -> DataArray:
    """The ``decode_costs`` export: one row per kind, what generating token t costs
    (:data:`attnviz.core.decode_step.COLUMNS`), with a cache and without one."""
    t = decode_token(values)
    costs = all_step_costs(t, values["d"], params_of(values))
    table = np.array([c.row() for c in costs.values()], dtype=np.float64)
    return DataArray(table, KINDS, DECODE_COLUMNS, corner=f"t = {t}, d = {values['d']}")


def receptive_field_data(values: dict) -> DataArray:
    """The ``receptive_field`` export: row l (0 … depth), 1 where token t depends on the
    position after l layers of the window, composed from the masks."""
    t = decode_token(values)
    reached = receptive_field(t, values["window"], values["depth"])
    rows = tuple(f"layer {layer}" for layer in range(values["depth"] + 1))
    return DataArray(
        reached.astype(np.float64), rows, tuple(str(s) for s in range(1, t + 1)),
        corner=f"token {t}, window {values['window']}",
    )  # fmt: skip


def mixers_data(workspace, name: str) -> DataArray:
    """The mixers panel's arrays: ``mixing`` (the drawn kind's M, out_t = Σ_s M[t, s] v_s),
    ``kinds`` (each kind's error, kept share, state, costs at n and crossing lengths),
    ``state_sizes`` (numbers held after n tokens), ``flops`` and ``bytes`` (sequence totals)
    over a log grid of lengths, ``recall`` (accuracy against the pairs written),
    ``decode_costs`` (one decoding step of every kind) and ``receptive_field`` (a window's
    reach through ``depth`` layers)."""
    if name == "decode_costs":
        return decode_costs_data(workspace.document.mixers.snapshot())
    if name == "receptive_field":
        return receptive_field_data(workspace.document.mixers.snapshot())
    res = workspace.resolver_for("mixers").results
    kind = workspace.document.mixers.kind
    if name == "mixing":
        tokens = _tokens(res.n)
        return DataArray(res.matrices[kind], tokens, tokens, corner=f"{kind}: M[t, s]")
    if name == "kinds":
        return DataArray(res.kinds_table(), KINDS, KIND_COLUMNS)
    lengths = tuple(str(int(x)) for x in res.lengths)
    if name == "state_sizes":
        table = np.column_stack([state_numbers(k, res.lengths, res.d, res.params) for k in KINDS])
        return DataArray(table.astype(np.float64), lengths, KINDS, corner="tokens")
    if name in ("flops", "bytes"):
        table = getattr(res, name)
        return DataArray(
            np.column_stack([table[k][:-1] for k in KINDS]), lengths, KINDS, corner="tokens"
        )
    if name == "recall":
        rows = tuple(str(int(x)) for x in res.recall_lengths)
        table = np.column_stack([res.recall[k] for k in KINDS])
        return DataArray(table, rows, KINDS, corner="pairs")
    raise ValueError(f"unknown mixers data {name!r}")
