"""The base of the widgets that paint themselves with one QPainter.

:class:`PaintedWidget` holds what their ``paintEvent`` had in common: open a painter on the
widget, fill the theme's background when the class asks for it, set its render hints, call
:meth:`PaintedWidget._paint` (the one method a subclass writes) and end the painter even when
painting raises, so a bug in one widget cannot leave a painter active on it.
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QWidget

from attnviz.ui.theme import LIGHT, Theme


class Background(Enum):
    """What :class:`PaintedWidget` paints under a widget before :meth:`~PaintedWidget._paint`."""

    NONE = "none"  # nothing: the parent's background shows through
    THEME = "theme"  # the theme's background, always
    # The theme's background only when the window fills its own background: an exported
    # panel (a window of its own) does not pass its palette down, and a transparent
    # export turns the fill off.
    EXPORTED = "exported"


class PaintedWidget(QWidget):
    """A widget painted by :meth:`_paint` in the colours of :attr:`theme`.

    Subclasses set the class attributes :attr:`background` and :attr:`render_hints` and
    write :meth:`_paint`; :meth:`_has_content` can skip painting altogether.
    """

    #: What is painted under the widget first (see :class:`Background`).
    background: ClassVar[Background] = Background.NONE
    #: Render hints turned on before the background is filled and :meth:`_paint` runs.
    render_hints: ClassVar[tuple[QPainter.RenderHint, ...]] = ()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.theme: Theme = LIGHT

    def set_theme(self, theme: Theme) -> None:
        """Colours of ``theme``."""
        self.theme = theme
        self.update()

    def paintEvent(self, _event) -> None:
        if not self._has_content():
            return
        painter = QPainter(self)
        try:
            for hint in self.render_hints:
                painter.setRenderHint(hint)
            if self._fills_background():
                painter.fillRect(self.rect(), QColor(self.theme.background))
            self._paint(painter)
        finally:
            painter.end()

    def _fills_background(self) -> bool:
        if self.background is Background.EXPORTED:
            return self.window().autoFillBackground()
        return self.background is Background.THEME

    def _has_content(self) -> bool:
        """False: nothing is painted, not even the background (no painter is opened)."""
        return True

    def _paint(self, painter: QPainter) -> None:
        """Paint the widget on ``painter`` (active, hints set, background filled)."""
        raise NotImplementedError
