"""The Train window's live curves: the loss, and the two head scores with copy accuracy.

Two themed plots side by side (:class:`~attnviz.ui.widgets.plot_style.ThemedPlot`): the
training loss with the chance level dashed beneath it (a uniform guess over the words,
where the loss sits until the circuit forms), and the best previous-token score, the best
induction score and copy accuracy, all in [0, 1]. :meth:`TrainCurves.set_curves` redraws
every point measured so far; the points are the rows ``training.csv`` gets.
"""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from attnviz.ui.widgets.plot_style import ThemedPlot, with_legend_line

#: The columns of the score plot, in the order their curves take colours.
SCORES = ("previous_token", "induction", "copy_accuracy")


class TrainCurves(QWidget):
    """The loss plot and the scores plot of a training run."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.loss_plot = ThemedPlot()
        self.loss_plot.setObjectName("train_loss_plot")
        self.score_plot = ThemedPlot()
        self.score_plot.setObjectName("train_score_plot")
        self.score_plot.setYRange(-0.05, 1.05, padding=0.0)
        self.score_plot.getPlotItem().vb.setMouseEnabled(x=False, y=False)
        self.loss_plot.getPlotItem().vb.setMouseEnabled(x=False, y=False)
        self.loss_line = self.loss_plot.plot([], [])
        # A line item, not an InfiniteLine: the legend draws a sample of its pen.
        self.chance_line = self.loss_plot.plot([], [])
        self.chance = 0.0
        self.score_lines = {name: self.score_plot.plot([], []) for name in SCORES}
        # The legends are lines of text beneath the plots: inside, they covered the
        # scores' curves where they end, near 1 (and the loss's plateau).
        for plot in (self.loss_plot, self.score_plot):
            plot.legend.hide()
        loss_page, self.loss_legend = with_legend_line(self.loss_plot, "train_loss_legend")
        score_page, self.score_legend = with_legend_line(self.score_plot, "train_score_legend")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(loss_page, 1)
        row.addWidget(score_page, 1)

    def label(self) -> None:
        """Axis titles and legend entries in the language running now."""
        step = QCoreApplication.translate("TrainDialog", "step")
        self.loss_plot.setLabel("bottom", step)
        self.loss_plot.setLabel("left", QCoreApplication.translate("TrainDialog", "loss"))
        self.score_plot.setLabel("bottom", step)
        self.score_plot.setLabel("left", QCoreApplication.translate("TrainDialog", "score"))
        names = {
            "previous_token": QCoreApplication.translate("TrainDialog", "previous-token"),
            "induction": QCoreApplication.translate("TrainDialog", "induction"),
            "copy_accuracy": QCoreApplication.translate("TrainDialog", "copy accuracy"),
        }
        self.loss_legend.setText(
            _entries(
                [
                    (self.loss_line, QCoreApplication.translate("TrainDialog", "loss")),
                    (self.chance_line, QCoreApplication.translate("TrainDialog", "chance")),
                ]
            )
        )
        self.score_legend.setText(
            _entries([(self.score_lines[name], names[name]) for name in SCORES])
        )

    def set_style(self, theme, font) -> None:
        """Colours of ``theme``, ``font`` for the texts; the pens follow the font's size."""
        for plot in (self.loss_plot, self.score_plot):
            plot.set_style(theme, font)
        self.loss_line.setPen(self.loss_plot.pen(0))
        self.chance_line.setPen(self.loss_plot.pen(6, width=0.6, dash=True))
        for i, name in enumerate(SCORES):
            self.score_lines[name].setPen(self.score_plot.pen(i, dash=name == "copy_accuracy"))
        self.label()

    def set_run(self, steps: int, chance: float) -> None:
        """A run of ``steps`` steps: the step axes span it (the curves grow across the
        plots as it runs), and ``chance``, the loss of a uniform guess, is dashed across."""
        self.chance = chance
        self.chance_line.setData([0.0, float(steps)], [chance, chance])
        for plot in (self.loss_plot, self.score_plot):
            plot.setXRange(0.0, float(steps), padding=0.02)
        self._loss_range([])

    def set_curves(self, curves) -> None:
        """Draw ``curves`` (:class:`~attnviz.core.induction.Curve` rows, in step order)."""
        steps = np.array([c.step for c in curves], dtype=float)
        loss = np.array([c.loss for c in curves], dtype=float)
        self.loss_line.setData(steps, loss)
        self._loss_range(loss)
        for name, line in self.score_lines.items():
            line.setData(steps, np.array([getattr(c, name) for c in curves], dtype=float))

    def _loss_range(self, loss) -> None:
        """The loss axis from 0 to above chance: autoscaled, the plateau's wobble of a few
        hundredths filled the plot and looked like the fall it is not."""
        top = max([self.chance, *np.asarray(loss, dtype=float)[np.isfinite(loss)]])
        self.loss_plot.setYRange(0.0, 1.05 * top, padding=0.0)

    def drawn(self) -> dict[str, np.ndarray]:
        """The points drawn, by ``training.csv`` column (what the tests compare)."""
        steps, loss = self.loss_line.getData()
        found = {"step": _array(steps), "loss": _array(loss)}
        for name, line in self.score_lines.items():
            found[name] = _array(line.getData()[1])
        return found


def _entries(items) -> str:
    """A legend as one line of rich text: each curve's colour (dashed when it is), then its
    name; an entry never breaks inside."""
    parts = []
    for line, text in items:
        pen = line.opts.get("pen")
        color = pen.color().name() if hasattr(pen, "color") else "#808080"
        dashed = hasattr(pen, "style") and pen.style() == Qt.PenStyle.DashLine
        mark = "╍╍" if dashed else "━━"
        words = html.escape(text).replace(" ", "&nbsp;")
        parts.append(f'<span style="color:{color}">{mark}</span>&nbsp;{words}')
    return "&nbsp;&nbsp;&nbsp; ".join(parts)


def _array(values) -> np.ndarray:
    return np.zeros(0) if values is None else np.asarray(values, dtype=float)
