"""Connect Qt objects to the Qt-free model: its events, its values, rejected values.

The model's events (:mod:`attnviz.model.events`) hold bound methods weakly but cannot know
when the C++ side of a QObject dies (a deleted dock, a closed window); :func:`bind`
disconnects on ``destroyed`` so a model event never reaches a dead widget.
:func:`show_value` puts a field's value into a control inside :func:`blocked`, so that
showing a value never writes it back; :func:`mark_invalid` frames a refused control.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QSignalBlocker
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractButton, QComboBox, QWidget

#: Dynamic property styled by :data:`INVALID_STYLE`: a red frame on a rejected control.
INVALID_PROPERTY = "attnvizInvalid"
INVALID_STYLE = f'*[{INVALID_PROPERTY}="true"] {{ border: 2px solid #d62728; }}'


def bind(qobject, signal, callback) -> None:
    """Connect ``callback`` (a bound method of ``qobject``) to the model event ``signal``.

    The connection is dropped when ``qobject`` is destroyed.
    """
    signal.connect(callback)
    ref = weakref.WeakMethod(callback)

    def _drop(*_args) -> None:
        method = ref()
        if method is not None:
            signal.disconnect(method, missing_ok=True)

    qobject.destroyed.connect(_drop)


def mark_invalid(widget: QWidget, message: str | None) -> None:
    """Give ``widget`` a red frame and ``message`` as tooltip, or clear both when None.

    The style sheet goes on the refused control alone, and only while it is refused: a
    style sheet on a whole panel would stop its font and palette reaching its children
    (large-font mode, a dark export).
    """
    invalid = message is not None
    if bool(widget.property(INVALID_PROPERTY)) == invalid and not invalid:
        return
    if invalid:
        if widget.property("attnvizTip") is None:
            widget.setProperty("attnvizTip", widget.toolTip())
            widget.setProperty("attnvizSheet", widget.styleSheet())
        widget.setToolTip(message)
        widget.setProperty(INVALID_PROPERTY, True)
        widget.setStyleSheet((widget.property("attnvizSheet") or "") + INVALID_STYLE)
    else:
        widget.setToolTip(widget.property("attnvizTip") or "")
        widget.setStyleSheet(widget.property("attnvizSheet") or "")
        widget.setProperty("attnvizTip", None)
        widget.setProperty("attnvizSheet", None)
        widget.setProperty(INVALID_PROPERTY, False)


def scaled_font(font: QFont, factor: float, *, bold: bool = False) -> QFont:
    """A copy of ``font`` enlarged by ``factor`` (points or pixels, whichever it uses)."""
    out = QFont(font)
    if out.pointSizeF() > 0:
        out.setPointSizeF(out.pointSizeF() * factor)
    else:
        out.setPixelSize(round(out.pixelSize() * factor))
    out.setBold(bold)
    return out


def show_value(widget: QWidget, value) -> None:
    """Put a model value into a control: a combo box selects the item holding it as data,
    a check box or toggle button is checked, anything else takes ``setValue``."""
    if isinstance(widget, QComboBox):
        widget.setCurrentIndex(widget.findData(value))
    elif isinstance(widget, QAbstractButton):
        widget.setChecked(bool(value))
    else:
        widget.setValue(value)


@contextmanager
def blocked(*widgets: QWidget) -> Iterator[None]:
    """Block the Qt signals of ``widgets`` while the view writes model values into them."""
    blockers = [QSignalBlocker(w) for w in widgets]
    try:
        yield
    finally:
        for b in blockers:
            b.unblock()
