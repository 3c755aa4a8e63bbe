"""The long topic's resolver: a long head's overview map, exact zoomed blocks, the tiles demo.

The overview of up to 262,144 tokens takes seconds, so it is not part of
:meth:`LongResolver.compute` (which a visible panel calls on every change and must stay
quick). Instead :func:`run_overview` is a pure job — ``(fields, progress, cancel) →``
:class:`Overview` — that the resolver runs on the workspace's runner when a panel asks
(:meth:`LongResolver.request_overview`: latest wins, a new request cancels the old one,
progress and cancel) and an export runs in place (:meth:`LongResolver.overview_now`); the
result carries q, k and the row log-sum-exp, from which :func:`exact_block` and
:func:`region_map` give the exact weights of a zoomed window
(:meth:`LongResolver.request_detail`). The panel only receives what the resolver emits.
:meth:`LongResolver.compute` returns the light part: the fields, the memory estimate and
the tiles demo (:mod:`attnviz.model.resolve._long_tiles`).

The synthetic heads are built for length (:mod:`attnviz.model.resolve._long_heads`): float32
where exactness is not at stake, in chunks, with the cancel flag polled between chunks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from attnviz.core import memory_guard
from attnviz.core.backends import get_backend
from attnviz.core.cell_timing import cell_seconds
from attnviz.core.work import Cancelled, split_starts
from attnviz.model.events import Signal
from attnviz.model.resolve import _long_model
from attnviz.model.resolve._long_heads import generate_qk
from attnviz.model.resolve._long_tiles import TILES_FIELDS, TilesDemo, tiles_demo
from attnviz.model.resolve.attention import ROPE_KEYS
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.resolve.long_backends import choose_backend, host_dtype
from attnviz.model.resolve.work import LatestWork
from attnviz.model.topics.long import HALF, window

#: Fields whose change needs a new overview (the zoom window and the tiles do not).
OVERVIEW_FIELDS = (
    "n",
    "d_k",
    "head",
    "seed",
    "bins",
    "reduce",
    "causal",
    "scale",
    "backend",
    "dtype",
)
#: A zoom window up to this many cells shows the exact weights (about 1024 × 1024).
EXACT_CELLS = 1 << 20
#: Up to this many cells a window is mapped again from its exact weights (pooled).
REGION_CELLS = 1 << 26
#: Largest ``block`` an export writes (64 MiB of float32).
EXPORT_BLOCK_CELLS = 1 << 24
#: Cells of one strip of a region map: 16 MiB of float32 scores at a time.
_STRIP_CELLS = 1 << 22
#: Share of the progress bar the generation of q and k takes.
_GENERATE_SHARE = 0.05


#: The overview's time against n² × (one score cell's q·k, exp and sum, timed here): its
#: blocked passes ran at 0.3–0.4 of it on the 2-core CI machine; 0.5 errs on the long side.
CELL_SHARE = 0.5
#: Patched by tests that play a slow or a fast machine.
_cell_seconds = cell_seconds


def overview_seconds(values: dict) -> float | None:
    """About how long :func:`run_overview` takes for these fields on this machine's CPU
    (None on a GPU backend, which this does not time)."""
    if values["backend"] == "cuda":
        return None
    n = values["n"]
    kind = values.get("mixing_kind")
    if values["head"] == "model" and kind:  # M built, proven and pooled (float64)
        width = max(values["d_k"], _long_model.MIXING_WIDTH)
        return _long_model.mixing_share(kind) * n * n * _cell_seconds(width, np.float64)
    share = _long_model.MODEL_CELL_SHARE if values["head"] == "model" else CELL_SHARE
    return share * n * n * _cell_seconds(values["d_k"], host_dtype(values["dtype"]))


def overview_key(values: dict) -> tuple:
    """What identifies an overview: the values of :data:`OVERVIEW_FIELDS`."""
    return tuple(values[f] for f in OVERVIEW_FIELDS)


def memory_needed(values: dict) -> int:
    """Peak bytes of the overview on the host, q and k included (a mixing head's: M and
    its layer's capture)."""
    if values["head"] == "model" and values.get("mixing_kind"):
        capture = values.get("mixing_capture_bytes", 0)
        return _long_model.mixing_bytes(values["n"], capture, values["bins"])
    if values["head"] == "model":
        return _long_model.model_bytes(values["n"], values["d_k"], values["bins"])
    name = "numpy" if values["backend"] in ("numpy", "auto") else "torch"
    return memory_guard.estimate_overview_bytes(
        values["n"], values["d_k"], values["bins"], name, host_dtype(values["dtype"])
    )


@dataclass(frozen=True)
class Overview:
    """The result of :func:`run_overview`.

    Attributes
    ----------
    key : :func:`overview_key` of the fields it was computed for
    map : ``bins × bins`` (query groups × key groups, as ``numpy.array_split``)
    lse : ``(n,)`` row log-sum-exp, the input of the exact blocks
    q, k : the generated head, ``(n, d_k)``
    backend : the backend that ran ("numpy", "torch" or "cuda"), ``device`` its device
    seconds : the whole job; ``generate_seconds`` of it making q and k
    rows : a real model's head (``head`` "model"): its exact rows, from which the zoomed
        blocks come (``lse`` is then None), or a mixing head's proven M
        (:class:`~attnviz.model.resolve._long_model.MixingRows`: ``signed``);
        ``source`` the snapshot it was made of
    """

    key: tuple
    map: np.ndarray
    lse: np.ndarray
    q: np.ndarray
    k: np.ndarray
    backend: str
    device: str
    dtype: str
    causal: bool
    scale: bool
    seconds: float
    generate_seconds: float
    rows: object = None
    source: object = None

    @property
    def signed(self) -> bool:
        """True when the map is a mixing matrix M (signed), not softmax weights."""
        return isinstance(self.rows, _long_model.MixingRows)

    @property
    def kind(self) -> str:
        """The mixing head's kind ("Gated DeltaNet", …); "" for attention weights."""
        return self.rows.kind if self.signed else ""


def run_overview(values: dict, progress=None, cancel=None, source=None) -> Overview:
    """Generate the head and compute its overview map: the job of the overview panel.

    Parameters
    ----------
    values : the long topic's fields (a snapshot; for the ``model`` head, the values
        :meth:`LongResolver.compute` made effective)
    source : the :class:`~attnviz.model.resolve._long_model.ModelHead` of the ``model``
        head (its key in ``values``' :func:`overview_key` is the resolver's)
    progress : None or ``callable(fraction)``, called on this thread
    cancel : None or ``callable() -> bool`` (or an object with ``is_set()``), polled
        between chunks of work; once true the job raises :class:`Cancelled` within a tile

    Raises
    ------
    Cancelled, MemoryRefused (the message gives the bytes needed and free),
    BackendUnavailableError, ValueError
    """
    t0 = time.perf_counter()
    is_set = getattr(cancel, "is_set", cancel)
    v = values
    if v["head"] == "model":
        return _run_model(v, source, progress, is_set, t0)
    backend = choose_backend(v["backend"], v["dtype"])
    n, d, bins = v["n"], v["d_k"], v["bins"]
    host = "numpy" if backend.name == "numpy" else "torch"
    memory_guard.check_fits(n, d, bins, host, host_dtype(v["dtype"]), inputs=True)

    def generation_progress(f):
        if progress is not None:
            progress(_GENERATE_SHARE * f)

    q, k = generate_qk(
        v["head"], n, d, v["seed"], host_dtype(v["dtype"]), generation_progress, is_set
    )
    t1 = time.perf_counter()

    def overview_progress(f):
        if progress is not None:
            progress(_GENERATE_SHARE + (1 - _GENERATE_SHARE) * f)

    amap, lse = backend.attention_overview(
        q,
        k,
        bins=bins,
        reduce=v["reduce"],
        causal=v["causal"],
        scale=v["scale"],
        return_lse=True,
        progress=overview_progress,
        cancel=is_set,
    )
    return Overview(
        overview_key(v),
        amap,
        lse,
        q,
        k,
        backend.name,
        backend.device,
        v["dtype"],
        v["causal"],
        v["scale"],
        time.perf_counter() - t0,
        t1 - t0,
    )


def _run_model(v: dict, source, progress, is_set, t0: float) -> Overview:
    if source is None:
        raise ValueError(v.get("model_refusal") or _long_model.NO_MODEL_HEAD)
    if source.mixing:  # M proven (or kept), pooled: on the map's worker
        _mixing_fits(v, source)
        rows = _long_model.mixing_rows(source)
        amap = _long_model.mixing_map(rows, v["bins"], v["reduce"], progress, is_set)
    else:
        rows = _long_model.row_blocks(source)
        amap = _long_model.model_map(rows, v["bins"], v["reduce"], progress, is_set)
    return Overview(
        overview_key(v) + source.key(),
        amap,
        None,
        rows.q,
        rows.k,
        "numpy",
        "cpu",
        "float64",
        source.causal,
        True,
        time.perf_counter() - t0,
        0.0,
        rows,
        source,
    )


def _mixing_fits(v: dict, source) -> None:
    """Refuse (:class:`~attnviz.core.memory_guard.MemoryRefused`) a mixing head's map whose
    M, with its building and capture, does not fit in the free RAM."""
    need = memory_needed(v)
    free = memory_guard.available_bytes("numpy")
    if free is not None and need > memory_guard.HEADROOM * free:
        gib = memory_guard.GiB
        raise memory_guard.MemoryRefused(
            f"the mixing matrix M of layer {source.layer} head {source.head} ({source.kind}, "
            f"n = {source.n:,}) needs {need / gib:.1f} GiB, {free / gib:.1f} GiB free (RAM); "
            "use a shorter sentence"
        )


def _block_backend(ov: Overview):
    # Half-precision scores must be made as the map's were, or the rows would not sum to 1.
    if ov.backend == "cuda" and ov.dtype in HALF:
        return get_backend("cuda", dtype=ov.dtype)
    return get_backend("numpy")


def exact_block(ov: Overview, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """The exact weights of queries ``r0:r1`` × keys ``c0:c1`` (hidden cells 0), from
    :func:`attnviz.core.tiled.attention_block` on the rows' slice of q and lse."""
    n = ov.q.shape[0]
    if not (0 <= r0 < r1 <= n and 0 <= c0 < c1 <= n):
        raise ValueError(f"window [{r0}, {r1}) × [{c0}, {c1}) is outside 0…{n}")
    if ov.rows is not None:
        return _long_model.weights_block(ov.rows, r0, r1, c0, c1)
    backend = _block_backend(ov)
    q, lse = ov.q[r0:r1], ov.lse[r0:r1]
    if not ov.causal:
        return backend.attention_block(
            q, ov.k[c0:c1], slice(None), slice(None), lse=lse, scale=ov.scale
        )
    out = np.zeros((r1 - r0, c1 - c0), ov.lse.dtype)
    stop = min(c1, r1)  # keys from r1 on are hidden from every one of these rows
    if stop > c0:
        # With keys 0…r1 and r1 − r0 queries, the core's causal diagonal (aligned
        # bottom-right) sits at the rows' own global positions.
        out[:, : stop - c0] = backend.attention_block(
            q, ov.k[:r1], slice(None), slice(c0, stop), lse=lse, causal=True, scale=ov.scale
        )
    return out


def region_map(
    ov: Overview,
    r0: int,
    r1: int,
    c0: int,
    c1: int,
    bins: int,
    reduce: str,
    progress=None,
    cancel=None,
) -> np.ndarray:
    """The map of a window: its exact weights pooled into at most ``bins × bins`` cells
    (groups as ``numpy.array_split`` makes them, ``reduce`` "mean" or "max" — of a signed
    M the entry farthest from 0), a strip of whole row groups at a time."""
    rb, cb = min(bins, r1 - r0), min(bins, c1 - c0)
    r_starts, r_sizes = split_starts(r1 - r0, rb)
    c_starts, c_sizes = split_starts(c1 - c0, cb)
    out = np.zeros((rb, cb))
    per_strip = max(1, _STRIP_CELLS // ((c1 - c0) * int(r_sizes[0])))
    for g0 in range(0, rb, per_strip):
        if cancel is not None and cancel():
            raise Cancelled("the zoomed map was cancelled")
        g1 = min(g0 + per_strip, rb)
        a, b = int(r_starts[g0]), int(r_starts[g1 - 1] + r_sizes[g1 - 1])
        block = exact_block(ov, r0 + a, r0 + b, c0, c1).astype(np.float64)
        out[g0:g1] = _long_model.pool(block, r_starts[g0:g1] - a, c_starts, reduce, ov.signed)
        if progress is not None:
            progress(g1 / rb)
    if reduce == "mean":
        out /= r_sizes[:, None] * c_sizes[None, :]
    return out.astype(ov.map.dtype, copy=False)


def edges(n: int, groups: int, start: int = 0) -> np.ndarray:
    """Token boundaries of ``numpy.array_split`` groups (``groups + 1`` of them)."""
    starts, sizes = split_starts(n, groups)
    return start + np.append(starts, starts[-1] + sizes[-1])


@dataclass(frozen=True)
class Detail:
    """The cells of a zoom window: its exact weights, or a map pooled from them.

    ``key`` is the overview's key and the window; ``rows`` and ``cols`` the token
    boundaries of the cells (one more than the cells)."""

    key: tuple
    values: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    exact: bool


def zoom_detail(
    ov: Overview, window: tuple, bins: int, reduce: str, progress=None, cancel=None
) -> Detail:
    """The cells of ``window`` (r0, r1, c0, c1) over ``ov``: exact up to
    :data:`EXACT_CELLS`, else :func:`region_map` (``cancel`` as :func:`run_overview`'s)."""
    r0, r1, c0, c1 = window
    key = (ov.key, tuple(window))
    if (r1 - r0) * (c1 - c0) <= EXACT_CELLS:
        block = exact_block(ov, r0, r1, c0, c1)
        return Detail(key, block, np.arange(r0, r1 + 1), np.arange(c0, c1 + 1), True)
    is_set = getattr(cancel, "is_set", cancel)
    m = region_map(ov, r0, r1, c0, c1, bins, reduce, progress, is_set)
    return Detail(key, m, edges(r1 - r0, m.shape[0], r0), edges(c1 - c0, m.shape[1], c0), False)


def group_labels(n: int, bins: int, start: int = 0) -> tuple[str, ...]:
    """``"a–b"`` token ranges (inclusive) of the ``bins`` groups of ``n`` tokens."""
    starts, sizes = split_starts(n, bins)
    return tuple(f"{start + a}–{start + a + s - 1}" for a, s in zip(starts, sizes, strict=True))


@dataclass(frozen=True)
class LongResults:
    """The light results the panels draw at once (the map itself comes from a job)."""

    values: dict
    key: tuple
    window: tuple[int, int, int, int]
    need_bytes: int
    tiles: TilesDemo
    #: The real model's head of the ``model`` head (None otherwise, or without a model).
    source: object = None


class LongResolver(LazyResolver):
    """Lazy resolver of the ``long`` topic (see the module docstring).

    It owns the two long jobs of the topic, each a :class:`LatestWork` on the workspace's
    runner (a new request cancels the running one): the map of the current fields and the
    cells of the zoom window over it. Their answers arrive as events on the owner's
    thread; :attr:`map_progress` says how far the map has come.
    """

    TOPIC = "long"
    #: The ``model`` head follows the head the heatmap shows.
    READS = {"attention": _long_model.ATTENTION_KEYS, "positions": ROPE_KEYS}

    #: ``overview_ready(Overview)``: the map of the fields it was asked for is ready.
    overview_ready = Signal(object)
    #: ``overview_failed(exception)``: the map stopped (``Cancelled`` when it was told
    #: to, ``MemoryRefused``, a backend missing, a value it cannot map).
    overview_failed = Signal(object)
    #: ``detail_ready(Detail)``: the cells of the zoom window asked for last.
    detail_ready = Signal(object)
    #: ``detail_failed(exception)``: the zoom stopped or failed.
    detail_failed = Signal(object)

    def _relevant(self, topic: str, names: frozenset) -> bool:
        if topic != self.TOPIC and self.topic.head != "model":
            return False
        return super()._relevant(topic, names)

    def __init__(self, document, runner=None) -> None:
        super().__init__(document, runner)
        self._tiles: tuple[tuple | None, TilesDemo | None] = (None, None)
        # The last map is kept (by its key) for exports and zooms.
        self.map_work = LatestWork(self._on_map_answer, runner, cache_size=1, replace="cancel")
        self.zoom_work = LatestWork(self._on_zoom_answer, runner, replace="cancel")
        self._detail_key: tuple | None = None

    def compute(self) -> LongResults:
        v = self.topic.snapshot()
        tkey = tuple(v[f] for f in TILES_FIELDS)
        if self._tiles[0] != tkey:
            self._tiles = (tkey, tiles_demo(v))
        source = None
        if v["head"] == "model":
            v, source = self._model_values(v)
        n = v["n"]
        win = (*window(v["rows"], n), *window(v["cols"], n))
        key = overview_key(v) + (source.key() if source is not None else ())
        return LongResults(v, key, win, memory_needed(v), self._tiles[1], source)

    def _model_values(self, v: dict) -> tuple[dict, object]:
        """The fields as the real model's head makes them: its sentence's length and
        width, its mask, NumPy in float64 (the arithmetic the proof checked); a zoom window
        past the sentence is the whole. Without a model the fields stay and the map's job
        says what to open."""
        try:
            src = _long_model.model_head(self.document)
        except ValueError as exc:  # kept for the map's job to say (not a field)
            return dict(v, model_refusal=str(exc)), None
        n = src.n
        v = dict(
            v,
            mixing_kind=src.kind,
            mixing_capture_bytes=src.capture_bytes,
            n=n,
            d_k=int(src.q.shape[1]),
            bins=min(v["bins"], n),
            causal=src.causal,
            scale=True,
            backend="numpy",
            dtype="float64",
        )
        for name in ("rows", "cols"):
            if v[name] and v[name][1] > n:
                v[name] = ()
        return v, src

    # --- the map -----------------------------------------------------------------------
    def map_refusal(self) -> str | None:
        """Why the map of the current fields cannot be computed (``long.head=model`` with
        no model open), in one line; None when it can."""
        res = self.results
        if res.values["head"] == "model" and res.source is None:
            # No model open, or a mixing head whose layer cannot be captured: which.
            return res.values.get("model_refusal") or _long_model.NO_MODEL_HEAD
        return None

    def cached_overview(self, key: tuple | None = None) -> Overview | None:
        """The last overview when it is of ``key`` (default: the current fields)."""
        return self.map_work.cached(self.results.key if key is None else key)

    def overview_now(self, progress=None, cancel=None) -> Overview:
        """The overview of the current fields, computed here unless it is cached."""
        res = self.results
        ov = self.map_work.cached(res.key)
        if ov is None:
            ov = run_overview(res.values, progress, cancel, res.source)
            self.map_work.keep(res.key, ov)
        return ov

    @property
    def map_running(self) -> bool:
        """True while a map is being computed for the panels."""
        return self.map_work.pending

    @property
    def map_progress(self) -> float:
        """How far the map being computed has come (0…1)."""
        return self.map_work.progress

    def request_overview(self, *, now: bool = False) -> Overview | None:
        """The map of the current fields when it is kept; else start it (on the runner,
        or here with ``now``) unless it is already on its way, and return None:
        ``overview_ready`` or ``overview_failed`` follows."""
        res = self.results
        kept = self.map_work.cached(res.key)
        if kept is not None:
            return kept
        if self.map_work.wanted_key != res.key:
            values, source = dict(res.values), res.source
            self.map_work.request(
                res.key,
                lambda progress, cancel: run_overview(values, progress, cancel, source),
                now=now,
            )
        return None

    def cancel_overview(self) -> bool:
        """Stop the map on its way (``overview_failed(Cancelled)`` is emitted at once);
        False when none was."""
        if not self.map_work.cancel():
            return False
        self.overview_failed.emit(Cancelled("cancelled"))
        return True

    def _on_map_answer(self, _key, result) -> None:
        if isinstance(result, BaseException):
            self.overview_failed.emit(result)
        else:
            self.overview_ready.emit(result)

    # --- the zoom ----------------------------------------------------------------------
    def request_detail(self, *, now: bool = False) -> bool:
        """Ask for the cells of the zoom window over the kept map of the current fields
        (``detail_ready`` follows, or ``detail_failed``; nothing when they were asked for
        last). False, with any zoom on its way dropped, when the window needs none: no map
        yet, the whole map, or more than :data:`REGION_CELLS` cells."""
        res = self.results
        ov = self.map_work.cached(res.key)
        r0, r1, c0, c1 = res.window
        if ov is None:
            return False
        n = ov.q.shape[0]
        if (r0, r1, c0, c1) == (0, n, 0, n) or (r1 - r0) * (c1 - c0) > REGION_CELLS:
            self.cancel_detail()
            return False
        key = (ov.key, res.window)
        if key != self._detail_key:
            self._detail_key = key
            bins, reduce, win = res.values["bins"], res.values["reduce"], res.window
            self.zoom_work.request(
                key,
                lambda progress, cancel: zoom_detail(ov, win, bins, reduce, progress, cancel),
                now=now,
            )
        return True

    def cancel_detail(self) -> None:
        """Drop the zoom on its way; the next :meth:`request_detail` asks again."""
        self._detail_key = None
        self.zoom_work.cancel()

    def _on_zoom_answer(self, _key, result) -> None:
        if isinstance(result, BaseException):
            self._detail_key = None
            self.detail_failed.emit(result)
        else:
            self.detail_ready.emit(result)

    def stop_unless_watched(self, by) -> None:
        """``by`` is hidden: stop the map and the zoom unless another panel watches (a
        hidden panel costs nothing)."""
        if any(watcher is not by for watcher in self._watchers):
            return
        self.cancel_overview()
        self.cancel_detail()


RESOLVER = LongResolver
