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
from attnviz.model.sweep import check_fps, check_frames, parse_sweep, sweep_values
from attnviz.notebook.options import FigureError
from attnviz.notebook.render import application, drawing

#: Frames and frames per second when not given: three seconds.
FRAMES = 30
FPS = 10.0


def _texts(animate) -> list[str]:
    if animate is None:
        raise FigureError(
            "an animation needs animate='topic.field=start:stop[:log]', e.g. "
            "animate='attention.d_k=2:256:log'"
        )
    texts = [animate] if isinstance(animate, str) else list(animate)
    if not texts:
        raise FigureError("animate= is empty; give 'topic.field=start:stop[:log]'")
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
        check_target(path, figure.width, figure.height, transparent=transparent)
    except ExportError as exc:
        raise FigureError(str(exc)) from None
    app = application()
    with drawing(app, figure.lang, workspace.document):
        images = iter_frames(workspace, figure.panel, values, spec)
        try:
            with closing(images):  # the fields are put back even when encoding fails
                return write_animation(images, path, rate, transparent=transparent)
        except (ExportError, RuntimeError) as exc:
            raise FigureError(str(exc)) from None
