"""Translations: the shipped catalogue is complete and loads, the window speaks it, and the
language is chosen from ATTNVIZ_LANG, then View → Language, then the system."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QSettings, QTranslator
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDockWidget,
    QGroupBox,
    QLabel,
    QMenu,
    QMessageBox,
)

from attnviz.paths import resource
from attnviz.ui import language

ROOT = Path(__file__).resolve().parents[2]
TS = resource("translations", "attnviz_pt_BR.ts")
QM = resource("translations", "attnviz_pt_BR.qm")


def _load_tool():
    spec = importlib.util.spec_from_file_location(
        "update_translations", ROOT / "packaging" / "update_translations.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


def _qt_tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch):
    """No ATTNVIZ_LANG from the caller's shell; every test leaves the app in English."""
    monkeypatch.delenv(language.ENV, raising=False)
    yield
    language.install_translations(QApplication.instance(), "en")


@pytest.fixture
def portuguese(qapp):
    """The pt_BR translators installed, as ``ATTNVIZ_LANG=pt_BR`` does at start-up."""
    assert language.install_translations(qapp, "pt_BR")
    return qapp


def _messages() -> list[tuple[str, str, str]]:
    """(context, source, translation) of every message of the .ts."""
    root = ET.parse(TS).getroot()
    return [
        (c.findtext("name"), m.findtext("source"), m.findtext("translation"))
        for c in root.iter("context")
        for m in c.iter("message")
    ]


# --- the catalogue ---------------------------------------------------------------------------
def test_the_qm_ships_and_loads():
    assert TS.is_file() and QM.is_file()
    translator = QTranslator()
    assert translator.load(str(QM))
    assert translator.language() == "pt_BR"
    assert translator.translate("MainWindow", "&File") == "&Arquivo"


def test_english_stays_the_source():
    root = ET.parse(TS).getroot()
    assert root.get("sourcelanguage") == "en" and root.get("language") == "pt_BR"
    # Without a translator, the UI is the source text itself.
    assert QCoreApplication.translate("MainWindow", "&File") == "&File"


def test_every_message_is_finished_and_keeps_its_placeholders():
    assert tool.check(TS) == []
    assert len(_messages()) > 200


def test_the_catalogue_covers_every_marked_string(tmp_path):
    """lupdate over today's sources adds nothing unfinished: `make translations` was run."""
    copy = tmp_path / TS.name
    shutil.copy(TS, copy)
    (tmp_path / "preset_strings.py").write_text(tool.preset_module(), encoding="utf-8")
    files = [str(p) for p in tool.source_files() if p.name != "preset_strings.py"]
    subprocess.run(
        [_qt_tool("pyside6-lupdate"), *files, str(tmp_path / "preset_strings.py"),
         "-ts", str(copy), "-locations", "none", "-no-obsolete", "-silent"],
        check=True,
    )  # fmt: skip
    assert tool.check(copy) == []
    assert len(ET.parse(copy).getroot().findall(".//message")) == len(_messages())


def test_every_literal_string_is_translated_under_a_literal_context():
    """lupdate reads ``translate("Context", "text")`` only when both are literals: a text
    under a context held in a variable never reaches the catalogue (the screen stays
    English in Portuguese). Texts held in variables come from QT_TRANSLATE_NOOP tables."""
    import ast

    hidden = []
    for path in sorted(Path(language.__file__).parents[1].rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "translate"):
                continue
            if len(node.args) < 2:
                continue
            context, text = node.args[:2]
            literal = isinstance(text, ast.Constant) and isinstance(text.value, str)
            if literal and not isinstance(context, ast.Constant):
                hidden.append(f"{path.name}:{node.lineno}: {text.value!r}")
    assert hidden == []


def test_the_committed_qm_is_the_released_ts(tmp_path):
    out = tmp_path / "out.qm"
    subprocess.run([_qt_tool("pyside6-lrelease"), "-silent", str(TS), "-qm", str(out)], check=True)
    assert out.read_bytes() == QM.read_bytes(), "run `make translations` and commit the .qm"


def test_the_generated_preset_strings_are_current():
    generated = ROOT / "attnviz" / "ui" / "preset_strings.py"
    assert generated.read_text(encoding="utf-8") == tool.preset_module()


@pytest.mark.parametrize(
    "source, translation, problem",
    [
        ("Exact value: %1", "Valor exato", "placeholders"),
        ("%1 of %2", "%1 de %1", "placeholders"),
        ("%n files", "arquivos", "placeholders"),
        ("Hello {name}", "Olá {nome}", "placeholders"),
        ("&File", "Arquivo", "accelerator"),
        ("Salt && pepper", "Sal &e pimenta", "accelerator"),
        ("&File", "", "empty"),
        ("&File", None, "unfinished"),
    ],
)
def test_the_checker_catches_a_broken_message(tmp_path, source, translation, problem):
    ts = ET.Element("TS", version="2.1", language="pt_BR", sourcelanguage="en")
    context = ET.SubElement(ts, "context")
    ET.SubElement(context, "name").text = "Test"
    message = ET.SubElement(context, "message")
    ET.SubElement(message, "source").text = source
    node = ET.SubElement(message, "translation")
    if translation is None:
        node.set("type", "unfinished")
    else:
        node.text = translation
    path = tmp_path / "broken.ts"
    ET.ElementTree(ts).write(path, encoding="utf-8")
    problems = tool.check(path)
    assert len(problems) == 1 and problem in problems[0]


def test_the_checker_accepts_reordered_placeholders_and_literal_ampersands():
    assert tool.placeholders("%2 de %1") == tool.placeholders("%1 of %2")
    assert tool.accelerators("Salt && pepper") == 0
    assert tool.accelerators("Sal && pimenta") == 0


# --- the window in Portuguese ----------------------------------------------------------------
def test_the_main_window_speaks_portuguese(portuguese, make_window):
    window = make_window(size=None)
    assert window.findChild(QMenu, "menu_file").title() == "&Arquivo"
    assert window.findChild(QMenu, "menu_view").title() == "E&xibir"
    assert window.docks["heatmap"].windowTitle() == "Matriz de atenção"
    assert window.findChild(QAction, "action_undo").text().startswith("Desfazer")
    assert window.preset_picker.currentText().startswith("Exemplo feito à mão")
    assert "consulta “banco”" in window.panels["heatmap"].hover_text(1, 2)


def test_no_english_is_left_in_the_portuguese_window(portuguese, make_window):
    """Every text the window shows that is a source string appears translated.

    Catches strings whose runtime context differs from the one lupdate recorded.
    """
    window = make_window(size=None)
    english = {src for _ctx, src, pt in _messages() if src != pt}
    shown = [a.text() for a in window.findChildren(QAction)]
    shown += [a.toolTip() for a in window.findChildren(QAction)]
    shown += [m.title() for m in window.findChildren(QMenu)]
    shown += [d.windowTitle() for d in window.findChildren(QDockWidget)]
    shown += [g.title() for g in window.findChildren(QGroupBox)]
    for widget in window.findChildren(QLabel) + window.findChildren(QAbstractButton):
        shown += [widget.text(), widget.toolTip()]
    left = sorted({text for text in shown if text in english})
    assert left == []


def _mnemonic(text: str) -> str | None:
    i = text.replace("&&", "").find("&")
    return text.replace("&&", "")[i + 1].lower() if i >= 0 else None


@pytest.mark.parametrize("lang", ["en", "pt_BR"])
def test_accelerators_are_unique_in_each_menu(qapp, lang, make_window):
    language.install_translations(qapp, lang)
    window = make_window(size=None)
    menus = [window.menuBar(), *window.menuBar().findChildren(QMenu)]
    for menu in menus:
        keys = [_mnemonic(a.text()) for a in menu.actions() if a.isVisible()]
        keys = [k for k in keys if k]
        assert len(keys) == len(set(keys)), (lang, menu.objectName(), keys)


# --- choosing the language -------------------------------------------------------------------
@pytest.mark.parametrize(
    "code, expected",
    [("pt_BR", "pt_BR"), ("pt-BR", "pt_BR"), ("pt_PT.UTF-8", "pt_BR"), ("en", "en"),
     ("en_GB", "en"), ("C", "en"), ("de_DE", None), ("", None), ("system", None)],
)  # fmt: skip
def test_language_codes(code, expected):
    assert language.normalize(code) == expected


def test_the_environment_overrides_the_saved_choice(monkeypatch):
    settings = QSettings()
    settings.setValue(language.SETTING, "en")
    assert language.resolve_language(settings) == "en"
    monkeypatch.setenv(language.ENV, "pt_BR")
    assert language.resolve_language(settings) == "pt_BR"
    monkeypatch.setenv(language.ENV, "xx")  # unknown: the source language
    assert language.resolve_language(settings) == "en"


def test_the_saved_choice_overrides_the_system(monkeypatch):
    monkeypatch.setattr(language, "system_language", lambda: "en")
    settings = QSettings()
    assert language.resolve_language(settings) == "en"  # nothing saved: the system's
    settings.setValue(language.SETTING, "pt_BR")
    assert language.resolve_language(settings) == "pt_BR"
    settings.setValue(language.SETTING, "klingon")  # a damaged setting: the system's
    assert language.resolve_language(settings) == "en"


def test_start_up_installs_the_language_of_attnviz_lang(qapp, monkeypatch):
    from attnviz.ui.app import _load_translations

    monkeypatch.setenv(language.ENV, "pt_BR")
    assert _load_translations(qapp) == "pt_BR"
    assert language.active_language() == "pt_BR"
    assert QCoreApplication.translate("MainWindow", "&Help") == "Aj&uda"
    # Qt's own strings (standard buttons) come along.
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancelar"
    monkeypatch.setenv(language.ENV, "en")
    assert _load_translations(qapp) == "en"
    assert QCoreApplication.translate("MainWindow", "&Help") == "&Help"


def test_the_language_menu_switches_live_and_saves(qtbot, monkeypatch, make_window):
    monkeypatch.setattr(language, "system_language", lambda: "en")
    window = make_window(size=None)
    menu = window.findChild(QMenu, "menu_language")
    assert [a.objectName() for a in menu.actions()] == [
        "action_language_system", "action_language_en", "action_language_pt_BR"
    ]  # fmt: skip
    assert window.findChild(QAction, "action_language_system").isChecked()
    window.state.update(temperature=2.0)  # history and document survive the rebuild

    def file_menu() -> str:
        return window.findChild(QMenu, "menu_file").title()

    window.findChild(QAction, "action_language_pt_BR").trigger()
    assert QSettings().value(language.SETTING) == "pt_BR"
    assert window.findChild(QMessageBox, "language_restart") is None  # nothing to wait for
    qtbot.waitUntil(lambda: file_menu() == "&Arquivo", timeout=10000)
    assert window.state.temperature == 2.0 and window.undo.stack.count() == 1

    window.findChild(QAction, "action_language_en").trigger()
    assert QSettings().value(language.SETTING) == "en"
    qtbot.waitUntil(lambda: file_menu() == "&File", timeout=10000)
    assert window.findChild(QMessageBox, "language_restart") is None


def test_the_language_menu_says_when_attnviz_lang_wins(monkeypatch, make_window):
    window = make_window(size=None)
    monkeypatch.setenv(language.ENV, "en")
    window.findChild(QAction, "action_language_pt_BR").trigger()
    box = window.findChild(QMessageBox, "language_restart")
    assert box is not None and "ATTNVIZ_LANG environment variable (en)" in box.text()
    box.close()


def test_the_saved_choice_is_checked_in_the_next_window(make_window):
    QSettings().setValue(language.SETTING, "pt_BR")
    window = make_window(size=None)
    assert window.findChild(QAction, "action_language_pt_BR").isChecked()


def test_placeholders_fill_in_one_pass():
    from attnviz.ui.widgets.placeholders import fill

    # A token that itself reads "%2" is shown, not filled again; %10 is not %1 then "0".
    assert fill("“%1” → “%2”", "%2", "rio") == "“%2” → “rio”"
    assert fill("%2 de %1", "x", "y") == "y de x"  # reordered by a translator
    assert fill("a %10 %1 %3", *range(1, 11)) == "a 10 1 3"
    assert fill("%1 and %4", "only") == "only and %4"  # a missing argument stays visible
