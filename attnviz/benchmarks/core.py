"""Core figures: the n×n overview map on the CPU (and a GPU), tiled vs naive attention.

Each heavy measurement runs in its own Python process (:func:`run_isolated`) so that its
peak RSS is its own. Inputs are float32, seeded, standard normal, one head. Times are the
best of ``repeats`` runs, and compared methods run alternately (the machine may be shared,
and a neighbour's burst should not land on one side only); GFLOP/s count ``4·n²·d`` (the two
n×n×d matrix products of attention), whatever the method actually computes.
"""

from __future__ import annotations

import os
import threading
import time

from attnviz.benchmarks import peak_rss_mib, run_isolated, skipped

ORDER = 60  # after the UI figures, as DESIGN.md lists them
TORCH_HINT = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


def _inputs(n: int, d: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((n, d), dtype=np.float32) for _ in range(3))


def _best(fn, repeats: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def _mib(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _gflops(n: int, d: int, seconds: float) -> float:
    return round(4 * n * n * d / seconds / 1e9, 2)


def _alternate(first, second, repeats: int, t_first: float) -> tuple[float, float, object]:
    """Best times of ``first`` and ``second`` run in turn (``first`` has run once already,
    taking ``t_first``), so both meet the same moments of a shared machine."""
    times_first, times_second, result = [t_first], [], None
    for i in range(max(1, repeats)):
        times_second.append(_best(second, 1)[0])
        if i < repeats - 1:
            t, result = _best(first, 1)
            times_first.append(t)
    return min(times_first), min(times_second), result


def _load() -> float | None:
    """The machine's 1-minute load average (other processes share the cores), if known."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # Windows
        return None


def _exp_seconds(q, k, workers: int, repeats: int) -> float:
    """Seconds (best of ``repeats``) that the overview's exponentials alone take: ``exp2``
    (the overview works in base 2) of n_q·n_k float32 values, in tiles of
    ``TILE_ELEMENTS`` written into preallocated buffers, the tiles shared among ``workers``
    threads as the overview shares its panels. The values are one real tile of the
    overview's shifted base-2 scores of these q and k (their range sets exp2's speed)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from attnviz.core import tiled

    n_q, n_k, d = q.shape[0], k.shape[0], q.shape[1]
    rows = min(n_q, tiled.PANEL_ROWS)
    width = max(1, min(n_k, tiled.TILE_ELEMENTS // rows))
    scores = k[:width] @ (q[:rows] * np.float32(np.log2(np.e) / np.sqrt(d))).T
    scores -= scores.max(axis=0)  # shifted by the reference, as the overview's tiles are
    src = np.ascontiguousarray(scores, dtype=np.float32).ravel()
    full, rest = divmod(n_q * n_k, src.size)
    shares = [full // workers + (w < full % workers) for w in range(workers)]
    scratch = threading.local()  # one output buffer per thread, allocated once

    def run(count: int, last: int) -> None:
        out = getattr(scratch, "out", None)
        if out is None:
            out = scratch.out = np.empty_like(src)
        for _ in range(count):
            np.exp2(src, out=out)
        if last:
            np.exp2(src[:last], out=out[:last])

    if workers == 1:
        return _best(lambda: run(full, rest), repeats)[0]
    with ThreadPoolExecutor(workers) as pool:  # started before the timing, as its threads
        list(pool.map(run, [0] * workers, [0] * workers))
        return _best(lambda: list(pool.map(run, shares, [rest] + [0] * (workers - 1))), repeats)[0]


def _exp_figures(q, k, workers: int, repeats: int, seconds: float) -> dict:
    from attnviz.core import tiled

    # A small map runs on one thread (tiled.PARALLEL_MIN_SCORES), its exponentials too.
    parallel = q.shape[0] > 1 and q.shape[0] * k.shape[0] >= tiled.PARALLEL_MIN_SCORES
    exp = _exp_seconds(q, k, workers if parallel else 1, repeats)
    # Three significant digits: a tiny map's share is small, and must not round to 0.
    return {"exp_seconds": float(f"{exp:.3g}"), "exp_share": float(f"{exp / seconds:.3g}")}


def overview_child(n: int, d: int, bins: int, repeats: int) -> dict:
    """Measure :func:`attention_overview` (numpy backend) and torch SDPA on the same q, k, v.

    The peak RSS is read after the first overview and before torch is imported: torch
    alone weighs hundreds of MiB and is not part of the overview's cost. The two are then
    timed alternately. ``workers`` is the overview's thread count (numpy's OpenBLAS runs
    single-threaded meanwhile); ``load`` the 1-minute load average before the timing.

    ``exp_share`` is the share of the overview's time its exponentials take, measured in
    this run after the overview: ``exp_seconds`` (:func:`_exp_seconds`: numpy's ``exp2``
    of the n² float32 values a non-causal overview evaluates, in the overview's tiles into
    preallocated buffers, on the overview's ``workers`` threads, best of ``repeats``)
    divided by the overview's ``seconds``. It is an estimate of the exponentials' cost at
    numpy's speed, not a profile of the overview itself: a rescaled tile's second
    exponentials and the matrix products, reductions and bookkeeping are left out.
    """
    from attnviz.core import _parallel, tiled

    q, k, v = _inputs(n, d)
    baseline = peak_rss_mib()
    with _parallel.serial_blas() as blas_threads:
        workers = tiled.WORKERS or min(_parallel.cores(), blas_threads) or 1

    def ours():
        return tiled.attention_overview(q, k, bins=bins)

    load = _load()
    t_first, _map = _best(ours, 1)
    result = {
        "n": n,
        "d": d,
        "bins": bins,
        "backend": "numpy",
        "dtype": "float32",
        "repeats": repeats,
        "workers": workers,
        "load": load,
        "peak_rss_mib": _mib(peak_rss_mib()),
        "baseline_rss_mib": _mib(baseline),
    }
    try:
        import torch
    except ImportError:
        seconds = min(t_first, _best(ours, repeats - 1)[0]) if repeats > 1 else t_first
        return {
            **result,
            "seconds": round(seconds, 4),
            "gflops": _gflops(n, d, seconds),
            **_exp_figures(q, k, workers, repeats, seconds),
            "torch_sdpa_gflops": None,
            "ratio": None,
            "torch_sdpa_skipped": f"torch not installed ({TORCH_HINT})",
        }
    tq, tk, tv = (torch.from_numpy(x)[None, None] for x in (q, k, v))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    with torch.inference_mode():
        sdpa(tq[..., :256, :], tk, tv)  # first call pays one-off dispatch setup
        seconds, t_sdpa, _ = _alternate(ours, lambda: sdpa(tq, tk, tv), repeats, t_first)
    gflops, torch_gflops = _gflops(n, d, seconds), _gflops(n, d, t_sdpa)
    return {
        **result,
        "seconds": round(seconds, 4),
        **_exp_figures(q, k, workers, repeats, seconds),
        "gflops": gflops,
        "torch_sdpa_seconds": round(t_sdpa, 4),
        "torch_sdpa_gflops": torch_gflops,
        "ratio": round(gflops / torch_gflops, 3),
        "torch_version": torch.__version__,
        "torch_threads": torch.get_num_threads(),
    }


def overview(
    *,
    quick: bool = False,
    n: int | None = None,
    d: int = 128,
    bins: int = 256,
    repeats: int | None = None,
) -> dict:
    """``overview``: a bins×bins map of the n×n weights at n = 32,768 (8,192 quick), d = 128.

    Targets (DESIGN.md): peak RSS < 1.5 GiB, ``ratio`` = our GFLOP/s / torch SDPA's ≥ 1.2
    (both counted as 4·n²·d: the overview computes one n×n×d product, SDPA two). The map is
    computed by the numpy backend, the default on a machine without CUDA. ``exp_share``
    (issue 24): the share of the overview's time its n² exponentials take at numpy's
    ``exp2`` speed, timed in the same child (see :func:`overview_child`).
    """
    n = n or (8192 if quick else 32768)
    repeats = repeats or (5 if quick else 3)  # quick runs are short: more tries, less noise
    return run_isolated(__name__, "overview_child", n=n, d=d, bins=min(bins, n), repeats=repeats)


def overview_cuda_child(n: int, d: int, bins: int, repeats: int) -> dict:
    """Time the CUDA backend's overview, data made on the GPU: float32 (exact, the figure's
    ``seconds``) and bfloat16 products with float32 scores (``bfloat16``), each after a
    warm-up. The memory guard runs first, so a GPU too small says so instead of failing."""
    import torch

    from attnviz.core import memory_guard
    from attnviz.core.backends import get_backend

    free = memory_guard.available_bytes("cuda")
    tile = memory_guard.cuda_tile_elements(n, free)
    need = memory_guard.check_fits(n, d, bins, "cuda", "float32", tile_elements=tile)
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k = (torch.randn(n, d, device="cuda", generator=gen) for _ in range(2))
    result = {
        "n": n,
        "d": d,
        "bins": bins,
        "backend": "cuda",
        "dtype": "float32",
        "device": torch.cuda.get_device_name(),
        "torch_version": torch.__version__,
        "free_gib": round(free / memory_guard.GiB, 1),
        "estimate_gib": round(need / memory_guard.GiB, 2),
        "tile_elements": tile,
    }
    for dtype in ("float32", "bfloat16"):
        backend = get_backend("cuda", dtype=dtype)
        qd, kd = q.to(getattr(torch, dtype)), k.to(getattr(torch, dtype))
        backend.attention_overview(qd[:4096], kd[:4096], bins=min(bins, 4096))  # cuBLAS warm-up
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        # The result comes back as numpy, so each timed call includes the GPU's synchronisation.
        seconds, _map = _best(
            lambda b=backend, x=qd, y=kd: b.attention_overview(x, y, bins=bins), repeats
        )
        numbers = {
            "seconds": round(seconds, 4),
            "gflops": _gflops(n, d, seconds),
            "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1),
        }
        if dtype == "float32":
            result.update(numbers)
        else:
            result[dtype] = numbers
        del qd, kd
    return result


def overview_cuda(
    *, quick: bool = False, n: int | None = None, d: int = 256, bins: int = 512, repeats: int = 3
) -> dict:
    """``overview_cuda``: the map at n = 262,144, d = 256 on a GPU (65,536 quick); target < 2 s.

    Where there is no GPU the figure says so (``{"skipped": "no CUDA device"}``).
    """
    try:
        import torch
    except ImportError:
        return skipped(f"torch not installed ({TORCH_HINT})")
    if not torch.cuda.is_available():
        return skipped("no CUDA device")
    n = n or (65536 if quick else 262144)
    return run_isolated(
        __name__, "overview_cuda_child", n=n, d=d, bins=min(bins, n), repeats=repeats
    )


def tiled_child(kind: str, n: int, d: int, block_q: int, block_k: int, repeats: int) -> dict:
    """``kind="tiled"``: time ``tiled_attention`` and the dense ``attention()`` alternately,
    reading the peak RSS before the dense one runs; ``kind="naive"``: the dense one's RSS."""
    import numpy as np

    from attnviz.core.attention import attention
    from attnviz.core.tiled import tiled_attention

    q, k, v = _inputs(n, d)
    if kind == "naive":
        attention(q, k, v)
        return {"peak_rss_mib": _mib(peak_rss_mib())}

    def tiled():
        return tiled_attention(q, k, v, block_q=block_q, block_k=block_k)[0]

    def naive():
        return attention(q, k, v).output

    t_first, out = _best(tiled, 1)
    peak = _mib(peak_rss_mib())
    t_tiled, t_naive, _ = _alternate(tiled, naive, repeats, t_first)
    return {
        "tiled_seconds": round(t_tiled, 4),
        "naive_seconds": round(t_naive, 4),
        "tiled_peak_rss_mib": peak,
        "max_abs_diff": float(np.abs(out - naive()).max()),
    }


def tiled_vs_naive(
    *,
    quick: bool = False,
    n: int = 4096,
    d: int = 128,
    block_q: int = 256,
    block_k: int = 1024,
    repeats: int = 3,
) -> dict:
    """``tiled_vs_naive``: exact tiled attention against the dense ``attention()`` at n = 4096.

    Both are numpy float32 on the same q, k, v, timed alternately in one process; the dense
    one's peak RSS comes from a second process of its own.
    """
    args = {"n": n, "d": d, "block_q": block_q, "block_k": block_k, "repeats": repeats}
    both = run_isolated(__name__, "tiled_child", kind="tiled", **args)
    naive = run_isolated(__name__, "tiled_child", kind="naive", **args)
    return {
        "n": n,
        "d": d,
        "block_q": block_q,
        "block_k": block_k,
        "dtype": "float32",
        "tiled_seconds": both["tiled_seconds"],
        "naive_seconds": both["naive_seconds"],
        "speedup": round(both["naive_seconds"] / both["tiled_seconds"], 2),
        "tiled_gflops": _gflops(n, d, both["tiled_seconds"]),
        "tiled_peak_rss_mib": both["tiled_peak_rss_mib"],
        "naive_peak_rss_mib": naive["peak_rss_mib"],
        "max_abs_diff": both["max_abs_diff"],
    }


FIGURES = {"overview": overview, "overview_cuda": overview_cuda, "tiled_vs_naive": tiled_vs_naive}
