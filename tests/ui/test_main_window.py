"""The main window: docks with stable names, menus, presets, status bar, layout that persists."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu

from attnviz.model.presets import load_preset
from attnviz.ui.main_window import LAYOUT_VERSION
from attnviz.ui.panels import panel_classes, panel_ids

#: The first window's docks (contracts) and the later panels (one per DESIGN.md row).
DOCKS = {"dock-editor", "dock-controls", "dock-heatmap", "dock-steps", "dock-positions"}


@pytest.fixture
def window(make_window):
    """The window at the size it chooses itself (not resized), shown."""
    return make_window(size=None)


def _action(window, name: str) -> QAction:
    action = window.findChild(QAction, f"action_{name}")
    assert action is not None, name
    return action


def test_every_panel_is_a_dock_with_a_stable_name(window):
    names = {d.objectName() for d in window.findChildren(QDockWidget)}
    assert names >= DOCKS
    assert names == {f"dock-{pid}" for pid in panel_ids()}
    for pid, dock in window.docks.items():
        assert dock.objectName() == f"dock-{pid}"
        panel = window.panels[pid]  # built on first request
        assert dock.widget() is panel
        assert dock.windowTitle() == type(panel).title()
        features = dock.features()
        assert features & QDockWidget.DockWidgetFeature.DockWidgetClosable
        assert features & QDockWidget.DockWidgetFeature.DockWidgetFloatable


def test_a_closed_panel_reopens_from_the_view_menu(window):
    dock = window.docks["steps"]
    dock.close()
    assert dock.isHidden()
    toggle = _action(window, "show_steps")
    assert toggle in window.findChild(QMenu, "menu_view").actions()
    toggle.trigger()
    assert dock.isVisible()


def test_start_up_shows_the_banco_example(window):
    assert window.preset_picker.currentData() == "banco"
    assert window.preset_picker.currentText() == load_preset("banco").title
    heatmap = window.panels["heatmap"]
    assert heatmap.view.cell_texts()[1] == ["0.07", "0.31", "0.62"]
    assert "n = 3" in window.info_label.text()


def test_the_preset_picker_applies_a_preset_as_one_undo_step(window):
    picker = window.preset_picker
    picker.setCurrentIndex(picker.findData("gato"))
    picker.activated.emit(picker.currentIndex())
    gato = load_preset("gato")
    assert window.state.tokens == tuple(gato.tokens) and window.state.causal
    assert window.state.preset_id == "gato"
    window.undo.stack.undo()
    assert window.state.preset_id == "banco" and picker.currentData() == "banco"


def test_hover_value_reaches_the_status_bar(window):
    window.panels["heatmap"].view.hover_cell(1, 2)
    text = window.hover_label.text()
    assert "“banco” → key “praça”" in text
    assert round(float(text.rsplit("=", 1)[1]), 2) == 0.62
    window.panels["heatmap"].view.hover_cell(-1, -1)
    assert window.hover_label.text() == ""


def test_menus_have_the_standard_shortcuts(window):
    def keys(name):
        return _action(window, name).shortcuts()

    assert QKeySequence(QKeySequence.StandardKey.Open) in keys("open")
    assert QKeySequence(QKeySequence.StandardKey.Save) in keys("save")
    assert QKeySequence(QKeySequence.StandardKey.Undo) in keys("undo")
    assert keys("redo")
    assert keys("quit") and keys("full_screen") and keys("export")
    for menu in ("menu_file", "menu_edit", "menu_view", "menu_help"):
        assert window.menuBar().findChild(QMenu, menu) is not None


def test_full_screen_toggles(window):
    _action(window, "full_screen").setChecked(True)
    assert window.windowState() & Qt.WindowState.WindowFullScreen
    _action(window, "full_screen").setChecked(False)
    assert not window.windowState() & Qt.WindowState.WindowFullScreen


def test_focus_shows_one_panel_alone_and_gives_the_layout_back(qtbot, make_window):
    window = make_window(size=None)
    window.resize(760, 690)
    qtbot.wait(20)
    overview = window.docks["overview"]
    overview.raise_()
    qtbot.waitUntil(lambda: window._dock_shown["overview"])
    qtbot.wait(20)  # the panel built on first sight puts the separators back (a deferred call)
    before = {pid: d.isVisible() for pid, d in window.docks.items()}
    height = overview.height()
    _action(window, "focus_panel").setChecked(True)  # Ctrl+Shift+F
    qtbot.wait(20)
    assert window.focused_panel
    assert [pid for pid, d in window.docks.items() if d.isVisible()] == ["overview"]
    assert overview.height() > height + 150  # the steps' share of the height is its own
    # A layout saved meanwhile is the one to come back to, not the focused one.
    window.save_layout()
    _action(window, "focus_panel").setChecked(False)
    qtbot.wait(20)
    assert not window.focused_panel
    assert {pid: d.isVisible() for pid, d in window.docks.items()} == before
    assert abs(overview.height() - height) <= 2
    # The layout saved while focused puts every shown dock where it is now (its bytes may
    # differ in the sizes Qt keeps for the docks behind others).
    shown = {p: d.geometry() for p, d in window.docks.items() if d.isVisible()}
    window.restoreState(QSettings().value("window/state"), LAYOUT_VERSION)
    qtbot.wait(20)
    assert {p: d.geometry() for p, d in window.docks.items() if d.isVisible()} == shown
    # Reset Layout leaves focus as well.
    _action(window, "focus_panel").setChecked(True)
    window.reset_layout()
    assert not window.focused_panel and not _action(window, "focus_panel").isChecked()
    assert window.docks["steps"].isVisible()


def test_the_layout_persists_across_a_new_window(make_window):
    first = make_window(size=None)
    first.resize(760, 690)  # within the 800×800 offscreen screen, so nothing is clamped
    first.docks["steps"].close()
    first.docks["controls"].setFloating(True)
    first.close()  # clean state: no prompt; saves geometry and layout
    settings = QSettings()
    assert settings.value("window/state") is not None
    second = make_window(size=None)
    assert second.docks["steps"].isHidden()
    assert second.docks["controls"].isFloating()
    assert (second.width(), second.height()) == (760, 690)
    second.reset_layout()
    assert second.docks["steps"].isVisible()
    assert not second.docks["controls"].isFloating()


def test_a_layout_of_another_version_is_ignored(make_window):
    first = make_window(size=None)
    first.docks["steps"].close()
    QSettings().setValue("window/state", first.saveState(LAYOUT_VERSION + 1))
    second = make_window(size=None)
    assert second.docks["steps"].isVisible()


def test_unsaved_changes_can_keep_the_window_open(window, monkeypatch):
    window.state.temperature = 2.0
    monkeypatch.setattr(window.session, "maybe_save", lambda: False)
    window.close()
    assert window.isVisible()
    monkeypatch.setattr(window.session, "maybe_save", lambda: True)
    window.close()
    assert not window.isVisible()


def test_theme_override_is_saved_and_restyles_the_heatmap(qtbot, window, make_window):
    assert window.themes.mode == "system"
    _action(window, "theme_dark").trigger()
    assert QSettings().value("view/theme") == "dark"
    view = window.panels["heatmap"].view
    assert view.backgroundBrush().color() == QColor("#1e1f22")
    qtbot.waitUntil(lambda: window.palette().window().color().lightness() < 80)
    second = make_window(size=None)
    assert second.themes.mode == "dark"
    _action(second, "theme_light").trigger()
    assert second.panels["heatmap"].view.backgroundBrush().color() == QColor("#ffffff")


def test_large_fonts_grow_the_heatmap_labels(window):
    view = window.panels["heatmap"].view
    before = view._font.pixelSize()
    _action(window, "large_fonts").setChecked(True)
    assert view._font.pixelSize() > before
    assert QSettings().value("view/large_fonts", type=bool) is True
    _action(window, "large_fonts").setChecked(False)
    assert view._font.pixelSize() == before


def test_export_and_copy_from_the_menu(qtbot, window):
    from PySide6.QtGui import QGuiApplication

    from attnviz.ui.export_dialog import ExportDialog

    _action(window, "export").trigger()
    dialog = window.findChild(ExportDialog)
    assert dialog is not None and dialog.isVisible()  # non-blocking: the panels stay live
    dialog.reject()
    _action(window, "copy_image").trigger()
    image = QGuiApplication.clipboard().image()
    assert (image.width(), image.height()) == (1920, 1080)


def test_the_startup_benchmark_reaches_a_painted_window():
    from attnviz.benchmarks.ui import startup

    result = startup(quick=True)
    assert result["runs"] == 1 and 0 < result["seconds"] == result["best_seconds"]


def test_panel_modules_are_named_by_their_ids():
    # `attnviz export` lists the panels from the module names, without importing Qt.
    from attnviz.commands.export import panel_ids as cli_panel_ids

    for cls in panel_classes():
        assert cls.__module__ == f"attnviz.ui.panels.{cls.PANEL_ID}"
    assert set(cli_panel_ids()) == set(panel_ids())


@pytest.mark.parametrize("lang", ["en", "pt_BR"])
def test_steps_one_to_four_and_the_verdict_fit_1280x720_in_large_type(
    qtbot, qapp, lang, make_window
):
    """Issue 8, item 13: a lecturer at 1280×720 with large fonts sees ① to ④ and the verdict
    without scrolling."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QScrollArea

    from attnviz.ui import language

    language.install_translations(qapp, lang)
    try:
        w = make_window(large_fonts=True)
        w.reset_layout()
        qtbot.wait(50)
        too_big = {
            pid: (d.minimumSizeHint().width(), d.minimumSizeHint().height())
            for pid, d in w.docks.items()
            if d.minimumSizeHint().width() > 600 or d.minimumSizeHint().height() > 320
        }
        assert (w.width(), w.height()) == (1280, 720), f"docks too large for 1280×720: {too_big}"
        steps = w.panels["steps"]
        viewport = steps.findChild(QScrollArea).viewport()
        window = w.rect()
        for widget in (steps.table, steps.mix, steps.verdict):
            assert widget.isVisible() and widget.height() > 0
            rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
            assert viewport.rect().contains(rect), (widget.objectName(), rect, viewport.rect())
            assert window.contains(QRect(widget.mapTo(w, QPoint(0, 0)), widget.size()))
        # The rows ① ② ③ and ④ themselves lie inside their tables' visible parts.
        for table, rows in ((steps.table, 3), (steps.mix, 1)):
            assert table.rowCount() == rows
            for r in range(rows):
                cell = table.visualRect(table.model().index(r, 0))
                assert table.viewport().rect().contains(cell), (table.objectName(), r)
        labels = steps.table.row_labels() + steps.mix.row_labels()
        assert [s[0] for s in labels] == ["①", "②", "③", "④"]
        assert steps.verdict.text()
        w.themes.set_large_fonts(False)
    finally:
        language.install_translations(qapp, "en")


def test_panels_behind_other_tabs_are_built_when_first_seen(window, qtbot):
    built = set(dict.keys(window.panels))
    assert {"editor", "heatmap", "steps"} <= built  # the tabs in front
    assert "overview" not in built and "layers" not in built  # start-up did not pay for them
    window.docks["overview"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "overview"), timeout=3000)
    assert window.docks["overview"].widget() is window.panels["overview"]
