"""UI figures: slider step → repainted heatmap, start-up to first paint, a 4K PNG export.

``heatmap_update``, ``heatmap_mid`` and ``export_4k`` run in this process on Qt's
offscreen platform (unless another platform is chosen); ``heatmap_large`` runs in a child
process, so that its peak memory is its own; ``startup`` starts the real ``attnviz``
command and a bare PySide6 + pyqtgraph window in turn, each a child process, and reads the
moment each window was first painted.
Targets (DESIGN.md, issue 24): median ≤ 6 ms and p95 ≤ 10 ms per step at n = 512,
d_k = 256; median ≤ 25 ms and exact ≤ 30 ms at n = 2048; median ≤ 50 ms, exact ≤ 100 ms and
≤ 300 MiB at n = 4096; start-up ≤ 1.5 s from source (≤ 2 s frozen) and ≤ 1.3× the bare
window; 4K export ≤ 1 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ORDER = 10  # DESIGN.md lists the UI figures first


def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from PySide6.QtWidgets import QApplication

    from attnviz.ui.app import require_working_binding

    require_working_binding()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    return app


def _ms(seconds: list[float], q: float) -> float:
    ordered = sorted(seconds)
    return round(1000 * ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 3)


def heatmap_update(*, quick: bool = False, n: int = 512, d_k: int = 256, steps: int = 200) -> dict:
    """Temperature slider steps on a content head, each timed from ``state.update`` to the
    end of the heatmap's synchronous repaint (the real panel, 900×700 pixels).

    ``model_median_ms`` is the part spent in the state and resolver (attention recomputed
    by the core), ``view_median_ms`` the part spent in the panel and the paint.
    """
    app = _app()
    from attnviz.model.document import Document
    from attnviz.model.topics.attention import AttentionState
    from attnviz.model.workspace import Workspace
    from attnviz.ui.panels.heatmap import HeatmapPanel
    from attnviz.ui.theme import theme_named

    steps = 60 if quick else steps
    state = AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="content", d_k=d_k)
    workspace = Workspace(Document(attention=state))
    panel = HeatmapPanel(workspace)
    panel.apply_theme(theme_named("light"))
    panel.resize(900, 700)
    panel.show()
    app.processEvents()
    viewport = panel.view.viewport()
    total, model = [], []
    try:
        for i in range(steps + 10):
            temperature = 1.0 + 0.01 * (i % 40 + 1) * (1 if i % 2 else -1)
            t0 = time.perf_counter()
            state.update(temperature=temperature)
            t1 = time.perf_counter()
            viewport.repaint()
            t2 = time.perf_counter()
            if i >= 10:  # the first steps warm caches and allocate buffers
                total.append(t2 - t0)
                model.append(t1 - t0)
            app.processEvents()
    finally:
        panel.close()
        panel.deleteLater()
    view = [t - m for t, m in zip(total, model, strict=True)]
    return {
        "median_ms": _ms(total, 0.5),
        "p95_ms": _ms(total, 0.95),
        "n": n,
        "d_k": d_k,
        "steps": steps,
        "model_median_ms": round(1000 * statistics.median(model), 3),
        "view_median_ms": round(1000 * statistics.median(view), 3),
        "view_p95_ms": _ms(view, 0.95),
        "target": "median ≤ 6 ms, p95 ≤ 10 ms",
    }


def _slider_modules() -> tuple:
    """What a slider run builds on: the resolver, the state, the panel, the theme, the
    worker runner (imported here, so a child can read its memory before the sentence)."""
    from attnviz.model.document import Document
    from attnviz.model.topics.attention import AttentionState
    from attnviz.model.workspace import Workspace
    from attnviz.ui.panels.heatmap import HeatmapPanel
    from attnviz.ui.theme import theme_named
    from attnviz.ui.workers import qt_runner

    return Workspace, Document, AttentionState, HeatmapPanel, theme_named, qt_runner


def _slider_run(n: int, d_k: int, steps: int) -> dict:
    """Temperature slider steps on a content head of ``n`` tokens (the real panel, 900×700
    pixels, its exact matrix computed on a worker): each step timed from ``state.update``
    to the repainted preview (every s-th row exact, keys pooled); ``exact_ms`` is the wait,
    after the last step, for the exact matrix to replace the preview."""
    app = _app()
    Workspace, Document, AttentionState, HeatmapPanel, theme_named, qt_runner = _slider_modules()
    state = AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="content", d_k=d_k)
    workspace = Workspace(Document(attention=state), runner=qt_runner)
    resolver = workspace.resolver
    panel = HeatmapPanel(workspace)
    panel.apply_theme(theme_named("light"))
    panel.resize(900, 700)
    panel.show()
    app.processEvents()
    viewport = panel.view.viewport()
    total = []
    try:
        for i in range(steps + 3):
            temperature = 1.0 + 0.01 * (i % 40 + 1) * (1 if i % 2 else -1)
            t0 = time.perf_counter()
            state.update(temperature=temperature)
            viewport.repaint()
            if i >= 3:
                total.append(time.perf_counter() - t0)
            # A throttled drag writes at most every 16 ms; the worker runs meanwhile.
            end = time.perf_counter() + 0.016
            while time.perf_counter() < end:
                app.processEvents()
        t0 = time.perf_counter()
        while resolver.pending and time.perf_counter() - t0 < 60:
            app.processEvents()
            time.sleep(0.002)
        exact = time.perf_counter() - t0
    finally:
        panel.close()
        panel.deleteLater()
    return {
        "n": n,
        "d_k": d_k,
        "median_ms": _ms(total, 0.5),
        "p95_ms": _ms(total, 0.95),
        "steps": steps,
        "exact_ms": round(1000 * exact, 1),
    }


def heatmap_mid(*, quick: bool = False, n: int = 2048, d_k: int = 64, steps: int = 60) -> dict:
    """``heatmap_mid``: the slider of ``heatmap_large`` at n = 2048 (issue 24: median
    ≤ 25 ms per step, the exact matrix ≤ 30 ms after the last step), in this process."""
    result = _slider_run(n, d_k, min(steps, 20) if quick else steps)
    return {**result, "target": "median ≤ 25 ms, exact ≤ 30 ms"}


def heatmap_large_child(n: int, d_k: int, steps: int) -> dict:
    """The slider run of ``heatmap_large`` in a fresh process, with its memory: the peak
    RSS after Qt, pyqtgraph and attnviz are imported and a QApplication made
    (``baseline_rss_mib``) and at the end of the run (``rss_mib``), which includes the
    sentence's state, results, preview and exact matrix on the worker."""
    from attnviz.benchmarks import peak_rss_mib

    _app()
    _slider_modules()
    baseline = peak_rss_mib()
    result = _slider_run(n, d_k, steps)
    rss = peak_rss_mib()
    return {
        **result,
        "rss_mib": None if rss is None else round(rss, 1),
        "baseline_rss_mib": None if baseline is None else round(baseline, 1),
    }


def heatmap_large(*, quick: bool = False, n: int = 4096, d_k: int = 64, steps: int = 60) -> dict:
    """``heatmap_large``: the slider at n = 4096 (DESIGN.md: median ≤ 50 ms; issue 24: exact
    ≤ 100 ms, peak memory with a 4,096-token sentence ≤ 300 MiB), each step timed from
    ``state.update`` to the repainted preview while the exact matrix is computed on a
    worker; ``exact_ms`` is the wait, after the last step, for the exact matrix.

    It runs in a child process (:func:`~attnviz.benchmarks.run_isolated`) so that
    ``rss_mib``, the peak resident memory of a process holding the sentence through the
    run, is the figure's own; ``baseline_rss_mib`` is the same process's peak before the
    sentence existed (Python, Qt, pyqtgraph, numpy and attnviz imported).
    """
    from attnviz.benchmarks import run_isolated

    steps = min(steps, 20) if quick else steps
    result = run_isolated(__name__, "heatmap_large_child", n=n, d_k=d_k, steps=steps)
    return {**result, "target": "median ≤ 50 ms, exact ≤ 100 ms, rss ≤ 300 MiB"}


def _startup_command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "attnviz"]


def _bare_command() -> list[str] | None:
    """The bare window's command (None in a frozen app: there is no Python to run it)."""
    if getattr(sys, "frozen", False):
        return None
    return [sys.executable, str(Path(__file__).with_name("_bare_window.py"))]


def _first_paint(command: list[str], env: dict, what: str) -> float:
    """Seconds from starting ``command`` to the ``first-paint <time>`` line it prints."""
    t0 = time.time()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    marks = [ln for ln in done.stdout.splitlines() if ln.startswith("first-paint ")]
    if done.returncode != 0 or not marks:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{what} did not start (exit {done.returncode}): {tail}")
    return float(marks[-1].split()[1]) - t0


def startup(*, quick: bool = False, runs: int = 5) -> dict:
    """Seconds from starting ``attnviz`` (a new process) to its first painted window, and
    the same for a bare PySide6 + pyqtgraph window with one small image (``bare_seconds``).

    The attnviz child uses a throw-away settings folder and quits right after the first
    paint (``ATTNVIZ_QUIT_AFTER_FIRST_PAINT=1``); the bare one
    (``attnviz/benchmarks/_bare_window.py``, run as a script, so no attnviz module is
    imported) reports its first paint the same way. The two start in turn, run by run
    (the order swapped every run), so a busy machine hits both; each figure is the median
    of ``runs`` starts and ``ratio`` = ``seconds / bare_seconds`` (issue 24: ≤ 1.3).
    A frozen app has no Python to run the bare window: its ``bare_seconds`` is None.
    ``platform`` names the Qt platform both ran on (``offscreen`` unless
    ``QT_QPA_PLATFORM`` says otherwise).

    Both start from compiled bytecode, as an installed app (or a checkout run before)
    does: the children share a fresh bytecode cache (``PYTHONPYCACHEPREFIX``, writing
    allowed even under ``PYTHONDONTWRITEBYTECODE``), filled by one untimed start of each
    first. Without it, a checkout that may not write bytecode would time Python compiling
    attnviz's own modules on every start, against a bare window whose libraries come
    compiled. That first start of each is reported too (``cold_seconds``,
    ``bare_cold_seconds``: both compile everything they import).
    """
    runs = 1 if quick else runs
    root = str(Path(__file__).resolve().parents[2])
    commands = {"attnviz": _startup_command(), "bare window": _bare_command()}
    times: dict[str, list[float]] = {what: [] for what, cmd in commands.items() if cmd}
    cold: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        platform = env.setdefault("QT_QPA_PLATFORM", "offscreen")
        env["ATTNVIZ_QUIT_AFTER_FIRST_PAINT"] = "1"
        env["XDG_CONFIG_HOME"] = tmp  # never the user's settings or logs
        env["XDG_DATA_HOME"] = tmp
        env["ATTNVIZ_LOG_DIR"] = tmp
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for what in times:
            cold[what] = _first_paint(commands[what], env, what)
        for i in range(runs):
            order = list(times) if i % 2 == 0 else list(reversed(times))
            for what in order:
                times[what].append(_first_paint(commands[what], env, what))
    seconds = statistics.median(times["attnviz"])
    bare = times.get("bare window")
    result = {
        "seconds": round(seconds, 3),
        "best_seconds": round(min(times["attnviz"]), 3),
        "bare_seconds": round(statistics.median(bare), 3) if bare else None,
        "bare_best_seconds": round(min(bare), 3) if bare else None,
        "ratio": round(seconds / statistics.median(bare), 3) if bare else None,
        "cold_seconds": round(cold["attnviz"], 3),
        "bare_cold_seconds": round(cold["bare window"], 3) if bare else None,
        "runs": runs,
        "frozen": bool(getattr(sys, "frozen", False)),
        # Qt's platform both windows ran on: "offscreen" (an 800×600 screen) unless
        # QT_QPA_PLATFORM chose another, so a figure from a desktop says what it timed.
        "platform": platform,
        "target": "≤ 1.5 s from source, ≤ 2 s frozen; ratio ≤ 1.3",
    }
    if not bare:
        result["bare_skipped"] = "a frozen app has no Python to start the bare window"
    return result


def export_4k(*, quick: bool = False, repeats: int = 3) -> dict:
    """Seconds to render and write a 3840×2160 PNG of the ``banco`` heatmap (best of
    ``repeats``), and the same for a 512-token content head."""
    _app()
    from attnviz.model.resolve import Resolver
    from attnviz.model.topics.attention import AttentionState
    from attnviz.ui.export import ExportSpec, write_png

    repeats = 1 if quick else repeats
    spec = ExportSpec(3840, 2160)
    cases = {
        "seconds": AttentionState(),
        "seconds_n512": AttentionState(
            tokens=tuple(f"t{i}" for i in range(512)), head="content", d_k=64
        ),
    }
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.png"
        for key, state in cases.items():
            results = Resolver(state, auto=False).results
            best = float("inf")
            for _ in range(repeats):
                t0 = time.perf_counter()
                write_png(state, results, path, spec)
                best = min(best, time.perf_counter() - t0)
            out[key] = round(best, 3)
        out["bytes"] = path.stat().st_size
    return {**out, "width": 3840, "height": 2160, "target": "≤ 1 s"}


FIGURES = {
    "heatmap_update": heatmap_update,
    "heatmap_mid": heatmap_mid,
    "heatmap_large": heatmap_large,
    "startup": startup,
    "export_4k": export_4k,
}
