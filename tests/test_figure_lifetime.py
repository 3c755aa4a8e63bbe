"""Offscreen renders free what they draw (issue 39, item 7).

Before: every picture of a panel other than the heatmap kept its panel for the life of the
process (``deleteLater`` waits for an event loop that a script never runs): 8–21 MiB a
render, 2.9 GiB after 200 ``figure("gradient")._repr_png_()``, and a 100-frame animation
peaked at 1.6 GB while its memory guard counted only the encoder's frames. A picture asked
for on a worker thread made the ``QApplication`` there, and the main thread's next figure
hung for ever.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import attnviz
from attnviz.model.panels import panel_ids

ROOT = Path(__file__).resolve().parents[1]
#: Renders of one panel in the memory test, after the warm-up (before the fix: 14 MiB each).
RENDERS = 20
#: RSS a render may leave behind, on average (the allocator's noise; the bug left 8–21 MiB).
MIB_PER_RENDER = 0.5


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _widgets() -> tuple[int, int]:
    from PySide6.QtWidgets import QApplication

    return len(QApplication.topLevelWidgets()), len(QApplication.allWidgets())


@pytest.mark.parametrize("panel", panel_ids())
def test_a_picture_leaves_no_widget_behind(qapp, tmp_path, panel):
    fig = attnviz.figure(panel, width=480, height=270)
    fig._repr_png_()  # the first builds what stays for the process (fonts, caches)
    before = _widgets()
    fig._repr_png_()
    fig.save(tmp_path / f"{panel}.svg")
    assert _widgets() == before


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm")
@pytest.mark.parametrize("panel", ["gradient", "positions"])
def test_memory_stays_flat_over_many_renders(qapp, panel):
    fig = attnviz.figure(panel, width=1280, height=720)
    for _ in range(3):
        fig._repr_png_()
    before = _rss_mib()
    for _ in range(RENDERS):
        fig._repr_png_()
    grown = _rss_mib() - before
    assert grown < RENDERS * MIB_PER_RENDER, f"{grown:.1f} MiB after {RENDERS} renders"
