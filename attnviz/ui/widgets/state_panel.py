"""The base of every panel that edits or shows a topic.

It wires the topic's events to per-field handlers (``_on_<field>_changed``), writes values
back to the topic and turns a rejected value (:class:`StateError`) into a visible message
and a red frame on the control, then reverts the control to the topic's value.
:class:`StatePanel` shows the attention topic with its always-on resolver;
:class:`TopicPanel` shows any topic through a lazy resolver that computes only while the
panel is visible.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QSignalBlocker, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QFrame,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from attnviz.model import events
from attnviz.model.fields import StateError
from attnviz.model.panels import panel_spec
from attnviz.ui.widgets.binding import bind, mark_invalid
from attnviz.ui.widgets.room_note import RoomNote


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


class StatePanel(QWidget):
    """A dock panel bound to one topic (``state``) and its resolver.

    Subclasses set :attr:`PANEL_ID` (their row of :data:`attnviz.model.panels.PANELS` says
    where they stand) and :attr:`TITLE`, build their controls, then call :meth:`_finish`
    with the layout; model events arrive at ``_on_<field>_changed``. A control that only
    shows a field is declared with :meth:`mirror` instead of a handler of its own.
    """

    PANEL_ID = ""
    TITLE = ""

    @classmethod
    def create(cls, workspace, parent=None):
        """The panel for a :class:`~attnviz.model.workspace.Workspace` (main window, export)."""
        return cls(workspace.state, workspace.resolver, parent)

    def __init__(self, state, resolver, parent=None) -> None:
        super().__init__(parent)
        self.state = state
        self.resolver = resolver
        self._fields = state.field_names()
        self.setObjectName(f"panel_{self.PANEL_ID}")
        self._invalid: set[QWidget] = set()
        self._scaled: list[tuple[QWidget, float, bool]] = []
        self._mirrors: dict[str, list[tuple[QWidget, bool]]] = {}
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d62728; font-weight: bold;")
        self.message.hide()

    @classmethod
    def title(cls) -> str:
        """The panel's translated title (dock tab, View menu)."""
        return QCoreApplication.translate(cls.__name__, cls.TITLE)

    def _finish(self, layout: QVBoxLayout, *, scroll: bool = False) -> None:
        """Add the message line, then start listening to the state.

        With ``scroll`` the controls sit in a scroll area, so a small dock never squeezes
        them below their readable size; the message line stays visible below it.
        """
        if scroll:
            inner = QWidget()
            inner.setLayout(layout)
            area = QScrollArea()
            area.setWidgetResizable(True)
            area.setFrameShape(QFrame.Shape.NoFrame)
            area.setWidget(inner)
            layout = QVBoxLayout()
            layout.setContentsMargins(0, 0, 0, 0)
            self.room_note = RoomNote(self, area)
            layout.addWidget(self.room_note)
            layout.addWidget(area, 1)
        layout.addWidget(self.message)
        self.setLayout(layout)
        bind(self, self.state.changed, self._on_state_changed)
        self._refresh(self._fields)

    def mirror(self, name: str, widget: QWidget, *, block: bool = True) -> None:
        """Show field ``name`` in ``widget`` from now on (see :func:`show_value`), before
        the field's own ``_on_<name>_changed`` runs, if there is one.

        The widget's signals are blocked while it is set, so showing a value never writes
        it back; ``block=False`` for a composite control whose own signals keep its parts
        in step (it reports user edits only).
        """
        self._mirrors.setdefault(name, []).append((widget, block))

    # --- fonts -------------------------------------------------------------------------
    def scale_font(self, widget: QWidget, factor: float, *, bold: bool = False) -> None:
        """Keep ``widget``'s font ``factor`` times the panel's, also after a font change
        (the projector's large-font mode changes the application font at run time)."""
        self._scaled.append((widget, factor, bold))
        widget.setFont(scaled_font(self.font(), factor, bold=bold))

    def changeEvent(self, event) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            for widget, factor, bold in self._scaled:
                widget.setFont(scaled_font(self.font(), factor, bold=bold))
            self._on_font_changed()
        super().changeEvent(event)

    def _on_font_changed(self) -> None:
        """Redraw what depends on the font (override)."""

    # --- model → view ------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        self._refresh(names)

    def _refresh(self, names: Iterable[str]) -> None:
        done = set()
        for name in self._fields:
            if name not in names:
                continue
            for widget, block in self._mirrors.get(name, ()):
                value = getattr(self.state, name)
                if block:
                    with blocked(widget):
                        show_value(widget, value)
                else:
                    show_value(widget, value)
            handler = getattr(self, f"_on_{name}_changed", None)
            # Fields sharing one handler (q, k, v → one table) trigger it once.
            key = getattr(handler, "__func__", handler)
            if handler is not None and key not in done:
                done.add(key)
                handler()

    def refresh_numbers(self) -> None:
        """Write every number again (``display.decimals`` changed): as if every field had."""
        self._refresh(self._fields)

    # --- view → model ------------------------------------------------------------------
    def _write(self, widget: QWidget | None, **values) -> bool:
        """Write ``values`` to the state; on rejection show why and revert the controls."""
        try:
            self.state.update(**values)
        except StateError as exc:
            self.show_error(str(exc), widget)
            self._refresh(self._fields)
            return False
        self.show_error(None)
        return True

    def show_error(self, message: str | None, widget: QWidget | None = None) -> None:
        """Show ``message`` under the panel (and on ``widget``), or clear it when None."""
        for w in list(self._invalid):
            mark_invalid(w, None)
        self._invalid.clear()
        if message is None:
            self.message.hide()
            self.message.clear()
            return
        self.message.setText(message)
        self.message.show()
        if widget is not None:
            mark_invalid(widget, message)
            self._invalid.add(widget)


class TopicPanel(StatePanel):
    """A panel of one lazy resolver (its table row's ``resolver``, a module of
    attnviz.model.resolve).

    The resolver computes only while the panel is shown: a docked panel follows its dock's
    ``visibilityChanged`` (a tab behind another is not shown, though Qt calls it visible),
    a free-standing one (an export) its show and hide events. Results arrive at
    :meth:`_on_results`, also once whenever the panel is shown again; :attr:`results`
    holds what is drawn.

    A resolver that computes in the background (``BACKGROUND``) does so on the workspace's
    runner while the panel is docked, and :attr:`busy` shows meanwhile; a free-standing
    panel, with no interaction to keep alive, has its results computed at once.
    """

    @classmethod
    def create(cls, workspace, parent=None):
        return cls(workspace, parent)

    def __init__(self, workspace, parent=None) -> None:
        self.workspace = workspace
        self._shown = False
        self.results = None
        self._drawn_key = None
        self._failed = False
        resolver = workspace.resolver_for(panel_spec(self.PANEL_ID).resolver)
        super().__init__(workspace.document[resolver.TOPIC], resolver, parent)
        bind(self, resolver.resolved, self._on_resolved)
        bind(self, resolver.failed, self._on_failed)
        self.busy = QLabel(self.tr("Computing…"), self)
        self.busy.setObjectName("busy")
        self.busy.hide()
        bind(self, resolver.busy, self._on_busy)

    @property
    def shown(self) -> bool:
        """True while the panel can be seen (its results are then kept current)."""
        return self._shown

    @property
    def current(self) -> bool:
        """True when the drawn results belong to the topic's current inputs."""
        if not self.resolver.BACKGROUND:
            return self.results is not None
        return self._drawn_key is not None and self._drawn_key == self.resolver.key()

    def set_shown(self, on: bool) -> None:
        """Start or stop looking: the dock's ``visibilityChanged`` calls this."""
        if on == self._shown:
            return
        self._shown = on
        if not on:
            self.resolver.unwatch(self)
            return
        alone = self.window() is self
        self.resolver.watch(self, now=alone)
        if not self.resolver.BACKGROUND or alone:
            self._draw_guarded()
        else:
            # After the event loop settles: a dock shown for a moment while the window
            # arranges its tabs starts no job.
            QTimer.singleShot(0, self._request_if_shown)

    def _request_if_shown(self) -> None:
        if shiboken6.isValid(self) and self._shown:
            if self.resolver.current and self._drawn_key != self.resolver.latest_key:
                self._draw_guarded()
            else:
                self.resolver.request()

    def refresh_numbers(self) -> None:
        super().refresh_numbers()
        if self._shown:
            self.redraw()

    def _docked(self) -> bool:
        return isinstance(self.parentWidget(), QDockWidget)

    def _on_resolved(self, results, _names: frozenset) -> None:
        if self._shown:
            self._draw_results(results, self.resolver.latest_key)

    def _on_busy(self, on: bool) -> None:
        self.busy.setVisible(on)

    def _on_failed(self, message: str) -> None:
        self._failed = self.resolver.BACKGROUND  # cleared by the next results drawn
        self.show_error(message)

    def _on_results(self, results) -> None:
        """Draw ``results`` (override)."""

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._docked():
            self.set_shown(True)

    def hideEvent(self, event) -> None:
        if not self._docked():
            self.set_shown(False)
        super().hideEvent(event)

    def redraw(self) -> None:
        """Draw the held results again (after a theme or font change); failures are shown."""
        if not self.resolver.BACKGROUND:
            self._draw_guarded()
        elif self.results is not None:
            self._draw_results(self.results, self._drawn_key)

    def _draw_guarded(self) -> None:
        """Draw the current results; a failure is shown, never raised into Qt's event."""
        if self.resolver.BACKGROUND:
            try:
                results = self.resolver.results  # at once: cached, or computed here
            except (ValueError, ArithmeticError, MemoryError) as exc:
                self._on_failed(f"{type(exc).__name__}: {exc}")
                return
            self.resolver.latest_key = self.resolver.key()
            self._draw_results(results, self.resolver.latest_key)
            return
        try:
            self.results = self.resolver.results
            self._on_results(self.results)
        except Exception as exc:  # a view must not take the window down
            self._report_error(exc)

    def _draw_results(self, results, key) -> None:
        if self._failed:
            self._failed = False
            self.show_error(None)
        self.results, self._drawn_key = results, key
        try:
            self._on_results(results)
        except Exception as exc:  # a view must not take the window down
            self._report_error(exc)

    def _report_error(self, exc: Exception) -> None:
        self.show_error(f"{type(exc).__name__}: {exc}")
        # Reported from a plain slot, where the crash log (or pytest) sees it.
        QTimer.singleShot(0, lambda error=exc: events.report(error))
