"""A figure cropped to what it draws: no wide empty band under a short table.

A panel is laid out on the whole ``width × height`` canvas, but some draw less than that:
the steps panel's tables and sentences fill the top third of a 1280×720 canvas and left
two thirds empty. :func:`drawn_box` finds, in the picture, the bands along the edges that
hold nothing but the background, and keeps everything else; an empty band is cut only when
it is wider than :data:`EMPTY_SHARE` of the picture (a figure that fills its canvas keeps
its exact size), leaving the margin the figure keeps on its other sides.
:func:`crop_svg` cuts an SVG file to the same box. Nothing here imports Qt.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

#: An empty band along an edge is cut when it is more than this share of the picture's
#: width (left, right) or height (top, bottom).
EMPTY_SHARE = 0.1


def _bands(pixels: np.ndarray) -> tuple[int, int, int, int] | None:
    """Empty rows or columns from each edge, ``(left, top, right, bottom)``, where empty is
    the colour of the bottom-right corner (a figure's background; clear when it has none);
    None for a picture that is all background."""
    background = pixels[-1, -1]
    ink = pixels != background
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return None
    h, w = pixels.shape
    return int(cols[0]), int(rows[0]), int(w - 1 - cols[-1]), int(h - 1 - rows[-1])


def drawn_box(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` of the part of the picture to keep.

    Parameters
    ----------
    pixels : numpy.ndarray
        ``(height, width)``: one integer per pixel (a 32-bit ARGB picture's words).

    Returns
    -------
    tuple of int
        The whole picture unless an edge has an empty band wider than
        :data:`EMPTY_SHARE`; such a band is cut down to the margin the figure keeps on the
        edges that are not cut (the smallest of them).
    """
    h, w = pixels.shape
    bands = _bands(pixels)
    if bands is None:
        return 0, 0, w, h
    limits = (w, h, w, h)
    cut = [band > EMPTY_SHARE * limit for band, limit in zip(bands, limits, strict=True)]
    if not any(cut):
        return 0, 0, w, h
    kept = [band for band, c in zip(bands, cut, strict=True) if not c]
    margin = min(kept) if kept else round(0.01 * min(w, h))
    # Pixels taken off each edge: a cut band keeps the margin.
    left, top, right, bottom = (
        band - min(band, margin) if c else 0 for band, c in zip(bands, cut, strict=True)
    )
    return left, top, w - left - right, h - top - bottom


_SVG_TAG = re.compile(r"<svg\b[^>]*>")
_LENGTH = re.compile(r'\b(width|height)="([0-9.]+)([a-z%]*)"')
_VIEW_BOX = re.compile(r'\bviewBox="([-0-9.eE]+) ([-0-9.eE]+) ([-0-9.eE]+) ([-0-9.eE]+)"')


def crop_svg(path: Path, box: tuple[int, int, int, int], size: tuple[int, int]) -> bool:
    """Cut the SVG file ``path`` to ``box`` of a picture of ``size`` pixels drawn from the
    same figure (its ``viewBox`` and its width and height, in their units, cut in
    proportion). False, with the file as it was, when its ``<svg>`` tag is not the one Qt
    writes."""
    x, y, bw, bh = box
    w, h = size
    if (x, y, bw, bh) == (0, 0, w, h):
        return True
    text = path.read_text(encoding="utf-8")
    tag = _SVG_TAG.search(text)
    view = _VIEW_BOX.search(tag.group(0)) if tag else None
    if view is None or len(_LENGTH.findall(tag.group(0))) != 2:
        return False
    vx, vy, vw, vh = (float(v) for v in view.groups())
    shares = {"width": bw / w, "height": bh / h}

    def length(m: re.Match) -> str:
        return f'{m.group(1)}="{float(m.group(2)) * shares[m.group(1)]:.6g}{m.group(3)}"'

    new_tag = _LENGTH.sub(length, tag.group(0))
    new_box = (vx + x * vw / w, vy + y * vh / h, bw * vw / w, bh * vh / h)
    new_tag = _VIEW_BOX.sub('viewBox="' + " ".join(f"{v:.6g}" for v in new_box) + '"', new_tag)
    path.write_text(text[: tag.start()] + new_tag + text[tag.end() :], encoding="utf-8")
    return True
