"""The attention topic's resolver: state → results, recomputing only what a change affects.

Dependency graph (fields → results):

- ``mask``      ← tokens, causal, padding, segments, window, window_causal, chunk
- ``attention`` ← q, k, v, d_k, scale, temperature, softcap, alibi, sink, sink_logit,
  mask (and everything behind Q/K/V); with ``rope`` on, also ``rope_dims`` and the
  ``positions`` topic's base and scaling (Q and K are rotated by token index, pairs of
  dimensions as the clock dial shows them)
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
from dataclasses import dataclass, field

import numpy as np

from attnviz.core.attention import AttentionResult, score_scale
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.core.work import Cancelled
from attnviz.model import events
from attnviz.model.data_array import DataArray
from attnviz.model.events import Signal
from attnviz.model.resolve._attention_inputs import (
    ROPE_KEYS,
    mask_from_key,
    mask_key,
    rope_frequencies_for,
    rope_key,
    rotate,
)

# Importable from here, as before the split (heads, the package, the tests).
from attnviz.model.resolve._attention_inputs import build_mask as build_mask
from attnviz.model.resolve._attention_inputs import model_mask_key as model_mask_key
from attnviz.model.resolve._attention_inputs import rope_width as rope_width
from attnviz.model.resolve._display import DISPLAY_CELLS, Picture, attend, picture, preview
from attnviz.model.resolve._one_pass import KEEP_LIMIT, Kept
from attnviz.model.resolve._row_blocks import DENSE_LIMIT, RowBlockAttention
from attnviz.model.resolve.result_names import ATTENTION, MASK, PREVIEW, STEPS
from attnviz.model.resolve.work import LatestWork, Runner
from attnviz.model.topics.attention import AttentionState
from attnviz.model.topics.positions import PositionsState

#: ``heads_off`` changes the heads panel's output through W^O, not the selected head's map.
RECOMPUTE_KEYS = AttentionState.recompute_keys() - {"heads_off"}
RESTYLE_KEYS = AttentionState.restyle_keys()

MASK_KEYS = frozenset(
    {"tokens", "causal", "padding", "segments", "window", "window_causal", "chunk"}
)
#: Fields that change q kᵀ itself; the others (scale, temperature, v, mask) reuse it.
QK_KEYS = frozenset({"tokens", "head", "seed", "d_k", "q", "k", "rope", "rope_dims"})
#: Above this many matrix entries (n = 1024) a recompute leaves the caller's thread when a
#: runner is available: at ~50 ms and beyond a slider would stutter.
ASYNC_CELLS = 1024 * 1024


def _runs(job: _Job):
    """``job`` as a :class:`LatestWork` job (it reports no progress; it stops by itself
    when a newer request replaced it, see :attr:`_Job.stale`)."""
    return lambda _progress, _cancel: job.run()


@dataclass(frozen=True)
class QuerySteps:
    """The four steps of the hand-worked example for one query row.

    ``raw`` = q·k_j, ``scaled`` = raw / √d_k / T (−inf where masked), ``weights`` =
    softmax(scaled), ``output`` = weights @ V. With score terms on: ``tuned`` = the scaled
    scores times the row's temperature-tuning factor ``tau`` (None when tuning is off),
    ``capped`` = the capped (tuned) scaled scores, ``logits`` = what the softmax receives
    (tuned, capped, ALiBi added; −inf where masked), ``sink`` the sink logit,
    ``sink_weight`` the share of the row it takes and ``denominator`` = Σⱼ e^logitⱼ + e^sink
    (inf when it overflows a float).
    """

    query: int
    token: str
    q: np.ndarray
    raw: np.ndarray
    scaled: np.ndarray
    allowed: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    divisor: float
    logits: np.ndarray | None = None
    capped: np.ndarray | None = None
    tuned: np.ndarray | None = None
    tau: float = 1.0
    terms: ScoreTerms = PLAIN
    sink_weight: float = 0.0
    denominator: float = float("nan")

    @property
    def softmax_input(self) -> np.ndarray:
        """What the softmax receives: the logits with score terms on, else the scaled
        scores (−inf where masked)."""
        return self.scaled if self.logits is None else self.logits


@dataclass(frozen=True)
class Results:
    """What the panels draw; replaced as a whole when anything is recomputed."""

    generation: int
    mask: np.ndarray | None
    attention: AttentionResult
    steps: QuerySteps
    q: np.ndarray
    k: np.ndarray
    rope_pairs: int = 0
    #: Pooled pictures of matrices too large to draw cell by cell, by matrix name.
    pictures: dict = field(default_factory=dict)
    #: A real model layer's proven mixing matrix and its kind (:mod:`attnviz.model.
    #: real_mixing`); None: the head's own softmax weights are its mixing matrix.
    mixing: np.ndarray | None = None
    mixing_kind: str = "softmax"

    def matrix(self, name: str) -> np.ndarray:
        """The matrix a heatmap shows: ``scores``, ``weights``, ``output`` or ``mixing``
        (M of ``out = M v``: a softmax head's weights, or :attr:`mixing`)."""
        if name == "mixing":
            return self.attention.weights if self.mixing is None else self.mixing
        if name == "scores":
            return self.attention.scores
        if name == "weights":
            return self.attention.weights
        if name == "output":
            return self.attention.output
        raise KeyError(name)

    def row(self, name: str, i: int) -> np.ndarray:
        """Row ``i`` of ``scores``, ``weights`` or ``output`` (a long sentence's is computed
        now: it keeps no n × n matrix)."""
        if name == "mixing":
            return self.row("weights", i) if self.mixing is None else self.mixing[i]
        if isinstance(self.attention, RowBlockAttention):
            return self.attention.row(name, i)
        return self.matrix(name)[i]

    @property
    def rows(self) -> int:
        """Query rows of the result (it may lag the state while a job runs)."""
        return int(self.attention.entropy.shape[0])

    def picture(self, name: str) -> Picture:
        """What the heatmap draws for ``name``: the matrix itself, or its pooled grid when
        it has more than :data:`DISPLAY_CELLS` rows or columns."""
        found = self.pictures.get(name)
        if found is not None:
            return found
        if name == "mixing" and self.mixing is None:
            return self.picture("weights")  # a softmax head mixes by its weights
        if isinstance(self.attention, RowBlockAttention) and name != "mixing":
            pic = self.attention.picture(name)  # another float32 pass, no n × n array
        else:
            mask = None if name == "output" else self.mask
            # A hybrid's other layer has no softmax rows: no entropy strip beside its M.
            entropy = None if name == "mixing" else self.attention.entropy
            pic = picture(self.matrix(name), mask, entropy)
        self.pictures[name] = pic
        return pic


def computed_matrix(name: str) -> str:
    """The matrix the attention pass computes for the shown ``name``: a head's mixing
    matrix is its weights (a real model's other layers come proven from elsewhere)."""
    return "weights" if name == "mixing" else name


def shown_mixing(state: AttentionState) -> tuple[np.ndarray | None, str]:
    """``(M, kind)`` of a real model's layer shown as its mixing matrix, when the state
    shows one (``matrix = "mixing"`` on a model head at a layer without softmax
    attention); ``(None, "softmax")`` otherwise: the head's weights are its M. The matrix
    was proven when the layer was selected (:mod:`attnviz.model.topics._attention_model`)."""
    if state.head != "model" or state.matrix != "mixing":
        return None, "softmax"
    from attnviz.model import real_mixing, real_model

    try:
        cap = real_model.STORE.cached(state.model_path, state.model_text)
        if cap is None or real_mixing.is_softmax_head(cap, state.layer, state.model_head):
            return None, "softmax" if cap is None else cap.layer_kind(state.layer)
        kind, m = real_mixing.mixing_matrix(
            state.model_path, state.model_text, state.layer, state.model_head
        )
    except real_model.ModelError:
        return None, "softmax"  # refused when the layer was selected; nothing else to show
    return (m if m.shape[0] == state.n else None), kind


@dataclass(frozen=True)
class _Job:
    """Everything one recompute reads, captured at one moment (arrays are never mutated)."""

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    c: float
    mask_key: tuple
    rope_key: tuple | None  # (d_k, positions fields) when RoPE is on
    qk_cache: tuple  # (q, k, rope_key, q_eff, k_eff, q_eff k_effᵀ or Kept) of the last job
    mask_cache: tuple  # (mask_key, mask, hidden: ~mask in the Kept's key order or None)
    shown: str = "weights"  # the matrix the heatmap shows: pooled here when it is large
    terms: ScoreTerms = PLAIN  # capping, ALiBi, a sink
    # True once a newer request replaced this one (read between the pass's blocks): the
    # pass stops and the answer, stale anyway, carries only the reusable q kᵀ.
    stale: Callable[[], bool] | None = None

    def run(self) -> tuple:
        q_old, k_old, rope_old, q_eff, k_eff, kept = self.qk_cache
        long = self.q.shape[0] > DENSE_LIMIT
        if not (self.q is q_old and self.k is k_old and self.rope_key == rope_old):
            q_eff, k_eff = self.q, self.k
            if self.rope_key is not None:
                width, fields = self.rope_key
                inv = rope_frequencies_for(width, dict(fields))
                q_eff, k_eff = rotate(self.q, self.k, inv)
            kept = None
        if kept is None or long != isinstance(kept, Kept):  # new q, k, or across DENSE_LIMIT
            kept = kept_scores(q_eff, k_eff) if long else q_eff @ k_eff.T
        key_old, mask, hidden = self.mask_cache
        if self.mask_key != key_old:
            mask, hidden = mask_from_key(self.mask_key), None
        cache = (self.q, self.k, self.rope_key, q_eff, k_eff, kept)
        if long:
            # No n × n float64 array: one float32 pass, exact rows when asked.
            if hidden is None and mask is not None:
                hidden = kept.order.hidden(mask)
            result = RowBlockAttention(
                q_eff,
                k_eff,
                self.v,
                self.c,
                mask,
                self.terms,
                kept=kept,
                hidden=hidden,
                mask_key=self.mask_key,
            )
            try:
                pictures = result.build(self.shown, stop=self.stale)
            except Cancelled:  # superseded: LatestWork hands this answer to on_stale
                return cache, (self.mask_key, mask, hidden), None
            return cache, (self.mask_key, mask, hidden), (result, pictures)
        # Bit for bit what attention(q, k, v, ...) gives: the same product, the same factor.
        result = attend(
            kept * self.c, self.v, mask, with_output=self.shown == "output", terms=self.terms
        )
        return cache, (self.mask_key, mask, None), (result, {})


def kept_scores(q: np.ndarray, k: np.ndarray) -> Kept:
    """What the steps of a long sentence reuse for one q and k: float32 q and k, and
    up to :data:`KEEP_LIMIT` tokens the float32 q kᵀ (64 MiB at n = 4096)."""
    return Kept(q, k, DISPLAY_CELLS, keep=q.shape[0] <= KEEP_LIMIT)


def query_steps(state: AttentionState, res: AttentionResult, mask, q=None, k=None) -> QuerySteps:
    """The four steps for the state's selected query, read off the full result.

    ``q`` and ``k`` are the vectors the scores came from (rotated when RoPE is on).
    """
    q = state.q if q is None else q
    k = state.k if k is None else k
    i = state.selected_query
    raw = q[i] @ k.T
    allowed = np.ones(state.n, bool) if mask is None else mask[i].copy()
    divisor = (np.sqrt(state.d_k) if state.scale else 1.0) * state.temperature
    terms = state.score_terms()
    row_of = res.row if isinstance(res, RowBlockAttention) else (lambda n, j: getattr(res, n)[j])
    logits = np.where(allowed, row_of("scores", i), -np.inf)
    extra = {}
    if terms.plain:
        scaled = logits
    else:
        s = raw * score_scale(state.d_k, state.scale, state.temperature)
        scaled = np.where(allowed, s, -np.inf)
        factors = terms.row_factors(1, i)
        tau = 1.0 if factors is None else float(factors[0, 0])
        tuned = None if factors is None else np.where(allowed, s * tau, -np.inf)
        capped = None
        if terms.softcap:
            capped = np.where(allowed, terms.softcap * np.tanh(s * tau / terms.softcap), -np.inf)
        extra = {"logits": logits, "capped": capped, "terms": terms, "tuned": tuned, "tau": tau}
        if terms.sink is not None:
            extra |= _sink_share(logits, terms.sink)
    return QuerySteps(
        query=i,
        token=state.tokens[i],
        q=np.array(q[i]),
        raw=raw,
        scaled=scaled,
        allowed=allowed,
        weights=np.array(row_of("weights", i)),
        output=res.output_row(i),
        divisor=float(divisor),
        **extra,
    )


def _sink_share(logits: np.ndarray, sink: float) -> dict:
    """The sink's share of a row and the row's softmax denominator Σ e^logit + e^sink."""
    finite = logits[np.isfinite(logits)]
    top = max(float(finite.max()) if finite.size else sink, sink)
    shifted = float(np.exp(finite - top).sum() + np.exp(sink - top))
    with np.errstate(over="ignore"):
        denominator = float(np.exp(top) * shifted) if top < 709 else float("inf")
    return {"sink_weight": float(np.exp(sink - top) / shifted), "denominator": denominator}


class Resolver:
    """Listens to a state (and the positions topic) and keeps :attr:`results` current.

    Emits ``resolved(results, changed_names)`` where ``changed_names`` holds the results
    recomputed (``mask``, ``attention``, ``steps``) and the restyle fields that changed,
    ``busy(bool)`` around work handed to the ``runner``, and ``failed(message)`` when such
    work raised (the last good results stay).

    Parameters
    ----------
    state : AttentionState
    positions : PositionsState, optional
        Where RoPE's base and scaling come from when ``state.rope`` is on (defaults apply
        when omitted).
    auto : bool
        Follow the state's changes (False: results of the moment of construction).
    runner : Runner, optional
        Runs large recomputes elsewhere (the UI passes a Qt thread pool).
    """

    resolved = Signal(object, frozenset)
    busy = Signal(bool)
    failed = Signal(str)
    #: Never emitted: always watched (the lazy resolvers' ``watching``, for panels).
    watching = Signal(bool)

    #: The topic whose fields it resolves, as every resolver names it.
    TOPIC = "attention"
    #: Always on: every window keeps its results current, watched or not.
    EAGER = True
    #: Computed here or on the runner by its own rule (ASYNC_CELLS), not by a key.
    BACKGROUND = False
    #: Everything ``resolved`` can say is new (a panel shown again redraws these).
    RESULT_NAMES = frozenset({MASK, ATTENTION, STEPS})

    def __init__(
        self,
        state: AttentionState,
        positions: PositionsState | None = None,
        *,
        auto: bool = True,
        runner: Runner | None = None,
    ) -> None:
        self.state = state
        self.positions = positions if positions is not None else PositionsState()
        self.runner = runner
        self.generation = 0
        self._job_id = 0
        # One job out at a time; a request made meanwhile waits and is built when it
        # starts, reusing the q kᵀ the stale answer leaves (see _on_stale).
        self.work = LatestWork(
            self._finish,
            runner,
            on_stale=self._on_stale,
            make_job=lambda key: _runs(self._job(stale=lambda: self._job_id != key)),
        )
        self.preview: Picture | None = None
        self._qk_cache: tuple = (None,) * 6
        self._mask_cache: tuple = (None, None, None)
        self._apply(self._job().run())
        self.results = self._results(query_steps(state, self._attention, self._mask, *self._qk))
        if auto:
            state.changed.connect(self.on_state_changed, phase=events.MODEL)
            self.positions.changed.connect(self._on_positions_changed, phase=events.MODEL)

    @property
    def topic(self) -> AttentionState:
        """The attention topic (its fields are the inputs)."""
        return self.state

    @property
    def watched(self) -> bool:
        """Always True: this resolver never waits for someone to look."""
        return True

    def watch(self, key, *, now: bool = False) -> None:
        """Nothing to do: the results are always current (as :meth:`LazyResolver.watch`
        promises them to a watcher)."""

    def unwatch(self, key) -> None:
        """Nothing to do: the results stay current for everyone else."""

    @property
    def pending(self) -> bool:
        """True while a recompute runs elsewhere; :attr:`results` are then the last ones."""
        return self.work.pending

    @property
    def _qk(self) -> tuple:
        return self._qk_cache[3], self._qk_cache[4]

    def _results(self, steps: QuerySteps) -> Results:
        q, k = self._qk
        pairs = self._qk_cache[2][0] // 2 if self._qk_cache[2] is not None else 0
        mixing, kind = shown_mixing(self.state)
        return Results(
            self.generation, self._mask, self._attention, steps, q, k, pairs, self._pictures,
            mixing, kind,
        )  # fmt: skip

    def _rope_key(self) -> tuple | None:
        return rope_key(self.state, self.positions)

    def _job(self, stale: Callable[[], bool] | None = None) -> _Job:
        s = self.state
        return _Job(
            s.q,
            s.k,
            s.v,
            score_scale(s.d_k, s.scale, s.temperature),
            mask_key(s),
            self._rope_key(),
            self._qk_cache,
            self._mask_cache,
            computed_matrix(s.matrix),
            s.score_terms(),
            stale,
        )

    def _apply(self, out: tuple) -> bool:
        """Keep a finished job's caches and result; True when the mask changed."""
        self._qk_cache, mask_cache, (self._attention, self._pictures) = out
        changed = not _same(mask_cache[1], self._mask_cache[1])
        self._mask_cache = mask_cache
        self._mask = mask_cache[1]
        return changed

    def _on_positions_changed(self, names: frozenset) -> None:
        if self.state.rope and names & ROPE_KEYS:
            self.on_state_changed(frozenset({"rope"}))

    def on_state_changed(self, names: frozenset) -> None:
        """Recompute what ``names`` affect and emit :attr:`resolved`."""
        self.generation += 1
        restyle = names & (RESTYLE_KEYS | {"selected_cell"})
        if names & (RECOMPUTE_KEYS | MASK_KEYS):
            self._job_id += 1
            if self.runner is not None and self.state.n**2 > ASYNC_CELLS:
                if not self.work.pending:
                    self.busy.emit(True)
                self._send_preview()
                self.work.request(self._job_id)
                if restyle:
                    self.resolved.emit(self.results, frozenset(restyle))
                return
            if self.work.cancel():  # a small matrix again: the running answer is stale
                self.busy.emit(False)
            self._publish(self._apply(self._job().run()), restyle)
        elif "selected_query" in names and not self.work.pending:
            self._publish(False, restyle, only_steps=True)
        elif restyle:
            self.results = self._results(self.results.steps)
            self.resolved.emit(self.results, frozenset(restyle))

    def _send_preview(self) -> None:
        """A quick picture of the shown S or A while the exact matrix is computed, when
        only the scale, the terms or the mask changed (q and k are kept from the last job)."""
        s = self.state
        q_old, k_old, rope_old, *_rest, kept = self._qk_cache
        if s.matrix == "output" or not (s.q is q_old and s.k is k_old):
            return
        if self._rope_key() != rope_old or not isinstance(kept, Kept) or kept.n != s.n:
            return
        key = mask_key(s)
        if key == self._mask_cache[0]:
            mask, hidden = self._mask_cache[1], self._mask_cache[2]
        else:
            mask, hidden = mask_from_key(key), None
        c = score_scale(s.d_k, s.scale, s.temperature)
        shown = computed_matrix(s.matrix)
        self.preview = preview(kept, c, mask, shown, s.score_terms(), hidden)
        self.resolved.emit(self.results, frozenset({PREVIEW}))

    def _on_stale(self, _job_id: int, out: tuple) -> None:
        # The state moved on while this ran: keep q kᵀ if it can be reused (the next job
        # is built after this), drop the stale matrix.
        self._qk_cache = out[0]

    def _finish(self, _job_id: int, out: tuple) -> None:
        self.preview = None
        self.busy.emit(False)
        if isinstance(out, BaseException):
            # The views keep the last good matrix; the message says why it is not newer.
            self.failed.emit(f"{type(out).__name__}: {out}")
            return
        self._publish(self._apply(out), frozenset())

    def _publish(self, mask_changed: bool, restyle: frozenset, *, only_steps=False) -> None:
        steps = query_steps(self.state, self._attention, self._mask, *self._qk)
        self.results = self._results(steps)
        done = {STEPS} if only_steps else {ATTENTION, STEPS} | ({MASK} if mask_changed else set())
        self.resolved.emit(self.results, frozenset(done | restyle))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.shape == b.shape and bool(np.array_equal(a, b))


# --- exported data (attnviz export --panel heatmap|steps|editor --matrix NAME) -----------
# The names are the table's (attnviz.model.panels); these read them.
#: The entropy panel's columns: each row's entropy, and its largest possible value.
ENTROPY_COLUMNS = ("entropy", "ln keys seen")


def entropy_data(workspace, name: str) -> DataArray:
    """The entropy panel's one array, ``entropy``: for each query row, the entropy of its
    weights in nats and the most it could be, ln of the number of keys the row may see
    (a row spread evenly over them); a row that sees no key has 0 and 0."""
    res = workspace.resolver.results
    entropy = np.asarray(res.attention.entropy, dtype=np.float64)
    n = entropy.shape[0]
    seen = np.full(n, n) if res.mask is None else res.mask.sum(axis=1)
    bound = np.log(np.maximum(seen, 1))
    tokens = tuple(workspace.state.tokens)
    rows = tokens if len(tokens) == n else tuple(str(i) for i in range(n))
    return DataArray(np.column_stack([entropy, bound]), rows, ENTROPY_COLUMNS, corner="nats")
