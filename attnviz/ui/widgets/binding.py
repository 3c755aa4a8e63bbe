"""Connect Qt objects to the Qt-free model's events, and report rejected values.

The model's events (:mod:`attnviz.model.events`) hold bound methods weakly but cannot know
when the C++ side of a QObject dies (a deleted dock, a closed window); :func:`bind`
disconnects on ``destroyed`` so a model event never reaches a dead widget.
"""

from __future__ import annotations

import weakref

from PySide6.QtWidgets import QWidget

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
