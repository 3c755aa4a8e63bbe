"""The tiles panel: FlashAttention's online softmax on a small sequence, one tile at a time.

The score matrix of ``tiles_n`` tokens (up to 64) fills in tile by tile: the current Q tile
(its rows) and K/V tile (its keys) are outlined, cells not computed yet stay empty, tiles a
causal mask hides entirely are skipped. Beside it, for the rows of the current Q tile:
the running maximum m, the running sum ℓ (rescaled by e^(m_old − m) whenever m grows) and
the partial output O — what the output would be if the keys seen so far were all the keys.
Below, the rows whose output is final, the largest difference from the dense
``attention()`` output, the numbers held at once against the n×n matrix, and the bytes
moved between HBM and the chip, naive attention (the n×n scores and weights written and
read back) against the tiles (Q, K and V blocks read, O written; :mod:`attnviz.core.tile_io`).
Left/Right, Home/End and Space (play) step through.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.model.resolve._long_tiles import ITEMSIZE, KERNEL_BLOCK, hbm_traffic, tile_memory
from attnviz.model.topics.long import MAX_BLOCK, MAX_TILES_D, MAX_TILES_N, MIN_BLOCK
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.widgets.binding import blocked
from attnviz.ui.widgets.long_controls import spin_box, theme_figure
from attnviz.ui.widgets.numbers import fmt, grouped
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.tile_grid import AlignedMatrices, Matrix, MemoryBars, Outline
from attnviz.ui.widgets.units import decimal_bytes

#: Milliseconds between tiles while playing.
PLAY_MS = 700
#: The keys that step and play the tiles while the panel has the focus.
_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_Space)
#: Colours of the Q tile (rows) and the K/V tile (keys), Okabe–Ito.
Q_COLOR, K_COLOR, TILE_COLOR = "#D55E00", "#0072B2", "#CC79A7"


class TilesPanel(FigurePanel):
    """FlashAttention step by step on a small head of the long topic."""

    PANEL_ID = "tiles"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.demo = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        layout = QVBoxLayout()
        layout.setContentsMargins(4, 4, 4, 4)
        self.note = QLabel(
            self.tr(
                "Chapter 003, FlashAttention: the scores are computed one tile at a time; each "
                "query row keeps only a running max m, a running sum ℓ and its output so far, "
                "rescaled whenever m grows. ←/→ step, Home/End, Space plays."
            )
        )
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        layout.addLayout(self._build_controls())
        self.figure = QWidget()
        self.figure.setObjectName("tiles_figure")
        self.step_text = QLabel()
        self.step_text.setObjectName("tiles_step_text")
        self.step_text.setWordWrap(True)
        self.scale_font(self.step_text, 1.1, bold=True)
        self.matrices = AlignedMatrices()
        self.matrices.setObjectName("tiles_matrices")
        self.result = QLabel()
        self.result.setObjectName("tiles_result")
        self.result.setWordWrap(True)
        # Explicitly: under the panel's style sheet a QLabel misses the export's font.
        self.scale_font(self.result, 1.0)
        self.memory = MemoryBars()
        self.memory.setObjectName("tiles_memory")
        # The painted figures too: on a slide they kept the application's 9 points.
        self.scale_font(self.matrices, 1.0)
        self.scale_font(self.memory, 1.0)
        self.memory_title = QLabel(self.tr("Numbers held at once"))
        self.scale_font(self.memory_title, 1.0, bold=True)
        self.hbm_title = QLabel()
        self.scale_font(self.hbm_title, 1.0, bold=True)
        self.hbm = MemoryBars()
        self.hbm.setObjectName("tiles_hbm")
        self.scale_font(self.hbm, 1.0)
        box = QVBoxLayout(self.figure)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.step_text)
        # Beside the matrices on a wide figure, under them on a tall one (a slide).
        self.row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        box.addLayout(self.row, 1)
        self.row.addWidget(self.matrices, 3)
        self.side = QWidget()
        side = QVBoxLayout(self.side)
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.result)
        side.addSpacing(8)
        # The numbers held and the bytes moved: side by side under the matrices, one over
        # the other in the column beside them.
        self.bars = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.bars.setSpacing(12)
        for widgets in (
            (self.memory_title, self.memory),
            (self.hbm_title, self.hbm),
        ):
            widgets[0].setWordWrap(True)  # the titles must not set the columns' widths
            column = QVBoxLayout()
            column.setSpacing(2)
            for widget in widgets:
                column.addWidget(widget)
            column.addStretch(1)
            self.bars.addLayout(column, 1)
        side.addLayout(self.bars)
        side.addStretch(1)
        self.row.addWidget(self.side, 2)
        layout.addWidget(self.figure, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._on_q_tick)
        self.matrices.setMinimumHeight(110)
        self.mirror("causal", self.causal)
        # Scrolls only in a window smaller than 1280×720: its controls must not set the
        # window's minimum size.
        self._finish(layout, scroll=True)

    def _build_controls(self) -> QVBoxLayout:
        rows = QVBoxLayout()
        sizes, steps = QHBoxLayout(), QHBoxLayout()
        rows.addLayout(sizes)
        rows.addLayout(steps)
        w = self._write
        self.tiles_n = spin_box(MIN_BLOCK, MAX_TILES_N, self.tr("Tokens of the small sequence"))
        self.tiles_n.valueChanged.connect(lambda v: w(self.tiles_n, tiles_n=int(v)))
        self.tiles_d = spin_box(2, MAX_TILES_D, self.tr("Width of q, k and v"))
        self.tiles_d.valueChanged.connect(lambda v: w(self.tiles_d, tiles_d=int(v)))
        self.block_q = spin_box(MIN_BLOCK, MAX_BLOCK, self.tr("Query rows per tile"))
        self.block_q.valueChanged.connect(lambda v: w(self.block_q, block_q=int(v)))
        self.block_k = spin_box(MIN_BLOCK, MAX_BLOCK, self.tr("Keys (and values) per tile"))
        self.block_k.valueChanged.connect(lambda v: w(self.block_k, block_k=int(v)))
        self.causal = QCheckBox(self.tr("Causal"))
        self.causal.setToolTip(self.tr("Tiles above the diagonal are skipped"))
        self.causal.toggled.connect(lambda on: w(self.causal, causal=bool(on)))
        for text, box in (
            (self.tr("n"), self.tiles_n),
            (self.tr("d"), self.tiles_d),
            (self.tr("Q tile"), self.block_q),
            (self.tr("K/V tile"), self.block_k),
        ):
            label = QLabel(text)
            label.setBuddy(box)
            sizes.addWidget(label)
            sizes.addWidget(box, 1)
        sizes.addWidget(self.causal)
        sizes.addStretch(1)
        icon = QStyle.StandardPixmap
        self.first = self._button(
            icon.SP_MediaSkipBackward, self.tr("First tile (Home)"), lambda: self._go(0)
        )
        self.back = self._button(
            icon.SP_MediaSeekBackward, self.tr("Previous tile (←)"), lambda: self._go_by(-1)
        )
        self.play = self._button(icon.SP_MediaPlay, self.tr("Play (Space)"), None)
        self.play.setCheckable(True)
        self.play.toggled.connect(self._on_q_play)
        self.next = self._button(
            icon.SP_MediaSeekForward, self.tr("Next tile (→)"), lambda: self._go_by(1)
        )
        self.last = self._button(
            icon.SP_MediaSkipForward, self.tr("Last tile (End)"), lambda: self._go(10**6)
        )
        self.step = QSlider(Qt.Orientation.Horizontal)
        self.step.setObjectName("tile_step")
        self.step.setToolTip(self.tr("The tile shown"))
        self.step.valueChanged.connect(lambda v: w(self.step, tile_step=int(v)))
        for b in (self.first, self.back, self.play, self.next, self.last):
            steps.addWidget(b)
        steps.addWidget(self.step, 1)
        return rows

    def _button(self, icon, tip: str, slot) -> QToolButton:
        b = QToolButton()
        b.setIcon(self.style().standardIcon(icon))
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        if slot is not None:
            b.clicked.connect(slot)
        return b

    # --- model → view ------------------------------------------------------------------
    def _on_tiles_n_changed(self) -> None:
        for name in ("tiles_n", "tiles_d", "block_q", "block_k"):
            box = getattr(self, name)
            with blocked(box):
                box.setValue(self.state.get(name))

    _on_tiles_d_changed = _on_block_q_changed = _on_block_k_changed = _on_tiles_n_changed

    def _on_results(self, res, _names: frozenset) -> None:
        demo = res.tiles
        self.demo = demo
        last = len(demo.steps) - 1
        step = min(res.values["tile_step"], last)
        with blocked(self.step):
            self.step.setRange(0, last)
            self.step.setValue(step)
        self._draw(demo, step, res.values)

    def _draw(self, demo, index: int, values: dict) -> None:
        s = demo.steps[index]
        n, d = demo.n, demo.q.shape[1]
        rows, cols = s.rows, s.cols
        finite = demo.scores[np.isfinite(demo.scores)]
        scores = Matrix(
            self.tr("S = QKᵀ/√d"),
            np.where(demo.visited(index), demo.scores, np.nan),
            hidden=~np.isfinite(demo.scores),
            levels=(float(finite.min()), float(finite.max())),
            outlines=[
                Outline(rows.start, rows.stop, 0, n, Q_COLOR, 2.0, fill=True),
                Outline(0, n, cols.start, cols.stop, K_COLOR, 2.0, fill=True),
                Outline(rows.start, rows.stop, cols.start, cols.stop, TILE_COLOR, 4.0),
            ],
        )
        done = demo.finished_rows(index)
        out = np.full(demo.output.shape, np.nan)
        out[:done] = demo.output[:done]
        o_levels = (float(demo.output.min()), float(demo.output.max()))
        self.matrices.set_matrices(
            [
                scores,
                Matrix(self.tr("m"), s.running_max[:, None], rows.start),
                Matrix(self.tr("ℓ"), s.running_sum[:, None], rows.start),
                Matrix(self.tr("O so far"), s.partial_output, rows.start, levels=o_levels),
                Matrix(
                    self.tr("O final"),
                    out,
                    levels=o_levels,
                    outlines=[Outline(rows.start, rows.stop, 0, d, Q_COLOR, 2.0)],
                ),
            ],
            n,
        )
        self._write_texts(demo, index, values, done)

    def _write_texts(self, demo, index: int, values: dict, done: int) -> None:
        s = demo.steps[index]
        total = len(demo.steps)
        where = (
            self.tr("Tile %1 of %2: query rows %3–%4 × keys %5–%6")
            .replace("%1", str(index + 1))
            .replace("%2", str(total))
            .replace("%3", str(s.rows.start))
            .replace("%4", str(s.rows.stop - 1))
            .replace("%5", str(s.cols.start))
            .replace("%6", str(s.cols.stop - 1))
        )
        if s.skipped:
            what = self.tr("skipped: the causal mask hides every cell of it")
        else:
            what = self.tr("m ← max(m, row max of the tile); ℓ and O rescaled by e^(m_old − m)")
        self.step_text.setText(f"{where} — {what}")
        if done == demo.n:
            result = (
                self.tr(
                    "All %1 rows final: the tiled output equals the dense attention() "
                    "output (largest difference %2)."
                )
                .replace("%1", str(demo.n))
                .replace("%2", f"{demo.max_error():.1e}")
            )
        else:
            result = (
                self.tr("%1 of %2 rows final.").replace("%1", str(done)).replace("%2", str(demo.n))
            )
        self.result.setText(result)
        held, dense = demo.memory()
        big_n = values["n"]
        big = tile_memory(big_n, values["d_k"], values["d_k"], demo.block_q, demo.block_k)
        self.memory.set_rows(
            [
                (self.tr("n = %1").replace("%1", str(demo.n)), held, dense),
                (self.tr("n = %1").replace("%1", grouped(big_n)), *big),
            ],
            (self.tr("held by the tiles"), self.tr("n×n matrix")),
        )
        self._write_traffic(demo, values)

    def _write_traffic(self, demo, values: dict) -> None:
        """The HBM bytes of both sizes, naive against tiled, and their ratios."""
        rows = []
        traffic = hbm_traffic(values)
        for i, (n, block, tiled, naive) in enumerate(traffic):
            ratio = fill(self.tr("%1 × tiled"), fmt(naive / tiled, 2))
            # The long n's tiles are a kernel's, not the demo's: said beside its short bar
            # (in the row's name or the title they took the bars' or the matrices' room).
            tiles = fill(self.tr("tiles of %1"), block) if i else ""
            rows.append((self.tr("n = %1").replace("%1", grouped(n)), tiled, naive, (tiles, ratio)))
        self.hbm.set_rows(rows, (self.tr("tiled"), self.tr("naive")), decimal_bytes)
        self.hbm_title.setText(self.tr("Bytes moved to and from HBM"))
        tip = fill(
            self.tr(
                "Naive attention writes the n×n scores and weights to HBM and reads them "
                "back; the tiles read Q once, K and V once per block of query rows (%1 in the "
                "demo, %2 at the long n, as a kernel's on-chip memory holds), and write O. "
                "Small blocks read K and V many times. %3 bytes a number."
            ),
            demo.block_q,
            KERNEL_BLOCK,
            ITEMSIZE[values["dtype"]],
        )
        for widget in (self.hbm_title, self.hbm):
            widget.setToolTip(tip)

    # --- stepping ----------------------------------------------------------------------
    def _go(self, index: int) -> None:
        if self.demo is None:
            return
        last = len(self.demo.steps) - 1
        self._write(self.step, tile_step=max(0, min(index, last)))

    def _go_by(self, delta: int) -> None:
        self._go(self.state.tile_step + delta)

    def _on_q_play(self, on: bool) -> None:
        icon = QStyle.StandardPixmap.SP_MediaPause if on else QStyle.StandardPixmap.SP_MediaPlay
        self.play.setIcon(self.style().standardIcon(icon))
        if on:
            if self.demo is not None and self.state.tile_step >= len(self.demo.steps) - 1:
                self._go(0)
            self.timer.start()
        else:
            self.timer.stop()

    def _on_q_tick(self) -> None:
        if not self.isVisible() or self.demo is None:
            self.play.setChecked(False)
            return
        if self.state.tile_step >= len(self.demo.steps) - 1:
            self.play.setChecked(False)
            return
        self._go_by(1)

    def event(self, event) -> bool:
        # Its keys are its own while it has the focus (after a click on it): on the
        # presentation stage too, where → and Space would otherwise step the slides.
        if event.type() == QEvent.Type.ShortcutOverride and event.key() in _KEYS:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        moves = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1}
        if key in moves:
            self._go_by(moves[key])
        elif key == Qt.Key.Key_Home:
            self._go(0)
        elif key == Qt.Key.Key_End:
            self._go(10**6)
        elif key == Qt.Key.Key_Space:
            self.play.toggle()
        else:
            super().keyPressEvent(event)

    # --- style -------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        """Restyle the matrices and bars for ``theme``."""
        self.matrices.set_theme(theme)
        for bars in (self.memory, self.hbm):  # the HBM bars too: dark ink on dark, else
            bars.set_theme(theme)
        theme_figure(self.figure, theme)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        wide = self.figure.width() > 2.0 * self.figure.height()
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.row.direction() != direction:
            self.row.setDirection(direction)
            self.row.setStretch(1, 2 if wide else 0)
            vertical = QSizePolicy.Policy.Preferred if wide else QSizePolicy.Policy.Maximum
            self.side.setSizePolicy(QSizePolicy.Policy.Preferred, vertical)
            self.bars.setDirection(
                QBoxLayout.Direction.TopToBottom if wide else QBoxLayout.Direction.LeftToRight
            )

    def hideEvent(self, event) -> None:
        self.play.setChecked(False)
        super().hideEvent(event)
