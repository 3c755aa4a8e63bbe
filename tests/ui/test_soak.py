"""A short random-event soak of every panel: edits of every topic (shapes change), the mouse
resting on the panel's views, undo/redo, resizes and theme switches — no exception anywhere.

The seed is fixed so a failure repeats. The run counts actions, not seconds (the same run
on a fast and a busy machine): ``ATTNVIZ_SOAK_ACTIONS`` per panel lengthens it by hand.
"""

from __future__ import annotations

import contextlib
import math
import os
import random

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from attnviz.model.fields import StateError
from attnviz.ui.main_window import MainWindow
from attnviz.ui.panels import panel_ids

ACTIONS = int(os.environ.get("ATTNVIZ_SOAK_ACTIONS", "60"))
WORDS = ("o", "gato", "subiu", "no", "telhado", "banco", "praça", "the", "river", "bank", ",")


def random_value(rng: random.Random, field, current):
    """A random value for ``field``: mostly valid, small enough to stay quick."""
    kind = field.kind
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "choice":
        return rng.choice(field.choices)
    if kind == "int":
        lo = int(field.lo if field.lo is not None else 0)
        hi = int(field.hi if field.hi is not None else lo + 100)
        return rng.randint(lo, min(hi, lo + 40))
    if kind == "float":
        lo = float(field.lo if field.lo is not None else -10.0)
        hi = float(field.hi if field.hi is not None else lo + 20.0)
        if lo > 0 and hi / lo > 100:
            return math.exp(rng.uniform(math.log(lo), math.log(min(hi, lo * 1e4))))
        return rng.uniform(lo, min(hi, lo + 100.0))
    if kind == "texts" and field.name == "tokens":
        return tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    return None


def _edit(rng: random.Random, window: MainWindow) -> None:
    topic = rng.choice(list(window.document))
    field = rng.choice(topic.FIELDS)
    value = random_value(rng, field, topic.get(field.name))
    if value is None:
        return
    # Refused values are part of the soak: they must change nothing.
    with contextlib.suppress(StateError):
        topic.update(**{field.name: value})


def _rest_mouse(rng: random.Random, panel: QWidget) -> None:
    widgets = [
        w for w in panel.findChildren(QWidget) if w.isVisible() and min(w.width(), w.height()) > 4
    ]
    if not widgets:
        return
    target = rng.choice(widgets)
    pos = QPoint(rng.randrange(target.width()), rng.randrange(target.height()))
    QTest.mouseMove(target, pos)


@pytest.mark.parametrize("panel_id", panel_ids())
def test_soak(qtbot, panel_id):
    rng = random.Random(f"soak-{panel_id}")
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    window.docks[panel_id].raise_()
    panel = window.panels[panel_id]
    clock = [0.0]
    window.undo.clock = lambda: clock[0]
    for _ in range(ACTIONS):
        clock[0] += rng.choice((0.01, 1.0))
        roll = rng.random()
        if roll < 0.5:
            _edit(rng, window)
        elif roll < 0.7:
            _rest_mouse(rng, panel)
        elif roll < 0.8:
            window.undo.stack.undo()
        elif roll < 0.88:
            window.undo.stack.redo()
        elif roll < 0.95:
            window.resize(rng.randint(700, 1400), rng.randint(450, 900))
        else:
            window.themes.set_mode(rng.choice(("light", "dark")))
        QApplication.processEvents()
    # the history still walks all the way back, and the window still paints
    while window.undo.stack.canUndo():
        window.undo.stack.undo()
    QApplication.processEvents()
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


def test_soak_with_every_panel_shown_at_once(qtbot):
    """Every panel floats beside the window, so each edit reaches every resolver and view
    at once; the mouse rests on any of them; memory stays bounded."""
    rng = random.Random("soak-every-panel")
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    panels = list(panel_ids())
    for i, pid in enumerate(panels):
        dock = window.docks[pid]
        dock.setFloating(True)
        dock.resize(640, 420)
        dock.move(40 * (i % 8), 30 * (i // 8))
        dock.show()
    clock = [0.0]
    window.undo.clock = lambda: clock[0]
    QApplication.processEvents()
    start = _rss_mib()
    for _ in range(ACTIONS * 3):
        clock[0] += rng.choice((0.01, 1.0))
        roll = rng.random()
        if roll < 0.55:
            _edit(rng, window)
        elif roll < 0.75:
            _rest_mouse(rng, window.panels[rng.choice(panels)])
        elif roll < 0.85:
            window.undo.stack.undo()
        elif roll < 0.92:
            window.undo.stack.redo()
        elif roll < 0.97:
            window.docks[rng.choice(panels)].resize(rng.randint(300, 900), rng.randint(200, 700))
        else:
            window.themes.set_mode(rng.choice(("light", "dark")))
        QApplication.processEvents()
    end = _rss_mib()
    print(f"soak, every panel shown: {ACTIONS * 3} actions, RSS {start:.0f} → {end:.0f} MiB")
    assert end - start < SOAK_RSS_GROWTH_MIB
    while window.undo.stack.canUndo():
        window.undo.stack.undo()
    QApplication.processEvents()
    assert not window.grab().isNull()
    for pid in panels:
        window.docks[pid].hide()  # their background jobs stop
