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


def test_hbm_bytes_naive_against_tiled(panel):
    panel.state.update(n=4096, d_k=64, causal=False)
    small, big = panel.hbm.rows
    # n = 12, d = 3, float32: naive reads Q, K, V (3·36) and S, P (2·144), writes S, P, O.
    assert small[2] == (108 + 288 + 288 + 36) * 4 == 2880
    # Tiled: Q once (36), three query blocks each reading 12 keys and values, O once.
    assert small[1] == (36 + 3 * 12 * 6 + 36) * 4 == 1152
    assert small[3] == ("", "2.50 × tiled")
    # n = 4096, d = 64 in a kernel's blocks of 128: K and V read 32 times, far less than
    # the square the naive kernel writes and reads back.
    assert big[2] == (4 * 4096 * 64 + 4 * 4096**2) * 4
    assert big[1] == (2 * 4096 * 64 + 32 * 4096 * 128) * 4
    assert big[3] == ("tiles of 128", "3.94 × tiled")
    # The export is the drawing: rows demo and long, n, rows a tile, tiled, naive.
    from attnviz.model.panel_data import panel_data

    data = panel_data(panel.workspace, "tiles", "hbm")
    assert data.rows == ("demo", "long")
    assert data.values.tolist() == [[12, 4, 1152, 2880], [4096, 128, big[1], big[2]]]
    panel.state.update(dtype="float64")
    assert panel.hbm.rows[0][1:3] == (2 * 1152, 2 * 2880)
    panel.state.update(causal=True)  # key blocks after a query block are never read
    assert panel.hbm.rows[0][1] == (36 + (6 + 12 + 12) * 6 + 36) * 8


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


def test_soak_of_the_hbm_bytes(qtbot, make_window):
    """Random edits of what the byte counts read (sizes, blocks, precision, causal), undo,
    resizes and fonts: the bars always hold the core's counts for the panel's values."""
    import contextlib
    import random

    from attnviz.core.tile_io import naive_traffic, tiled_traffic
    from tests.ui.soak import Action, Soak, resize, switch_large_fonts, undo_or_redo, unwind

    rng = random.Random(413)
    window = make_window(front="tiles")
    doc = window.workspace.document
    panel = window.panels["tiles"]
    edits = (
        ("long.tiles_n", (1, 5, 64)), ("long.tiles_d", (1, 16)), ("long.block_q", (4, 9, 16)),
        ("long.block_k", (4, 16)), ("long.causal", (True, False)), ("long.n", (64, 100_000)),
        ("long.dtype", ("float32", "float64", "int8")), ("long.d_k", (1, 128)),
    )  # fmt: skip

    def edit():
        path, values = rng.choice(edits)
        with contextlib.suppress(ValueError):
            doc.set_field(path, rng.choice(values))

    actions = [
        Action("edit", edit, 0.7),
        undo_or_redo(window, rng, 0.15),
        resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.1),
        switch_large_fonts(window, rng, 0.05),
    ]

    checked = []

    def check(_step):
        qtbot.wait(2)
        if panel.demo is None or not panel.hbm.rows:
            return
        checked.append(_step)
        v, demo = doc.long.snapshot(), panel.demo
        size = {"float64": 8, "float32": 4}.get(v["dtype"], 2)
        n, d = demo.n, demo.q.shape[1]
        tiled = tiled_traffic(n, d, d, v["block_q"], v["block_k"], size, v["causal"]).total
        assert panel.hbm.rows[0][1:3] == (tiled, naive_traffic(n, d, d, size).total)
        big, b = v["n"], min(128, v["n"])  # the long n in a kernel's tiles of 128
        tiled = tiled_traffic(big, v["d_k"], v["d_k"], b, b, size, v["causal"]).total
        assert panel.hbm.rows[1][1:3] == (tiled, naive_traffic(big, v["d_k"], v["d_k"], size).total)

    Soak(rng, actions, after=check).run(30)
    unwind(window)
    assert len(checked) > 20
