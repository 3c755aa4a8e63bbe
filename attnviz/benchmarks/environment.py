"""The ``environment`` figure: what the other figures were measured on."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata

ORDER = 100  # last: it describes the figures above it


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas() -> dict:
    """BLAS library and threads: threadpoolctl when installed, else numpy's build config."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        pass
    else:
        import numpy  # load numpy's BLAS so threadpoolctl can see it

        pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            keys = ("internal_api", "version", "num_threads", "architecture", "filepath")
            return {"source": "threadpoolctl", **{k: pools[0].get(k) for k in keys}}
    import numpy

    try:
        config = numpy.show_config(mode="dicts")
    except TypeError:  # numpy < 1.25 can only print it
        return {"source": "numpy.show_config", "info": "unavailable before numpy 1.25"}
    blas = config.get("Build Dependencies", {}).get("blas", {})
    info = {k: blas.get(k) for k in ("name", "version", "openblas configuration") if blas.get(k)}
    return {"source": "numpy.show_config", **info}


def environment(*, quick: bool = False) -> dict:
    """``environment``: Python, numpy and torch versions, CPUs, BLAS, platform, bytecode
    caching, load.

    torch's version is read from its package metadata, without importing it.
    """
    import numpy

    try:
        cpus_usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus_usable = os.cpu_count()
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        load = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": numpy.__version__,
        "torch": _version("torch"),
        "cpu_count": os.cpu_count(),
        "cpus_usable": cpus_usable,
        "cpu_model": _cpu_model(),
        "blas": _blas(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "frozen": bool(getattr(sys, "frozen", False)),
        # False under PYTHONDONTWRITEBYTECODE: every start then compiles the sources it
        # changed since their last cached bytecode (startup ≈0.5 s slower after edits).
        "writes_bytecode": not sys.dont_write_bytecode,
        "load_average": load,
        "quick": quick,
    }


FIGURES = {"environment": environment}
