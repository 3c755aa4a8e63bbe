"""Figures measured by ``attnviz bench``, one module per area.

Adding figures
--------------
Write a module ``attnviz/benchmarks/<area>.py`` (``ui.py`` for the UI's ``heatmap_update``,
``heatmap_mid``, ``heatmap_large``, ``startup``, ``export_4k``; ``model.py`` for
``model_capture``) that defines::

    FIGURES = {"heatmap_update": heatmap_update, ...}   # name → figure function
    ORDER = 10   # optional: modules run, and print, by ascending ORDER (default 50)

A figure function is called as ``fn(quick=False)`` (``quick=True`` for ``--quick``) and
returns a JSON-serialisable dict of its numbers, or :func:`skipped` ("why not") when it
cannot run here. An exception it raises is reported as ``{"error": ...}`` and the command
exits 1. :func:`figures` finds the modules by listing this package (names starting with "_"
are helpers, such as ``_bare_window.py``, the script ``startup`` measures beside
attnviz), so nothing else needs editing. Import heavy things (Qt, torch) inside the
functions, and measure peak memory in a child process (:func:`run_isolated`): the bench
process itself has run other figures.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

Figure = Callable[..., dict]


def figures() -> dict[str, Figure]:
    """Every registered figure, name → function, in output order."""
    modules = []
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            modules.append((getattr(module, "ORDER", 50), info.name, module))
    found: dict[str, Figure] = {}
    for _order, _name, module in sorted(modules, key=lambda m: m[:2]):
        found.update(getattr(module, "FIGURES", {}))
    return found


def skipped(reason: str) -> dict:
    """The result of a figure that cannot run here, saying why."""
    return {"skipped": reason}


def run_figure(fn: Figure, *, quick: bool) -> dict:
    """Call one figure, turning an exception into ``{"error": ...}`` so the others still run."""
    try:
        return fn(quick=quick)
    except Exception as exc:  # a broken figure must not hide the other figures
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return {"error": f"{type(exc).__name__}: {exc} ({Path(last.filename).name}:{last.lineno})"}


def peak_rss_mib() -> float | None:
    """This process's peak resident memory so far, in MiB (None where it cannot be read).

    On Linux this is ``VmHWM`` of /proc/self/status: ``ru_maxrss`` of a freshly started
    child also counts its parent's memory at the time of the exec, which would charge the
    bench process to the figure. Elsewhere ``resource.getrusage(...).ru_maxrss``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes vs KiB


def run_isolated(module: str, function: str, timeout: float = 600, **kwargs) -> dict:
    """Run ``module.function(**kwargs)`` in a fresh Python process and return its dict.

    The child's peak memory is then the figure's own. In a frozen app there is no Python
    to start, so the function runs here and its result says ``"isolated": false``.
    """
    if getattr(sys, "frozen", False):
        result = getattr(importlib.import_module(module), function)(**kwargs)
        return {**result, "isolated": False}
    code = (
        "import json, sys\n"
        f"from {module} import {function} as f\n"
        "print('\\n' + json.dumps(f(**json.loads(sys.argv[1]))))"
    )
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the directory holding the attnviz package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(kwargs)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{module}.{function} failed in a child process: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])
