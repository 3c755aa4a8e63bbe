"""The long topic's resolver: a long head's overview map, exact zoomed blocks, the tiles demo.

The overview of up to 262,144 tokens takes seconds, so it is not part of
:meth:`LongResolver.compute` (which a visible panel calls on every change and must stay
quick). Instead :func:`run_overview` is a pure job — ``(fields, progress, cancel) →``
:class:`Overview` — that the panel runs on a worker thread and an export runs in place
(:meth:`LongResolver.overview_now`); the result carries q, k and the row log-sum-exp, from
which :func:`exact_block` and :func:`region_map` give the exact weights of a zoomed window.
:meth:`LongResolver.compute` returns the light part: the fields, the memory estimate and
the tiles demo (:mod:`attnviz.model.resolve._long_tiles`).

The synthetic heads are built for length (:mod:`attnviz.model.resolve._long_heads`): float32
where exactness is not at stake, in chunks, with the cancel flag polled between chunks.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from dataclasses import dataclass

import numpy as np

from attnviz.core import memory_guard
from attnviz.core.backends import get_backend
from attnviz.core.cell_timing import cell_seconds
from attnviz.core.work import Cancelled, split_starts
from attnviz.model.panel_data import DataArray
from attnviz.model.resolve import _long_model
from attnviz.model.resolve._long_heads import generate_qk
from attnviz.model.resolve._long_tiles import TILES_FIELDS, TilesDemo, tiles_demo
from attnviz.model.resolve.attention import ROPE_KEYS
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.topics.long import HALF, window

#: Fields whose change needs a new overview (the zoom window and the tiles do not).
OVERVIEW_FIELDS = (
    "n", "d_k", "head", "seed", "bins", "reduce", "causal", "scale", "backend", "dtype",
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


@dataclass(frozen=True)
class BackendStatus:
    """Whether a backend can run here; ``reason`` ("no-torch", "no-cuda", "") and a
    ``detail`` (torch's version, the GPU's name) for the selector's explanation."""

    name: str
    available: bool
    reason: str = ""
    detail: str = ""


_STATUS: dict[str, BackendStatus] = {}


def backend_status(*, refresh: bool = False) -> dict[str, BackendStatus]:
    """What each backend needs and whether it is here (imports torch when installed: slow
    the first time, so the UI asks from a worker thread)."""
    if _STATUS and not refresh:
        return dict(_STATUS)
    found = {"numpy": BackendStatus("numpy", True), "auto": BackendStatus("auto", True)}
    if importlib.util.find_spec("torch") is None:
        for name in ("torch", "cuda"):
            found[name] = BackendStatus(name, False, "no-torch")
    else:
        torch = importlib.import_module("torch")
        found["torch"] = BackendStatus("torch", True, "", torch.__version__)
        if torch.cuda.is_available():
            found["cuda"] = BackendStatus("cuda", True, "", torch.cuda.get_device_name(0))
        else:
            built = torch.version.cuda or "none"
            found["cuda"] = BackendStatus("cuda", False, "no-cuda", f"{torch.__version__}/{built}")
    _STATUS.clear()
    _STATUS.update(found)
    return dict(found)


def choose_backend(name: str, dtype: str):
    """The backend object that runs ``name`` with ``dtype`` ("auto": CUDA when present and
    the dtype runs there, else NumPy). Raises ``BackendUnavailableError`` with the fix."""
    if name == "auto":
        cuda = dtype != "float64" and backend_status()["cuda"].available
        name = "cuda" if cuda else "numpy"
    return get_backend(name, dtype=dtype)


def host_dtype(dtype: str):
    """The numpy dtype q and k are generated in (half precision is cast on the GPU)."""
    return np.float64 if dtype == "float64" else np.float32


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
    share = _long_model.MODEL_CELL_SHARE if values["head"] == "model" else CELL_SHARE
    return share * n * n * _cell_seconds(values["d_k"], host_dtype(values["dtype"]))


def overview_key(values: dict) -> tuple:
    """What identifies an overview: the values of :data:`OVERVIEW_FIELDS`."""
    return tuple(values[f] for f in OVERVIEW_FIELDS)


def memory_needed(values: dict) -> int:
    """Peak bytes of the overview on the host, q and k included."""
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
        blocks come (``lse`` is then None); ``source`` the snapshot it was made of
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
        q, k, bins=bins, reduce=v["reduce"], causal=v["causal"], scale=v["scale"],
        return_lse=True, progress=overview_progress, cancel=is_set,
    )
    return Overview(
        overview_key(v), amap, lse, q, k, backend.name, backend.device, v["dtype"],
        v["causal"], v["scale"], time.perf_counter() - t0, t1 - t0,
    )


def _run_model(v: dict, source, progress, is_set, t0: float) -> Overview:
    if source is None:
        raise ValueError(_long_model.NO_MODEL_HEAD)
    rows = _long_model.row_blocks(source)
    amap = _long_model.model_map(rows, v["bins"], v["reduce"], progress, is_set)
    return Overview(
        overview_key(v) + source.key(), amap, None, rows.q, rows.k, "numpy", "cpu",
        "float64", source.causal, True, time.perf_counter() - t0, 0.0, rows, source,
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
    ov: Overview, r0: int, r1: int, c0: int, c1: int, bins: int, reduce: str,
    progress=None, cancel=None,
) -> np.ndarray:
    """The map of a window: its exact weights pooled into at most ``bins × bins`` cells
    (groups as ``numpy.array_split`` makes them, ``reduce`` "mean" or "max"), a strip of
    whole row groups at a time."""
    rb, cb = min(bins, r1 - r0), min(bins, c1 - c0)
    r_starts, r_sizes = split_starts(r1 - r0, rb)
    c_starts, c_sizes = split_starts(c1 - c0, cb)
    how = np.add if reduce == "mean" else np.maximum
    out = np.zeros((rb, cb))
    per_strip = max(1, _STRIP_CELLS // ((c1 - c0) * int(r_sizes[0])))
    for g0 in range(0, rb, per_strip):
        if cancel is not None and cancel():
            raise Cancelled("the zoomed map was cancelled")
        g1 = min(g0 + per_strip, rb)
        a, b = int(r_starts[g0]), int(r_starts[g1 - 1] + r_sizes[g1 - 1])
        block = exact_block(ov, r0 + a, r0 + b, c0, c1).astype(np.float64)
        cols = how.reduceat(block, c_starts, axis=1)
        out[g0:g1] = how.reduceat(cols, r_starts[g0:g1] - a, axis=0)
        if progress is not None:
            progress(g1 / rb)
    if reduce == "mean":
        out /= r_sizes[:, None] * c_sizes[None, :]
    return out.astype(ov.map.dtype, copy=False)


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
    """Lazy resolver of the ``long`` topic (see the module docstring)."""

    TOPIC = "long"
    #: The ``model`` head follows the head the heatmap shows.
    READS = {"attention": _long_model.ATTENTION_KEYS, "positions": ROPE_KEYS}

    def _relevant(self, topic: str, names: frozenset) -> bool:
        if topic != self.TOPIC and self.topic.head != "model":
            return False
        return super()._relevant(topic, names)

    def __init__(self, document, runner=None) -> None:
        super().__init__(document, runner)
        self._tiles: tuple[tuple | None, TilesDemo | None] = (None, None)
        self._overview: Overview | None = None

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
        except ValueError:
            return v, None
        n = src.n
        v = dict(v, n=n, d_k=int(src.q.shape[1]), bins=min(v["bins"], n), causal=src.causal,
                 scale=True, backend="numpy", dtype="float64")
        for name in ("rows", "cols"):
            if v[name] and v[name][1] > n:
                v[name] = ()
        return v, src

    def cached_overview(self, key: tuple | None = None) -> Overview | None:
        """The last overview when it is of ``key`` (default: the current fields)."""
        key = self.results.key if key is None else key
        ov = self._overview
        return ov if ov is not None and ov.key == key else None

    def store(self, overview: Overview) -> None:
        """Keep ``overview`` (computed by a panel's worker) for exports and zooms."""
        self._overview = overview

    def overview_now(self, progress=None, cancel=None) -> Overview:
        """The overview of the current fields, computed here unless it is cached."""
        ov = self.cached_overview()
        if ov is None:
            res = self.results
            ov = run_overview(res.values, progress, cancel, res.source)
            self._overview = ov
        return ov


RESOLVER = LongResolver


def _overview_data(workspace) -> DataArray:
    ov = workspace.resolver_for("long").overview_now()
    labels = group_labels(ov.q.shape[0], ov.map.shape[0])
    return DataArray(ov.map, labels, labels)


def _block_data(workspace) -> DataArray:
    resolver = workspace.resolver_for("long")
    r0, r1, c0, c1 = resolver.results.window
    cells = (r1 - r0) * (c1 - c0)
    if cells > EXPORT_BLOCK_CELLS:
        raise ValueError(
            f"the zoom window has {cells:,} cells; a block export holds at most "
            f"{EXPORT_BLOCK_CELLS:,}: narrow long.rows and long.cols (e.g. [0, 1024])"
        )
    block = exact_block(resolver.overview_now(), r0, r1, c0, c1)
    return DataArray(
        block, tuple(str(i) for i in range(r0, r1)), tuple(str(j) for j in range(c0, c1))
    )


def _q_data(workspace) -> DataArray:
    return DataArray(workspace.resolver_for("long").overview_now().q)


def _k_data(workspace) -> DataArray:
    return DataArray(workspace.resolver_for("long").overview_now().k)


def overview_data(workspace, name: str) -> DataArray:
    """The overview's array ``name``: the map, the zoomed block, q, k."""
    return {"overview": _overview_data, "block": _block_data, "q": _q_data, "k": _k_data}[name](
        workspace
    )
