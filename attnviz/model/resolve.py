"""One resolver turns the state into results, recomputing only what a change affects.

Dependency graph (state fields → results):

- ``mask``      ← tokens, causal, padding, segments, window, window_causal
- ``attention`` ← q, k, v, d_k, scale, temperature, mask (and everything behind Q/K/V)
- ``steps``     ← attention, selected_query

Restyle fields (matrix choice, colormap, levels) recompute nothing; they are passed on so
views can restyle. Every emission carries a generation number.

Large matrices (more than :data:`ASYNC_CELLS` entries) are computed off the caller's thread
when the resolver is given a ``runner`` (the UI passes a Qt thread pool): the job works on
the arrays of one moment, and a result that arrives after a newer job was started is
dropped, so the views never show a stale matrix after a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from psygnal import Signal

from attnviz.core import masks
from attnviz.core.attention import AttentionResult, attention_from_scores, score_scale
from attnviz.model.state import RECOMPUTE_KEYS, RESTYLE_KEYS, AttentionState

MASK_KEYS = frozenset({"tokens", "causal", "padding", "segments", "window", "window_causal"})
#: Fields that change q kᵀ itself; the others (scale, temperature, v, mask) reuse it.
QK_KEYS = frozenset({"tokens", "head", "seed", "d_k", "q", "k"})
#: Above this many matrix entries (n = 1024) a recompute leaves the caller's thread when a
#: runner is available: at ~50 ms and beyond a slider would stutter.
ASYNC_CELLS = 1024 * 1024

#: ``runner(job, done)`` runs ``job()`` elsewhere and later calls ``done(result)`` on the
#: caller's thread — or ``done(exception)`` when the job raised.
Runner = Callable[[Callable[[], object], Callable[[object], None]], None]


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


def mask_key(state: AttentionState) -> tuple:
    """The mask settings of ``state`` as a hashable key (equal keys, equal masks)."""
    return (state.n, state.causal, state.padding, state.segments, state.window, state.window_causal)


def mask_from_key(key: tuple) -> np.ndarray | None:
    """The combined may-attend mask for a :func:`mask_key`, or None when all are off."""
    n, causal, padding, segments, window, window_causal = key
    parts = []
    if causal:
        parts.append(masks.causal_mask(n))
    if not all(padding):
        parts.append(masks.padding_mask(np.array(padding, dtype=bool)))
    if len(set(segments)) > 1:
        parts.append(masks.document_mask(np.array(segments)))
    if window > 0:
        parts.append(masks.sliding_window_mask(n, window, causal=window_causal))
    if not parts:
        return None
    return np.broadcast_to(masks.combine(*parts), (n, n)).copy()


def build_mask(state: AttentionState) -> np.ndarray | None:
    """The combined may-attend mask of the state's mask settings, or None when all are off."""
    return mask_from_key(mask_key(state))


@dataclass(frozen=True)
class _Job:
    """Everything one recompute reads, captured at one moment (arrays are never mutated)."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    c: float
    mask_key: tuple
    qk_cache: tuple  # (q, k, q kᵀ) of the last finished job
    mask_cache: tuple  # (mask_key, mask) of the last finished job

    def run(self) -> tuple:
        q_old, k_old, qk = self.qk_cache
        if not (self.q is q_old and self.k is k_old):
            qk = self.q @ self.k.T
        key_old, mask = self.mask_cache
        if self.mask_key != key_old:
            mask = mask_from_key(self.mask_key)
        # Bit for bit what attention(q, k, v, ...) gives: the same product, the same factor.
        result = attention_from_scores(qk * self.c, self.v, mask=mask)
        return (self.q, self.k, qk), (self.mask_key, mask), result


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
    recomputed (``mask``, ``attention``, ``steps``) and the restyle fields that changed,
    ``busy(bool)`` around work handed to the ``runner``, and ``failed(message)`` when such
    work raised (the last good results stay).
    """

    resolved = Signal(object, frozenset)
    busy = Signal(bool)
    failed = Signal(str)

    def __init__(
        self, state: AttentionState, *, auto: bool = True, runner: Runner | None = None
    ) -> None:
        self.state = state
        self.runner = runner
        self.generation = 0
        self._job_id = 0
        self._pending = False
        self._qk_cache: tuple = (None, None, None)
        self._mask_cache: tuple = (None, None)
        self._apply(self._job().run())
        self.results = Results(
            0, self._mask, self._attention, query_steps(state, self._attention, self._mask)
        )
        if auto:
            state.changed.connect(self.on_state_changed)

    @property
    def pending(self) -> bool:
        """True while a recompute runs elsewhere; :attr:`results` are then the last ones."""
        return self._pending

    def _job(self) -> _Job:
        s = self.state
        return _Job(
            s.q,
            s.k,
            s.v,
            score_scale(s.d_k, s.scale, s.temperature),
            mask_key(s),
            self._qk_cache,
            self._mask_cache,
        )

    def _apply(self, out: tuple) -> bool:
        """Keep a finished job's caches and result; True when the mask changed."""
        self._qk_cache, mask_cache, self._attention = out
        changed = not _same(mask_cache[1], self._mask_cache[1])
        self._mask_cache = mask_cache
        self._mask = mask_cache[1]
        return changed

    def on_state_changed(self, names: frozenset) -> None:
        """Recompute what ``names`` affect and emit :attr:`resolved`."""
        self.generation += 1
        restyle = names & (RESTYLE_KEYS | {"selected_cell"})
        if names & (RECOMPUTE_KEYS | MASK_KEYS):
            job = self._job()
            self._job_id += 1
            if self.runner is not None and self.state.n**2 > ASYNC_CELLS:
                job_id = self._job_id
                if not self._pending:
                    self._pending = True
                    self.busy.emit(True)
                self.runner(job.run, lambda out: self._finish(job_id, out))
                if restyle:
                    self.resolved.emit(self.results, frozenset(restyle))
                return
            self._pending = False
            self._publish(self._apply(job.run()), restyle)
        elif "selected_query" in names and not self._pending:
            self._publish(False, restyle, only_steps=True)
        elif restyle:
            self.results = Results(self.generation, self._mask, self._attention, self.results.steps)
            self.resolved.emit(self.results, frozenset(restyle))

    def _finish(self, job_id: int, out: tuple) -> None:
        if job_id != self._job_id:
            return  # a newer job is on its way: this result is already stale
        self._pending = False
        self.busy.emit(False)
        if isinstance(out, BaseException):
            # The views keep the last good matrix; the message says why it is not newer.
            self.failed.emit(f"{type(out).__name__}: {out}")
            return
        self._publish(self._apply(out), frozenset())

    def _publish(self, mask_changed: bool, restyle: frozenset, *, only_steps=False) -> None:
        steps = query_steps(self.state, self._attention, self._mask)
        self.results = Results(self.generation, self._mask, self._attention, steps)
        done = (
            {"steps"}
            if only_steps
            else {"attention", "steps"} | ({"mask"} if mask_changed else set())
        )
        self.resolved.emit(self.results, frozenset(done | restyle))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(np.array_equal(a, b))
