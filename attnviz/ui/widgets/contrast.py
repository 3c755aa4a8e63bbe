"""Text on a coloured cell, legible by WCAG's measure.

WCAG 2 defines the contrast ratio of two colours as ``(L1 + 0.05) / (L2 + 0.05)`` of their
relative luminances (sRGB linearised, weights 0.2126, 0.7152, 0.0722); AA asks 4.5 : 1 for
text. Black or white, whichever contrasts more, always reaches at least 4.58 : 1 on any
colour, so :func:`ink_for` never needs a third choice. A plain lightness threshold does not:
grey text on teal or on yellow reads 2–3 : 1.
"""

from __future__ import annotations

import numpy as np

#: WCAG AA for normal text.
AA = 4.5
BLACK = "#000000"
WHITE = "#ffffff"


def relative_luminance(rgb) -> np.ndarray:
    """WCAG relative luminance of sRGB colours with channels in 0…1 (last axis: r, g, b)."""
    c = np.asarray(rgb, dtype=float)[..., :3]
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast_ratio(a, b) -> np.ndarray:
    """The WCAG contrast ratio (1…21) of colours ``a`` and ``b`` (channels in 0…1)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


def dark_ink(rgb) -> np.ndarray:
    """True where black text contrasts more than white with the colours ``rgb``."""
    lum = relative_luminance(rgb)
    # (L + 0.05) / 0.05 against black, 1.05 / (L + 0.05) against white.
    return (lum + 0.05) ** 2 > 0.05 * 1.05


def ink_for(rgb) -> str:
    """``"#000000"`` or ``"#ffffff"``: the text colour for one cell colour (0…1 channels)."""
    return BLACK if bool(dark_ink(rgb)) else WHITE


def qcolor_rgb(color) -> tuple[float, float, float]:
    """The 0…1 channels of a ``QColor`` (without importing Qt here)."""
    return (color.redF(), color.greenF(), color.blueF())
