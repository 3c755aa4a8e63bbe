"""An overview past a few seconds, asked for in a notebook, is said before it starts,
refused past ``max_seconds`` with how to allow it, and stopped by an interrupt (issue 39,
item 7).

Before: ``figure("overview", set={"long.n": 262144})`` computed for minutes, and an
interrupt did not leave it cleanly. The machine's speed is played by patching the cost of
one score cell, as the command line's tests do.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import attnviz
from attnviz.model.resolve import long as long_resolver
from attnviz.notebook import FigureError
from attnviz.notebook.long_work import LONG_WORK_S, SAY_WORK_S

ROOT = Path(__file__).resolve().parents[1]
#: long.n of the small maps these tests compute for real.
SMALL_N = 1024
#: Seconds the child process may take to say it started, then to stop.
HANG_S = 120


def _machine(monkeypatch, seconds_at_small_n: float) -> None:
    """Play a machine on which the overview of SMALL_N tokens takes this long (the estimate
    is CELL_SHARE × n² × the cost of one cell)."""
    per_cell = seconds_at_small_n / (long_resolver.CELL_SHARE * SMALL_N**2)
    monkeypatch.setattr(long_resolver, "_cell_seconds", lambda _d, _dtype: per_cell)


def _kept(fig) -> bool:
    return fig.workspace.resolver_for("long").cached_overview() is not None


def test_past_max_seconds_the_map_is_refused_before_it_starts(monkeypatch, capsys, tmp_path):
    _machine(monkeypatch, 3 * LONG_WORK_S)
    fig = attnviz.figure("overview", set={"long.n": SMALL_N})
    with pytest.raises(FigureError) as info:
        fig.data()
    message = str(info.value)
    assert message.startswith(
        f"the overview of long.n = {SMALL_N:,} (d_k 64) would take about 3 min"
    )
    assert "max_seconds=None" in message and "lower long.n" in message and "\n" not in message
    assert not _kept(fig) and capsys.readouterr().err == ""
    with pytest.raises(FigureError, match="max_seconds=60"):
        fig._repr_png_()
    with pytest.raises(FigureError, match="would take"):
        fig.save(tmp_path / "overview.npy")
    assert not list(tmp_path.iterdir())  # refused before anything is written


def test_under_max_seconds_the_map_is_said_then_computed(monkeypatch, capsys):
    _machine(monkeypatch, 2 * SAY_WORK_S)
    fig = attnviz.figure("overview", set={"long.n": SMALL_N})
    assert fig.data().shape == (256, 256) and _kept(fig)
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [
        f"attnviz.figure: the overview of long.n = {SMALL_N:,} (d_k 64) takes about 20 s on "
        "this machine's CPU (an interrupt stops it)…"
    ]
    fig.data("q")  # kept: nothing more is said
    assert capsys.readouterr().err == ""


def test_max_seconds_none_or_larger_allows_it(monkeypatch, capsys):
    _machine(monkeypatch, 10 * LONG_WORK_S)
    assert attnviz.figure("overview", set={"long.n": SMALL_N}, max_seconds=None).data().size
    assert "about 10 min" in capsys.readouterr().err
    fig = attnviz.figure("overview", set={"long.n": SMALL_N}, max_seconds=3600)
    assert fig.data("k").shape == (SMALL_N, 64)


def test_a_quick_map_is_not_said(monkeypatch, capsys):
    _machine(monkeypatch, 0.5)
    assert attnviz.figure("overview", set={"long.n": SMALL_N}).data().shape == (256, 256)
    assert capsys.readouterr().err == ""


def test_an_animation_counts_every_map_before_the_first_frame(monkeypatch, tmp_path):
    from attnviz.notebook import animate

    _machine(monkeypatch, 0.4 * LONG_WORK_S)  # one map is fine, four are not
    drawn = []
    monkeypatch.setattr(animate, "application", lambda: drawn.append(1))
    fig = attnviz.figure("overview", set={"long.n": SMALL_N})
    with pytest.raises(FigureError, match=r"^the 4 overview maps of this sweep would take"):
        fig.save(tmp_path / "o.gif", animate="long.seed=1:4", frames=4)
    assert not drawn and not list(tmp_path.iterdir())


def test_an_interrupt_stops_the_map_cleanly():
    # A child process, as a notebook's kernel: the map of the longest sequence, allowed,
    # interrupted once it is said to have started. The worker threads stop, nothing is kept,
    # and the next figure computes.
    code = textwrap.dedent(
        f"""
        import signal, threading
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a kernel's own handler
        import attnviz
        from attnviz.model.resolve import long
        from attnviz.model.topics.long import MAX_N

        long._cell_seconds = lambda d, dtype: 1e-9  # said, whatever this machine's speed
        fig = attnviz.figure("overview", set={{"long.n": MAX_N}}, max_seconds=None)
        try:
            fig.data()
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", threading.active_count(), flush=True)
        print("kept", fig.workspace.resolver_for("long").cached_overview() is not None)
        print("next", attnviz.figure("overview", set={{"long.n": {SMALL_N}}}).data().shape)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(ROOT),
    )
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in child.stderr], daemon=True).start()
    try:
        said = lines.get(timeout=HANG_S)
        assert "takes about" in said and "an interrupt stops it" in said, said
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=HANG_S)
    finally:
        child.kill()
    assert child.returncode == 0
    assert out.split("\n")[:3] == ["interrupted 1", "kept False", "next (256, 256)"]
