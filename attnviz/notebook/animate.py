"""``Figure.save("x.gif", animate="attention.d_k=2:256:log")``: a figure whose fields sweep.

The sweep is read and checked by :mod:`attnviz.model.sweep` (the text ``attnviz export
--animate`` takes), the frames are drawn by :func:`attnviz.ui.animation.iter_frames` (one
at a time: frame k is what a PNG of that frame's fields draws) and encoded by
:func:`attnviz.ui.animation.write_animation`. Every value is checked before the first frame
is drawn; the figure's fields are as they were afterwards.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from attnviz.model.fields import StateError
from attnviz.model.frame_timing import check_fps_for
from attnviz.model.sweep import check_fps, check_frames, parse_sweep, sweep_values
from attnviz.notebook.checks import shown
from attnviz.notebook.errors import FigureError
from attnviz.notebook.long_work import compute_overview, prepare_frames
from attnviz.notebook.render import application, drawing

#: Frames and frames per second when not given: three seconds.
FRAMES = 30
FPS = 10.0
#: Share of the free memory an animation's frames may take (as ``attnviz export``).
MEMORY_HEADROOM = 0.8
#: Memory an animation takes beyond the frames the encoder keeps: the panel built offscreen
#: for one frame (freed after it), the picture and its conversion, and the encoder's own
#: working memory (up to about 30 MiB for WebP, measured at 1280×720).
DRAWING_BYTES = 32 << 20


def memory_needed(ext: str, frames: int, width: int, height: int, transparent: bool) -> int:
    """Bytes an animation takes at its peak: what the encoder keeps
    (:func:`attnviz.ui.animation.kept_bytes`), one frame being drawn, and
    :data:`DRAWING_BYTES`."""
    from attnviz.ui.animation import kept_bytes

    return kept_bytes(ext, frames, width, height, transparent) + DRAWING_BYTES + 8 * width * height


def check_memory(ext: str, frames: int, width: int, height: int, transparent: bool) -> None:
    """Refuse (:class:`FigureError`) an animation whose :func:`memory_needed` passes
    :data:`MEMORY_HEADROOM` of the free memory, before its first frame is drawn."""
    from attnviz.core.memory_guard import GiB, available_bytes

    need = memory_needed(ext, frames, width, height, transparent)
    free = available_bytes("numpy")
    if free is not None and need > MEMORY_HEADROOM * free:
        raise FigureError(
            f"{frames} frames of {width}×{height} as .{ext} need {need / GiB:.1f} GiB of "
            f"memory, {free / GiB:.1f} GiB free; use fewer frames, a smaller size"
            + (", or .mp4" if ext != "mp4" else "")
        )


def _texts(animate) -> list[str]:
    if animate is None:
        raise FigureError(
            "an animation needs animate='topic.field=start:stop[:log]', e.g. "
            "animate='attention.d_k=2:256:log'"
        )
    if not isinstance(animate, (str, list, tuple)):
        raise FigureError(
            f"animate must be 'topic.field=start:stop[:log]' or a list of them, got "
            f"{shown(animate)}"
        )
    texts = [animate] if isinstance(animate, str) else list(animate)
    if not texts:
        raise FigureError("animate= is empty; give 'topic.field=start:stop[:log]'")
    for text in texts:
        if not isinstance(text, str):
            raise FigureError(
                f"animate: each sweep is a string 'topic.field=start:stop[:log]', got {shown(text)}"
            )
    return texts


def frame_values(document, animate, frames: int | None) -> list[dict]:
    """The fields of every frame (``{"topic.field": value}`` each), checked against
    ``document``."""
    try:
        sweeps = [parse_sweep(text, document) for text in _texts(animate)]
        values = sweep_values(sweeps, FRAMES if frames is None else frames)
        check_frames(document, values)
    except StateError as exc:
        raise FigureError(f"animate: {exc}") from None
    return values


def save_animation(
    figure,
    path: Path,
    animate,
    *,
    frames: int | None = None,
    fps: float | None = None,
    transparent: bool = False,
    matrix: str | None = None,
) -> Path:
    """Write ``figure`` as an animation (gif, webp, apng or mp4) while ``animate`` sweeps.

    Parameters
    ----------
    figure : attnviz.notebook.figures.Figure
    path : pathlib.Path
        Its extension names the format.
    animate : str or list of str
        ``"topic.field=start:stop[:log]"``; several sweep together.
    frames : int, optional
        2 to 600 (default :data:`FRAMES`).
    fps : float, optional
        Above 0, at most 60 (default :data:`FPS`).
    transparent : bool
        No background (WebP and APNG only).
    matrix : str, optional
        The heatmap's scores, weights or output instead of the matrix it shows.

    Returns
    -------
    pathlib.Path
    """
    from attnviz.ui.animation import check_target, iter_frames, write_animation
    from attnviz.ui.export import ExportError, ExportSpec

    if figure.panel == "lessons":
        raise FigureError(
            "the lessons panel is not animated: its lessons are the slides of "
            "attnviz export --lesson ID"
        )
    workspace = figure.workspace
    values = frame_values(workspace.document, animate, frames)
    try:
        rate = check_fps(FPS if fps is None else fps)
    except StateError as exc:
        raise FigureError(str(exc)) from None
    spec = ExportSpec(figure.width, figure.height, figure.theme, transparent, matrix, None)
    try:
        ext = check_target(path, figure.width, figure.height, transparent=transparent)
        # The format's own range (a GIF times frames in hundredths of a second), before a
        # frame is drawn rather than after all of them.
        rate = check_fps_for(ext, rate)
    except ExportError as exc:
        raise FigureError(str(exc)) from None
    except StateError as exc:
        raise FigureError(str(exc)) from None
    check_memory(ext, len(values), figure.width, figure.height, transparent)
    prepare_frames(workspace, figure.panel, values, figure.max_seconds)

    def frame_map() -> None:  # each frame's map, computed outside Qt's events
        try:
            compute_overview(workspace)
        except FigureError as exc:  # the encoder reports an ExportError as it is
            raise ExportError(str(exc)) from None

    before = frame_map if figure.panel == "overview" else None
    app = application()
    with drawing(app, figure.lang, workspace.document):
        images = iter_frames(workspace, figure.panel, values, spec, before=before)
        try:
            with closing(images):  # the fields are put back even when encoding fails
                return write_animation(images, path, rate, transparent=transparent)
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None
