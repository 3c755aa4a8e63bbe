"""The reach topic's resolver: gradient reach of an RNN, an LSTM cell path and attention.

Each curve is :func:`attnviz.core.recurrence.gradient_reach` with the topic's fields: a
seeded simulation, ``g[t]`` = the gradient reaching the token ``t`` steps before the last,
relative to the last. The per-step factor of each line is
:func:`~attnviz.core.recurrence.fit_decay`'s (a straight line on the log plot). The LSTM
at T = 1024 takes about half a second, so the resolver computes in the background and keeps
recent results (:attr:`~attnviz.model.resolve.lazy.LazyResolver.BACKGROUND`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.recurrence import DecayFit, fit_decay, gradient_reach
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.lazy import LazyResolver

KINDS = ("rnn", "lstm", "attention")
#: The chapter's figures: (kind, tokens in the sequence, gradient reaching the first token).
#: The first of T tokens is T − 1 steps before the last.
REFERENCES = (
    ("rnn", 64, 5e-4),
    ("lstm", 64, 4e-2),
    ("rnn", 256, 1e-14),
    ("lstm", 256, 2e-6),
)
#: The fields the curves depend on, in the order :func:`compute_reach` takes them.
INPUTS = ("length", "seed", "weight_scale", "score_std")


@dataclass(frozen=True)
class ReachResults:
    """Curves of length T (read-only) and their fitted per-step factors (None: no fit)."""

    length: int
    distance: np.ndarray
    curves: dict[str, np.ndarray]
    fits: dict[str, DecayFit | None]

    def table(self) -> np.ndarray:
        """The ``(T, 3)`` array of the export: columns rnn, lstm, attention."""
        return np.column_stack([self.curves[k] for k in KINDS])


def _fit(g: np.ndarray) -> DecayFit | None:
    try:
        return fit_decay(g)
    except ValueError:  # fewer than two positive entries: every path cut or underflowed
        return None


def compute_reach(length: int, seed: int, weight_scale: float, score_std: float) -> ReachResults:
    """The three reach curves for these inputs (pure)."""
    curves = {}
    for kind in KINDS:
        g = gradient_reach(length, kind, weight_scale=weight_scale, score_std=score_std, seed=seed)
        g.flags.writeable = False
        curves[kind] = g
    distance = np.arange(length)
    distance.flags.writeable = False
    return ReachResults(length, distance, curves, {k: _fit(g) for k, g in curves.items()})


def reach_inputs(values: dict) -> tuple:
    """The arguments of :func:`compute_reach` from the topic's field values."""
    return tuple(values[name] for name in INPUTS)


class ReachResolver(LazyResolver):
    """Lazy resolver of the ``reach`` topic."""

    TOPIC = "reach"
    BACKGROUND = True

    def key(self) -> tuple:
        return reach_inputs(self.topic.snapshot())

    def compute_key(self, key: tuple) -> ReachResults:
        return compute_reach(*key)


RESOLVER = ReachResolver


def reach_data(workspace, name: str) -> DataArray:
    """The reach panel's one array, ``reach``: each position's reach by kind."""
    res = workspace.resolver_for("reach").results
    return DataArray(res.table(), tuple(str(t) for t in range(res.length)), KINDS)
