"""What every long computation of the core shares: its cancel, its progress, its tile sizes.

The tiled attention, the overview's threads, the memory guard and the backends all read
these; keeping them here (and nothing else) lets each of those modules import the others
in one direction only. Only numpy and the standard library are imported.
"""

from __future__ import annotations

import numpy as np

from attnviz.core.value_text import brief

#: Query rows of one panel of the overview: the unit of work one thread takes.
PANEL_ROWS = 512
#: Scores of one tile (a panel's rows × a run of key bins): 2 MiB of float32, in a core's L2
#: cache through the tile's product, exp2 and bin sums.
TILE_ELEMENTS = 1 << 19


class Cancelled(Exception):  # noqa: N818 (the name the UI and scripts catch)
    """An overview stopped because its ``cancel`` flag was set; it returns nothing."""


def as_cancel(cancel):
    """``cancel`` as a function returning bool: a callable, or an object with ``is_set()``."""
    if cancel is None:
        return None
    is_set = getattr(cancel, "is_set", None)
    if callable(is_set):
        return is_set
    if callable(cancel):
        return cancel
    raise ValueError(f"cancel must be callable or have is_set(), got {type(cancel).__name__}")


def as_progress(progress):
    """``progress`` when it is None or callable(fraction), else ValueError."""
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be callable(fraction), got {type(progress).__name__}")
    return progress


def check_flag(value, name: str) -> bool:
    """``value`` as a bool when it is one (numpy's too), else ValueError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {brief(value)}")
    return bool(value)


def split_starts(n: int, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Start index and size of each group, exactly as ``numpy.array_split(range(n), bins)``."""
    sizes = np.full(bins, n // bins, dtype=np.int64)
    sizes[: n % bins] += 1
    return np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes
