"""A plot's legend kept whole inside its plot: long entries wrap, then the type shrinks.

pyqtgraph's legend lies inside the plot's view box, which clips it: in a narrow plot (a
slide's saturation plot beside J, the embedding's rank plot) "with the √d_k divisor" lost
its last word. :func:`fit_legend` wraps each entry between words to the room the view box
leaves, and only when a single word is still too wide (or the entries too tall) takes a
pixel off the type at a time, down to :data:`MIN_SCALE` of the plot's. Each call starts
again from the entries' own text and the plot's type, so a wider plot unwraps them.
"""

from __future__ import annotations

import math

from PySide6.QtGui import QFont, QFontMetricsF

#: The smallest type a legend takes, as a share of the plot's.
MIN_SCALE = 0.7
#: Between the legend and the view box's edges (pyqtgraph's offset of 10 pixels), each side.
MARGIN = 10.0
_BREAK = "<br>"


def plain_text(text: str) -> str:
    """A legend entry without the line breaks :func:`fit_legend` put in."""
    return text.replace(_BREAK, " ")


def wrap_words(text: str, width: float, metrics: QFontMetricsF) -> list[str]:
    """``text`` in lines no wider than ``width`` (breaking between words only; a word wider
    than ``width`` stands on a line of its own)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and metrics.horizontalAdvance(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def _font(label, px: int) -> QFont:
    font = QFont(label.item.font())
    font.setPixelSize(px)
    return font


def _apply(legend, texts: list[str], px: int) -> None:
    for (_sample, label), text in zip(legend.items, texts, strict=True):
        if label.text != text or label.opts.get("size") != f"{px}px":
            label.setText(text, size=f"{px}px")
    legend.layout.activate()
    legend.updateSize()


def fit_legend(legend, width: float, height: float, px: int) -> bool:
    """Wrap and, if need be, shrink the entries of ``legend`` (a pyqtgraph ``LegendItem``)
    so that it fits ``width × height`` pixels (its view box), at most ``px`` pixels type.
    True when it fits."""
    if not legend.items or px <= 0 or width <= 0:
        return True
    labels = [label for _sample, label in legend.items]
    words = [plain_text(label.text) for label in labels]
    _apply(legend, words, px)  # the entries as they are, to measure what is not text
    widest = max(label.width() for label in labels)
    margin = 2 * labels[0].item.document().documentMargin()
    beside = legend.width() - widest  # the samples, the spacing and the frame
    room_w, room_h = width - 2 * MARGIN, height - 2 * MARGIN
    for size in range(px, math.ceil(px * MIN_SCALE) - 1, -1):
        metrics = QFontMetricsF(_font(labels[0], size))
        room = room_w - beside - margin - 1
        texts = [_BREAK.join(wrap_words(text, room, metrics)) for text in words]
        _apply(legend, texts, size)
        if legend.width() <= room_w and legend.height() <= room_h:
            return True
    return False
