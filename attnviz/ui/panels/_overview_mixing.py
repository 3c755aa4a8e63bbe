"""What the overview panel says of a mixing head's map: caption, hover, working memory.

A hybrid's non-softmax head is mapped as its mixing matrix M (signed), so its words name
M and the head's kind, never weights (strings in the ``OverviewPanel`` context).
"""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication

from attnviz.ui.widgets.numbers import exact, fmt, grouped


def _bytes(count: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{fmt(count / size, 1)} {unit}"
    return f"{int(count)} B"


def estimate(need_bytes: int, n: int) -> str:
    """The working-memory line of a mixing head's map: M itself, its building, its capture."""
    return (
        QCoreApplication.translate(
            "OverviewPanel",
            "Working memory ≈ %1: M has %2 entries in float64 (%3), with its building "
            "and the layer's capture",
        )
        .replace("%1", _bytes(need_bytes))
        .replace("%2", grouped(n * n))
        .replace("%3", _bytes(8 * n * n))
    )


def caption(panel, v: dict, computing: bool) -> str:
    """The caption of a mixing head: its layer, head and kind, and what a cell of M is
    (``panel`` the overview panel: its source, detail layer and state)."""
    src = panel.resolver.results.source
    n, bins = v["n"], v["bins"]
    head = (
        QCoreApplication.translate("OverviewPanel", "%1 · layer %2, head %3, %4")
        .replace("%1", src.name)
        .replace("%2", str(src.layer))
        .replace("%3", str(src.head))
        .replace("%4", src.kind)
    )
    detail = panel.view.detail
    mean = v["reduce"] == "mean"
    if computing or detail.values is None:
        size = grouped(math.ceil(n / bins))
        rows = cols = size
        where = ""
    else:
        re, ce = detail.row_edges, detail.col_edges
        where = (
            QCoreApplication.translate("OverviewPanel", "queries %1–%2 × keys %3–%4")
            .replace("%1", grouped(re[0]))
            .replace("%2", grouped(re[-1] - 1))
            .replace("%3", grouped(ce[0]))
            .replace("%4", grouped(ce[-1] - 1))
        )
        rows = grouped(math.ceil((re[-1] - re[0]) / (len(re) - 1)))
        cols = grouped(math.ceil((ce[-1] - ce[0]) / (len(ce) - 1)))
    if where and detail.exact:
        text = QCoreApplication.translate(
            "OverviewPanel", "%1 tokens, %2; %3: M itself, exact"
        ).replace("%3", where)
    elif not where and rows == "1":  # as many cells as tokens: each one entry of M
        text = QCoreApplication.translate(
            "OverviewPanel", "%1 tokens, %2: each cell one entry of M"
        )
    else:
        if mean:
            text = QCoreApplication.translate(
                "OverviewPanel", "%1 tokens, %2: each cell the mean of a %3 × %4 block of M"
            )
        else:
            text = QCoreApplication.translate(
                "OverviewPanel",
                "%1 tokens, %2: each cell the entry of largest |M| in a %3 × %4 block, signed",
            )
        text = text.replace("%3", rows).replace("%4", cols)
        if where:
            text = text.replace("%2", "%2; " + where)
    text = text.replace("%1", grouped(n)).replace("%2", head)
    return text + (
        " " + QCoreApplication.translate("OverviewPanel", "(computing…)") if computing else ""
    )


def hover(panel, value: float, rows, cols, is_exact: bool) -> str:
    """The hover of a mixing head's cell: M there, or its block's mean or extreme."""
    (r0, r1), (c0, c1) = rows, cols
    if is_exact:
        return (
            QCoreApplication.translate("OverviewPanel", "query %1, key %2: M = %3")
            .replace("%1", grouped(r0))
            .replace("%2", grouped(c0))
            .replace("%3", exact(value))
        )
    if panel.state.reduce == "mean":
        text = QCoreApplication.translate("OverviewPanel", "queries %1–%2, keys %3–%4: mean M = %5")
    else:
        text = QCoreApplication.translate(
            "OverviewPanel", "queries %1–%2, keys %3–%4: entry of largest |M| = %5"
        )
    return (
        text.replace("%1", grouped(r0))
        .replace("%2", grouped(r1 - 1))
        .replace("%3", grouped(c0))
        .replace("%4", grouped(c1 - 1))
        .replace("%5", f"{value:.4g}")
    )
