"""The UI language: English (the source text) or Brazilian Portuguese.

Which one is used, first match wins:

1. the ``ATTNVIZ_LANG`` environment variable (``pt_BR``, ``en``, …), handy for screenshots
   and tests;
2. the choice made in View → Language, kept in ``QSettings`` under :data:`SETTING`;
3. the system's preferred UI languages (any Portuguese gets ``pt_BR``; anything we do not
   ship gets English).

Translators are installed at start-up (:func:`install_translations`), together with the way
numbers are written (a decimal comma in Portuguese, :func:`use_number_format`). A choice made
in the menu is saved and applies at once (:func:`switch`): the new translators are installed
and the window rebuilds its menus and panels in place (``MainWindow.rebuild_ui``), because
the panels set their texts when they are built; retranslating every widget by hand would
leave some of them in the old language. The workspace, the undo history, the open lesson
and the dock layout survive the rebuild.
"""

from __future__ import annotations

import os

from PySide6.QtCore import (
    QCoreApplication,
    QLibraryInfo,
    QLocale,
    QSettings,
    Qt,
    QTimer,
    QTranslator,
)
from PySide6.QtWidgets import QMessageBox

from attnviz.paths import resource
from attnviz.ui.widgets import numbers

#: Shipped languages and their names in their own language (never translated, so that
#: a user lost in a language they cannot read still finds their own).
LANGUAGES = {"en": "English", "pt_BR": "Português (Brasil)"}
#: The menu choices: the system's language, or one of :data:`LANGUAGES`.
CHOICES = ("system", *LANGUAGES)
SETTING = "view/language"
ENV = "ATTNVIZ_LANG"
#: Translation catalogues of Qt itself (standard buttons, file dialogs, context menus).
QT_CATALOGUES = ("qtbase",)

_installed: list[QTranslator] = []
_active = "en"


def normalize(code: str | None) -> str | None:
    """The shipped language a code such as ``pt-BR``, ``pt_PT.UTF-8`` or ``en_GB`` means.

    Any Portuguese gets ``pt_BR`` (closer than English for a reader in Portugal too);
    English, ``C`` and ``POSIX`` get ``en``; ``system``, empty or unknown codes give None.
    """
    if not code:
        return None
    base = code.split(".")[0].split("@")[0].replace("-", "_").lower()
    lang = base.split("_")[0]
    if lang == "pt":
        return "pt_BR"
    if lang in ("en", "c", "posix"):
        return "en"
    return None


def system_language() -> str:
    """The first of the system's preferred UI languages that we ship, else English."""
    for code in QLocale.system().uiLanguages():
        lang = normalize(code)
        if lang is not None:
            return lang
    return "en"


def saved_choice(settings: QSettings | None = None) -> str:
    """The choice saved by View → Language: ``"system"`` or a key of :data:`LANGUAGES`."""
    settings = settings if settings is not None else QSettings()
    choice = str(settings.value(SETTING, "system"))
    return choice if choice in CHOICES else "system"


def env_language() -> str | None:
    """The language forced by ``ATTNVIZ_LANG``, or None when it is unset.

    An unknown code there means English: the variable is an explicit request, and English is
    what every string falls back to anyway.
    """
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    return normalize(value) or "en"


def export_language(given: str | None) -> str:
    """The language of a picture made from the command line: ``--lang`` when given, else
    ``ATTNVIZ_LANG`` as the app follows it, else English (never the saved menu choice:
    a script's output must not depend on what someone last clicked)."""
    return given or env_language() or "en"


def resolve_language(settings: QSettings | None = None, choice: str | None = None) -> str:
    """The language to run in: ``ATTNVIZ_LANG``, else ``choice`` (the saved one by default)."""
    forced = env_language()
    if forced is not None:
        return forced
    choice = saved_choice(settings) if choice is None else choice
    return system_language() if choice == "system" else choice


def active_language() -> str:
    """The language whose translators are installed now (``"en"`` before any)."""
    return _active


def install_translations(app, lang: str) -> bool:
    """Install the translators of ``lang`` (and remove those installed before).

    Loads ``resources/translations/attnviz_<lang>.qm`` and Qt's own catalogues for the
    standard buttons and dialogs. English needs none: it is the source text. Returns whether
    attnviz's own catalogue was found (always True for English).
    """
    global _active
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    _active = "en"
    use_number_format("en")
    if lang == "en":
        return True
    ours = QTranslator(app)
    if not ours.load(f"attnviz_{lang}", str(resource("translations"))):
        return False
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    for catalogue in QT_CATALOGUES:
        qt = QTranslator(app)
        if qt.load(f"{catalogue}_{lang}", qt_dir):
            app.installTranslator(qt)
            _installed.append(qt)
    app.installTranslator(ours)
    _installed.append(ours)
    _active = lang
    use_number_format(lang)
    return True


def use_number_format(lang: str) -> None:
    """Write and read numbers on screen as ``lang`` does: ``0,85`` in Portuguese.

    Sets the decimal separator of :mod:`attnviz.ui.widgets.numbers` and Qt's default
    locale, which spin boxes display and parse with, so that what a spin box shows agrees
    with the labels beside it. Files and the command line are not affected.
    """
    if lang == "pt_BR":
        locale = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
    else:
        locale = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    # "1.000" must never read as a thousand in a spin box.
    locale.setNumberOptions(QLocale.NumberOption.OmitGroupSeparator)
    QLocale.setDefault(locale)
    numbers.set_decimal_separator(locale.decimalPoint())


def switch(window, lang: str) -> bool:
    """Run in ``lang`` from now on: install its translators, then rebuild ``window`` in it.

    The rebuild waits for the event loop: the menu action that asked for it belongs to the
    menus being rebuilt. Returns False (and keeps the running language) when the catalogue
    of ``lang`` cannot be loaded.
    """
    app = QCoreApplication.instance()
    previous = active_language()
    if not install_translations(app, lang):
        install_translations(app, previous)
        return False
    rebuild = getattr(window, "rebuild_ui", None)
    if rebuild is not None:
        QTimer.singleShot(0, window, rebuild)
    return True


def choose(window, choice: str, settings: QSettings | None = None) -> QMessageBox | None:
    """Save a View → Language choice and switch to it at once (:func:`switch`).

    Returns the (non-modal) message box shown when the choice cannot apply now (the
    ``ATTNVIZ_LANG`` environment variable overrides it, or the catalogue is missing), else
    None.
    """
    if choice not in CHOICES:
        raise ValueError(f"unknown language {choice!r}; expected one of {', '.join(CHOICES)}")
    settings = settings if settings is not None else QSettings()
    settings.setValue(SETTING, choice)
    forced = env_language()
    wanted = system_language() if choice == "system" else choice
    if forced is None and wanted == active_language():
        return None
    if forced is None:
        if switch(window, wanted):
            return None
        text = QCoreApplication.translate(
            "Language", "The translation into this language could not be loaded."
        )
    else:
        text = QCoreApplication.translate(
            "Language",
            "The choice is saved, but the ATTNVIZ_LANG environment variable (%1) "
            "overrides it while it is set.",
        ).replace("%1", os.environ.get(ENV, ""))
    box = QMessageBox(
        QMessageBox.Icon.Information,
        QCoreApplication.translate("Language", "Language"),
        text,
        QMessageBox.StandardButton.Ok,
        window,
    )
    box.setObjectName("language_restart")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    # open(), not exec(): a nested event loop would stall the live panels meanwhile.
    box.open()
    return box
