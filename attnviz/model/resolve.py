"""One resolver turns the state into results, recomputing only what a change affects.

Dependency graph (state fields → results):

- ``mask``      ← tokens, causal, padding, segments, window, window_causal
- ``attention`` ← q, k, v, d_k, scale, temperature, mask (and everything behind Q/K/V)
- ``steps``     ← attention, selected_query

Restyle fields (matrix choice, colormap, levels) recompute nothing; they are passed on so
views can restyle. Every emission carries a generation number, so work finished for an
older state can be recognised and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from psygnal import Signal

from attnviz.core import masks
from attnviz.core.attention import AttentionResult, attention_from_scores, score_scale
from attnviz.model.state import RECOMPUTE_KEYS, RESTYLE_KEYS, AttentionState

MASK_KEYS = frozenset({"tokens", "causal", "padding", "segments", "window", "window_causal"})
#: Fields that change q kᵀ itself; the others (scale, temperature, v, mask) reuse it.
QK_KEYS = frozenset({"tokens", "head", "seed", "d_k", "q", "k"})


@dataclass(frozen=True)
class QuerySteps:
    """The four steps of the hand-worked example for one query row.

    ``raw`` = q·k_j, ``scaled`` = raw / √d_k / T (−inf where masked), ``weights`` =
    softmax(scaled), ``output`` = weights @ V.
    """

    query: int
    token: str
    raw: np.ndarray
    scaled: np.ndarray
    allowed: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    divisor: float


@dataclass(frozen=True)
class Results:
    """What the panels draw; replaced as a whole when anything is recomputed."""

    generation: int
    mask: np.ndarray | None
    attention: AttentionResult
    steps: QuerySteps

    def matrix(self, name: str) -> np.ndarray:
        """The matrix a heatmap shows: ``scores``, ``weights`` or ``output``."""
        return {
            "scores": self.attention.scores,
            "weights": self.attention.weights,
            "output": self.attention.output,
        }[name]


def build_mask(state: AttentionState) -> np.ndarray | None:
    """The combined may-attend mask of the state's mask settings, or None when all are off."""
    n = state.n
    parts = []
    if state.causal:
        parts.append(masks.causal_mask(n))
    if not all(state.padding):
        parts.append(masks.padding_mask(np.array(state.padding, dtype=bool)))
    if len(set(state.segments)) > 1:
        parts.append(masks.document_mask(np.array(state.segments)))
    if state.window > 0:
        parts.append(masks.sliding_window_mask(n, state.window, causal=state.window_causal))
    if not parts:
        return None
    return np.broadcast_to(masks.combine(*parts), (n, n)).copy()


def query_steps(state: AttentionState, res: AttentionResult, mask) -> QuerySteps:
    """The four steps for the state's selected query, read off the full result."""
    i = state.selected_query
    raw = state.q[i] @ state.k.T
    allowed = np.ones(state.n, bool) if mask is None else mask[i].copy()
    divisor = (np.sqrt(state.d_k) if state.scale else 1.0) * state.temperature
    scaled = np.where(allowed, res.scores[i], -np.inf)
    return QuerySteps(
        query=i,
        token=state.tokens[i],
        raw=raw,
        scaled=scaled,
        allowed=allowed,
        weights=res.weights[i].copy(),
        output=res.output[i].copy(),
        divisor=float(divisor),
    )


class Resolver:
    """Listens to a state and keeps :attr:`results` current.

    Emits ``resolved(results, changed_names)`` where ``changed_names`` holds the results
    recomputed (``mask``, ``attention``, ``steps``) and the restyle fields that changed.
    """

    resolved = Signal(object, frozenset)

    def __init__(self, state: AttentionState, *, auto: bool = True) -> None:
        self.state = state
        self.generation = 0
        self._mask = build_mask(state)
        self._qk = state.q @ state.k.T
        self._attention = self._compute()
        self.results = Results(
            0, self._mask, self._attention, query_steps(state, self._attention, self._mask)
        )
        if auto:
            state.changed.connect(self.on_state_changed)

    def _compute(self) -> AttentionResult:
        # Equal, bit for bit, to attention(q, k, v, ...): the same product times the same
        # factor; keeping q kᵀ saves the largest product on every temperature/scale step.
        s = self.state
        c = score_scale(s.d_k, s.scale, s.temperature)
        return attention_from_scores(self._qk * c, s.v, mask=self._mask)

    def on_state_changed(self, names: frozenset) -> None:
        """Recompute what ``names`` affect and emit :attr:`resolved`."""
        self.generation += 1
        done: set[str] = set()
        if names & MASK_KEYS:
            new_mask = build_mask(self.state)
            if not _same(new_mask, self._mask):
                done.add("mask")
            self._mask = new_mask
        if names & QK_KEYS:
            self._qk = self.state.q @ self.state.k.T
        if names & RECOMPUTE_KEYS:
            self._attention = self._compute()
            done.add("attention")
        if done or "selected_query" in names:
            steps = query_steps(self.state, self._attention, self._mask)
            done.add("steps")
        else:
            steps = self.results.steps
        self.results = Results(self.generation, self._mask, self._attention, steps)
        restyle = names & (RESTYLE_KEYS | {"selected_cell"})
        if done or restyle:
            self.resolved.emit(self.results, frozenset(done | restyle))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(np.array_equal(a, b))
