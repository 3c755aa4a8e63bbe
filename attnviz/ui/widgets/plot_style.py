"""Themed pyqtgraph plots for the panels: colours, fonts and line widths in one place.

Every line plot of a panel (reach, positions, memory, …) is a :class:`ThemedPlot`: axes
and labels in the theme's colours with the panel's font, a legend that follows the
theme, and pens whose width grows with the font so a projector or a 4K export never
shows hairlines. :data:`SERIES` gives distinguishable colours (colour-blind safe) for
the curves of one plot, in order. Its texts never touch: the axes thin their tick labels
and keep their titles clear (:mod:`~attnviz.ui.widgets.axis_room`), and the legend stays
whole inside the plot (:mod:`~attnviz.ui.widgets.legend_fit`).
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from attnviz.ui.theme import Theme
from attnviz.ui.widgets.axis_room import roomy_axes
from attnviz.ui.widgets.legend_fit import fit_legend
from attnviz.ui.widgets.legend_fit import plain_text as legend_text
from attnviz.ui.widgets.numbers import decimal_separator

#: Okabe–Ito colours (colour-blind safe), in the order curves take them.
SERIES_LIGHT = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
SERIES_DARK = ("#56B4E9", "#E69F00", "#66CDAA", "#E3A1C8", "#F0E442", "#9AD0F5", "#FFFFFF")


def series_color(theme: Theme | None, index: int) -> QColor:
    """The colour of curve ``index`` in ``theme``."""
    colors = SERIES_DARK if theme is not None and theme.dark else SERIES_LIGHT
    return QColor(colors[index % len(colors)])


def localize_ticks(axis) -> None:
    """Make a pyqtgraph axis write its tick numbers with the UI's decimal separator."""
    if decimal_separator() == "." or getattr(axis, "_attnviz_localized", False):
        return
    plain = axis.tickStrings

    def strings(values, scale, spacing):
        return [s.replace(".", decimal_separator()) for s in plain(values, scale, spacing)]

    axis.tickStrings = strings
    axis._attnviz_localized = True


def line_width(font: QFont | None) -> float:
    """A line width readable at the font's size (2 px at 12 px text, more when larger)."""
    if font is None:
        return 2.0
    px = font.pixelSize() if font.pixelSize() > 0 else QFontMetricsF(font).height()
    return max(2.0, px / 6.0)


def two_lines(text: str) -> str:
    """``text`` broken at the space nearest its middle (``<br>``: a pyqtgraph title is
    rich text); unchanged without a space."""
    spaces = [i for i, c in enumerate(text) if c == " "]
    if not spaces:
        return text
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return text[:cut] + "<br>" + text[cut + 1 :]


class ThemedPlot(pg.PlotWidget):
    """A PlotWidget that restyles itself from a :class:`Theme` and a font."""

    def __init__(self, parent=None) -> None:
        # (enableMenu: a menu built, then dropped)
        super().__init__(parent, enableMenu=False, axisItems=roomy_axes())
        self.theme: Theme | None = None
        self.plot_font: QFont | None = None
        self.setMenuEnabled(False)
        self.getPlotItem().hideButtons()
        self.showGrid(x=True, y=True, alpha=0.25)
        self.legend = self.getPlotItem().addLegend(offset=(-10, 10))
        #: A label beneath the plot (the panel places it) that takes the legend's entries
        #: as a line of text when the plot is too small to hold them whole; None: the
        #: legend stays inside, shrunk as far as it goes.
        self.legend_spill = None
        self._spilled = False
        self.getPlotItem().vb.sigResized.connect(self.fit_legend)

    def fit_legend(self, *_args) -> None:
        """Wrap (and if need be shrink) the legend's entries to the plot's room."""
        if self.legend is None or self.plot_font is None:
            return
        if not (self.legend.isVisible() or self._spilled):
            return
        room = self.getPlotItem().vb.boundingRect()
        fits = fit_legend(self.legend, room.width(), room.height(), self.plot_font.pixelSize())
        if self.legend_spill is not None:
            self._spill(not fits)

    def _spill(self, spilled: bool) -> None:
        """Move the legend's entries to :attr:`legend_spill` (each with its curve's colour),
        or back into the plot: a plot some 80 pixels tall at Large Fonts had its legend
        cut at its edge and laid over its curves."""
        changed = spilled != self._spilled
        self._spilled = spilled
        self.legend.setVisible(not spilled)
        label = self.legend_spill
        label.setVisible(spilled)
        # The left axis's title goes with it: a plot too short for its legend is too
        # short for that title's lines too (it was cut at the plot's top).
        left = self.getPlotItem().getAxis("left")
        if changed and left.labelText:
            left.showLabel(not spilled)
        if not spilled:
            return
        parts = []
        if left.labelText:
            parts.append(html.escape(legend_text(left.labelText)) + ":")
        for sample, text in self.legend.items:
            pen = pg.mkPen(sample.item.opts.get("pen")) if hasattr(sample.item, "opts") else None
            color = pen.color().name() if pen is not None else self.theme.foreground
            # An entry breaks only between entries, never inside one.
            words = html.escape(legend_text(text.text)).replace(" ", "&nbsp;")
            parts.append(f'<span style="color:{color}">━</span>&nbsp;{words}')
        label.setText("&nbsp;&nbsp; ".join(parts))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        # Once the axes have their new lengths: a long axis title goes onto two lines.
        QTimer.singleShot(0, self, self.fit_axis_titles)

    def fit_axis_titles(self) -> None:
        """Break an axis title longer than its axis onto two lines (at the space nearest
        its middle), and join it again where the axis has room: "m − n (query position
        minus key position)" ran past a plot in a dock beside the steps."""
        for name, along in (("bottom", "width"), ("left", "height")):
            axis = self.getPlotItem().getAxis(name)
            text = axis.labelText
            if not text or not axis.isVisible() or (name == "left" and self._spilled):
                continue  # (a spilled legend's line carries the left title)
            full = text.replace("<br>", " ")
            room = getattr(axis, along)() - 8
            metrics = QFontMetricsF(axis.label.font())
            wanted = full if metrics.horizontalAdvance(full) <= room else two_lines(full)
            if wanted != text:
                # pyqtgraph leaves a title 0.8 of its box beside the ticks: two lines need
                # a wider margin around them to stay clear of the tick labels.
                margin = metrics.height() * 0.4 if "<br>" in wanted else 4
                axis.label.document().setDocumentMargin(margin)
                axis.setLabel(wanted, units=axis.labelUnits or None, **axis.labelStyle)

    def pen(self, index: int, *, width: float = 1.0, dash: bool = False) -> QColor:
        """A pen for curve ``index`` (``width`` times the readable width)."""
        style = Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine
        return pg.mkPen(
            series_color(self.theme, index), width=line_width(self.plot_font) * width, style=style
        )

    def legend_entry(self, item, text: str) -> None:
        """Add ``item`` to the legend as ``text``, in the theme's colours and font."""
        self.legend.addItem(item, text)
        if self.theme is not None and self.plot_font is not None:
            _sample, label = self.legend.items[-1]
            label.setText(text, color=self.theme.foreground, size=f"{self.plot_font.pixelSize()}px")
            self.fit_legend()

    def set_style(self, theme: Theme, font: QFont) -> None:
        """Colours of ``theme``; ``font`` for ticks, axis labels and the legend."""
        self.theme = theme
        font = QFont(font)
        if font.pixelSize() <= 0:
            font.setPixelSize(max(8, round(QFontMetricsF(font).height() * 0.8)))
        self.plot_font = font
        self.setBackground(theme.background)
        fg, muted = QColor(theme.foreground), QColor(theme.muted)
        item = self.getPlotItem()
        for name in ("left", "bottom", "right", "top"):
            axis = item.getAxis(name)
            localize_ticks(axis)  # 0,5 in Portuguese, as every number of the panel
            axis.setPen(pg.mkPen(muted, width=max(1.0, line_width(font) / 2)))
            axis.setTextPen(pg.mkPen(fg))
            axis.setStyle(tickFont=font, tickTextOffset=max(3, font.pixelSize() // 3))
            axis.label.setFont(font)
            if axis.labelText:
                axis.setLabel(axis.labelText, units=axis.labelUnits, color=theme.foreground)
        if self.legend is not None:
            self.legend.setLabelTextColor(fg)
            self.legend.setLabelTextSize(f"{font.pixelSize()}px")
            self.legend.setBrush(pg.mkBrush(QColor(theme.background).lighter(105)))
            self.legend.setPen(pg.mkPen(muted))
            for _sample, label in self.legend.items:
                label.setText(label.text, color=theme.foreground, size=f"{font.pixelSize()}px")
            self.fit_legend()
        title = item.titleLabel
        if title.text:
            title.setText(title.text, color=theme.foreground, size=f"{font.pixelSize()}px")


def with_legend_line(plot, name: str, *, spill: bool = False) -> tuple[QWidget, QLabel]:
    """``plot`` above a wrapping label named ``name``, in one widget: a legend written as a
    line of text. With ``spill`` the label is the :class:`ThemedPlot`'s
    :attr:`~ThemedPlot.legend_spill`, shown only while the plot is too small for its
    legend."""
    page = QWidget()
    box = QVBoxLayout(page)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(plot, 1)
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    box.addWidget(label)
    if spill:
        label.hide()
        plot.legend_spill = label
    return page, label
