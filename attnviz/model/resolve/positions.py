"""The positions topic's resolver: RoPE frequencies, hand angles, relative scores, scalings.

Results for the positions panel:

- ``inv_freq``: θ_i per dimension pair with the topic's scaling (what the model uses);
- ``query_angles``, ``key_angles``: each hand's angle at the dial's positions m and n;
- ``relative``: q_m·k_n for a fixed demo q and k, as a function of m − n, at several
  absolute offsets (the curves lie on top of each other: only m − n matters), and the
  N×N matrix of q_m·k_n for positions 0…N−1 (Toeplitz);
- ``methods``: the wavelength of every pair under each context-extension method with the
  topic's factor and original context, and which pairs each one keeps, slows or blends;
- ``alibi``: the same demo q·k without rotation, with ALiBi's bias −slope·|m − n| instead
  (None while ``alibi_slope`` is 0): the other way of making scores depend on distance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.rope import (
    ROPE_TYPES,
    ScalingRegions,
    relative_matrix,
    relative_scores,
    rope_frequencies,
    rotation_angles,
    scaling_regions,
)
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.topics.positions import scaling_dict

#: Distances m − n of the relative-score curves: −R … R.
RELATIVE_RADIUS = 64
#: Positions 0 … N−1 of the exported ``relative`` matrix.
RELATIVE_N = 64
#: The methods compared on one plot (dynamic NTK equals static NTK at the full context).
COMPARED = ("default", "linear", "ntk", "llama3", "yarn")
#: The rotation layout: pair i is dimensions 2i and 2i+1, as the dial draws it.
LAYOUT = "interleaved"


@dataclass(frozen=True)
class PositionsResults:
    """What the positions panel draws (see the module docstring)."""

    inv_freq: np.ndarray
    regions: ScalingRegions
    query_angles: np.ndarray
    key_angles: np.ndarray
    distances: np.ndarray
    offsets: tuple[int, ...]
    relative: np.ndarray
    relative_matrix: np.ndarray
    methods: dict[str, ScalingRegions]
    demo_q: np.ndarray
    demo_k: np.ndarray
    alibi: np.ndarray | None = None


def demo_vectors(head_dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed q and k of the relative-score demo: all ones (a score of head_dim at m = n)."""
    ones = np.ones(head_dim)
    return ones, ones.copy()


def method_values(values: dict, method: str) -> dict:
    """The topic's fields with ``rope_type`` replaced by ``method`` (same factor, context)."""
    return {**values, "rope_type": method}


class PositionsResolver(LazyResolver):
    """Lazy resolver of the ``positions`` topic."""

    TOPIC = "positions"

    def compute(self) -> PositionsResults:
        v = self.topic.snapshot()
        d = v["head_dim"]
        scaling = scaling_dict(v)
        seq_len = max(v["position"], v["key_position"]) + 1
        inv = rope_frequencies(d, v["base"], scaling, seq_len=seq_len)
        regions = scaling_regions(d, v["base"], scaling, seq_len=seq_len)
        q_ang = rotation_angles(np.array([v["position"]]), inv)[0]
        k_ang = rotation_angles(np.array([v["key_position"]]), inv)[0]
        q, k = demo_vectors(d)
        distances = np.arange(-RELATIVE_RADIUS, RELATIVE_RADIUS + 1)
        # Offsets chosen so that every m = offset + distance and n = offset stay ≥ 0.
        r, step = RELATIVE_RADIUS, v["offset"]
        offsets = (r, r + step, r + 2 * step)
        rel = relative_scores(q, k, inv, distances, offsets, layout=LAYOUT)
        matrix = relative_matrix(q, k, inv, RELATIVE_N, layout=LAYOUT)
        methods = {
            m: scaling_regions(d, v["base"], scaling_dict(method_values(v, m)))
            for m in COMPARED
            if m in ROPE_TYPES
        }
        alibi = None
        if v["alibi_slope"] > 0:
            alibi = float(q @ k) - v["alibi_slope"] * np.abs(distances).astype(np.float64)
        return PositionsResults(
            inv, regions, q_ang, k_ang, distances, offsets, rel, matrix, methods, q, k, alibi
        )


RESOLVER = PositionsResolver


def _frequencies(workspace) -> DataArray:
    inv = workspace.resolver_for("positions").results.inv_freq
    return DataArray(inv, tuple(f"pair {i}" for i in range(inv.size)), ("theta",))


def _alibi(workspace) -> DataArray:
    res = workspace.resolver_for("positions").results
    if res.alibi is None:
        raise ValueError("ALiBi is not drawn: set positions.alibi_slope above 0")
    rows = ("rope", "alibi")
    return DataArray(
        np.stack([res.relative[0], res.alibi]), rows, tuple(str(int(d)) for d in res.distances)
    )


def _relative(workspace) -> DataArray:
    m = workspace.resolver_for("positions").results.relative_matrix
    labels = tuple(str(i) for i in range(m.shape[0]))
    return DataArray(m, labels, labels)


def positions_data(workspace, name: str) -> DataArray:
    """The positions panel's array ``name``: frequencies, alibi, relative."""
    return {"frequencies": _frequencies, "alibi": _alibi, "relative": _relative}[name](workspace)
