"""Menus, actions and the toolbar of the main window.

Kept apart from :mod:`attnviz.ui.main_window` so the window module holds behaviour and
this one holds the wiring. Every action has a stable, untranslated ``objectName``
(``action_<name>``) so tests and scripts can find it whatever the language.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QMainWindow, QMenu, QToolBar

from attnviz.model.topics.display import MAX_DECIMALS, MIN_DECIMALS
from attnviz.ui import language
from attnviz.ui.preset_picker import fill_picker
from attnviz.ui.theme import MODES


def _owner(window):
    """What the actions of the menus belong to: the window's ``_chrome`` object when it has
    one, so that rebuilding the menus in another language drops the old actions at once."""
    return getattr(window, "_chrome", None) or window


def _action(window, name: str, text: str, slot=None, shortcut=None, tip: str = "") -> QAction:
    action = QAction(text, _owner(window))
    action.setObjectName(f"action_{name}")
    if shortcut is not None:
        if isinstance(shortcut, QKeySequence.StandardKey):
            action.setShortcuts(QKeySequence.keyBindings(shortcut))
        else:
            action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
        action.setToolTip(tip)
    if slot is not None:
        action.triggered.connect(slot)
    return action


def build_file_menu(window: QMainWindow, session) -> QMenu:
    """File: Open, Save, Save As, recent files, Export…, Export Animation…, Copy image,
    Quit."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&File"))
    menu.setObjectName("menu_file")
    if session is not None:
        for name, action in (
            ("open", session.open_action),
            ("save", session.save_action),
            ("save_as", session.save_as_action),
        ):
            if not action.objectName():
                action.setObjectName(f"action_{name}")
            menu.addAction(action)
        if not session.recent_menu.objectName():
            session.recent_menu.setObjectName("menu_recent")
        menu.addMenu(session.recent_menu)
        menu.addSeparator()
    window.export_action = _action(
        window,
        "export",
        QCoreApplication.translate("MainWindow", "&Export…"),
        window.show_export_dialog,
        "Ctrl+E",
        QCoreApplication.translate(
            "MainWindow",
            "Save the heatmap as PNG or SVG at slide size, or its matrix as CSV or NPY",
        ),
    )
    menu.addAction(window.export_action)
    window.export_animation_action = _action(
        window,
        "export_animation",
        QCoreApplication.translate("MainWindow", "Export A&nimation…"),
        window.show_animation_dialog,
        "Ctrl+Shift+E",
        QCoreApplication.translate(
            "MainWindow",
            "Save a panel as GIF, WebP, APNG or MP4 while one of its fields sweeps",
        ),
    )
    menu.addAction(window.export_animation_action)
    window.copy_image_action = _action(
        window,
        "copy_image",
        QCoreApplication.translate("MainWindow", "&Copy Heatmap Image"),
        window.copy_image,
        "Ctrl+Shift+C",
        QCoreApplication.translate(
            "MainWindow", "Copy the heatmap as a 1920×1080 image to the clipboard"
        ),
    )
    menu.addAction(window.copy_image_action)
    menu.addSeparator()
    quit_action = _action(
        window,
        "quit",
        QCoreApplication.translate("MainWindow", "&Quit"),
        window.close,
        QKeySequence.StandardKey.Quit,
    )
    if quit_action.shortcut().isEmpty():  # Windows has no standard Quit key
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    menu.addAction(quit_action)
    return menu


def build_edit_menu(window: QMainWindow, undo) -> QMenu:
    """Edit: Undo and Redo (from the undo controller, when there is one)."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Edit"))
    menu.setObjectName("menu_edit")
    if undo is not None:
        menu.addAction(undo.create_undo_action(_owner(window)))
        menu.addAction(undo.create_redo_action(_owner(window)))
    return menu


def build_view_menu(window: QMainWindow, docks, themes) -> QMenu:
    """View: one toggle per panel, Reset layout, Full screen, Focus on panel, Theme, Large
    fonts, Language."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&View"))
    menu.setObjectName("menu_view")
    for dock in docks:
        toggle = dock.toggleViewAction()
        toggle.setObjectName(f"action_show_{dock.objectName().removeprefix('dock-')}")
        menu.addAction(toggle)
    menu.addSeparator()
    menu.addAction(
        _action(
            window,
            "reset_layout",
            QCoreApplication.translate("MainWindow", "&Reset Layout"),
            window.reset_layout,
            tip=QCoreApplication.translate(
                "MainWindow", "Put every panel back where it was at first start"
            ),
        )
    )
    full = _action(
        window,
        "full_screen",
        QCoreApplication.translate("MainWindow", "&Full Screen"),
        None,
        QKeySequence.StandardKey.FullScreen,
    )
    if full.shortcut().isEmpty():
        full.setShortcut(QKeySequence("F11"))
    full.setCheckable(True)
    full.toggled.connect(window.set_full_screen)
    window.full_screen_action = full
    menu.addAction(full)
    focus = _action(
        window,
        "focus_panel",
        QCoreApplication.translate("MainWindow", "Foc&us on Panel"),
        None,
        "Ctrl+Shift+F",
        tip=QCoreApplication.translate(
            "MainWindow",
            "Show the current panel alone in the window; again to bring the others back",
        ),
    )
    focus.setCheckable(True)
    focus.setChecked(getattr(window, "focused_panel", False))
    focus.toggled.connect(window.set_focus_mode)
    window.focus_action = focus
    menu.addAction(focus)
    presenter = getattr(window, "presenter", None)
    if presenter is not None:
        build_presentation_actions(window, menu, presenter)
    menu.addSeparator()
    theme_menu = menu.addMenu(QCoreApplication.translate("MainWindow", "&Theme"))
    theme_menu.setObjectName("menu_theme")
    group = QActionGroup(_owner(window))
    names = {
        "system": QCoreApplication.translate("MainWindow", "Follow the &System"),
        "light": QCoreApplication.translate("MainWindow", "&Light"),
        "dark": QCoreApplication.translate("MainWindow", "&Dark"),
    }
    for mode in MODES:
        act = _action(window, f"theme_{mode}", names[mode])
        act.setCheckable(True)
        act.setChecked(themes.mode == mode)
        act.triggered.connect(lambda _=False, m=mode: themes.set_mode(m))
        group.addAction(act)
        theme_menu.addAction(act)
    large = _action(
        window,
        "large_fonts",
        QCoreApplication.translate("MainWindow", "&Large Fonts (Projector)"),
        tip=QCoreApplication.translate(
            "MainWindow", "Bigger text everywhere, for the back row of a lecture hall"
        ),
    )
    large.setShortcut(QKeySequence("Ctrl+Shift+L"))
    large.setCheckable(True)
    large.setChecked(themes.large_fonts)
    large.toggled.connect(themes.set_large_fonts)
    menu.addAction(large)
    build_decimals_menu(window, menu)
    build_compare_menu(window, menu)
    build_language_menu(window, menu)
    return menu


def build_compare_menu(window: QMainWindow, view_menu: QMenu) -> QMenu:
    """View → Before / After: what the heatmap and the layers grid show of a real model
    with the prediction's interventions (``display.compare``, undoable)."""
    menu = view_menu.addMenu(QCoreApplication.translate("MainWindow", "Before / &After"))
    menu.setObjectName("menu_compare")
    display = window.document["display"]
    group = QActionGroup(_owner(window))
    choices = (
        ("clean", QCoreApplication.translate("MainWindow", "&Clean run")),
        ("intervened", QCoreApplication.translate("MainWindow", "&Intervened run")),
        (
            "difference",
            QCoreApplication.translate("MainWindow", "Intervened − clean (&difference)"),
        ),
    )
    tip = QCoreApplication.translate(
        "MainWindow",
        "The heatmap and the layers grid of a real model, with the prediction panel's "
        "ablated heads and knocked-out links",
    )
    actions = {}
    for value, text in choices:
        act = _action(window, f"compare_{value}", text, tip=tip)
        act.setCheckable(True)
        act.triggered.connect(lambda _=False, v=value: display.update(compare=v))
        group.addAction(act)
        menu.addAction(act)
        actions[value] = act
        act.setChecked(display.compare == value)
    # The window checks the one in force when the field changes (undo, a session).
    window.compare_actions = actions
    return menu


def build_decimals_menu(window: QMainWindow, view_menu: QMenu) -> QMenu:
    """View → Decimals: automatic, or 2 to 6 at least (``display.decimals``, undoable)."""
    menu = view_menu.addMenu(QCoreApplication.translate("MainWindow", "&Decimals"))
    menu.setObjectName("menu_decimals")
    display = window.document["display"]
    group = QActionGroup(_owner(window))
    choices = [(0, QCoreApplication.translate("MainWindow", "&Automatic"))]
    choices += [(d, f"&{d}") for d in range(MIN_DECIMALS, MAX_DECIMALS + 1)]
    tips = {
        0: QCoreApplication.translate(
            "MainWindow", "Enough decimals to tell the numbers shown apart (2 to 6)"
        ),
    }
    actions = {}
    for value, text in choices:
        act = _action(
            window,
            f"decimals_{value}",
            text,
            tip=tips.get(
                value,
                QCoreApplication.translate(
                    "MainWindow", "At least %1 decimals (more where a weight would read 0)"
                ).replace("%1", str(value)),
            ),
        )
        act.setCheckable(True)
        act.triggered.connect(lambda _=False, v=value: display.update(decimals=v))
        group.addAction(act)
        menu.addAction(act)
        actions[value] = act
        act.setChecked(display.decimals == value)
    # The window checks the one in force when the field changes (undo, a preset, a session).
    window.decimals_actions = actions
    return menu


def build_presentation_actions(window: QMainWindow, view_menu: QMenu, presenter) -> None:
    """View → Presentation (F5) and View → Present On (the screens, when there are several)."""
    present = _action(
        window,
        "present",
        QCoreApplication.translate("MainWindow", "&Presentation"),
        presenter.toggle,
        "F5",
        QCoreApplication.translate(
            "MainWindow",
            "The open lesson full screen for a lecture hall: → or PageDown steps on (past the "
            "last step, to the next lesson), ← or PageUp back, L lists the lessons, B blacks "
            "the screen, Esc leaves",
        ),
    )
    view_menu.addAction(present)
    screens = view_menu.addMenu(QCoreApplication.translate("MainWindow", "Present &On"))
    screens.setObjectName("menu_present_on")

    def fill() -> None:
        screens.clear()
        for i, screen in enumerate(QApplication.screens()):
            size = screen.geometry()
            act = screens.addAction(f"&{i + 1} {screen.name()} ({size.width()}×{size.height()})")
            act.setObjectName(f"action_present_on_{i}")
            act.triggered.connect(lambda _=False, s=screen: presenter.enter(s))

    screens.aboutToShow.connect(fill)
    fill()
    screens.menuAction().setVisible(len(QApplication.screens()) > 1)


def build_language_menu(window: QMainWindow, view_menu: QMenu) -> QMenu:
    """View → Language: the system's, or one of the shipped languages by its own name."""
    menu = view_menu.addMenu(QCoreApplication.translate("MainWindow", "La&nguage"))
    menu.setObjectName("menu_language")
    group = QActionGroup(_owner(window))
    # Each language is named in itself, with a fixed accelerator: &English, &Português.
    names = {"system": QCoreApplication.translate("MainWindow", "Follow the &System")}
    names |= {code: "&" + name for code, name in language.LANGUAGES.items()}
    saved = language.saved_choice(window.settings)
    for choice in language.CHOICES:
        act = _action(window, f"language_{choice}", names[choice])
        act.setCheckable(True)
        act.setChecked(choice == saved)
        act.triggered.connect(lambda _=False, c=choice: language.choose(window, c, window.settings))
        group.addAction(act)
        menu.addAction(act)
    return menu


def build_help_menu(window: QMainWindow) -> QMenu:
    """Help: About."""
    menu = window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Help"))
    menu.setObjectName("menu_help")
    show_lessons = getattr(window, "show_lessons", None)
    if show_lessons is not None:
        menu.addAction(
            _action(
                window,
                "lessons",
                QCoreApplication.translate("MainWindow", "&Lessons"),
                show_lessons,
                tip=QCoreApplication.translate(
                    "MainWindow", "Guided lessons through every section of the documents"
                ),
            )
        )
    about = _action(
        window, "about", QCoreApplication.translate("MainWindow", "&About attnviz"), window.about
    )
    about.setMenuRole(QAction.MenuRole.AboutRole)
    menu.addAction(about)
    return menu


def build_toolbar(window: QMainWindow) -> QComboBox:
    """The main toolbar: the preset picker and Export; returns the preset combo box."""
    bar = QToolBar(QCoreApplication.translate("MainWindow", "Main Toolbar"), window)
    bar.setObjectName("toolbar-main")
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    label = QLabel(QCoreApplication.translate("MainWindow", "&Preset: "))
    combo = QComboBox()
    combo.setObjectName("preset_picker")
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setToolTip(
        QCoreApplication.translate("MainWindow", "Load one of the documents' worked examples")
    )
    fill_picker(combo)
    label.setBuddy(combo)
    bar.addWidget(label)
    bar.addWidget(combo)
    bar.addSeparator()
    bar.addAction(window.export_action)
    return combo
