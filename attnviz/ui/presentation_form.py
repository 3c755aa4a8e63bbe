"""A panel's presentation form: what the audience needs, without the editing widgets.

On the stage (presentation mode and ``attnviz export --lesson``) the combo boxes, spin
boxes, sliders, line edits and buttons of a panel are for the lecturer's hands, not the
back row: they take room from the figure and their cut texts ("plot vs c", "one output
entr") read as noise. :class:`PresentationForm` hides them, with the labels that name
them (their buddies), and keeps them hidden when the panel shows one again after an edit.
The panels whose purpose is editing (the token editor and the controls) keep theirs.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QWidget,
)

#: Widgets that edit rather than show.
INPUTS = (QAbstractSpinBox, QComboBox, QAbstractSlider, QLineEdit, QAbstractButton)
#: A widget property: True for a widget that only the lecturer needs (a progress bar, a
#: note of what the last button did), hidden on the stage like the inputs.
OFF_STAGE = "off_stage"
#: Panels that are editing widgets themselves: shown whole on a slide.
EDITING_PANELS = frozenset({"editor", "controls"})


def editing_widgets(panel: QWidget) -> list[QWidget]:
    """The inputs of ``panel`` and the labels that name them (a QLabel's buddy)."""
    inputs = [
        w
        for w in panel.findChildren(QWidget)
        if isinstance(w, INPUTS) and not inside(w, panel, INPUTS)
    ]
    chosen = set(inputs)
    # A composite input (a slider with its box) is a plain widget holding inputs only: it
    # goes with them, and so does the label that names it.
    composites = [
        w
        for w in panel.findChildren(QWidget)
        if w not in chosen and not isinstance(w, QLabel) and _only_inputs(w, chosen)
    ]
    chosen.update(composites)
    labels = [w for w in panel.findChildren(QLabel) if w.buddy() in chosen]
    marked = [w for w in panel.findChildren(QWidget) if w.property(OFF_STAGE) and w not in chosen]
    return inputs + composites + labels + marked


def _only_inputs(widget: QWidget, inputs: set) -> bool:
    """True for a widget whose own child widgets are all inputs (and it has some)."""
    children = [c for c in widget.children() if isinstance(c, QWidget)]
    return bool(children) and all(c in inputs for c in children)


def inside(widget: QWidget, top: QWidget, kinds) -> bool:
    """True when a widget between ``widget`` and ``top`` (both left out) is one of
    ``kinds``: a spin box's own line edit is inside an input, a label inside a scroll area."""
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        if isinstance(parent, kinds):
            return True
        parent = parent.parentWidget()
    return False


class PresentationForm(QObject):
    """Hides the editing widgets of ``panel`` for as long as the panel exists."""

    def __init__(self, panel: QWidget) -> None:
        super().__init__(panel)
        self.panel = panel
        self.hidden: list[QWidget] = editing_widgets(panel)
        for widget in self.hidden:
            widget.installEventFilter(self)
            widget.hide()

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Show and obj in self.hidden:
            obj.hide()  # a panel showed it again after an edit: not on the stage
        return False
