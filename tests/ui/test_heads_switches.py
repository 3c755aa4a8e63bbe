"""The heads panel's "Through W^O" tab: a switch per head, each head's term, undo, a soak."""

from __future__ import annotations

import random

import numpy as np
import pytest
from PySide6.QtCore import Qt

from attnviz.core.head_mixing import head_contributions, switched_output
from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.heads import HeadsPanel
from attnviz.ui.text_overlap import check_texts, report
from attnviz.ui.theme import LIGHT
from attnviz.ui.undo import UndoController
from attnviz.ui.widgets.numbers import exact, fmt
from tests.ui.soak import Action, Soak, resize, switch_theme, undo_or_redo


class _Bench:
    """A heads panel on its own workspace, with undo, on its Through W^O tab."""

    def __init__(self, qtbot):
        self.workspace = Workspace()
        self.state = self.workspace.state
        self.undo = UndoController(self.workspace.document)
        self.state.update(**preset_state_values(load_preset("heads")))
        self.panel = HeadsPanel(self.workspace)
        qtbot.addWidget(self.panel)
        self.panel.apply_theme(LIGHT)
        self.panel.resize(1280, 720)
        self.panel.show()
        qtbot.waitExposed(self.panel)
        self.panel.tabs.setCurrentWidget(self.panel.through_scroll)
        self.through = self.panel.through


@pytest.fixture
def bench(qtbot):
    return _Bench(qtbot)


def _switch(through, head):
    return through.findChild(type(through._checks[0]), f"head_switch_{head}")


def _column(table, col):
    return [table.item(r, col).text() for r in range(table.rowCount())]


def test_a_switch_writes_the_field_and_the_table_follows(bench, qtbot):
    through, table = bench.through, bench.through.table
    assert len(through._checks) == 8 and all(c.isChecked() for c in through._checks)
    assert table.rowCount() == 12 and table.columnCount() == 11
    norms = panel_data(bench.workspace, "heads", "contribution_norms").values
    assert _column(table, 3) == [fmt(v, 3) for v in norms[:, 3]]
    assert exact(norms[1, 3]) in table.item(1, 3).toolTip()
    assert _column(table, 9) == _column(table, 8)  # every head on: ‖O′‖ = ‖O‖
    qtbot.mouseClick(_switch(through, 3), Qt.MouseButton.LeftButton)
    assert bench.state.heads_off == (3,)
    assert bench.undo.stack.undoText() == "Heads switched off"
    assert table.horizontalHeaderItem(3).text() == "head 3 (off)"
    assert bench.panel.grid.off == {3}  # its map veiled in the Heads tab
    res = bench.panel.resolver.results
    ref = switched_output(res.head_outputs, res.arrays["w_o"], (3,))
    np.testing.assert_array_equal(res.output_switched, ref)
    assert _column(table, 9) == [fmt(v, 3) for v in np.linalg.norm(ref, axis=1)]
    # ‖O′ − O‖ is the size of head 3's term: O′ = O − O_3·W^O_3.
    np.testing.assert_allclose(
        [float(t) for t in _column(table, 10)], [float(t) for t in _column(table, 3)], atol=2e-3
    )
    assert "Heads off: 3;" in through.summary.text()
    bench.undo.stack.undo()
    assert bench.state.heads_off == () and _switch(through, 3).isChecked()
    assert bench.panel.grid.off == frozenset()
    bench.undo.stack.redo()
    assert not _switch(through, 3).isChecked()
    through.all_on.click()
    assert bench.state.heads_off == () and all(c.isChecked() for c in through._checks)


def test_every_switch_off_leaves_zero(bench):
    for check in bench.through._checks:
        check.setChecked(False)
    assert bench.state.heads_off == tuple(range(8))
    assert set(_column(bench.through.table, 9)) == {fmt(0.0, 3)}
    res = bench.panel.resolver.results
    np.testing.assert_array_equal(res.output_switched, np.zeros((12, 64)))
    np.testing.assert_allclose(
        res.contributions, head_contributions(res.head_outputs, res.arrays["w_o"]), atol=0
    )


def test_fewer_heads_fewer_switches_and_other_sources_explain(bench):
    bench.state.update(heads_off=[1, 6])
    bench.state.update(n_heads=4)
    assert len(bench.through._checks) == 4 and bench.state.heads_off == (1,)
    assert not bench.through._checks[1].isChecked() and bench.through._checks[2].isChecked()
    bench.state.update(**preset_state_values(load_preset("banco")))
    assert not bench.through.switch_row.isEnabled() and bench.through.table.rowCount() == 0
    assert "needs learned projections" in bench.through.summary.text()


def test_the_tab_reads_at_the_projectors_size(bench, qtbot):
    bench.state.update(heads_off=[2, 5])
    qtbot.wait(10)
    findings = check_texts(bench.through)
    assert not findings, report(findings)


def test_soak_switches_edits_undo_resize_and_themes(make_window, qtbot):
    values = {"attention": preset_state_values(load_preset("heads"))}
    window = make_window(values=values, front="heads")
    panel = window.panels["heads"]
    panel.tabs.setCurrentWidget(panel.through_scroll)
    qtbot.waitUntil(lambda: panel.through.isVisible())
    rng = random.Random("heads-switches")
    s = window.state

    def toggle() -> None:
        checks = panel.through._checks
        if checks and panel.through.switch_row.isEnabled():
            checks[rng.randrange(len(checks))].click()

    def rarely(step: int) -> bool:
        return step % 8 == 0

    actions = [
        Action("toggle", toggle, weight=4),
        Action("all on", lambda: panel.through.all_on.click()),
        Action("set", lambda: s.update(heads_off=rng.sample(range(s.n_heads),
                                                            rng.randint(0, s.n_heads)))),
        Action("n_heads", lambda: s.update(n_heads=rng.choice([1, 2, 4, 8]))),
        Action("d_model", lambda: s.update(d_model=rng.choice([4, 16, 64]))),
        Action("head", lambda: s.update(head=rng.choice(["projections"] * 3 + ["content"]))),
        Action("causal", lambda: s.update(causal=rng.random() < 0.5)),
        Action("hostile", lambda: s.update(heads_off=rng.choice([[99], [-1], ["a"], [2**70]]))),
        undo_or_redo(window, rng),
        resize(window, rng, widths=(1280, 900), heights=(720,), when=rarely),
        switch_theme(window, rng, when=rarely),
    ]  # fmt: skip
    done = Soak(rng, actions, settle=lambda _step: qtbot.wait(1)).run(80)
    assert done["toggle"] > 10
    res = panel.resolver.results
    if res.contributions is not None:
        off = set(s.heads_off)
        assert [not c.isChecked() for c in panel.through._checks] == [
            i in off for i in range(s.n_heads)
        ]
        keep = [i for i in range(s.n_heads) if i not in off]
        np.testing.assert_allclose(
            res.output_switched, res.contributions[keep].sum(axis=0), rtol=0, atol=1e-12
        )
