"""The base of every dock panel: the one contract a panel module fulfils.

A panel is a :class:`Panel` subclass in ``attnviz/ui/panels/<id>.py`` whose ``PANEL_ID`` is
its row of :data:`attnviz.model.panels.PANELS`; the row gives its title, its topic, the
resolver it watches and its export data. The base does the rest:

- **construction**: ``Panel(workspace, parent=None)`` (and :meth:`Panel.create`, which the
  window, the stage and the exports call); build the widgets, then call :meth:`_finish`;
- **fields → view**: a change of the topic's field ``x`` calls ``_on_x_changed()``; a
  control that only shows a field is declared with :meth:`mirror`; :meth:`_write` writes
  values back and shows a refused value on the control;
- **results → view**: one hook, :meth:`_on_results` ``(results, names)``, with ``names``
  from :mod:`attnviz.model.resolve.result_names`. Results of a field change arrive once
  the change is applied to the whole model (the history and every resolver have it), in
  the views' turn, just before the field handlers of that change; results computed in the
  background arrive when they are ready. Only while the panel can be seen (at once, and on
  every change, for the always-on attention resolver); a failure in it is shown on the
  panel, never raised into Qt;
- **look**: :meth:`apply_theme` keeps the theme and calls :meth:`_restyle`; a font change
  (large-font mode, an export's slide font) calls :meth:`_on_font_changed`, which restyles
  again unless overridden; :meth:`scale_font` keeps a widget's font a multiple of the
  panel's;
- **export**: :meth:`figure_widget` is what a picture of the panel shows: :attr:`figure`
  when the panel sets one (its pictures without its controls), else the whole panel;
- **slow slider writes**: :meth:`throttled`, the one rate at which drags write a field.

:class:`FigurePanel` adds the scaffolding of a panel that is controls over a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QTimer, Signal
from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from attnviz.model import events
from attnviz.model.fields import StateError
from attnviz.model.panels import TITLE_CONTEXT, PanelSpec, panel_spec
from attnviz.ui.widgets.binding import bind, blocked, mark_invalid, scaled_font, show_value
from attnviz.ui.widgets.room_note import RoomNote
from attnviz.ui.widgets.throttle import THROTTLE_MS, LazyThrottled

__all__ = ["FigurePanel", "Panel", "figure_box"]


def figure_box(*widgets: QWidget, stretch: Iterable[int] = ()) -> QWidget:
    """A plain widget holding ``widgets`` one under the other, without margins: what a
    panel gives as its :attr:`Panel.figure`. A pyqtgraph plot is a ``QGraphicsView``, whose
    ``render`` is not a widget's, so an export draws the box that holds it instead."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    factors = list(stretch) + [0] * len(widgets)
    for widget, factor in zip(widgets, factors, strict=False):
        layout.addWidget(widget, factor)
    return box


class Panel(QWidget):
    """A dock panel bound to its row's topic and resolver (see the module docstring)."""

    #: The panel's row of :data:`attnviz.model.panels.PANELS`.
    PANEL_ID = ""
    #: What the mouse rests on, with its exact value, for the status bar ("" when it
    #: leaves); a panel with values under the mouse emits it.
    sigHoverText = Signal(str)
    #: The cell (row, column) the mouse rests on, (-1, -1) when none: the presenter's
    #: pointer spotlights it (:meth:`highlight`).
    sigPointed = Signal(int, int)

    # --- the row -------------------------------------------------------------------------
    @classmethod
    def spec(cls) -> PanelSpec:
        """The panel's row of the table."""
        return panel_spec(cls.PANEL_ID)

    @classmethod
    def title(cls) -> str:
        """The panel's translated title (dock tab, View menu)."""
        return QCoreApplication.translate(TITLE_CONTEXT, cls.spec().title)

    @classmethod
    def create(cls, workspace, parent=None):
        """The panel for a :class:`~attnviz.model.workspace.Workspace` (main window, stage,
        export); a panel that needs more than the workspace overrides this."""
        return cls(workspace, parent)

    @classmethod
    def render_picture(cls, workspace, spec):
        """A picture drawn for a slide in the panel's own way, as a ``QImage`` of
        ``spec``'s size, or None: the export builds the panel offscreen and draws
        :meth:`figure_widget` (override with :meth:`write_picture`: the heatmap's figure)."""
        return None

    @classmethod
    def write_picture(cls, workspace, path, spec):
        """Write the picture of :meth:`render_picture` to ``path`` (PNG or SVG) and
        return the path, or None when the panel has no picture of its own."""
        return None

    # --- construction ----------------------------------------------------------------
    def __init__(self, workspace, parent=None) -> None:
        super().__init__(parent)
        spec = self.spec()
        self.workspace = workspace
        self.resolver = workspace.resolver_for(spec.resolver)
        self.state = workspace.document[spec.topic]
        #: What a picture of the panel shows (set it to the part under the controls).
        self.figure: QWidget | None = None
        #: The results last drawn (None before the first).
        self.results = None
        self._fields = self.state.field_names()
        self._theme = None
        self._shown = False
        self._drawn_key = None
        self._failed = False
        self._held: tuple | None = None  # results that wait for the views' turn
        self._handled: int | None = None  # the topic's emission last handled here
        self.setObjectName(f"panel_{self.PANEL_ID}")
        self._invalid: set[QWidget] = set()
        self._scaled: list[tuple[QWidget, float, bool]] = []
        self._mirrors: dict[str, list[tuple[QWidget, bool]]] = {}
        self.message = QLabel()
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d62728; font-weight: bold;")
        self.message.hide()
        # Shown while the resolver computes in the background, once a panel puts it in its
        # layout (until then it has no parent, and is never shown).
        self.busy = QLabel(self.tr("Computing…"))
        self.busy.setObjectName("busy")
        self.busy.hide()

    def _finish(self, layout: QVBoxLayout, *, scroll: bool = False) -> None:
        """Add the message line, then start listening to the topic and the resolver.

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
        bind(self, self.resolver.resolved, self._on_resolved)
        bind(self, self.resolver.failed, self._on_failed)
        bind(self, self.resolver.busy, self._on_busy)
        self._refresh(self._fields)
        if self.resolver.EAGER:
            self._draw_guarded()

    def mirror(self, name: str, widget: QWidget, *, block: bool = True) -> None:
        """Show field ``name`` in ``widget`` from now on (see :func:`show_value`), before
        the field's own ``_on_<name>_changed`` runs, if there is one.

        The widget's signals are blocked while it is set, so showing a value never writes
        it back; ``block=False`` for a composite control whose own signals keep its parts
        in step (it reports user edits only).
        """
        self._mirrors.setdefault(name, []).append((widget, block))

    def throttled(self, write: Callable) -> LazyThrottled:
        """``write`` called at most once per :data:`THROTTLE_MS` (the last value wins): what a
        slider's drag writes, so that a step repaints before the next one arrives."""
        return LazyThrottled(write, timeout=THROTTLE_MS, parent=self)

    # --- look --------------------------------------------------------------------------
    def apply_theme(self, theme) -> None:
        """Restyle the panel for ``theme`` (kept for later font changes)."""
        self._theme = theme
        self._restyle(theme)

    def _restyle(self, theme) -> None:
        """Give the panel's drawn parts ``theme``'s colours and the panel's font
        (override; the interface widgets follow the palette by themselves)."""

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
        """Redraw what depends on the font: by default restyle with the theme held."""
        if self._theme is not None:
            self._restyle(self._theme)

    def needed_width(self) -> int:
        """The width the panel needs to show its content without scrolling sideways (what
        the window's compact layout gives the panel in front of a tab group): its scrolled
        content's least width, with room for a vertical scroll bar; else its own least."""
        room_note = getattr(self, "room_note", None)
        if room_note is None:
            return self.minimumSizeHint().width()
        area = room_note.area
        inner = area.widget().minimumSizeHint().width()
        margins = self.layout().contentsMargins()
        bar = area.verticalScrollBar().sizeHint().width()
        return inner + 2 * area.frameWidth() + bar + margins.left() + margins.right()

    def figure_widget(self) -> QWidget:
        """What an export shows: :attr:`figure`, else the whole panel. Any widget will do,
        a pyqtgraph plot too (:func:`figure_box` holds a plot with what goes under it)."""
        return self.figure if self.figure is not None else self

    def highlight(self, kind: str | None, index=()) -> None:
        """Spotlight a ``"cell"`` (row, column), a ``"row"`` or a ``"column"`` (the
        presenter's pointer); None clears it (override, with :attr:`sigPointed`)."""

    def focus_data(self, quoted: frozenset) -> None:
        """On a slide, give the room to the parts that draw what the lesson quotes
        (``quoted``: the panel's data names and resolver paths its steps read; override)."""

    def focus_fields(self, in_lesson=(), so_far=(), step=()) -> None:
        """On a slide, show only the controls of the fields the lesson is about: those
        ``step`` sets, those set ``so_far``, those ``in_lesson`` (override)."""

    def highlight_step(self, step) -> None:
        """Spotlight what lesson step ``step`` is about (None: nothing); the window and
        the stage call it on every panel (override: most have nothing to spotlight)."""

    # --- model → view ------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        self._handled = self.state.changed.emission
        held, self._held = self._held, None
        if held is not None:
            self._deliver(*held)
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
        """Write every number again (``display.decimals`` changed): as if every field had,
        and the results drawn again."""
        self._refresh(self._fields)
        if self._shown or self.resolver.EAGER:
            self.redraw()

    def _on_results(self, results, names: frozenset) -> None:
        """Draw what ``names`` (:mod:`attnviz.model.resolve.result_names`, and for the
        attention resolver the restyle fields that changed) say is new in ``results``
        (override)."""

    # --- results -----------------------------------------------------------------------
    @property
    def shown(self) -> bool:
        """True while the panel can be seen (a lazy resolver's results are then current)."""
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
        if self.resolver.EAGER:
            return  # drawn on every change already
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

    def _docked(self) -> bool:
        return isinstance(self.parentWidget(), QDockWidget)

    def _on_resolved(self, results, names: frozenset) -> None:
        if not (self._shown or self.resolver.EAGER):
            return
        key = self.resolver.latest_key if self.resolver.BACKGROUND else None
        emission = self.state.changed.emission
        if emission is not None and emission != self._handled:
            # The resolvers hear a change in the model's turn, while the rest of the
            # model may not have it yet: the results wait for the views' turn of the
            # same change (_on_state_changed).
            if self._held is not None:
                names = names | self._held[1]
            self._held = (results, names, key)
            return
        self._deliver(results, names, key)

    def _on_busy(self, on: bool) -> None:
        if self.busy.parent() is not None:
            self.busy.setVisible(on)

    def _on_failed(self, message: str) -> None:
        self._failed = self.resolver.BACKGROUND  # cleared by the next results drawn
        self.show_error(message)

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
            self._deliver(self.results, self.resolver.RESULT_NAMES, self._drawn_key)

    def _draw_guarded(self) -> None:
        """Draw the current results; a failure is shown, never raised into Qt's event."""
        names = self.resolver.RESULT_NAMES
        if self.resolver.BACKGROUND:
            try:
                results = self.resolver.results  # at once: cached, or computed here
            except (ValueError, ArithmeticError, MemoryError) as exc:
                self._on_failed(f"{type(exc).__name__}: {exc}")
                return
            self.resolver.latest_key = self.resolver.key()
            self._deliver(results, names, self.resolver.latest_key)
            return
        try:
            self.results = self.resolver.results
            self._on_results(self.results, names)
        except Exception as exc:  # a view must not take the window down
            self._report_error(exc)

    def _deliver(self, results, names: frozenset, key=None) -> None:
        if self._failed:
            self._failed = False
            self.show_error(None)
        self.results, self._drawn_key = results, key
        try:
            self._on_results(results, names)
        except Exception as exc:  # a view must not take the window down
            self._report_error(exc)

    def _report_error(self, exc: Exception) -> None:
        self.show_error(f"{type(exc).__name__}: {exc}")
        # Reported from a plain slot, where the crash log (or pytest) sees it.
        QTimer.singleShot(0, lambda error=exc: events.report(error))

    # --- view → model ------------------------------------------------------------------
    def _write(self, widget: QWidget | None, **values) -> bool:
        """Write ``values`` to the topic; on rejection show why and revert the controls."""
        # Cleared first: a failure of the results the write itself brings (computed at
        # once where the runner is synchronous, or answered from a cache) stays shown.
        self.show_error(None)
        try:
            self.state.update(**values)
        except StateError as exc:
            self.show_error(str(exc), widget)
            self._refresh(self._fields)
            return False
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


class FigurePanel(Panel):
    """A panel that is controls over a figure: plots and drawn views, exported alone.

    Subclasses set :attr:`~Panel.figure` (:func:`figure_box` holds plots), restyle their
    drawn parts in :meth:`_restyle` and end it with :meth:`_redraw_styled`; their plots'
    labels use :meth:`plot_font`.
    """

    #: The plots' type against the interface font: read from a little farther away.
    PLOT_FONT_SCALE = 1.05

    def plot_font(self) -> QFont:
        """The font of the plots' labels and marks: the panel's, a little larger (and never
        below 11 pixels), following large-font mode and an export's slide font."""
        font = QFont(self.font())
        font.setPixelSize(max(11, round(QFontInfo(font).pixelSize() * self.PLOT_FONT_SCALE)))
        return font

    def _redraw_styled(self) -> None:
        """Draw the results again in the new style: the ones held (a background
        resolver's, whose recomputing is not needed), the always-on resolver's, or the
        current ones while seen."""
        if self.resolver.BACKGROUND or self.resolver.EAGER or self.shown:
            self.redraw()
