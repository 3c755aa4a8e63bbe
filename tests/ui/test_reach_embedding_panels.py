"""The reach and embedding panels (results off the GUI thread) and a soak of all three panels."""

from __future__ import annotations

import contextlib
import itertools
import random

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from attnviz.model.resolve.embedding import compute_embedding
from attnviz.model.resolve.reach import compute_reach
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.embedding import EmbeddingPanel, rank_bins
from attnviz.ui.panels.reach import ReachPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import (
    Action,
    Soak,
    resize,
    send_mouse_move,
    switch_large_fonts,
    switch_theme,
    undo_or_redo,
    unwind,
)

MINE = ("memory", "reach", "embedding")


def _alone(qtbot, cls):
    panel = cls(Workspace())
    qtbot.addWidget(panel)
    panel.apply_theme(theme_named("light"))
    panel.resize(1000, 700)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


# --- reach ------------------------------------------------------------------------------------


def test_reach_panel_draws_the_three_curves_and_the_chapters_points(qtbot):
    panel = _alone(qtbot, ReachPanel)
    assert panel.current  # a panel on its own computes at once
    res = compute_reach(256, 0, 1.0, 0.0)
    for kind in ("rnn", "lstm", "attention"):
        x, y = panel.curves[kind].getOriginalDataset()
        np.testing.assert_array_equal(x, np.arange(256))
        np.testing.assert_array_equal(y, res.curves[kind])
    assert len(panel.references.data) == 4
    texts = [item.textItem.toPlainText() for item in panel.reference_labels]
    assert texts[0] == "chapter: 5 × 10⁻⁴ at 64 tokens" and "10⁻¹⁴ at 256" in texts[2]
    legend = [label.text for _sample, label in panel.plot.legend.items]
    assert legend[0] == "RNN (tanh): × 0.882 per step"
    assert legend[2] == "attention: × 1.000 per step"
    assert "1.4 × 10⁻¹⁴" in panel.summary.text()
    panel.length.setValue(32)
    panel.length.valueChanged.emit(32.0)
    assert panel.state.length == 32 and len(panel.references.data) == 0
    assert not any(item.isVisible() for item in panel.reference_labels)


def test_reach_labels_without_room_are_written_beneath_the_plot(qtbot):
    """In a short plot at a large type two chapter labels lay over each other: a label
    that finds no free place is written beneath the plot instead, and comes back when
    there is room."""
    from PySide6.QtWidgets import QApplication

    panel = _alone(qtbot, ReachPanel)
    assert panel.marks_note.isHidden()
    panel.scale_font(panel.plot, 1.0)
    font = panel.plot.plot_font
    font.setPixelSize(30)
    panel.plot.set_style(theme_named("light"), font)
    panel._on_results(panel.results, frozenset())
    panel.resize(620, 480)
    for _ in range(3):
        panel.grab()
        QApplication.processEvents()
    shown = [i for i in panel.reference_labels if i.isVisible()]
    hidden = [i for i in panel.reference_labels if not i.isVisible()]
    assert hidden and panel.marks_note.isVisibleTo(panel)
    boxes = [i.sceneBoundingRect() for i in shown]
    assert not [(a, b) for a, b in itertools.combinations(boxes, 2) if a.intersects(b)]
    note = panel.marks_note.text().replace("&nbsp;", " ")
    assert all(i.toPlainText() in note for i in hidden)
    assert not any(i.toPlainText() in note for i in shown)
    panel.resize(1600, 1000)
    for _ in range(3):
        panel.grab()
        QApplication.processEvents()
    assert all(i.isVisible() for i in panel.reference_labels) and panel.marks_note.isHidden()


def test_reach_hover_reads_the_values_under_the_mouse(qtbot):
    panel = _alone(qtbot, ReachPanel)
    vb = panel.plot.getPlotItem().vb
    scene_pos = vb.mapViewToScene(QPointF(63, -3))
    panel._on_q_mouse(scene_pos)
    res = panel.results
    assert panel.hover.text().startswith("t = 63:")
    assert "RNN (tanh) 4.24 × 10⁻⁴" in panel.hover.text()
    assert res.curves["rnn"][63] == pytest.approx(4.24e-4, rel=1e-2)


def test_reach_in_the_window_computes_on_a_worker(qtbot, make_window):
    window = make_window(size=None, front="reach")
    panel = window.panels["reach"]
    qtbot.waitUntil(lambda: panel.current, timeout=20_000)
    window.workspace.document.set_field("reach.length", 1000)
    assert not panel.current  # the GUI thread did not compute it
    qtbot.waitUntil(lambda: panel.current, timeout=30_000)
    assert panel.results.length == 1000 and not panel.busy.isVisible()
    window.undo.stack.undo()
    qtbot.waitUntil(lambda: panel.current and panel.results.length == 256, timeout=20_000)


# --- embedding --------------------------------------------------------------------------------


def test_embedding_panel_strip_summary_and_colouring(qtbot):
    panel = _alone(qtbot, EmbeddingPanel)
    res = compute_embedding(128_000, 8192, 1.0, 0, 4096)
    np.testing.assert_array_equal(panel.strip.values, res.counts)
    text = panel.summary.text()
    assert f"touch {res.touched:,} of 128,000 rows" in text
    assert "524,288,000 parameters" in text and "tying would save 524,288,000" in text
    panel.color_by.setCurrentIndex(panel.color_by.findData("norm"))
    panel.color_by.activated.emit(panel.color_by.currentIndex())
    np.testing.assert_array_equal(panel.strip.values, res.row_norms)
    assert panel.strip.title == "gradient row norm"
    panel.tied.setChecked(True)
    assert "saving 524,288,000 (half)" in panel.summary.text()
    assert panel.results is res or panel.results.counts.sum() == 8192


def test_embedding_strip_hover_names_the_rows(qtbot):
    panel = _alone(qtbot, EmbeddingPanel)
    panel.state.update(vocab_size=100, batch_tokens=1000)
    strip = panel.strip
    rect = strip.geometry_of_cells()[0]
    send_mouse_move(strip, rect.left() + 1, rect.top() + 1)
    assert panel.hover.text().startswith("row 0 (rank 1): ")
    count = int(panel.results.counts[0])
    assert f": {count:,} in the batch" in panel.hover.text()
    send_mouse_move(strip, strip.width() - 1, 1)
    assert panel.hover.text() == ""


def test_rank_bins_average_every_row_once():
    counts = np.arange(1000)
    centre, mean = rank_bins(counts)
    assert np.all(np.diff(centre) > 0) and mean[0] == 0.0
    assert centre[0] == pytest.approx(1.0)


# --- soak: random edits, hovering, undo, resizing and themes, no exception -----------------


def _random_edit(rng: random.Random, doc) -> None:
    edits = [
        ("reach.length", rng.choice([2, 3, 17, 64, 300])),
        ("reach.seed", rng.randrange(5)),
        ("reach.score_std", rng.choice([0.0, 1.5])),
        ("reach.weight_scale", rng.choice([0.5, 1.0, 1.8])),
        ("embedding.vocab_size", rng.choice([2, 50, 1000, 131_072])),
        ("embedding.batch_tokens", rng.choice([1, 64, 5000])),
        ("embedding.color_by", rng.choice(["count", "norm"])),
        ("embedding.exponent", rng.choice([0.0, 1.0, 2.5])),
        ("memory.model", rng.choice(["llama-3-8b", "qwen3.8-27b", "deepseek-v3", "mistral-7b"])),
        ("memory.context", rng.choice([1, 4096, 131_072, 2**30])),
        ("memory.kv_heads", rng.choice([1, 2, 3, 8])),
        ("memory.gpu_gb", rng.choice([0.5, 24.0, 192.0])),
        ("memory.sliding_window", rng.choice([0, 4096])),
        ("reach.length", "many"),
    ]
    path, value = rng.choice(edits)
    with contextlib.suppress(ValueError):  # refused values are part of the soak
        doc.set_field(path, value)


def _hover_everything(rng: random.Random, window) -> None:
    mem, reach, emb = (window.panels[p] for p in MINE)
    for view in (reach.plot.viewport(), emb.strip, emb.plot.viewport(), mem.figure.bars,
                 mem.figure.plot.viewport(), mem.figure.gauge):  # fmt: skip
        send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))


def test_soak_of_the_three_panels(qtbot, make_window):
    rng = random.Random(11)
    window = make_window()
    doc = window.workspace.document
    actions = [
        Action("edit", lambda: _random_edit(rng, doc), 0.55),
        undo_or_redo(window, rng, 0.15),
        resize(window, rng, widths=(900, 1280, 1600), heights=(600, 720, 1000), weight=0.1),
        switch_theme(window, rng, 0.05),
        switch_large_fonts(window, rng, 0.03),
        Action("rest", lambda: None, 0.12),  # only the mouse moves
    ]
    Soak(
        rng,
        actions,
        before=lambda step: window.docks[MINE[step % 3]].raise_(),
        after=lambda _step: _hover_everything(rng, window),
        settle=lambda _step: qtbot.wait(5),
    ).run(36)
    unwind(window)  # the history walks all the way back
    for pid in ("reach", "embedding"):
        window.docks[pid].raise_()
        panel = window.panels[pid]
        qtbot.waitUntil(lambda p=panel: p.current, timeout=30_000)
    assert window.panels["reach"].results.length == 256
    assert window.panels["embedding"].results.counts.sum() == 8192
    window.docks["memory"].raise_()
    qtbot.wait(10)
    assert window.panels["memory"].figure.gauge.state.kv_bytes == 16 * 2**30
