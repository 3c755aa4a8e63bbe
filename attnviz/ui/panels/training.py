"""The training panel: how the open model learned, from its folder's ``training.csv``.

A model attnviz trained (``attnviz train induction``, the Train window, the shipped
``builtin:induction``) keeps its curves beside its weights: the loss, with a uniform
guess's dashed under it, and the best previous-token and induction scores with copy
accuracy. The step where the induction score first passes 0.5 is marked on both plots:
there the loss leaves the plateau it held near chance — the phase change in which the
copying circuit forms. A model without curves says so in one line.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout

from attnviz.core import induction
from attnviz.model.training_curves import PHASE_THRESHOLD, CurvesMissingError, model_curves
from attnviz.ui.panel_base import FigurePanel, figure_box
from attnviz.ui.train_curves import TrainCurves
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill


class TrainingPanel(FigurePanel):
    """The open model's training curves, its phase change marked."""

    PANEL_ID = "training"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.key = None  # (head, model_path) of the curves drawn
        self.curves: list = []
        self.phase: int | None = None  # the step the induction score first passes 0.5
        self.view = TrainCurves()
        self.marks = [pg.InfiniteLine(angle=90, movable=False) for _ in range(2)]
        for plot, mark in zip((self.view.loss_plot, self.view.score_plot), self.marks, strict=True):
            plot.addItem(mark, ignoreBounds=True)
            mark.hide()
            plot.scene().sigMouseMoved.connect(lambda pos, p=plot: self._on_q_mouse(p, pos))
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        self.figure = figure_box(self.view, self.summary, stretch=(1,))
        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        self.hover.setWordWrap(True)
        layout = QVBoxLayout()
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.hover)
        self._finish(layout)

    # --- results → view ----------------------------------------------------------------
    def _on_results(self, results, names: frozenset) -> None:
        key = (self.state.head, self.state.model_path)
        if key == self.key:
            return
        self.key = key
        try:
            self.curves = model_curves(*key)
        except CurvesMissingError as exc:
            self.curves, self.phase = [], None
            self.view.set_curves([])
            self.view.hide()  # empty axes would only say less than the line does
            for mark in self.marks:
                mark.hide()
            self.summary.setText(fill(self.tr("No training curves: %1."), str(exc)))
            return
        self.phase = induction.phase_change_step(self.curves, PHASE_THRESHOLD)
        self.view.show()
        self.view.set_run(self.curves[-1].step, induction.chance_loss())
        self.view.set_curves(self.curves)
        for mark in self.marks:
            mark.setVisible(self.phase is not None)
            if self.phase is not None:
                mark.setValue(self.phase)
        self._summarise()

    def _summarise(self) -> None:
        last = self.curves[-1]
        text = fill(
            self.tr("%1 steps measured every %2; chance (a uniform guess over %3 words): loss %4."),
            last.step,
            self.curves[1].step - self.curves[0].step if len(self.curves) > 1 else last.step,
            len(induction.WORDS),
            fmt(induction.chance_loss(), 4),
        )
        if self.phase is not None:
            at = next(c for c in self.curves if c.step == self.phase)
            text += " " + fill(
                self.tr(
                    "At step %1 (dotted) the induction score first passes %2, and the loss "
                    "is %3, down from %4 at step %5."
                ),
                self.phase,
                fmt(PHASE_THRESHOLD, 1),
                fmt(at.loss, 4),
                fmt(self.curves[0].loss, 4),
                self.curves[0].step,
            )
        else:
            text += " " + fill(
                self.tr("The induction score never passes %1: no circuit formed."),
                fmt(PHASE_THRESHOLD, 1),
            )
        text += " " + fill(
            self.tr("At step %1: loss %2, induction %3, copy accuracy %4."),
            last.step,
            fmt(last.loss, 4),
            fmt(last.induction, 4),
            fmt(last.copy_accuracy, 4),
        )
        self.summary.setText(text)

    def _restyle(self, theme) -> None:
        self.view.set_style(theme, self.plot_font())
        pen = self.view.loss_plot.pen(6, width=0.8)
        pen.setStyle(Qt.PenStyle.DotLine)  # the chance line is dashed in the same colour
        for mark in self.marks:
            mark.setPen(pen)

    def _on_q_mouse(self, plot, pos) -> None:
        if not self.curves:
            return
        x = plot.getPlotItem().vb.mapSceneToView(pos).x()
        steps = np.array([c.step for c in self.curves], dtype=float)
        if not math.isfinite(x):
            return
        c = self.curves[int(np.argmin(np.abs(steps - x)))]
        text = fill(
            self.tr("step %1: loss %2, previous-token %3, induction %4, copy accuracy %5"),
            c.step,
            fmt(c.loss, 6),
            fmt(c.previous_token, 6),
            fmt(c.induction, 6),
            fmt(c.copy_accuracy, 6),
        )
        self.hover.setText(text)
        self.sigHoverText.emit(text)
