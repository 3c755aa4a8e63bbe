"""Writing an animation: frames (QImages or arrays) to GIF, WebP, APNG or MP4.

GIF, animated WebP (lossless) and APNG go through Pillow, MP4 (H.264, yuv420p, BT.709)
through PyAV, the optional ``video`` extra. H.264's 4:2:0 chroma needs an even width and
height: an odd size is refused, not padded, so that every format keeps the exact size asked
for. Alpha is kept by WebP and APNG only (GIF has no partial transparency, MP4 none). The
file is written beside its final name and renamed when complete: a failure or a cancel
leaves no file behind. Every frame given is a frame of the file, in every format (Pillow
and libwebp would store a frame equal to the one before as a longer showing of that one:
GIF and WebP are written by :mod:`attnviz.ui.animation_streams`, APNG by Pillow told
apart), and each is timed as :mod:`attnviz.model.frame_timing` says the format stores it;
a rate or a hold it cannot store is refused before the first frame.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

from attnviz.core.work import Cancelled, as_cancel
from attnviz.model.fields import StateError
from attnviz.model.frame_timing import (
    check_fps_for,
    frame_time,
    hold_frames,
    mp4_rate,
    stored_hold,
)
from attnviz.model.safe_io import TEMP_PREFIX, TEMP_SUFFIX, shown_path
from attnviz.ui.animation_streams import write_gif, write_webp
from attnviz.ui.export import ExportError

#: The animated formats, by file extension.
ANIMATION_FORMATS = ("gif", "webp", "apng", "mp4")
#: Those that keep a transparent background.
ALPHA_FORMATS = ("webp", "apng")
#: The line printed when MP4 is asked for without PyAV.
NO_VIDEO = (
    "MP4 needs PyAV, the optional video extra: pip install 'attnviz[video]' "
    "(or write .gif, .webp or .apng)"
)


class VideoUnavailable(ExportError):  # noqa: N818 (a refusal, like ExportError)
    """MP4 was asked for and PyAV (``attnviz[video]``) is not installed."""


def animation_format(path) -> str:
    """The format ``path``'s extension names (``gif``, ``webp``, ``apng``, ``mp4``)."""
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in ANIMATION_FORMATS:
        known = ", ".join(f".{e}" for e in ANIMATION_FORMATS)
        raise ExportError(f"an animation is written as {known}; got {Path(path).name!r}")
    return ext


def video_available() -> bool:
    """True when PyAV can be imported (MP4 can be written)."""
    try:
        import av  # noqa: F401
    except ImportError:
        return False
    return True


def check_target(path, width: int, height: int, *, transparent: bool = False) -> str:
    """Refuse, before any frame is drawn, what :func:`write_animation` could not write;
    return the format. :class:`VideoUnavailable` when MP4 needs PyAV."""
    ext = animation_format(path)
    if transparent and ext not in ALPHA_FORMATS:
        raise ExportError(
            f"a transparent background needs .webp or .apng; .{ext} has "
            + ("no partial transparency" if ext == "gif" else "no alpha")
        )
    if ext == "mp4":
        if width % 2 or height % 2:
            raise ExportError(
                f"MP4 (H.264, 4:2:0) needs an even width and height; got {width}×{height}"
            )
        if not video_available():
            raise VideoUnavailable(NO_VIDEO)
    return ext


def kept_bytes(ext: str, frames: int, width: int, height: int, transparent: bool) -> int:
    """Memory the encoder of ``ext`` holds while writing ``frames`` frames: GIF and WebP
    stream (the frame before and the one being coded, with its palette image or its
    encoded copy); Pillow keeps every APNG frame until it writes, as given and as a copy
    (measured at 1280×720: 6.9 bytes a pixel a frame, ``transparent`` costing no more);
    MP4 streams."""
    pixels = width * height
    channels = 4 if transparent else 3
    if ext in ("gif", "webp"):
        return 3 * pixels * channels + 4 * pixels
    if ext == "apng":
        return 8 * frames * pixels
    return 8 * pixels


def image_array(image, alpha: bool = False) -> np.ndarray:
    """An image as a ``(height, width, 3 or 4)`` uint8 array, RGB(A), alpha not
    premultiplied. A ``QImage`` is converted; an RGB or RGBA uint8 array gains an opaque
    alpha or loses its alpha as ``alpha`` asks."""
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in (3, 4):
            raise ExportError(
                f"a frame array must be (height, width, 3 or 4) uint8, got "
                f"{image.shape} {image.dtype}"
            )
        if alpha and image.shape[2] == 3:
            image = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
        return np.ascontiguousarray(image if alpha else image[..., :3])
    channels = 4 if alpha else 3
    fmt = QImage.Format.Format_RGBA8888 if alpha else QImage.Format.Format_RGB888
    converted = image.convertToFormat(fmt)
    h, w, line = converted.height(), converted.width(), converted.bytesPerLine()
    rows = np.frombuffer(converted.constBits(), np.uint8, count=h * line).reshape(h, line)
    return rows[:, : w * channels].reshape(h, w, channels).copy()


def _arrays(images: Iterable, alpha: bool, progress, cancel) -> Iterator[np.ndarray]:
    total = len(images) if hasattr(images, "__len__") else 0
    size = None
    for i, image in enumerate(images):
        if cancel is not None and cancel():
            raise Cancelled(f"cancelled while writing frame {i + 1}")
        arr = image_array(image, alpha)
        if size is None:
            size = arr.shape
        elif arr.shape != size:
            raise ExportError(
                f"frame {i + 1} is {arr.shape[1]}×{arr.shape[0]}, the first "
                f"{size[1]}×{size[0]}: every frame must have one size"
            )
        yield arr
        if progress is not None:
            progress(i + 1, total)


def _seconds(ext: str, fps: float, durations):
    """Frame i's time as the format stores it: ``times(i)`` in seconds, checked first
    (ExportError in one line when the format cannot store it)."""
    try:
        fps = check_fps_for(ext, fps)
        if durations is not None:
            held = [stored_hold(ext, float(d), fps, "a frame's duration") for d in durations]
            return lambda i: held[i]
    except StateError as exc:
        raise ExportError(str(exc)) from None
    return lambda i: frame_time(ext, fps, i)


def _write_apng(arrays: Iterator[np.ndarray], tmp: Path, times) -> None:
    from PIL import Image

    pictures, disposal, previous = [], [], None
    for arr in arrays:
        # Pillow merges a frame equal to the one before into it unless their disposals
        # differ: alternate them along a run of equal frames (0: keep, 1: clear the
        # frame's rectangle, which Pillow then draws again in full: same pictures).
        same = previous is not None and np.array_equal(arr, previous)
        disposal.append(1 - disposal[-1] if same else 0)
        pictures.append(Image.fromarray(arr))  # RGB, or RGBA with a transparent background
        previous = arr
    if not pictures:
        raise ExportError("an animation needs at least one frame")
    durations = [1000 * times(i) for i in range(len(pictures))]
    pictures[0].save(
        tmp,
        format="PNG",
        save_all=True,
        append_images=pictures[1:],
        duration=durations,
        disposal=disposal,
        loop=0,
        default_image=False,
        compress_level=6,
    )


def _write_stream(arrays: Iterator[np.ndarray], tmp: Path, ext: str, times) -> None:
    # GIF in hundredths of a second, WebP in milliseconds (times are multiples of them).
    per_second, write = (100, write_gif) if ext == "gif" else (1000, write_webp)
    with tmp.open("wb") as fh:
        count = write(arrays, fh, lambda i: round(times(i) * per_second))
    if not count:
        raise ExportError("an animation needs at least one frame")


def _write_mp4(arrays: Iterator[np.ndarray], tmp: Path, fps: float, durations) -> None:
    try:
        import av
    except ImportError:
        raise VideoUnavailable(NO_VIDEO) from None
    try:
        _encode_mp4(av, arrays, tmp, check_fps_for("mp4", fps), durations)
    except av.error.FFmpegError as exc:
        raise ExportError(f"the video encoder failed: {exc}") from None


def _encode_mp4(av, arrays: Iterator[np.ndarray], tmp: Path, fps: float, durations) -> None:
    rate = mp4_rate(fps)
    durations = list(durations) if durations is not None else None
    with av.open(str(tmp), mode="w", format="mp4") as container:
        stream, sent = None, 0
        for i, arr in enumerate(arrays):
            if stream is None:
                height, width = arr.shape[:2]
                if width % 2 or height % 2:
                    raise ExportError(
                        f"MP4 (H.264, 4:2:0) needs an even width and height; got {width}×{height}"
                    )
                stream = _video_stream(av, container, rate, width, height)
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(arr[..., :3]), format="rgb24")
            try:
                frame = frame.reformat(format="yuv420p", dst_colorspace="ITU709")
            except (TypeError, ValueError):  # an older PyAV without named colourspaces
                frame = frame.reformat(format="yuv420p")
            # A held frame (a lesson's step) is the same picture repeated at the frame rate.
            repeats = 1 if durations is None else hold_frames(durations[i], fps)
            for _ in range(repeats):
                frame.pts = sent  # in 1/fps: a repeat needs a time of its own
                sent += 1
                for packet in stream.encode(frame):
                    container.mux(packet)
        if stream is None:
            raise ExportError("an animation needs at least one frame")
        for packet in stream.encode(None):
            container.mux(packet)


def _video_stream(av, container, rate, width: int, height: int):
    codecs = getattr(av, "codecs_available", ())
    name = next((c for c in ("libx264", "h264", "libopenh264") if c in codecs), "h264")
    options = {"crf": "18", "preset": "medium"} if name == "libx264" else {}
    stream = container.add_stream(name, rate=rate, options=options)
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    context = stream.codec_context
    for attribute in ("colorspace", "color_primaries", "color_trc"):
        with contextlib.suppress(AttributeError, TypeError, ValueError):
            setattr(context, attribute, 1)  # BT.709, as the frames were converted
    return stream


def write_animation(
    images: Iterable,
    path,
    fps: float,
    *,
    transparent: bool = False,
    durations=None,
    progress=None,
    cancel=None,
) -> Path:
    """Encode ``images`` (QImages or RGB(A) arrays of one size) into ``path``.

    Parameters
    ----------
    images : iterable of QImage or numpy.ndarray
        The frames in order; an iterator is consumed as it is written, each QImage
        converted as it comes (MP4 then holds one frame at a time, the others one
        compact copy of each: :func:`kept_bytes`).
    path : str or Path
        ``.gif``, ``.webp``, ``.apng`` or ``.mp4``; it appears only when complete.
    fps : float
        Frames per second, within what the format stores
        (:func:`attnviz.model.frame_timing.fps_range`: at most 50 for a GIF, 60 for the
        others); an MP4's frame rate also with ``durations``.
    transparent : bool
        Keep the images' alpha (WebP and APNG only).
    durations : sequence of float, optional
        Seconds each frame is shown (a lesson's held steps) instead of ``1 / fps``, as the
        format stores them (:func:`attnviz.model.frame_timing.stored_hold`); MP4 repeats a
        frame at ``fps`` for as long.
    progress : callable(done, total), optional
        After each frame is handed to the encoder (``total`` 0 for an iterator).
    cancel : callable() -> bool, optional
        Checked before each frame: :class:`~attnviz.core.work.Cancelled`, and no file.

    Returns
    -------
    Path
    """
    path = Path(path)
    ext = animation_format(path)
    times = _seconds(ext, fps, durations)  # before any frame: a time the format cannot keep
    if transparent and ext not in ALPHA_FORMATS:
        raise ExportError(f"a transparent background needs .webp or .apng, not .{ext}")
    if ext == "mp4" and not video_available():
        raise VideoUnavailable(NO_VIDEO)
    cancelled = as_cancel(cancel)
    arrays = _arrays(images, transparent, progress, cancelled)
    # Beside the target (one rename, no copy across file systems), created by the encoder
    # with the usual permissions; a stale one is what safe_io.clean_stale_temps removes.
    tmp = path.parent / f"{TEMP_PREFIX}{uuid.uuid4().hex}{TEMP_SUFFIX}"
    try:
        if ext == "mp4":
            _write_mp4(arrays, tmp, fps, durations)
        elif ext == "apng":
            _write_apng(arrays, tmp, times)
        else:
            _write_stream(arrays, tmp, ext, times)
        if cancelled is not None and cancelled():  # pressed while the encoder finished
            raise Cancelled("cancelled while writing")
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        if isinstance(exc, ExportError):
            raise
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise ExportError(f"could not write {shown_path(path)}: {reason}") from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return path
