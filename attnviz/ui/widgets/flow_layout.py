"""A layout that places its widgets left to right and wraps them onto more lines.

The flow of Qt's own layout examples: a narrow dock or large fonts put the buttons of a
row on two lines instead of squeezing or cutting them. superqt has one too; this one is
ours because importing superqt costs about as much as building a panel, and the panels
shown at start-up need nothing else of it (its throttles are made when first used, see
:mod:`attnviz.ui.widgets.throttle`).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QHBoxLayout, QLayout, QLayoutItem, QSizePolicy, QStyle, QWidget


class FlowLayout(QLayout):
    """Widgets in lines as wide as the layout, each line as tall as its tallest widget.

    Parameters
    ----------
    parent : QWidget, optional
        The widget laid out.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []

    # --- the items ---------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    # --- sizes -------------------------------------------------------------------------
    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        # As narrow as the widest widget: everything else can go onto a line of its own.
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    # --- placing -----------------------------------------------------------------------
    def _gap(self, widget: QWidget, orientation: Qt.Orientation) -> int:
        """The space between two widgets: the style's layout spacing, else its spacing
        between two push buttons (what the rows hold)."""
        parent = self.parentWidget()
        if parent is not None:
            metric = (
                QStyle.PixelMetric.PM_LayoutHorizontalSpacing
                if orientation == Qt.Orientation.Horizontal
                else QStyle.PixelMetric.PM_LayoutVerticalSpacing
            )
            space = parent.style().pixelMetric(metric, None, parent)
            if space >= 0:
                return space
        button = QSizePolicy.ControlType.PushButton
        return widget.style().layoutSpacing(button, button, orientation)

    def _arrange(self, rect: QRect, *, move: bool) -> int:
        """Place the items in ``rect`` (when ``move``); return the height they take."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            widget = item.widget()
            if widget is None:
                continue
            hint = item.sizeHint()  # 0 × 0 for a hidden widget
            gap_x = self._gap(widget, Qt.Orientation.Horizontal)
            if x + hint.width() > area.right() and line > 0:
                x = area.x()  # onto a new line
                y += line + self._gap(widget, Qt.Orientation.Vertical)
                line = 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + gap_x
            line = max(line, hint.height())
        return y + line - rect.y() + margins.bottom()


def keep_together(*widgets: QWidget) -> QWidget:
    """One piece of a flow: ``widgets`` side by side, never split over two lines (a label
    and the field it names)."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        row.addWidget(widget)
    return box


def flow_of(*widgets: QWidget) -> FlowLayout:
    """A :class:`FlowLayout` holding ``widgets`` in order (a row of controls that wraps
    onto more lines in a narrow dock instead of widening it)."""
    flow = FlowLayout()
    for widget in widgets:
        flow.addWidget(widget)
    return flow
