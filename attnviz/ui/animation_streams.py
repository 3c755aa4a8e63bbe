"""GIF and animated WebP written frame by frame, every frame kept (no Qt).

Pillow's GIF writer, and libwebp's animation encoder behind Pillow's WebP writer, store a
frame identical to the one before it as a longer showing of that one, and neither can be
told not to: ``--frames 24`` of a sweep in which two neighbouring frames draw alike (an
integer field on a short range) gave a file of 23. Here each frame becomes one frame of the
file, timed as :mod:`attnviz.model.frame_timing` stores it:

- a frame that differs from the one before is written as the rectangle that changed
  (the file stays about as small as the encoders make it);
- a frame that does not is written as its top-left pixel, unchanged: a frame of its own
  that changes nothing on screen.

Both stream: a frame is encoded as it comes and only the previous one is kept (the memory
of two frames, whatever their number). The pieces are Pillow's own: its LZW coder for a
GIF frame (each with its own 256-colour palette, quantized without dithering: flat cells
stay flat, and text keeps its grey levels) and libwebp's lossless coder for a WebP frame.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Iterable

import numpy as np


def changed_box(previous: np.ndarray | None, current: np.ndarray, even: bool = False):
    """``(x0, y0, x1, y1)`` of the pixels of ``current`` that differ from ``previous`` (the
    whole frame when there is none), None when nothing does. ``even`` moves the top-left
    corner to even coordinates (a WebP frame's offsets are stored halved)."""
    height, width = current.shape[:2]
    if previous is None:
        return 0, 0, width, height
    diff = np.any(previous != current, axis=2)
    rows, cols = np.flatnonzero(diff.any(axis=1)), np.flatnonzero(diff.any(axis=0))
    if not rows.size:
        return None
    x0, y0 = int(cols[0]), int(rows[0])
    if even:
        x0, y0 = x0 - x0 % 2, y0 - y0 % 2
    return x0, y0, int(cols[-1]) + 1, int(rows[-1]) + 1


def _frame_box(previous, current, even: bool) -> tuple[int, int, int, int]:
    # An unchanged frame still gets one: its top-left pixel, as it already is.
    return changed_box(previous, current, even) or (0, 0, 1, 1)


# --- GIF ----------------------------------------------------------------------------------
def _gif_header(width: int, height: int) -> bytes:
    # GIF89a, no global palette (every frame brings its own), 8-bit colour resolution.
    screen = struct.pack("<HHBBB", width, height, 0x70, 0, 0)
    loop = b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00"  # forever
    return b"GIF89a" + screen + loop


def write_gif(frames: Iterable[np.ndarray], fh, hundredths: Callable[[int], int]) -> int:
    """Write ``frames`` (RGB uint8 arrays of one size) as a looping GIF to the binary file
    ``fh``, frame i shown ``hundredths(i)`` hundredths of a second; return the count."""
    from PIL import GifImagePlugin, Image

    previous, count = None, 0
    canvas = None  # what the viewer shows: the frames' colours as quantized
    for arr in frames:
        if previous is None:
            fh.write(_gif_header(arr.shape[1], arr.shape[0]))
            canvas = np.empty_like(arr[..., :3])
        box = changed_box(previous, arr)
        # An unchanged frame is its top-left pixel as the viewer already shows it.
        x0, y0, x1, y1 = box or (0, 0, 1, 1)
        source = arr if box else canvas
        part = Image.fromarray(np.ascontiguousarray(source[y0:y1, x0:x1, :3]))
        part = part.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        canvas[y0:y1, x0:x1] = np.asarray(part.convert("RGB"))
        # Pillow's encoder writes the graphic control block (the delay; disposal 1: leave
        # the frame in place for the next rectangle), the local palette and the LZW data.
        for piece in GifImagePlugin.getdata(
            part,
            (x0, y0),
            duration=10 * hundredths(count),
            disposal=1,
            include_color_table=True,
        ):
            fh.write(piece)
        previous, count = arr, count + 1
    fh.write(b";")
    return count


# --- WebP ---------------------------------------------------------------------------------
def _chunk(tag: bytes, data: bytes) -> bytes:
    return tag + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def _u24(n: int) -> bytes:
    return struct.pack("<I", n)[:3]


def _webp_bitstream(part: np.ndarray) -> bytes:
    """The ``VP8L`` chunk (with its header) of ``part`` encoded losslessly by libwebp."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(part).save(buffer, "WEBP", lossless=True, quality=50, method=2, exact=True)
    data, pos, out = buffer.getvalue(), 12, b""
    while pos + 8 <= len(data):
        tag, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        if tag in (b"ALPH", b"VP8 ", b"VP8L"):
            out += data[pos : pos + 8 + size + size % 2]
        pos += 8 + size + size % 2
    return out


def write_webp(frames: Iterable[np.ndarray], fh, milliseconds: Callable[[int], int]) -> int:
    """Write ``frames`` (RGB or RGBA uint8 arrays of one size) as a looping, lossless
    animated WebP to the seekable binary file ``fh``, frame i shown ``milliseconds(i)``;
    return the count. Each frame replaces its rectangle (no blending): a transparent pixel
    of a frame is transparent on screen."""
    start = fh.tell()
    previous, count = None, 0
    for arr in frames:
        if previous is None:
            alpha = arr.shape[2] == 4
            flags = 0x02 | (0x10 if alpha else 0)  # animation, alpha
            canvas = bytes([flags, 0, 0, 0]) + _u24(arr.shape[1] - 1) + _u24(arr.shape[0] - 1)
            fh.write(b"RIFF\0\0\0\0WEBP")  # the size is written at the end
            fh.write(_chunk(b"VP8X", canvas))
            fh.write(_chunk(b"ANIM", struct.pack("<IH", 0, 0)))  # transparent, loop forever
        x0, y0, x1, y1 = _frame_box(previous, arr, even=True)
        head = (
            _u24(x0 // 2)
            + _u24(y0 // 2)
            + _u24(x1 - x0 - 1)
            + _u24(y1 - y0 - 1)
            + _u24(milliseconds(count))
            + bytes([0x02])  # do not blend, do not dispose
        )
        part = np.ascontiguousarray(arr[y0:y1, x0:x1])
        fh.write(_chunk(b"ANMF", head + _webp_bitstream(part)))
        previous, count = arr, count + 1
    end = fh.tell()
    fh.seek(start + 4)
    fh.write(struct.pack("<I", end - start - 8))
    fh.seek(end)
    return count
