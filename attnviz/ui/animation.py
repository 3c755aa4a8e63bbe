"""Animated exports: a panel drawn while fields sweep, written as GIF, WebP, APNG or MP4.

:func:`render_frames` draws one frame per ``{"topic.field": value}`` of
:func:`attnviz.model.sweep.sweep_values` with the very function a PNG export uses
(:func:`attnviz.ui.panel_export.render_panel_image`), so frame k is, pixel for pixel, what
``attnviz export --set FIELD=value --out x.png`` draws. Each frame's fields are set on top of the
workspace's state as it was given, and that state is put back afterwards.
:func:`write_animation` (:mod:`attnviz.ui.animation_writer`) encodes the frames.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from PySide6.QtGui import QImage

from attnviz.core.work import Cancelled, as_cancel
from attnviz.model.fields import StateError
from attnviz.ui.animation_writer import (
    ALPHA_FORMATS,
    ANIMATION_FORMATS,
    NO_VIDEO,
    VideoUnavailable,
    animation_format,
    check_target,
    image_array,
    kept_bytes,
    video_available,
    write_animation,
)
from attnviz.ui.export import ExportError, ExportSpec
from attnviz.ui.panel_export import render_panel_image
from attnviz.ui.widgets.numbers import follow_document

__all__ = [
    "ALPHA_FORMATS", "ANIMATION_FORMATS", "NO_VIDEO", "VideoUnavailable", "animation_format",
    "check_target", "frame_image", "frame_title", "image_array", "iter_frames", "kept_bytes",
    "render_frames", "render_lesson_frames", "video_available", "write_animation",
]  # fmt: skip


# --- drawing ---------------------------------------------------------------------------
def frame_image(workspace, panel_id: str, spec: ExportSpec) -> QImage:
    """The panel as a PNG export draws it now, ``spec.width × spec.height`` pixels."""
    return render_panel_image(workspace, panel_id, spec)


def shown_value(value) -> str:
    """A swept value as a title writes it: ``64``, ``0.5``, ``1.414``."""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def frame_title(title: str | None, values: dict) -> str | None:
    """``title`` with each ``{topic.field}`` of ``values`` replaced by the frame's value (a
    moving number in the heatmap's title); other text, braces included, is left alone."""
    if not title:
        return title
    for path, value in values.items():
        title = title.replace("{" + path + "}", shown_value(value))
    return title


def iter_frames(
    workspace,
    panel_id: str,
    frame_values,
    spec: ExportSpec,
    *,
    progress=None,
    cancel=None,
    before=None,
) -> Iterator[QImage]:
    """The frames of :func:`render_frames`, one at a time (an encoder that streams them
    keeps only one in memory). ``before()``, when given, runs once a frame's fields are
    set, before it is drawn: long work done there (a notebook's overview map) runs outside
    Qt's events, where an interrupt stops it."""
    spec.check()
    frame_values = [dict(v) for v in frame_values]
    cancelled = as_cancel(cancel)
    document = workspace.document
    topics = {path.partition(".")[0] for values in frame_values for path in values}
    base = {name: document[name].snapshot() for name in topics}
    try:
        for i, values in enumerate(frame_values):
            if cancelled is not None and cancelled():
                raise Cancelled(f"cancelled at frame {i + 1} of {len(frame_values)}")
            # Each frame starts from the given state: d_k 8 after d_k 4 would otherwise
            # find the columns that d_k 4 dropped from vectors typed by hand gone for good.
            document.restore(base)
            try:
                document.set_fields(values)
            except StateError as exc:
                raise ExportError(f"frame {i + 1}: {exc}") from None
            if before is not None:
                before()
            titled = frame_title(spec.title, values)
            image = frame_image(
                workspace, panel_id, spec if titled == spec.title else replace(spec, title=titled)
            )
            if progress is not None:
                progress(i + 1, len(frame_values))
            yield image
    finally:
        document.restore(base)
        follow_document(document)


def render_frames(
    workspace, panel_id: str, frame_values, spec: ExportSpec, *, progress=None, cancel=None
) -> list[QImage]:
    """Draw panel ``panel_id`` once per entry of ``frame_values``.

    Parameters
    ----------
    workspace : Workspace
        The state the frames start from; it is as it was when this returns (or raises).
    panel_id : str
        A panel id (:func:`attnviz.model.panels.panel_ids`).
    frame_values : list of dict
        ``{"topic.field": value}`` per frame (:func:`attnviz.model.sweep.sweep_values`),
        set on top of the workspace's state for that frame.
    spec : ExportSpec
        Size, theme, background and title, as for a PNG export; ``{topic.field}`` in the
        title becomes the frame's value of that field.
    progress : callable(done, total), optional
        Called after each frame.
    cancel : callable() -> bool or an object with ``is_set()``, optional
        Checked before each frame; :class:`~attnviz.core.work.Cancelled` when set.

    Returns
    -------
    list of QImage
        ``spec.width × spec.height`` each, ARGB32 premultiplied, as the PNG export draws.

    Raises
    ------
    ExportError
        A frame's values that the document refuses, or a panel that cannot draw them.
    """
    return list(
        iter_frames(workspace, panel_id, frame_values, spec, progress=progress, cancel=cancel)
    )


def render_lesson_frames(
    lesson, width: int, height: int, *, progress=None, cancel=None, **stage_options
) -> list[QImage]:
    """Every step of ``lesson`` as presentation mode shows it (one image per step), on a
    workspace of its own (``stage_options``: those of :func:`attnviz.ui.slides.staged_step`)."""
    from attnviz.model.workspace import Workspace
    from attnviz.ui.slides import render_step

    cancelled = as_cancel(cancel)
    workspace = Workspace()
    images = []
    for index in range(len(lesson)):
        if cancelled is not None and cancelled():
            raise Cancelled(f"cancelled at step {index + 1} of {len(lesson)}")
        images.append(render_step(workspace, lesson, index, width, height, **stage_options))
        if progress is not None:
            progress(index + 1, len(lesson))
    return images
