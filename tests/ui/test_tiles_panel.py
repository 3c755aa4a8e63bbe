"""The tiles panel: stepping by keyboard and play, what each step shows, the final output
equal to attention(), the memory held against the n×n matrix, and the export."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from attnviz.core.attention import attention
from attnviz.core.masks import causal_mask
from attnviz.model.resolve._long_tiles import tile_memory
from attnviz.model.workspace import Workspace
from attnviz.ui.export import ExportSpec
from attnviz.ui.panel_export import render_panel_image
from attnviz.ui.panels.tiles import TilesPanel
from attnviz.ui.widgets.numbers import fmt


@pytest.fixture
def panel(qtbot):
    ws = Workspace()
    ws.document.long.update(tiles_n=12, tiles_d=3, block_q=4, block_k=6, head="decay")
    p = TilesPanel(ws)
    qtbot.addWidget(p)
    p.resize(1600, 900)
    p.show()
    qtbot.waitExposed(p)
    return p


def _dense(panel):
    demo = panel.demo
    mask = causal_mask(demo.n) if demo.causal else None
    return attention(demo.q, demo.k, demo.v, mask=mask)


def test_keyboard_steps_through_the_tiles(panel):
    state = panel.state
    assert len(panel.demo.steps) == 3 * 2 and state.tile_step == 0
    QTest.keyClick(panel, Qt.Key.Key_Right)
    assert state.tile_step == 1 and panel.step.value() == 1
    QTest.keyClick(panel, Qt.Key.Key_End)
    assert state.tile_step == 5
    QTest.keyClick(panel, Qt.Key.Key_Right)  # past the end stays at the end
    assert state.tile_step == 5
    QTest.keyClick(panel, Qt.Key.Key_Home)
    assert state.tile_step == 0
    QTest.keyClick(panel, Qt.Key.Key_Left)
    assert state.tile_step == 0


def test_each_step_shows_its_tile_running_max_sum_and_output(panel):
    for index in range(6):
        panel.state.update(tile_step=index)
        s = panel.demo.steps[index]
        scores, m, total, partial, final = panel.matrices.matrices
        assert np.array_equal(m.values[:, 0], s.running_max) and m.row0 == s.rows.start
        assert np.array_equal(total.values[:, 0], s.running_sum)
        assert np.array_equal(partial.values, s.partial_output)
        tile = scores.outlines[-1]
        assert (tile.r0, tile.r1, tile.c0, tile.c1) == (
            s.rows.start,
            s.rows.stop,
            s.cols.start,
            s.cols.stop,
        )
        # computed so far: every tile up to this one, and nothing after it
        shown = np.isfinite(scores.values)
        assert shown[s.rows, s.cols].all()
        if index < 5:
            nxt = panel.demo.steps[index + 1]
            assert not shown[nxt.rows, nxt.cols].any()
        done = panel.demo.finished_rows(index)
        assert np.isfinite(final.values[:done]).all() and np.isnan(final.values[done:]).all()
        assert f"Tile {index + 1} of 6" in panel.step_text.text()


def test_final_output_equals_attention(panel):
    panel.state.update(tile_step=5)
    dense = _dense(panel)
    final = panel.matrices.matrices[-1]
    np.testing.assert_allclose(final.values, dense.output, rtol=1e-12, atol=1e-12)
    want = [[fmt(v, 2) for v in row] for row in dense.output]
    assert panel.matrices.texts(4) == want
    assert "equals the dense attention()" in panel.result.text()


def test_causal_tiles_are_skipped_and_still_exact(panel):
    panel.state.update(causal=True, tiles_n=16, block_q=4, block_k=4)
    assert len(panel.demo.steps) == 16
    panel.state.update(tile_step=1)  # rows 0–3, keys 4–7: all hidden
    assert panel.demo.steps[1].skipped and "skipped" in panel.step_text.text()
    scores = panel.matrices.matrices[0]
    assert scores.hidden[0, 5] and not scores.hidden[5, 0]
    panel.state.update(tile_step=15)
    np.testing.assert_allclose(panel.matrices.matrices[-1].values, _dense(panel).output, atol=1e-12)


def test_memory_held_against_the_square(panel):
    panel.state.update(n=32768, d_k=64)
    rows = panel.memory.rows
    assert rows[0][1:] == tile_memory(12, 3, 3, 4, 6) == (12 + 18 + 18 + 24 + 8 + 12, 144)
    assert rows[1][1:] == tile_memory(32768, 64, 64, 4, 6)
    assert rows[1][2] == 32768**2 and "32,768" in rows[1][0]


def test_play_walks_to_the_last_tile_and_stops(panel, qtbot):
    panel.timer.setInterval(5)
    QTest.keyClick(panel, Qt.Key.Key_Space)
    assert panel.play.isChecked()
    qtbot.waitUntil(lambda: not panel.play.isChecked(), timeout=5000)
    assert panel.state.tile_step == 5


def test_tile_sizes_follow_and_steps_clamp(panel):
    panel.state.update(tile_step=5)
    panel.block_q.setValue(12)  # one row block: two tiles
    assert panel.state.block_q == 12 and panel.state.tile_step == 1
    assert panel.step.maximum() == 1


def test_png_export_of_the_tiles(qtbot):
    ws = Workspace()
    ws.document.long.update(tiles_n=16, tile_step=9)
    image = render_panel_image(ws, "tiles", ExportSpec(width=1920, height=1080, theme="dark"))
    assert (image.width(), image.height()) == (1920, 1080)
    colors = {image.pixel(x, y) for x in range(0, 1920, 23) for y in range(0, 1080, 19)}
    assert len(colors) > 20
