"""One exported data array (``attnviz export --panel ID --matrix NAME``), no Qt.

A leaf module: the resolvers make these and the table of panels names the functions that
do, so neither imports the other through it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DataArray:
    """One exported array, with the labels of its rows and columns when they have names.

    ``corner`` is what a CSV file writes in its top-left cell (the heatmap's matrices say
    which symbol they are and how to read them); None: the array's name.
    """

    values: np.ndarray
    rows: tuple[str, ...] | None = None
    columns: tuple[str, ...] | None = None
    corner: str | None = None
