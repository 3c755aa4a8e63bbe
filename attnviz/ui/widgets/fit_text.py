"""A one-line caption in the room a painter has: smaller type, then fewer parts, never a
word cut with an ellipsis (what a slide drew must read whole)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF

#: Shares of the font a caption may shrink to before it drops its last part.
FACTORS = (1.0, 0.85, 0.7)


def fit_caption(font: QFont, caption: str, room: float, separator: str = " · "):
    """``(font, text)``: the font (``font`` or smaller) and the leading ``separator``-parts
    of ``caption`` that fit ``room`` pixels; an empty text when not even the first does."""
    parts = caption.split(separator)
    for keep in range(len(parts), 0, -1):
        text = separator.join(parts[:keep])
        for factor in FACTORS:
            small = QFont(font)
            if font.pixelSize() > 0:
                small.setPixelSize(max(6, round(font.pixelSize() * factor)))
            else:
                small.setPointSizeF(max(5.0, font.pointSizeF() * factor))
            if QFontMetricsF(small).horizontalAdvance(text) <= room:
                return small, text
    return font, ""
