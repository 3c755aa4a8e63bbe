"""The overview's long work in a notebook: said before it starts, refused past a limit, and
stopped by an interrupt.

The ``overview`` panel maps a sequence of up to 262,144 tokens; that takes minutes on a
CPU. As ``attnviz export`` does, a figure estimates the time before anything is computed
(:func:`attnviz.model.resolve.long.overview_seconds`, from this machine's measured cost of
one score cell), says it on stderr past :data:`~attnviz.model.sweep_work.SAY_WORK_S`, and
refuses past the figure's ``max_seconds`` (by default
:data:`~attnviz.model.sweep_work.LONG_WORK_S`, where the command line asks for ``--yes``)
with a one-line :class:`FigureError` that says how to allow it. The map is computed on the
calling thread, never inside a Qt event, so an interrupt (Ctrl+C, a notebook's stop
button) raises ``KeyboardInterrupt`` between two tiles: the overview's worker threads stop
within a tile, and nothing half-made is kept. Nothing here imports Qt.
"""

from __future__ import annotations

import sys

from attnviz.commands._args import about
from attnviz.model.sweep_work import LONG_WORK_S, SAY_WORK_S, overview_work
from attnviz.notebook.errors import FigureError

__all__ = [
    "LONG_WORK_S",
    "SAY_WORK_S",
    "check_work",
    "compute_overview",
    "prepare",
    "prepare_frames",
]


def check_work(what: str, seconds: float | None, max_seconds: float | None) -> None:
    """Refuse ``what`` (:class:`FigureError`) when its estimate passes ``max_seconds``;
    say it on stderr when it passes :data:`SAY_WORK_S`. None: no estimate (a GPU)."""
    if seconds is None:
        return
    if max_seconds is not None and seconds > max_seconds:
        raise FigureError(
            f"{what} would take {about(seconds)} on this machine's CPU, over "
            f"max_seconds={max_seconds:g}: pass attnviz.figure(..., max_seconds=None) to "
            "allow it (an interrupt stops it), or lower long.n"
        )
    if seconds > SAY_WORK_S:
        print(
            f"attnviz.figure: {what} takes {about(seconds)} on this machine's CPU "
            "(an interrupt stops it)…",
            file=sys.stderr,
            flush=True,
        )


def _what(values: dict) -> str:
    return f"the overview of long.n = {values['n']:,} (d_k {values['d_k']})"


def prepare(workspace, panel: str, max_seconds: float | None) -> None:
    """Compute the overview before the ``overview`` panel is drawn or read, after
    :func:`check_work`; nothing for another panel, or a map already kept."""
    if panel != "overview":
        return
    from attnviz.model.resolve.long import overview_seconds

    resolver = workspace.resolver_for("long")
    if resolver.cached_overview() is not None:
        return
    values = resolver.results.values  # as a real model's head makes them (its n)
    check_work(_what(values), overview_seconds(values), max_seconds)
    compute_overview(workspace)


def compute_overview(workspace) -> None:
    """The map of the current fields, computed here unless it is kept (an animation's
    frame, after :func:`prepare_frames`); a refusal (memory, a backend, no model) is a
    :class:`FigureError`."""
    try:
        workspace.resolver_for("long").overview_now()
    except (ValueError, RuntimeError, MemoryError) as exc:
        raise FigureError(str(exc) or type(exc).__name__) from None


def prepare_frames(workspace, panel: str, frame_values: list[dict], max_seconds) -> None:
    """Check the overview maps of an animation's frames, all of them, before the first is
    drawn (:func:`attnviz.model.sweep_work.overview_work`)."""
    if panel != "overview":
        return
    work = overview_work(workspace.document, frame_values)
    if len(work.maps) == 1:
        what = _what(work.maps[0])
    else:
        what = f"the {len(work.maps)} overview maps of this sweep"
    check_work(what, work.seconds, max_seconds)
