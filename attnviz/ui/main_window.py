"""The main window: every panel is a dock widget around one workspace (document + resolvers).

Docks have stable, untranslated object names (``dock-<PANEL_ID>``) so the layout saved in
``QSettings`` (with :data:`LAYOUT_VERSION`) comes back on the next start, and panels can be
floated, tabbed, closed and reopened from the View menu. Menus and the toolbar are built
in :mod:`attnviz.ui.actions`.
"""

from __future__ import annotations

import contextlib

import shiboken6
from PySide6.QtCore import QByteArray, QObject, QRect, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QTabBar,
    QToolBar,
    QWidget,
)

from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace
from attnviz.ui import actions
from attnviz.ui.about import show_about
from attnviz.ui.busy import BusyIndicator
from attnviz.ui.model_loader import ModelController
from attnviz.ui.panels import panel_classes
from attnviz.ui.presentation import LessonPlayer, Presenter
from attnviz.ui.sessions import SessionController
from attnviz.ui.theme import Theme, ThemeManager
from attnviz.ui.undo import UndoController
from attnviz.ui.widgets import numbers
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.state_panel import blocked
from attnviz.ui.workers import qt_runner

#: Bump when the set or arrangement of docks changes, so an old saved layout is ignored.
LAYOUT_VERSION = 5
#: Screens this wide or narrower open the window maximized (1280×720, 1366×768).
SMALL_SCREEN = 1366
#: The first layout's shares: the left column of the width, the views of the height.
DEFAULT_SPLIT = (0.38, 0.62)
#: A window fewer font lines tall than this gets the compact first layout.
COMPACT_LINES = 62
COMPACT_SPLIT = (0.42, 1.0)
#: In the compact layout, the docks of the bottom area that go left (the rest go right),
#: and the dock in front in each area.
COMPACT_AREAS = {"steps": "left"}
COMPACT_FRONT = {"left": "steps", "right": "heatmap"}
#: A resize by more than this factor splits the docks again in proportion.
LARGE_RESIZE = 1.2
#: How long the docks must keep still before their shares are taken as the user's.
SPLIT_SETTLE_MS = 300
_AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.RightDockWidgetArea,
}


class PanelMap(dict):
    """The window's panels by id, each built the first time it is asked for.

    ``pid in panels`` is True for every panel the window has; iterating gives the panels
    built so far (a panel built later gets the theme of that moment).
    """

    def __init__(self, build) -> None:
        super().__init__()
        self._build = build
        self.known: set[str] = set()

    def __missing__(self, pid: str):
        if pid not in self.known:
            raise KeyError(pid)
        return self._build(pid)

    def __contains__(self, pid) -> bool:
        return pid in self.known

    def get(self, pid, default=None):
        return self[pid] if pid in self.known else default


class MainWindow(QMainWindow):
    """Top-level window of attnviz.

    Parameters
    ----------
    workspace : Workspace, optional
        The document and resolvers to show; a fresh one (the ``banco`` example) when omitted.
    settings : QSettings, optional
        Where layout and preferences are kept (the application's settings by default).
    """

    def __init__(self, workspace=None, parent=None, *, settings=None) -> None:
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.setWindowTitle(self.tr("attnviz") + " [*]")
        self.workspace = workspace if workspace is not None else Workspace(runner=qt_runner)
        self.document = self.workspace.document
        self.state = self.workspace.state
        self.resolver = self.workspace.resolver
        self.settings = settings if settings is not None else QSettings()
        self.themes = ThemeManager(QApplication.instance(), self.settings, self)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowNestedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.GroupedDragging
        )
        self.undo = UndoController(self.document, self)
        # Before the panels (the lessons dock plays on it); both outlive a language rebuild.
        self.lessons = LessonPlayer(self.workspace, self.undo, self)
        self.presenter = Presenter(self, self.lessons)
        self.panels = PanelMap(self._build_panel)
        self.docks: dict[str, QDockWidget] = {}
        self._areas: dict[str, str] = {}
        self._placed: dict[str, str] = {}  # the compact layout's areas, when it is used
        self._classes: dict[str, type] = {}
        self._dock_shown: dict[str, bool] = {}
        # The layout to go back to while one panel is shown alone (View → Focus on Panel).
        self._focus_saved: QByteArray | None = None
        for cls in panel_classes():
            self._add_panel(cls)
        self.session = SessionController(self, self.document, self.undo)

        # Owns the menus' actions, so that a language change rebuilds them (rebuild_ui).
        self._chrome = QObject(self)
        actions.build_file_menu(self, self.session)
        actions.build_edit_menu(self, self.undo)
        actions.build_view_menu(self, list(self.docks.values()), self.themes)
        actions.build_help_menu(self)
        self.models = ModelController(self)  # File → Open Model…, attnviz --model DIR
        self.preset_picker = actions.build_toolbar(self)
        self.preset_picker.activated.connect(self._on_q_preset_activated)
        self.hover_label = QLabel()
        self.hover_label.setObjectName("hover_value")
        self.statusBar().addWidget(self.hover_label, 1)
        self.info_label = QLabel()
        self.info_label.setObjectName("state_info")
        self.statusBar().addPermanentWidget(self.info_label)
        self.busy = BusyIndicator(self.resolver, self.statusBar(), self)
        self.statusBar().addPermanentWidget(self.busy)

        #: Open maximized (a projector's or a laptop's screen), see :meth:`fit_screen`.
        self.opens_maximized = False
        self._pending_default = False
        self._intended: tuple[float, float] | None = None
        # The docks' shares of the window, kept so that a large resize splits them again.
        self._split: tuple[QSize, tuple[float, float]] | None = None
        self._split_timer = QTimer(self)
        self._split_timer.setSingleShot(True)
        self._split_timer.setInterval(SPLIT_SETTLE_MS)
        self._split_timer.timeout.connect(self._remember_split)
        self.fit_screen(self.screen().availableGeometry())
        # Dock sizes only take before the first show when a saved layout gives them.
        self._size_on_show = not self._restore_layout()
        self.tabifiedDockWidgetActivated.connect(lambda _dock: self._unelided_tabs())
        self.themes.sigThemeChanged.connect(self._on_q_theme_changed)
        self._on_q_theme_changed(self.themes.theme)
        bind(self, self.state.changed, self._on_state_changed)
        self._on_state_changed(frozenset({"preset_id", "tokens", "d_k"}))
        numbers.set_display_decimals(self.document["display"].decimals)
        bind(self, self.document["display"].changed, self._on_display_changed)
        self.lessons.sigStepChanged.connect(self._on_lesson_step)
        self.lessons.sigFailed.connect(lambda text: self.statusBar().showMessage(text, 8000))

    def _on_display_changed(self, _names: frozenset) -> None:
        """View → Decimals (or a preset, a session, undo): every panel writes its numbers
        again, those of the presentation stage included."""
        decimals = self.document["display"].decimals
        numbers.set_display_decimals(decimals)
        act = getattr(self, "decimals_actions", {}).get(decimals)
        if act is not None:
            act.setChecked(True)
        stage = self.presenter.stage
        for panel in [*self.panels.values(), *(stage.panels.values() if stage else ())]:
            panel.refresh_numbers()

    # --- lessons and languages ---------------------------------------------------------
    def show_lessons(self) -> None:
        """Help → Lessons: bring the lessons dock forward with its list."""
        dock = self.docks.get("lesson")
        if dock is not None:
            dock.show()
            dock.raise_()
            self.panels["lesson"].list.setFocus()

    def _on_lesson_step(self, lesson, index: int, *, raise_docks: bool = True) -> None:
        """Bring the step's panels to the front and spotlight what its caption is about."""
        step = None if lesson is None else lesson.steps[index]
        # While presenting, the stage shows the step: the window's layout stays as it was.
        if step is not None and raise_docks and not self.presenter.active:
            for pid in step.panels:
                dock = self.docks.get(pid)
                if dock is not None:
                    dock.show()
                    dock.raise_()
        heatmap = self.panels.get("heatmap")
        if heatmap is not None:
            heatmap.highlight_step(step)

    def rebuild_ui(self) -> None:
        """Build the menus, toolbar and panels again in the language installed now.

        The workspace, the undo history, the open lesson and the dock layout stay: each
        dock stays where it is and only gets a new panel and title.
        """
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)  # about two seconds
        try:
            self._rebuild()
        finally:
            QApplication.restoreOverrideCursor()

    def _rebuild(self) -> None:
        layout = self.saveState(LAYOUT_VERSION)
        for cls in panel_classes():
            if dict.__contains__(self.panels, cls.PANEL_ID):  # the others are built later
                self._replace_panel(cls)
        self.menuBar().clear()
        for menu in self.menuBar().children():
            if isinstance(menu, QMenu):
                # Later, not at once: a menu bar's menu deleted outright crashes PySide at
                # exit. Nameless meanwhile, so that findChild sees only the new one.
                for old in (menu, *menu.findChildren(QMenu)):
                    old.setObjectName("")
                menu.deleteLater()
        for bar in self.findChildren(QToolBar, "toolbar-main"):
            self.removeToolBar(bar)
            shiboken6.delete(bar)
        # The undo and redo actions follow the history through plain functions: let go of
        # them before the actions go, or the next edit would reach a deleted action.
        stack = self.undo.stack
        for signal in (
            stack.undoTextChanged,
            stack.redoTextChanged,
            stack.canUndoChanged,
            stack.canRedoChanged,
        ):
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect()
        shiboken6.delete(self._chrome)
        self._chrome = QObject(self)
        actions.build_file_menu(self, self.session)
        actions.build_edit_menu(self, self.undo)
        actions.build_view_menu(self, list(self.docks.values()), self.themes)
        actions.build_help_menu(self)
        self.models._install_menu()
        self.preset_picker = actions.build_toolbar(self)
        self.preset_picker.activated.connect(self._on_q_preset_activated)
        self._retranslate_controllers()
        if self.saveState(LAYOUT_VERSION) != layout:
            self.restoreState(layout, LAYOUT_VERSION)
        self._on_q_theme_changed(self.themes.theme)
        self._on_state_changed(frozenset({"preset_id", "tokens", "d_k"}))
        self._on_lesson_step(self.lessons.lesson, self.lessons.index, raise_docks=False)
        self._unelided_tabs()
        self.presenter.retranslate()

    def _replace_panel(self, cls) -> None:
        """A new panel of ``cls`` in its dock (titled again), the old one deleted."""
        pid = cls.PANEL_ID
        dock, old = self.docks[pid], self.panels[pid]
        old_shown = getattr(old, "set_shown", None)
        if old_shown is not None:
            dock.visibilityChanged.disconnect(old_shown)
            old_shown(False)  # stop the lazy resolvers it watched
        dock.setWindowTitle(cls.title())
        self._build_panel(pid)
        shiboken6.delete(old)  # at once: it must not answer the next edit

    def _retranslate_controllers(self) -> None:
        """The texts of the actions the session and model controllers keep across rebuilds."""
        self.session.retranslate()
        self.models.retranslate()

    # --- docks and layout --------------------------------------------------------------
    def _add_panel(self, cls) -> None:
        """A dock for ``cls``; the panel itself is built when the dock is first seen (or
        the panel asked for), so the tabs behind others cost nothing at start-up."""
        pid = cls.PANEL_ID
        dock = QDockWidget(cls.title(), self)
        dock.setObjectName(f"dock-{pid}")
        dock.setWidget(QWidget())
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.addDockWidget(_AREAS[cls.AREA], dock)
        self.docks[pid] = dock
        self._areas[pid] = cls.AREA
        self._classes[pid] = cls
        self._dock_shown[pid] = False
        self.panels.known.add(pid)
        dock.visibilityChanged.connect(lambda on, pid=pid: self._on_q_dock_visible(pid, on))

    def _on_q_dock_visible(self, pid: str, on: bool) -> None:
        self._dock_shown[pid] = on
        if on and not dict.__contains__(self.panels, pid):
            self._build_panel(pid)

    def _build_panel(self, pid: str) -> QWidget:
        """Build the panel ``pid`` into its dock (in the current theme); return it."""
        cls, dock = self._classes[pid], self.docks[pid]
        panel = cls.create(self.workspace, self)
        dict.__setitem__(self.panels, pid, panel)
        placeholder = dock.widget()
        sizes = self._dock_sizes()
        dock.setWidget(panel)
        if placeholder is not None:
            placeholder.deleteLater()
        if sizes:
            # A new panel's size hint would make Qt move the separators (the left column
            # went from 42 % to 32 % of the width when its second tab was first opened).
            self._restore_dock_sizes(sizes)
            QTimer.singleShot(0, self, lambda: self._restore_dock_sizes(sizes))
        apply = getattr(panel, "apply_theme", None)
        if apply is not None and hasattr(self, "themes"):
            apply(self.themes.theme)
        shown = getattr(panel, "set_shown", None)
        if shown is not None:
            # A tab behind another counts as visible to Qt; the dock knows better.
            dock.visibilityChanged.connect(shown)
            shown(self._dock_shown[pid])
        if pid == "heatmap" and hasattr(self, "hover_label"):
            panel.sigHoverText.connect(self.hover_label.setText)
        return panel

    def _dock_sizes(self) -> list[tuple[list, list[int], Qt.Orientation]]:
        """The separators' places now, as :meth:`resizeDocks` takes them (shown docks)."""
        if not self.isVisible():
            return []
        out = []
        left, right, bottom = (self._docks_in(a)[:1] for a in ("left", "right", "bottom"))
        pairs = (
            (left + right, Qt.Orientation.Horizontal),
            (right + bottom, Qt.Orientation.Vertical),
        )
        for docks, orientation in pairs:
            if len(docks) == 2 and all(d.isVisible() and not d.isFloating() for d in docks):
                size = (
                    (lambda d: d.width())
                    if orientation == Qt.Orientation.Horizontal
                    else (lambda d: d.height())
                )
                out.append((docks, [size(d) for d in docks], orientation))
        return out

    def _restore_dock_sizes(self, sizes) -> None:
        for docks, values, orientation in sizes:
            self.resizeDocks(docks, values, orientation)

    def _docks_in(self, area: str) -> list[QDockWidget]:
        """The docks the first layout puts in ``area``, the one in front first."""
        placed = self._placed or self._areas
        docks = [d for p, d in self.docks.items() if placed[p] == area]
        front = COMPACT_FRONT.get(area) if self._placed else None
        return sorted(docks, key=lambda d: d is not self.docks.get(front))

    def compact(self) -> bool:
        """True when the window is too short for the views above the steps in its font
        (a 1280×720 projector; 1920×1080 with Large Fonts): the first layout then puts the
        steps in front on the left and every view in one group on the right, so the
        heatmap keeps most of the height."""
        px = QFontInfo(QApplication.font()).pixelSize()
        return self.height() < COMPACT_LINES * px

    def _place(self) -> None:
        """Where each dock goes in the first layout: its own area, or the compact one."""
        if not self.compact():
            self._placed = {}
            return
        self._placed = {
            pid: (COMPACT_AREAS.get(pid, "right") if area == "bottom" else area)
            for pid, area in self._areas.items()
        }

    def _arrange_default(self) -> None:
        """Editing docks as tabs on the left; the heatmap and the other views as tabs on the
        right, the heatmap in front; the steps under them.

        Tabs rather than stacks keep the window within a 1280×720 projector.
        """
        self._place()
        for dock in self.docks.values():
            self.removeDockWidget(dock)
        for area in ("left", "right"):
            for dock in self._docks_in(area):
                self.addDockWidget(_AREAS[area], dock)
                dock.setFloating(False)
        right, bottom = self._docks_in("right"), self._docks_in("bottom")
        if bottom:
            if right:
                self.splitDockWidget(right[0], bottom[0], Qt.Orientation.Vertical)
            else:
                self.addDockWidget(_AREAS["bottom"], bottom[0])
        for area in ("left", "right", "bottom"):
            docks = self._docks_in(area)
            for dock in docks[1:]:
                self.tabifyDockWidget(docks[0], dock)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        for area in ("left", "right", "bottom"):
            docks = self._docks_in(area)
            if docks:
                docks[0].raise_()
        self._size_default()
        self._unelided_tabs()

    def fit_screen(self, available: QRect) -> None:
        """Size and lay the window out for a screen whose free area is ``available``: a
        screen of :data:`SMALL_SCREEN` pixels wide or less (a hall's 1280×720 projector, a
        laptop) gets the whole of it, maximized; a larger one 90 % of it."""
        self.opens_maximized = available.width() <= SMALL_SCREEN
        if self.opens_maximized:
            self.setGeometry(available)
        else:
            size = QSize(int(available.width() * 0.9), int(available.height() * 0.9))
            self.resize(size)
            self.move(available.center() - self.rect().center())
        self._arrange_default()

    def show_first(self) -> None:
        """Show the window as it opens: maximized when :meth:`fit_screen` said so."""
        if self.opens_maximized and not self.settings.contains("window/geometry"):
            self.showMaximized()
        else:
            self.show()

    def _unelided_tabs(self) -> None:
        """Dock tabs keep their whole titles and scroll when they do not fit ("G…" and
        "H…" side by side tell a lecturer nothing)."""
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
                bar.setExpanding(False)

    def _size_default(self) -> None:
        """The heatmap gets most of the room: about 62 % of the width, 62 % of the height
        (in the compact layout it has the whole height, and the steps beside it more width)."""
        self._apply_split(COMPACT_SPLIT if self._placed else DEFAULT_SPLIT)

    def _apply_split(self, shares: tuple[float, float]) -> None:
        """The left column ``shares[0]`` of the width, the top right group ``shares[1]`` of
        the height (the docks below take the rest)."""
        left, right, bottom = (self._docks_in(a) for a in ("left", "right", "bottom"))
        w, h = self.width(), self.height()
        fx, fy = shares
        if left and right:
            self.resizeDocks(
                [left[0], right[0]], [int(w * fx), int(w * (1 - fx))], Qt.Orientation.Horizontal
            )
        if right and bottom:
            self.resizeDocks(
                [right[0], bottom[0]], [int(h * fy), int(h * (1 - fy))], Qt.Orientation.Vertical
            )
        self._split = None
        # The shares asked for stay the ones to come back to, even where the docks' minimum
        # sizes did not let them take here (a short window squeezes the views).
        self._intended = shares
        self._split_timer.start()

    def _remember_split(self) -> None:
        """Note the docks' shares of the window as they are now (settled): the ones last
        asked for if nothing moved since, else what the user made of them."""
        self._pending_default = False
        intended, self._intended = self._intended, None
        if intended is not None:
            self._split = (self.size(), intended)
            return
        left, right, bottom = (self._docks_in(a)[:1] for a in ("left", "right", "bottom"))
        shown = [d for d in (*left, *right) if d.isVisible() and not d.isFloating()]
        if len(shown) < 2:
            return
        # Shares of the docks' own room (resizeDocks shares it out in these proportions).
        fx = left[0].width() / max(1, left[0].width() + right[0].width())
        below = bottom[0].height() if bottom and bottom[0].isVisible() else 0
        fy = right[0].height() / max(1, right[0].height() + below)
        self._split = (self.size(), (fx, fy))

    def mouseReleaseEvent(self, event) -> None:
        # The window itself gets the mouse only on the separators between docks: a drag
        # there ended, and the shares the user made are the ones to keep.
        super().mouseReleaseEvent(event)
        self._intended = None
        self._split_timer.start()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        split = self._split
        large = (
            old.isValid()
            and old.width() > 0
            and old.height() > 0
            and (
                max(new.width() / old.width(), old.width() / max(1, new.width())) > LARGE_RESIZE
                or max(new.height() / old.height(), old.height() / max(1, new.height()))
                > LARGE_RESIZE
            )
        )
        if self._pending_default:
            QTimer.singleShot(0, self, self._size_default)
        elif large and split is not None and split[0] == old and not self.focused_panel:
            # Qt keeps the docks' pixel sizes and gives the change to one of them: at
            # 1280 → 1000 → 1280 the heatmap would keep ≈180 px. Split again in proportion.
            QTimer.singleShot(0, self, lambda shares=split[1]: self._apply_split(shares))
        else:
            self._split_timer.start()

    def reset_layout(self) -> None:
        """Put every panel back in its first-start place (View → Reset Layout)."""
        self.set_full_screen(False)
        self._focus_saved = None
        self._show_focus_checked(False)
        self._arrange_default()

    # --- one panel alone ---------------------------------------------------------------
    @property
    def focused_panel(self) -> bool:
        """True while one panel is shown alone (:meth:`set_focus_mode`)."""
        return self._focus_saved is not None

    def focus_target(self) -> QDockWidget | None:
        """The dock Focus on Panel would show alone: the one holding the keyboard focus,
        else the panel in front on the right (the heatmap at first start), else any shown."""
        widget = QApplication.focusWidget()
        while widget is not None and not isinstance(widget, QDockWidget):
            widget = widget.parentWidget()
        shown = [dock for pid, dock in self.docks.items() if self._dock_shown[pid]]
        if widget in shown:
            return widget
        for area in ("right", "bottom", "left"):
            for dock in self._docks_in(area):
                if dock in shown:
                    return dock
        return None

    def set_focus_mode(self, on: bool) -> None:
        """Show one panel alone in the window, or every panel back where it was (View →
        Focus on Panel, Ctrl+Shift+F): at 1280×720 a long sequence's map, the tiles or the
        dial get the whole window instead of the third a tab group leaves them."""
        if on == self.focused_panel:
            return
        if on:
            target = self.focus_target()
            if target is not None:
                self._focus_saved = self.saveState(LAYOUT_VERSION)
                for dock in self.docks.values():
                    if dock is not target and not dock.isFloating():
                        dock.hide()
                target.show()
                target.raise_()
        else:
            saved, self._focus_saved = self._focus_saved, None
            self.restoreState(saved, LAYOUT_VERSION)
        self._show_focus_checked(self.focused_panel)

    def _show_focus_checked(self, on: bool) -> None:
        action = getattr(self, "focus_action", None)
        if action is not None:
            with blocked(action):
                action.setChecked(on)

    def _restore_layout(self) -> bool:
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        layout = self.settings.value("window/state")
        return layout is not None and self.restoreState(layout, LAYOUT_VERSION)

    def save_layout(self) -> None:
        """Write the window geometry and dock layout to the settings."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        # With one panel shown alone, the layout it came from (what Focus gives back).
        state = self._focus_saved if self.focused_panel else self.saveState(LAYOUT_VERSION)
        self.settings.setValue("window/state", state)
        self.settings.sync()

    def set_full_screen(self, on: bool) -> None:
        """Enter or leave full screen (View → Full Screen, F11)."""
        if on == self.isFullScreen():
            return
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        with blocked(self.full_screen_action):
            self.full_screen_action.setChecked(on)

    # --- presets, export, about --------------------------------------------------------
    def apply_preset(self, preset_id: str) -> None:
        """Show preset ``preset_id`` (one undo step, with the precision it carries)."""
        with self.undo.merging():
            self.document.restore(document_preset_values(preset_id))

    def _on_q_preset_activated(self, index: int) -> None:
        self.apply_preset(self.preset_picker.itemData(index))

    def show_export_dialog(self) -> None:
        """Open the export dialog for the heatmap (File → Export…)."""
        from attnviz.ui.export_dialog import ExportDialog

        dialog = ExportDialog(self.state, self.resolver, self.themes.theme.name, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        # open(), not exec(): a nested event loop would stall the live panels meanwhile.
        dialog.open()

    def copy_image(self) -> None:
        """Put the heatmap on the clipboard as a 1920×1080 image in the current theme."""
        from attnviz.ui.export import ExportSpec, copy_to_clipboard

        copy_to_clipboard(
            self.state, self.resolver.results, ExportSpec(theme=self.themes.theme.name)
        )
        self.statusBar().showMessage(self.tr("Heatmap copied to the clipboard"), 3000)

    def about(self) -> None:
        """Help → About."""
        show_about(self)

    # --- model and theme events --------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        if "preset_id" in names:
            with blocked(self.preset_picker):
                self.preset_picker.setCurrentIndex(
                    self.preset_picker.findData(self.state.preset_id)
                )
        if names & {"tokens", "d_k", "preset_id"}:
            self.info_label.setText(
                self.tr("n = %1 tokens · d_k = %2")
                .replace("%1", str(self.state.n))
                .replace("%2", str(self.state.d_k))
            )

    def _on_q_theme_changed(self, theme: Theme) -> None:
        for panel in self.panels.values():
            apply = getattr(panel, "apply_theme", None)
            if apply is not None:
                apply(theme)

    def closeEvent(self, event) -> None:
        if not self.session.maybe_save():
            event.ignore()
            return
        self.save_layout()
        # Deleting a window whose history is not clean makes the undo stack emit
        # cleanChanged while the window is half destroyed; nothing may react to it then.
        self.undo.stack.blockSignals(True)
        super().closeEvent(event)

    def showEvent(self, event) -> None:
        self.undo.stack.blockSignals(False)
        super().showEvent(event)
        QTimer.singleShot(0, self, self._unelided_tabs)  # a restored layout makes its own bars
        if self._size_on_show:
            self._size_on_show = False
            # Until the docks settle, a resize (the window manager maximizing the window)
            # lays the first layout out again for the size it ends at.
            self._pending_default = True
            QTimer.singleShot(0, self, self._size_default)
