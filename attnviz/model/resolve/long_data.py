"""What ``attnviz export --panel overview`` and ``--panel tiles`` write: the long map, the
zoomed block, q, k, and the tiles' HBM bytes (no Qt).

A real hybrid's non-softmax head (``long.head=model`` at a Gated DeltaNet, Mamba-2, … layer)
exports its mixing matrix M: the map pooled from it, the block M's slice; its q and k are
what its mixing core reads under those names (a Mamba-2 head's C and B, a short
convolution's gates), said in the CSV's corner, and refused in one line for a kind that
has none of its own (a Mamba channel).
"""

from __future__ import annotations

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.resolve import _long_model
from attnviz.model.resolve._long_tiles import hbm_traffic
from attnviz.model.resolve.long import (
    EXPORT_BLOCK_CELLS,
    OVERVIEW_FIELDS,
    exact_block,
    group_labels,
)

#: Where ``reduce`` sits in an overview's key.
OVERVIEW_REDUCE = OVERVIEW_FIELDS.index("reduce")


def _overview_data(workspace) -> DataArray:
    ov = workspace.resolver_for("long").overview_now()
    labels = group_labels(ov.q.shape[0], ov.map.shape[0])
    corner = None
    if ov.signed:  # say what the cells are: M is signed, "max" its entry farthest from 0
        how = "mean" if ov.key[OVERVIEW_REDUCE] == "mean" else "largest |M|"
        corner = f"M ({ov.kind}) {how} of each block: query \\ key"
    return DataArray(ov.map, labels, labels, corner=corner)


def _block_data(workspace) -> DataArray:
    resolver = workspace.resolver_for("long")
    r0, r1, c0, c1 = resolver.results.window
    cells = (r1 - r0) * (c1 - c0)
    if cells > EXPORT_BLOCK_CELLS:
        raise ValueError(
            f"the zoom window has {cells:,} cells; a block export holds at most "
            f"{EXPORT_BLOCK_CELLS:,}: narrow long.rows and long.cols (e.g. [0, 1024])"
        )
    ov = resolver.overview_now()
    block = exact_block(ov, r0, r1, c0, c1)
    corner = f"M ({ov.kind}): query \\ key" if ov.signed else None
    return DataArray(
        block,
        tuple(str(i) for i in range(r0, r1)),
        tuple(str(j) for j in range(c0, c1)),
        corner=corner,
    )


def _side(workspace, which: int) -> DataArray:
    """q (``which`` 0) or k (1) of the head mapped; of a mixing head what its core reads
    under that name, or a one-line refusal for a kind with none of its own."""
    ov = workspace.resolver_for("long").overview_now()
    values = ov.k if which else ov.q
    if not ov.signed:
        return DataArray(values)
    said = _long_model.MIXING_QK.get(ov.kind)
    name = "k" if which else "q"
    if said is None:
        raise ValueError(
            f"a {ov.kind} head has no {name} of its own (its M comes from B, C, Δ and A, "
            "shared by the channels): export overview or block"
        )
    rows = tuple(str(i) for i in range(values.shape[0]))
    return DataArray(values, rows, corner=f"{name} of the {ov.kind} head: {said[which]}")


def _q_data(workspace) -> DataArray:
    return _side(workspace, 0)


def _k_data(workspace) -> DataArray:
    return _side(workspace, 1)


def overview_data(workspace, name: str) -> DataArray:
    """The overview's array ``name``: the map, the zoomed block, q, k."""
    return {"overview": _overview_data, "block": _block_data, "q": _q_data, "k": _k_data}[name](
        workspace
    )


#: Columns of the tiles panel's ``hbm`` array.
HBM_COLUMNS = ("n", "query_rows_per_tile", "tiled_bytes", "naive_bytes")


def tiles_data(workspace, name: str) -> DataArray:
    """The tiles panel's array ``hbm``: bytes moved to and from HBM, tiled against naive,
    for the demo (its n and blocks) and the long n (in a kernel's tiles of 128): rows
    ``demo`` and ``long``."""
    if name != "hbm":
        raise KeyError(name)
    rows = hbm_traffic(workspace.document.long.snapshot())
    return DataArray(np.array(rows, dtype=np.float64), ("demo", "long"), HBM_COLUMNS)
