"""The main window: every panel is a dock widget around one workspace (document + resolvers).

Docks have stable, untranslated object names (``dock-<PANEL_ID>``) so the layout saved in
``QSettings`` (with :data:`LAYOUT_VERSION`) comes back on the next start, and panels can be
floated, tabbed, closed and reopened from the View menu. Menus and the toolbar are built
in :mod:`attnviz.ui.actions`.
"""

from __future__ import annotations

import contextlib

import shiboken6
from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMenu,
    QToolBar,
    QWidget,
)

from attnviz.model.lesson_player import LessonPlayer
from attnviz.model.panels import panel_ids, panel_spec
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace
from attnviz.ui import actions
from attnviz.ui.busy import BusyIndicator
from attnviz.ui.lesson_text import lesson_step_label
from attnviz.ui.model_loader import ModelController
from attnviz.ui.panels import panel_class, panel_title
from attnviz.ui.presenter import Presenter
from attnviz.ui.preset_picker import show_current
from attnviz.ui.sessions import SessionController
from attnviz.ui.theme import Theme, ThemeManager
from attnviz.ui.undo import UndoController
from attnviz.ui.widgets import numbers
from attnviz.ui.widgets.binding import bind, blocked
from attnviz.ui.widgets.numbers import counted
from attnviz.ui.window_layout import DOCK_AREAS, LAYOUT_VERSION, WindowLayout
from attnviz.ui.workers import qt_runner

__all__ = ["LAYOUT_VERSION", "MainWindow", "PanelMap"]

#: The panel a topic's preset is seen in: picking one brings it forward.
PRESET_PANELS = {"positions": "positions"}
#: The panels a model's sentence brings forward (in their groups, side by side).
MODEL_PANELS = ("layers", "heatmap")


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


class MainWindow(WindowLayout, QMainWindow):
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
        self.lessons = LessonPlayer(self.workspace, self.undo, lesson_step_label)
        self.presenter = Presenter(self, self.lessons)
        self.panels = PanelMap(self._build_panel)
        self.docks: dict[str, QDockWidget] = {}
        self._areas: dict[str, str] = {}
        self._placed: dict[str, str] = {}  # the compact layout's areas, when it is used
        self._dock_shown: dict[str, bool] = {}
        # The layout to go back to while one panel is shown alone (View → Focus on Panel).
        self._focus_saved: QByteArray | None = None
        for pid in panel_ids():
            self._add_panel(pid)
        self.session = SessionController(self, self.document, self.undo)

        # Owns the menus' actions, so that a language change rebuilds them (rebuild_ui).
        self._chrome = QObject(self)
        actions.build_file_menu(self, self.session)
        actions.build_edit_menu(self, self.undo)
        actions.build_view_menu(self, list(self.docks.values()), self.themes)
        actions.build_help_menu(self)
        self.models = ModelController(self)  # File → Open Model…, attnviz --model DIR
        self.models.sigCaptured.connect(self._on_q_model_captured)
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

        self._init_layout()
        self.fit_screen(self.screen().availableGeometry())
        # Dock sizes only take before the first show when a saved layout gives them.
        self._size_on_show = not self._restore_layout()
        self.tabifiedDockWidgetActivated.connect(self._on_q_tab_activated)
        self.themes.sigThemeChanged.connect(self._on_q_theme_changed)
        self._on_q_theme_changed(self.themes.theme)
        self._positions_picked = False  # the picker shows the RoPE preset picked last
        bind(self, self.state.changed, self._on_state_changed)
        bind(self, self.document["positions"].changed, self._on_positions_changed)
        self._on_state_changed(frozenset({"preset_id", "tokens", "d_k"}))
        numbers.set_display_decimals(self.document["display"].decimals)
        bind(self, self.document["display"].changed, self._on_display_changed)
        bind(self, self.lessons.sigStepChanged, self._on_lesson_step)
        bind(self, self.lessons.sigFailed, self._on_lesson_failed)

    def _on_lesson_failed(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    def _on_display_changed(self, names: frozenset) -> None:
        """View → Decimals (or a preset, a session, undo): every panel writes its numbers
        again, those of the presentation stage included."""
        if "compare" in names:
            act = getattr(self, "compare_actions", {}).get(self.document["display"].compare)
            if act is not None:
                act.setChecked(True)
        if "decimals" not in names:
            return  # display.compare: the heatmap and the layers grid follow it themselves
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
        dock = self.docks.get("lessons")
        if dock is not None:
            dock.show()
            dock.raise_()
            self.panels["lessons"].list.setFocus()

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
        for panel in self.panels.values():  # those built; the others show none yet
            panel.highlight_step(step)

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
        for pid, dock in self.docks.items():
            dock.setWindowTitle(panel_title(pid))
            if dict.__contains__(self.panels, pid):  # the others are built later
                self._replace_panel(pid)
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

    def _replace_panel(self, pid: str) -> None:
        """A new panel ``pid`` in its dock, the old one deleted."""
        dock, old = self.docks[pid], self.panels[pid]
        dock.visibilityChanged.disconnect(old.set_shown)
        old.set_shown(False)  # stop the lazy resolvers it watched
        self._build_panel(pid)
        shiboken6.delete(old)  # at once: it must not answer the next edit

    def _retranslate_controllers(self) -> None:
        """The texts of the actions the session and model controllers keep across rebuilds."""
        self.session.retranslate()
        self.models.retranslate()

    # --- docks and layout --------------------------------------------------------------
    def _add_panel(self, pid: str) -> None:
        """A dock for panel ``pid``; the panel itself (and its module) is built when the
        dock is first seen or the panel asked for, so the tabs behind others cost nothing
        at start-up."""
        dock = QDockWidget(panel_title(pid), self)
        dock.setObjectName(f"dock-{pid}")
        dock.setWidget(QWidget())
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable
            | QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        area = panel_spec(pid).area
        self.addDockWidget(DOCK_AREAS[area], dock)
        self.docks[pid] = dock
        self._areas[pid] = area
        self._dock_shown[pid] = False
        self.panels.known.add(pid)
        dock.visibilityChanged.connect(lambda on, pid=pid: self._on_q_dock_visible(pid, on))

    def _on_q_dock_visible(self, pid: str, on: bool) -> None:
        self._dock_shown[pid] = on
        if on and not dict.__contains__(self.panels, pid):
            self._build_panel(pid)

    def _on_q_model_captured(self, _capture) -> None:
        """A model's sentence is in: its layers grid and the head's matrix, side by side."""
        for pid in MODEL_PANELS:
            dock = self.docks.get(pid)
            if dock is not None:
                dock.show()
                dock.raise_()

    def _on_q_tab_activated(self, _dock) -> None:
        self._unelided_tabs()
        # After the new panel's first layout: its width asked for is known then.
        QTimer.singleShot(0, self, self.fit_fronts)

    def _build_panel(self, pid: str) -> QWidget:
        """Build the panel ``pid`` into its dock (in the current theme); return it."""
        dock = self.docks[pid]
        panel = panel_class(pid).create(self.workspace, self)
        dict.__setitem__(self.panels, pid, panel)
        # Styled before it takes its dock's size, as before that size was given: the
        # heatmap measures its colour bar's axis when styled, and must measure it as it
        # always did for the window to look as it did.
        if hasattr(self, "themes"):
            panel.apply_theme(self.themes.theme)
        placeholder = dock.widget()
        sizes = self._dock_sizes()
        if placeholder is not None and placeholder.testAttribute(Qt.WidgetAttribute.WA_Resized):
            # The room the dock has already laid out: built while the window is first
            # shown, the panel would otherwise be laid out (plots fitted, labels placed)
            # at a default 100 × 30 first and at its real size just after.
            panel.resize(placeholder.size())
        dock.setWidget(panel)
        if placeholder is not None:
            placeholder.deleteLater()
        if sizes:
            # A new panel's size hint would make Qt move the separators (the left column
            # went from 42 % to 32 % of the width when its second tab was first opened).
            self._restore_dock_sizes(sizes)
            QTimer.singleShot(0, self, lambda: self._restore_dock_sizes(sizes))
        # A tab behind another counts as visible to Qt; the dock knows better.
        dock.visibilityChanged.connect(panel.set_shown)
        panel.set_shown(self._dock_shown[pid])
        if hasattr(self, "hover_label"):
            panel.sigHoverText.connect(self.hover_label.setText)
        if self.lessons.step is not None and not self.presenter.active:
            panel.highlight_step(self.lessons.step)  # built after the step was shown
        return panel

    # --- presets, export, about --------------------------------------------------------
    def apply_preset(self, preset_id: str) -> None:
        """Show preset ``preset_id`` (one undo step, with the precision it carries); a
        topic's preset (RoPE settings) brings its panel forward."""
        values = document_preset_values(preset_id)
        self._positions_picked = "positions" in values
        with self.undo.merging():
            self.document.restore(values)
        for topic in values:
            pid = PRESET_PANELS.get(topic)
            if pid in self.docks:
                self.docks[pid].show()
                self.docks[pid].raise_()
        self._show_preset()

    def _on_q_preset_activated(self, index: int) -> None:
        preset_id = self.preset_picker.itemData(index)
        if preset_id:
            self.apply_preset(preset_id)
        else:
            self._show_preset()  # a heading or the "—" entry: nothing to apply

    def _show_preset(self) -> None:
        with blocked(self.preset_picker):
            show_current(self.preset_picker, self.document, positions_first=self._positions_picked)

    def show_export_dialog(self) -> None:
        """Open the export dialog for the heatmap (File → Export…)."""
        from attnviz.ui.export_dialog import ExportDialog

        dialog = ExportDialog(self.state, self.resolver, self.themes.theme.name, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        # open(), not exec(): a nested event loop would stall the live panels meanwhile.
        dialog.open()

    def show_animation_dialog(self) -> None:
        """File → Export Animation…: the current panel (the one Focus on Panel would show)
        while a field sweeps; drawn on a copy of the document."""
        from attnviz.ui.animation_dialog import AnimationDialog

        dock = self.focus_target()
        pid = dock.objectName().removeprefix("dock-") if dock is not None else "heatmap"
        dialog = AnimationDialog(self.document, pid, self.themes.theme.name, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
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
        from attnviz.ui.about import show_about  # only when asked: not on the way to the window

        show_about(self)

    # --- model and theme events --------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        if names & {"preset_id", "head", "model_path", "model_text"}:
            if "preset_id" in names:
                self._positions_picked = False  # the sentence changed last
            self._show_preset()
        if names & {"tokens", "value_labels", "selected_query"}:
            QTimer.singleShot(0, self, self.fit_fronts)  # the steps' keys came or went
        if names & {"tokens", "d_k", "preset_id"}:
            self.info_label.setText(
                self.tr("n = %1 · d_k = %2")
                .replace("%1", counted(self.tr("%n token(s)", "", self.state.n), self.state.n))
                .replace("%2", str(self.state.d_k))
            )

    def _on_positions_changed(self, names: frozenset) -> None:
        if "preset_id" in names:
            self._show_preset()

    def _on_q_theme_changed(self, theme: Theme) -> None:
        for panel in self.panels.values():
            panel.apply_theme(theme)

    def closeEvent(self, event) -> None:
        if not self.session.maybe_save():
            event.ignore()
            return
        self.save_layout()
        if self.models.train_dialog is not None:  # a run would go on, unseen, for minutes
            self.models.train_dialog.cancel()
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
