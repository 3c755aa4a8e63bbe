"""The lifetime of what an offscreen render builds: freed when the picture is taken.

A panel drawn for an export, a notebook figure or an animation frame is built, shown
offscreen, painted and thrown away. ``deleteLater`` alone frees nothing there: it waits for
an event loop, and a script, a notebook or ``attnviz export`` runs none, so every render
kept its panel (8–21 MiB of widgets, scenes and pixmaps) for the life of the process.
:func:`dispose` deletes the panel now, with the parentless widgets it made (pyqtgraph's
plot menus, a panel's idle labels: Python owns those, and a Python cycle keeps them), and
empties the Python side of what it deleted, whose reference cycles would keep the arrays it
drew until a full garbage collection. :func:`quiet_platform` drops the offscreen platform's
notice for every panel shown.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, qInstallMessageHandler
from PySide6.QtWidgets import QGraphicsView, QMenu, QWidget

#: What Qt prints that says nothing to whoever asked for a picture: the offscreen platform's
#: notice for every window whose size limits change (once per panel drawn), and the
#: four-line notice that a "C" locale was replaced by C.UTF-8 as the application started
#: (one message).
NOISE = (
    "This plugin does not support propagateSizeHints()",
    "Qt depends on a UTF-8 locale",
)


def _scene_items(widget: QWidget) -> list:
    """The graphics items of the plots and views in ``widget``."""
    items = []
    for view in widget.findChildren(QGraphicsView):
        scene = view.scene()
        if scene is not None:
            items += scene.items()
    return items


def _orphans(widget: QWidget, items: list) -> list[QWidget]:
    """The widgets ``widget`` made without a parent, which deleting it would not delete:
    each plot's options menu (pyqtgraph builds it parentless) and the panel's own
    parentless widgets (its idle "Computing…" label)."""
    menus = [getattr(item, "ctrlMenu", None) for item in items]
    found = [m for m in menus if isinstance(m, QMenu) and m.parent() is None]
    found += [
        value
        for value in vars(widget).values()
        if isinstance(value, QWidget) and value is not widget and value.parent() is None
    ]
    return [w for w in found if shiboken6.isValid(w)]


def _forget(wrappers: list) -> None:
    """Empty the Python attributes of the wrappers whose C++ object is gone.

    A panel and its plots refer to one another from Python (a plot's items to their plot,
    a helper to its panel): cycles that only the garbage collector frees, and only when
    it runs a full collection, which may be hundreds of renders later; the arrays the
    panel drew stay meanwhile. A dead wrapper's attributes serve nobody, so dropping
    them frees all that at once (a full collection instead costs 35–130 ms a render)."""
    for wrapper in wrappers:
        if not shiboken6.isValid(wrapper):
            attributes = getattr(wrapper, "__dict__", None)
            if attributes is not None:
                attributes.clear()


def dispose(widget: QWidget) -> None:
    """Close and delete ``widget`` (a panel built for one picture) and everything it made,
    now: no event loop needs to run.

    The deferred deletions this posts (and those its own teardown posts) are delivered at
    once; a deletion posted by an enclosing scope of a running event loop is not (Qt keeps
    those for their own loop level), so this is safe inside the window's slots too.
    """
    if not shiboken6.isValid(widget):
        return
    items = _scene_items(widget)
    orphans = _orphans(widget, items)
    wrappers = [widget, *widget.findChildren(QObject), *items, *orphans]
    for orphan in orphans:
        wrappers += orphan.findChildren(QObject)
    widget.close()
    for orphan in orphans:
        orphan.deleteLater()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    _forget(wrappers)


@contextmanager
def quiet_platform() -> Iterator[None]:
    """Meanwhile, Qt's :data:`NOISE` is dropped; every other message goes where it went
    (the handler installed before, or stderr)."""
    previous = None

    def handler(mode, context, message: str) -> None:
        if any(part in message for part in NOISE):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
