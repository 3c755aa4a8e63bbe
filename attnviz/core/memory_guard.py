"""Will an overview fit? Its peak working memory, the memory free, and a refusal naming both.

The overview of n tokens never holds the n×n weights, but it does hold q and k, a few
copies of them, one tile of scores per thread (one strip on a GPU) and the per-(query,
key bin) accumulators. :func:`check_fits` compares that with the free RAM (or GPU memory)
before anything is allocated, so that n = 10⁶ on a laptop is a clear message rather than
the out-of-memory killer (Linux overcommits: a too-large ``numpy.empty`` succeeds and the
process dies later). Only numpy is imported here; torch only to ask a GPU what is free.
"""

from __future__ import annotations

import os

import numpy as np

from attnviz.core._parallel import cores
from attnviz.core.value_text import brief
from attnviz.core.work import PANEL_ROWS, TILE_ELEMENTS

GiB = float(1 << 30)
#: Share of the free memory an overview may plan to use (the rest: the app, the system).
HEADROOM = 0.9
#: Scores of one strip of the torch backends: on the CPU, and at most on a GPU.
TORCH_CPU_TILE = 1 << 20
CUDA_MAX_TILE = 1 << 28
_ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
_BACKENDS = ("numpy", "torch", "cuda")


class MemoryRefused(ValueError):  # noqa: N818 (the name the UI and scripts catch)
    """The computation would need more memory than is free, so it did not start."""


def _itemsize(dtype) -> int:
    name = str(dtype).removeprefix("torch.")  # torch.bfloat16 → "bfloat16"
    if name in _ITEMSIZE:
        return _ITEMSIZE[name]
    try:
        return np.dtype(dtype).itemsize
    except TypeError as exc:
        raise ValueError(f"unknown dtype {brief(dtype)}") from exc


def _backend(backend) -> str:
    name = getattr(backend, "name", backend)  # a backend object, or its name
    if name not in _BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(_BACKENDS)}, got {brief(backend)}")
    return name


def _positive(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {brief(value)}")
    return int(value)


def cuda_tile_elements(n: int, free: int | None) -> int:
    """Scores of the CUDA backend's strip: at most :data:`CUDA_MAX_TILE`, at most n², and at
    most an eighth of the free device memory (4 bytes a score, twice: scores and temporaries)."""
    tile = min(CUDA_MAX_TILE, n * n)
    if free is not None:
        tile = min(tile, max(free // 64, 1 << 16))
    return max(tile, 1)


def estimate_overview_bytes(
    n: int,
    d: int,
    bins: int,
    backend: str = "numpy",
    dtype="float32",
    *,
    inputs: bool = True,
    tile_elements: int | None = None,
    workers: int | None = None,
) -> int:
    """Peak working memory of :func:`attnviz.core.tiled.attention_overview`, in bytes.

    Parameters
    ----------
    n : tokens (queries = keys)
    d : head dimension d_k
    bins : cells per side of the map
    backend : "numpy", "torch" or "cuda" (or a backend object)
    dtype : the inputs' dtype ("float32", "float64", "bfloat16", "float16", numpy or torch)
    inputs : count q and k themselves (False when they already exist)
    tile_elements : scores of one tile (default: the backend's own)
    workers : threads of the numpy backend (default: one per core)

    Returns
    -------
    int : inputs + the copies the overview makes + tiles of scores + bin accumulators + map
    """
    n, d, bins = _positive(n, "n"), _positive(d, "d"), _positive(bins, "bins")
    name, item = _backend(backend), _itemsize(dtype)
    total = 2 * n * d * item if inputs else 0
    total += 2 * (bins * bins + n) * 8  # the map and lse in float64, and the copies returned
    if name == "numpy":
        workers = workers or cores()
        rows = min(n, PANEL_ROWS)
        tile = tile_elements or TILE_ELEMENTS
        total += (3 * d + 1) * n * item  # q scaled, q in base 2, k with a column of ones
        # per thread: the tile, its bin sums, a causal mask, the panel's q, sums and maxima
        total += workers * (2 * tile * item + tile + rows * (d + 1) * item + 3 * bins * rows * 8)
        return total
    score = max(item, 4)  # half-precision products come back as float32 scores
    if tile_elements is None:
        tile_elements = TORCH_CPU_TILE if name == "torch" else cuda_tile_elements(n, None)
    rows = max(1, min(n, tile_elements // n))
    total += 2 * n * d * item  # q and k on the device, q scaled
    total += 2 * tile_elements * score + tile_elements  # scores, a temporary, a causal mask
    return total + 3 * rows * bins * 8


def _cgroup_free() -> int | None:
    """Memory left under this process's cgroup v2 limit (containers), if it has one."""
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            return max(int(limit) - int(f.read().strip()), 0)
    except (OSError, ValueError):
        return None


def available_bytes(backend: str = "numpy") -> int | None:
    """Memory free for a computation on ``backend``, in bytes (None: cannot tell here).

    CPU backends: ``MemAvailable`` of /proc/meminfo (what can be allocated without
    swapping), capped by a cgroup limit; elsewhere ``os.sysconf`` free pages. CUDA: the free
    memory of the current device (``torch.cuda.mem_get_info``).
    """
    if _backend(backend) == "cuda":
        import torch

        return int(torch.cuda.mem_get_info()[0])
    free = None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if free is None:
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):  # macOS, Windows
            return None
    cgroup = _cgroup_free()
    return free if cgroup is None else min(free, cgroup)


def check_fits(n: int, d: int, bins: int, backend: str = "numpy", dtype="float32", **kw) -> int:
    """Raise :class:`MemoryRefused` unless the overview fits in the free memory.

    Arguments are those of :func:`estimate_overview_bytes`. Returns the bytes it needs.
    The message gives both numbers ("needs 3.2 GiB, 1.1 GiB free") and a way out.
    """
    need = estimate_overview_bytes(n, d, bins, backend, dtype, **kw)
    name = _backend(backend)
    free = available_bytes(name)
    if free is not None and need > HEADROOM * free:
        where = "GPU memory" if name == "cuda" else "RAM"
        fix = "fewer tokens" + (", or the CPU backend" if name == "cuda" else "")
        raise MemoryRefused(
            f"the overview of n = {n:,} tokens (d = {d}, {bins} bins, {name}) needs "
            f"{need / GiB:.1f} GiB, {free / GiB:.1f} GiB free ({where}); use {fix}"
        )
    return need
