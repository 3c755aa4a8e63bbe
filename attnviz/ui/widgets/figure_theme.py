"""Theme colours for a panel's figure, also where a style sheet stops the palette.

A panel carries a style sheet (the red frame of a refused value), and Qt then no longer
passes the panel's palette on to the widgets inside it: an export in the dark theme from
a light application would draw light-theme labels on a dark slide. The figures of the
memory, reach and embedding panels therefore get the theme's palette and label colour
directly.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from attnviz.ui.theme import Theme, palette_for


def style_figure(figure: QWidget, theme: Theme) -> None:
    """Paint ``figure``'s background and write its labels in ``theme``'s colours."""
    figure.setPalette(palette_for(theme))
    figure.setAutoFillBackground(True)
    for label in figure.findChildren(QLabel):
        label.setStyleSheet(f"color: {theme.foreground};")
