"""A short random-event soak of every panel: edits of every topic (shapes change), the mouse
resting on the panel's views, undo/redo, resizes and theme switches — no exception anywhere.

The seed is fixed so a failure repeats. The run counts actions, not seconds (the same run
on a fast and a busy machine): ``ATTNVIZ_SOAK_ACTIONS`` per panel lengthens it by hand.
The driver is :mod:`tests.ui.soak`.
"""

from __future__ import annotations

import os
import random

import pytest

from attnviz.ui.panels import panel_ids
from tests.ui.soak import (
    Action,
    Soak,
    edit_any_field,
    redo,
    resize,
    rest_mouse_on_any,
    soak_actions,
    switch_theme,
    undo,
    undo_clock,
    unwind,
)

ACTIONS = soak_actions(60)


@pytest.mark.parametrize("panel_id", panel_ids())
def test_soak(make_window, panel_id):
    rng = random.Random(f"soak-{panel_id}")
    window = make_window(front=panel_id)
    panel = window.panels[panel_id]
    soak = Soak(
        rng,
        [
            Action("edit", lambda: edit_any_field(rng, window.document), 0.5),
            Action("mouse", lambda: rest_mouse_on_any(rng, panel), 0.2),
            undo(window, 0.1),
            redo(window, 0.08),
            resize(window, rng, widths=(700, 1400), heights=(450, 900), weight=0.07),
            switch_theme(window, rng, 0.05),
        ],
        before=undo_clock(window, rng),
    )
    soak.run(ACTIONS)
    # the history still walks all the way back, and the window still paints
    unwind(window)
    assert not window.grab().isNull()


def _rss_mib() -> float:
    """This process's resident memory now (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


#: Growth of the resident memory a soak with every panel shown may show (the undo history,
#: the caches and the fonts fill up; a leak grows without end).
SOAK_RSS_GROWTH_MIB = 600


def test_soak_with_every_panel_shown_at_once(make_window):
    """Every panel floats beside the window, so each edit reaches every resolver and view
    at once; the mouse rests on any of them; memory stays bounded."""
    from PySide6.QtWidgets import QApplication

    rng = random.Random("soak-every-panel")
    window = make_window()
    panels = list(panel_ids())
    for i, pid in enumerate(panels):
        dock = window.docks[pid]
        dock.setFloating(True)
        dock.resize(640, 420)
        dock.move(40 * (i % 8), 30 * (i // 8))
        dock.show()
    tick = undo_clock(window, rng)
    QApplication.processEvents()

    def resize_a_dock() -> None:
        window.docks[rng.choice(panels)].resize(rng.randint(300, 900), rng.randint(200, 700))

    soak = Soak(
        rng,
        [
            Action("edit", lambda: edit_any_field(rng, window.document), 0.55),
            Action(
                "mouse", lambda: rest_mouse_on_any(rng, window.panels[rng.choice(panels)]), 0.2
            ),  # fmt: skip
            undo(window, 0.1),
            redo(window, 0.07),
            Action("resize a dock", resize_a_dock, 0.05),
            switch_theme(window, rng, 0.03),
        ],
        before=tick,
    )
    start = _rss_mib()
    done = soak.run(ACTIONS * 3)
    end = _rss_mib()
    print(f"soak, every panel shown: {soak.steps} actions {dict(done)}, "
          f"RSS {start:.0f} → {end:.0f} MiB")  # fmt: skip
    assert end - start < SOAK_RSS_GROWTH_MIB
    unwind(window)
    assert not window.grab().isNull()
    for pid in panels:
        window.docks[pid].hide()  # their background jobs stop
