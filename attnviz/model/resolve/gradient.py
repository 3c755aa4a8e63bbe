"""The gradient panel's resolver: the backward pass of one head and the softmax Jacobian.

Results (pure functions of the ``attention`` topic and, with RoPE on, the ``positions``
topic's rotation fields):

- the upstream gradient dO (:func:`upstream_gradient`: the preset's own, seeded normal, or
  one output entry of the selected query) and the chain of the chapter's backward pass,
  dV = Aᵀ dO, dA = dO Vᵀ, dS = A ⊙ (dA − rowsum(dA ⊙ A)), dQ = dS K·c, dK = dSᵀ Q·c with
  c = 1/(√d_k·T), as :func:`attnviz.core.attention.attention_backward` computes it;
- the Jacobian diag(a) − a aᵀ of the selected query's softmax row and its size;
- the saturation curves: that size against d_k and against the temperature, with the
  √d_k divisor on and off (:func:`saturation`).

With RoPE on, Q and K are the rotated vectors the scores came from, so dQ and dK are the
gradients with respect to the rotated q and k (the unrotated ones get Rᵀ dQ).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention import (
    GradientCheck,
    attention,
    attention_backward,
    finite_difference_check,
    masked_softmax,
    score_scale,
    softmax_jacobian,
)
from attnviz.core.heads import HEAD_KINDS, generate_head
from attnviz.core.score_terms import PLAIN, ScoreTerms
from attnviz.model.data_array import DataArray
from attnviz.model.events import Signal
from attnviz.model.resolve.attention import (
    ROPE_KEYS,
    mask_from_key,
    model_mask_key,
    rope_frequencies_for,
    rotate,
)
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.resolve.work import LatestWork
from attnviz.model.topics.attention import terms_of

#: Above this many tokens the n×n matrices of the chain are not drawn: the panel would
#: compute several n×n arrays on the GUI thread at every edit (exports still compute them).
MAX_BACKWARD_TOKENS = 512
#: The finite-difference check the panel may start: estimated multiply-adds of its
#: 2·(entries of Q, K, V) forward passes (at most about 4 s on one laptop core).
CHECK_BUDGET = 6e9
#: A small forward pass costs about this many multiply-adds of numpy overhead.
_FORWARD_OVERHEAD = 100_000


@dataclass(frozen=True)
class GradientInputs:
    """What the backward pass reads, captured at one moment (arrays are never mutated).

    ``q`` and ``k`` are the vectors the scores came from: rotated when ``rope`` is on.
    """

    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    d_output: np.ndarray
    mask: np.ndarray | None
    scale: bool
    temperature: float
    query: int
    rope: bool
    terms: ScoreTerms = PLAIN

    @property
    def n(self) -> int:
        """Number of tokens."""
        return self.q.shape[0]

    def options(self) -> dict:
        """The keyword arguments of the core's attention calls."""
        return {
            "mask": self.mask,
            "scale": self.scale,
            "temperature": self.temperature,
            "terms": self.terms,
        }


@dataclass(frozen=True)
class BackwardChain:
    """Every matrix of the backward pass (see the module docstring); ``row_sums`` of dS."""

    d_output: np.ndarray
    weights: np.ndarray
    da: np.ndarray
    dscores: np.ndarray
    dq: np.ndarray
    dk: np.ndarray
    dv: np.ndarray
    row_sums: np.ndarray


@dataclass(frozen=True)
class GradientResults:
    """What the gradient panel draws; ``chain`` and ``jacobian`` are None past the limit."""

    inputs: GradientInputs
    chain: BackwardChain | None
    row: np.ndarray
    allowed: np.ndarray
    jacobian: np.ndarray | None
    size: JacobianSize
    saturation: Saturation

    @property
    def limited(self) -> bool:
        """True when the sentence is too long for the chain to be drawn."""
        return self.chain is None


def upstream_gradient(
    source: str,
    n: int,
    d_v: int,
    *,
    d_output: np.ndarray | None = None,
    seed: int = 0,
    query: int = 0,
    dim: int = 0,
) -> np.ndarray:
    """The upstream gradient dO = ∂L/∂O, shape ``(n, d_v)``.

    ``preset``: the example's own ``d_output``; ``random``: ``default_rng(seed).normal``;
    ``onehot``: the loss is the single output entry ``O[query, dim]``.
    """
    if source == "preset":
        if d_output is None or d_output.shape != (n, d_v):
            raise ValueError("this example has no upstream gradient of its own (d_output)")
        return np.asarray(d_output, dtype=np.float64)
    if source == "random":
        return np.random.default_rng(seed).normal(size=(n, d_v))
    if source == "onehot":
        if not (0 <= query < n and 0 <= dim < d_v):
            raise ValueError(f"one-hot dO at [{query}, {dim}] is outside ({n}, {d_v})")
        out = np.zeros((n, d_v))
        out[query, dim] = 1.0
        return out
    raise ValueError(f"unknown upstream gradient source {source!r}")


def rope_key(values: dict, positions: dict) -> tuple | None:
    """The rotation settings as a hashable key, or None when RoPE is off:
    ``(rope_dims, positions fields)``."""
    if not values["rope"]:
        return None
    return values["rope_dims"], tuple((name, positions[name]) for name in sorted(ROPE_KEYS))


def rotated(q: np.ndarray, k: np.ndarray, key: tuple | None) -> tuple:
    """``q`` and ``k`` as the scores see them: turned by token index when ``key`` is set
    (the first ``rope_dims`` dimensions, or all of them)."""
    if key is None:
        return q, k
    dims, fields = key
    width = q.shape[1] if dims == 0 else min(dims, q.shape[1])
    return rotate(q, k, rope_frequencies_for(width, dict(fields)))


def gradient_inputs(values: dict, positions: dict) -> GradientInputs:
    """The backward pass's inputs from the attention topic's and positions topic's fields."""
    n = len(values["tokens"])
    q, k = rotated(values["q"], values["k"], rope_key(values, positions))
    mask = mask_from_key(
        (
            n,
            values["causal"],
            values["padding"],
            values["segments"],
            values["window"],
            values["window_causal"],
            values["chunk"],
            model_mask_key(
                values["head"], values["model_path"], values["model_text"], values["layer"]
            ),
        )
    )
    v = values["v"]
    d_o = upstream_gradient(
        values["grad_source"],
        n,
        v.shape[1],
        d_output=values["d_output"],
        seed=values["grad_seed"],
        query=values["selected_query"],
        dim=values["grad_dim"],
    )
    return GradientInputs(
        q,
        k,
        v,
        d_o,
        mask,
        values["scale"],
        values["temperature"],
        values["selected_query"],
        values["rope"],
        terms_of(values),
    )


def backward_chain(inputs: GradientInputs) -> BackwardChain:
    """Every matrix of the backward pass of ``inputs`` (float64)."""
    opts = inputs.options()
    a = attention(inputs.q, inputs.k, inputs.v, **opts).weights
    grads = attention_backward(inputs.d_output, inputs.q, inputs.k, inputs.v, **opts)
    da = inputs.d_output @ inputs.v.T
    return BackwardChain(
        d_output=inputs.d_output,
        weights=a,
        da=da,
        dscores=grads.dscores,
        dq=grads.dq,
        dk=grads.dk,
        dv=grads.dv,
        row_sums=grads.dscores.sum(axis=1),
    )


def row_logits(inputs: GradientInputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(raw, logits, allowed)`` of the selected query: q·k_j, scaled (capped and biased
    when the score terms say so) and masked (−inf)."""
    i = inputs.query
    raw = inputs.k @ inputs.q[i]
    c = score_scale(inputs.q.shape[1], inputs.scale, inputs.temperature)
    allowed = np.ones(inputs.n, bool) if inputs.mask is None else inputs.mask[i].copy()
    logits = inputs.terms.logits((raw * c)[None, :], row0=i)[0]
    return raw, np.where(allowed, logits, -np.inf), allowed


def check_cost(inputs: GradientInputs) -> float:
    """Estimated multiply-adds of :func:`run_check` (compare with :data:`CHECK_BUDGET`)."""
    n, d_k, d_v = inputs.n, inputs.q.shape[1], inputs.v.shape[1]
    forwards = 2 * n * (2 * d_k + d_v)
    return forwards * (n * n * (d_k + d_v) + _FORWARD_OVERHEAD)


def run_check(inputs: GradientInputs) -> GradientCheck:
    """The largest errors of dQ, dK, dV against central finite differences."""
    return finite_difference_check(
        inputs.q, inputs.k, inputs.v, inputs.d_output, **inputs.options()
    )


# --- the Jacobian's size and how it falls as a row saturates -----------------------------
#: The widths of the d_k curve (the current d_k is added); the topic allows up to 1024.
D_K_GRID = tuple(2**i for i in range(11))
#: The temperatures of the temperature curve (the current one is added).
TEMPERATURE_GRID = tuple(np.logspace(-2, 2, 33))
#: The d_k curve regenerates the head at every width: skipped for longer sentences.
MAX_CURVE_TOKENS = 128
#: Random q, k draws per width behind the d_k curve of vectors typed by hand.
RANDOM_DRAWS = 32
_LN10 = np.log(10.0)


@dataclass(frozen=True)
class JacobianSize:
    """The size of diag(a) − a aᵀ, as log10 (exact far below what a float can hold)."""

    log10_max: float
    log10_fro: float

    @property
    def max_entry(self) -> float:
        """Its largest absolute entry (0 once it underflows)."""
        return float(10.0**self.log10_max)

    @property
    def frobenius(self) -> float:
        """Its Frobenius norm (0 once it underflows)."""
        return float(10.0**self.log10_fro)


@dataclass(frozen=True)
class Curve:
    """The Jacobian's size along ``x``; rows of ``scaled``/``unscaled``: log10 of the largest
    entry and of the Frobenius norm, with the √d_k divisor on and off."""

    x: np.ndarray
    scaled: np.ndarray
    unscaled: np.ndarray


@dataclass(frozen=True)
class Saturation:
    """The saturation demo: ``d_k`` (None for long sentences) and ``temperature`` curves.

    ``model`` is ``head`` when the d_k curve regenerates the current synthetic head at each
    width (the current setting lies on it), ``random`` when Q and K are typed by hand and the
    curve is the typical size for unit-variance random vectors instead (q·k then has
    variance d_k; the current row is marked beside it).
    """

    d_k: Curve | None
    temperature: Curve
    model: str
    current: JacobianSize
    current_d_k: int
    current_temperature: float
    scale: bool


def _exclusive_lse(x: np.ndarray) -> np.ndarray:
    """log Σ_{j≠i} e^{x_j} along the last axis, without cancellation (prefix and suffix)."""
    lo = np.full(x.shape, -np.inf)
    hi = np.full(x.shape, -np.inf)
    lo[..., 1:] = np.logaddexp.accumulate(x, axis=-1)[..., :-1]
    hi[..., :-1] = np.flip(np.logaddexp.accumulate(np.flip(x, -1), axis=-1), -1)[..., 1:]
    return np.logaddexp(lo, hi)


def log10_sizes(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log10 of the largest |entry| and of the Frobenius norm of the softmax Jacobian of
    every row of ``logits`` (−inf: masked); −inf for a row with fewer than two keys.

    Computed in log space from closed forms — diagonal a_i·(1 − a_i) with 1 − a_i summed
    from the other weights, off-diagonal a_i·a_j, ‖J‖² = Σ(a_i(1 − a_i))² + Σ_{i≠j} a_i² a_j²
    — so a saturated row reports e.g. 1e−40 instead of a rounded 0.
    """
    z = np.atleast_2d(np.asarray(logits, dtype=np.float64))
    live = np.isfinite(z).sum(axis=-1) >= 2
    with np.errstate(invalid="ignore"):
        lse = np.logaddexp.reduce(z, axis=-1, keepdims=True)
        la = z - lse
        diag = la + _exclusive_lse(z) - lse
        top = np.sort(la, axis=-1)[..., -2:].sum(axis=-1) if z.shape[-1] >= 2 else lse[..., 0]
        log_max = np.maximum(diag.max(axis=-1), top)
        off = 2 * la + _exclusive_lse(2 * la)
        log_fro = 0.5 * np.logaddexp.reduce(np.concatenate([2 * diag, off], -1), axis=-1)
    dead = np.full(live.shape, -np.inf)
    return np.where(live, log_max, dead) / _LN10, np.where(live, log_fro, dead) / _LN10


def jacobian_size(logits: np.ndarray) -> JacobianSize:
    """The size of the softmax Jacobian at one row of ``logits`` (see :func:`log10_sizes`)."""
    log_max, log_fro = log10_sizes(np.asarray(logits, dtype=np.float64).reshape(1, -1))
    return JacobianSize(float(log_max[0]), float(log_fro[0]))


def _curve(x, raws, widths, temps, allowed: np.ndarray) -> Curve:
    """The Jacobian's size at every point: ``raws[p]`` (rows of q·k_j, one or one per random
    draw) at width ``widths[p]`` and temperature ``temps[p]``, divisor on and off.

    All points go through one vectorized call; the log sizes of several draws are averaged
    (a geometric mean: the typical size on a log axis).
    """
    rows = np.stack([np.atleast_2d(r) for r in raws])  # (points, draws, n)
    c = np.array(
        [
            [score_scale(int(d), s, float(t)) for d, t in zip(widths, temps, strict=True)]
            for s in (True, False)
        ]
    )
    logits = np.where(allowed, rows[None] * c[:, :, None, None], -np.inf)
    log_max, log_fro = log10_sizes(logits.reshape(-1, rows.shape[-1]))
    shape = (2, rows.shape[0], rows.shape[1])
    sizes = np.stack([log_max.reshape(shape).mean(-1), log_fro.reshape(shape).mean(-1)], 1)
    return Curve(np.asarray(x), sizes[0], sizes[1])


class CurveCache:
    """q_i·k_j of the model head at every width of :data:`D_K_GRID`, for one set of inputs.

    Regenerating a head at eleven widths is the costly part of the demo; a new selected
    query, temperature, mask or gradient reuses it. Vectors typed by hand cannot be
    regenerated at another width: their model is :data:`RANDOM_DRAWS` draws of unit-variance
    random q and k (rotating them changes nothing: a rotated normal vector is as random).
    """

    def __init__(self) -> None:
        self._key = None
        self._raw: dict[int, np.ndarray] = {}

    def rows(self, values: dict, positions: dict, query: int) -> dict[int, np.ndarray]:
        """``{d: q·k_j at width d}``: one row (the query's) of a head, or one per draw."""
        n, seed = len(values["tokens"]), values["seed"]
        # Only the synthetic heads can be drawn again at another width; typed, projected and
        # captured vectors get the typical curve of random vectors instead.
        kind = values["head"] if values["head"] in HEAD_KINDS else "manual"
        r_key = rope_key(values, positions)
        if kind == "manual":
            key = (kind, seed, n)
        else:
            key = (kind, seed, values["tokens"] if kind == "content" else n, r_key)
        if key != self._key:
            self._key, self._raw = key, {}
            for d in D_K_GRID:
                if kind == "decay" and d < 3:
                    continue  # the distance-decay head needs three dimensions
                if kind == "manual":
                    rng = np.random.default_rng([seed, d])
                    q = rng.normal(size=(RANDOM_DRAWS, 1, d))
                    k = rng.normal(size=(RANDOM_DRAWS, n, d))
                    self._raw[d] = np.einsum("rid,rjd->rj", q, k)
                    continue
                h = generate_head(kind, n, d, seed=seed, tokens=list(values["tokens"]))
                q, k = rotated(h.q, h.k, r_key)
                self._raw[d] = q @ k.T
        if kind == "manual":
            return dict(self._raw)
        return {d: raw[query] for d, raw in self._raw.items()}


def saturation(
    values: dict, positions: dict, raw: np.ndarray, allowed: np.ndarray, cache: CurveCache
) -> Saturation:
    """The saturation demo of the selected query (``raw`` = its q·k_j, ``allowed`` its mask)."""
    d_k, t, scale = values["d_k"], values["temperature"], values["scale"]
    model = "head" if values["head"] in HEAD_KINDS else "random"
    temps = np.union1d(TEMPERATURE_GRID, [t])
    t_curve = _curve(temps, [raw] * temps.size, [d_k] * temps.size, temps, allowed)
    d_curve = None
    if len(values["tokens"]) <= MAX_CURVE_TOKENS:
        rows = cache.rows(values, positions, values["selected_query"])
        if model == "head":
            rows[d_k] = raw  # the current head at its own width: the marker lies on the curve
        widths = np.array(sorted(rows))
        raws = [rows[d] for d in widths]
        d_curve = _curve(widths, raws, widths, [t] * widths.size, allowed)
    c = score_scale(d_k, scale, t)
    current = jacobian_size(np.where(allowed, raw * c, -np.inf))
    return Saturation(d_curve, t_curve, model, current, d_k, t, scale)


class GradientResolver(LazyResolver):
    """Lazy resolver of the gradient panel (reads the ``attention`` topic).

    It also runs the finite-difference check, which takes seconds on a large example, on
    the workspace's runner (:meth:`request_check`; a new request or :meth:`cancel_check`
    drops the running one's answer): ``check_done(GradientCheck)`` or
    ``check_failed(exception)`` follows.
    """

    check_done = Signal(object)
    check_failed = Signal(object)

    TOPIC = "attention"
    READS = {"positions": ROPE_KEYS}
    #: Fields that only restyle the heatmap or pick its backend, and the heads switched off
    #: after the selected head (through W^O): no new gradients.
    IGNORES = frozenset(
        {
            "preset_id",
            "matrix",
            "colormap",
            "levels_auto",
            "stretch_weights",
            "levels",
            "backend",
            "heads_off",
        }
    )

    def __init__(self, document, runner=None) -> None:
        self._curves = CurveCache()
        super().__init__(document, runner)
        self.check_work = LatestWork(self._on_check_answer, runner, replace="cancel")

    def request_check(self) -> None:
        """Check the current example's dQ, dK, dV against central differences."""
        inputs = self.results.inputs
        self.check_work.request(
            self.check_work.generation + 1, lambda _progress, _cancel: run_check(inputs)
        )

    def cancel_check(self) -> bool:
        """Drop the running check (its answer will not be emitted); False when none ran."""
        return self.check_work.cancel()

    def _on_check_answer(self, _key, result) -> None:
        if isinstance(result, BaseException):
            self.check_failed.emit(result)
        else:
            self.check_done.emit(result)

    def _relevant(self, topic: str, names: frozenset) -> bool:
        if topic == "positions":
            return bool(self.topic.rope and names & ROPE_KEYS)
        if topic == self.TOPIC:
            names = names - {"selected_cell"}  # the heatmap's highlight changes nothing here
            if not names:
                return False
        return super()._relevant(topic, names)

    def inputs(self) -> GradientInputs:
        """The backward pass's inputs of the current fields."""
        return gradient_inputs(self.topic.snapshot(), self.document["positions"].snapshot())

    def compute(self) -> GradientResults:
        values = self.topic.snapshot()
        positions = self.document["positions"].snapshot()
        inputs = gradient_inputs(values, positions)
        chain = backward_chain(inputs) if inputs.n <= MAX_BACKWARD_TOKENS else None
        raw, logits, allowed = row_logits(inputs)
        if chain is not None:
            row = chain.weights[inputs.query].copy()
        else:
            row = masked_softmax(logits, np.isfinite(logits), inputs.terms.sink)[0]
        jac = softmax_jacobian(row) if chain is not None else None
        sat = saturation(values, positions, raw, allowed, self._curves)
        return GradientResults(inputs, chain, row, allowed, jac, sat.current, sat)


RESOLVER = GradientResolver


# --- exported data (attnviz export --panel gradient --matrix NAME) -----------------------
def _chain(workspace) -> BackwardChain:
    res = workspace.resolver_for("gradient").results
    # Past the panel's limit an export still computes the whole chain (no GUI thread here).
    return res.chain if res.chain is not None else backward_chain(res.inputs)


def _value_labels(workspace, d_v: int) -> tuple[str, ...] | None:
    labels = workspace.state.value_labels
    return tuple(labels) if len(labels) == d_v else None


def _jacobian(workspace) -> DataArray:
    res = workspace.resolver_for("gradient").results
    jac = res.jacobian if res.jacobian is not None else softmax_jacobian(res.row)
    tokens = tuple(workspace.state.tokens)
    return DataArray(jac, tokens, tokens)


def _dscores(workspace) -> DataArray:
    tokens = tuple(workspace.state.tokens)
    return DataArray(_chain(workspace).dscores, tokens, tokens)


def _qk_gradient(name: str):
    def read(workspace) -> DataArray:
        return DataArray(getattr(_chain(workspace), name), tuple(workspace.state.tokens), None)

    return read


def _v_gradient(name: str):
    def read(workspace) -> DataArray:
        arr = getattr(_chain(workspace), name)
        return DataArray(arr, tuple(workspace.state.tokens), _value_labels(workspace, arr.shape[1]))

    return read


def gradient_data(workspace, name: str) -> DataArray:
    """The gradient panel's array ``name`` (the table's names, attnviz.model.panels)."""
    if name in ("dq", "dk"):
        return _qk_gradient(name)(workspace)
    if name in ("dv", "d_output"):
        return _v_gradient(name)(workspace)
    return {"jacobian": _jacobian, "dscores": _dscores}[name](workspace)
