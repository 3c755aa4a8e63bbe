"""Refresh the UI translations, or check that they are complete (``make translations``).

``python packaging/update_translations.py`` first writes ``attnviz/ui/preset_strings.py``
(the titles of the shipped presets and their experiments, which live in JSON where lupdate
cannot see them), then runs ``pyside6-lupdate`` over every ``.py`` file of ``attnviz/ui``
and ``attnviz/commands`` into ``resources/translations/attnviz_<lang>.ts`` (new strings
arrive unfinished, strings gone from the code are dropped), then ``pyside6-lrelease`` into
the ``.qm`` the app loads, and reports what still needs a translator.

``python packaging/update_translations.py --check`` changes nothing and exits 1 when any
message is unfinished or empty, or when a translation lost or gained a placeholder
(``%1``, ``%n``, ``%L1``, ``{name}``) or a keyboard accelerator (``&``). The test suite runs
the same check (tests/ui/test_translations.py).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where lupdate looks for marked strings.
SOURCE_DIRS = ("attnviz/ui", "attnviz/commands", "attnviz/model")
TRANSLATIONS = ROOT / "resources" / "translations"
#: Languages shipped besides the English of the source.
LANGUAGES = ("pt_BR",)
PRESETS = ROOT / "resources" / "presets"
PRESET_STRINGS = ROOT / "attnviz" / "ui" / "preset_strings.py"
_PRESET_MODULE = '''"""Preset and experiment titles of the shipped presets, marked for translation.

Generated from resources/presets/*.json by packaging/update_translations.py (make
translations): do not edit. The presets are data, out of lupdate's sight; this list puts
their titles in the .ts, and :func:`preset_text` shows them in the UI's language.
"""

# ruff: noqa: E501

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

TITLES = (
{titles})


def preset_text(text: str) -> str:
    """A preset or experiment title in the UI's language (unchanged when not translated)."""
    return QCoreApplication.translate("Preset", text)
'''

# Qt's %1 … %99 (optionally %L1), the plural %n, and Python's {name} / {0} / {name:.2f}.
_PLACEHOLDER = re.compile(r"%L?\d{1,2}|%n|\{[A-Za-z_0-9]*(?::[^{}]*)?\}")
# One "&" before a character is an accelerator; "&&" is a literal ampersand.
_ACCELERATOR = re.compile(r"&(?!&)(?=\S)")


def ts_path(lang: str) -> Path:
    """The ``.ts`` file of one language."""
    return TRANSLATIONS / f"attnviz_{lang}.ts"


def source_files() -> list[Path]:
    """Every ``.py`` file lupdate reads, sorted so the ``.ts`` does not churn."""
    files: list[Path] = []
    for folder in SOURCE_DIRS:
        files += (ROOT / folder).rglob("*.py")
    return sorted(p for p in files if "__pycache__" not in p.parts)


def tool(name: str) -> str:
    """The path of a PySide6 tool: next to this Python (a virtualenv) first, then on PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install PySide6 (pip install -e .)")
    return found


def preset_titles() -> list[str]:
    """Every preset and experiment title in resources/presets (and its topic folders), and
    the names presets give to value dimensions ("seat", "money"), once each, in file order."""
    titles: list[str] = []
    for path in sorted(PRESETS.glob("*.json")) + sorted(PRESETS.glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        texts = [data.get("title")] + [e.get("title") for e in data.get("experiments", [])]
        texts += list(data.get("value_labels") or [])
        for text in texts:
            if text and text not in titles:
                titles.append(text)
    return titles


def preset_module() -> str:
    """The text of ``attnviz/ui/preset_strings.py`` for the presets shipped now."""
    # JSON string literals are Python string literals too, always in double quotes.
    lines = "".join(
        f'    QT_TRANSLATE_NOOP("Preset", {json.dumps(t, ensure_ascii=False)}),\n'
        for t in preset_titles()
    )
    return _PRESET_MODULE.format(titles=lines)


def placeholders(text: str) -> list[str]:
    """The placeholders of a message, sorted (a translation may reorder them)."""
    return sorted(_PLACEHOLDER.findall(text or ""))


def accelerators(text: str) -> int:
    """How many keyboard accelerators (``&x``) a message has."""
    return len(_ACCELERATOR.findall((text or "").replace("&&", "")))


def _texts(element) -> list[str]:
    """The translation of a message: one text, or every plural form of a ``numerus`` one."""
    forms = element.findall("numerusform")
    return [f.text or "" for f in forms] if forms else [element.text or ""]


def check(path: Path) -> list[str]:
    """Problems of one ``.ts`` file, one line each; an empty list when it is complete.

    Obsolete and vanished messages (strings no longer in the code) are ignored: lupdate
    keeps them only until the next update.
    """
    problems = []
    root = ET.parse(path).getroot()
    for context in root.iter("context"):
        ctx = context.findtext("name", "")
        for message in context.iter("message"):
            source = message.findtext("source", "")
            translation = message.find("translation")
            kind = translation.get("type", "") if translation is not None else "unfinished"
            if kind in ("obsolete", "vanished"):
                continue
            where = f"{path.name}: {ctx}: {source!r}"
            if kind == "unfinished":
                problems.append(f"{where}: unfinished")
                continue
            for text in _texts(translation):
                if not text.strip() and source.strip():
                    problems.append(f"{where}: empty translation")
                elif placeholders(text) != placeholders(source):
                    problems.append(
                        f"{where}: placeholders {placeholders(source)} became "
                        f"{placeholders(text)} in {text!r}"
                    )
                elif accelerators(text) != accelerators(source):
                    problems.append(f"{where}: accelerator (&) lost or added in {text!r}")
    return problems


def update(lang: str) -> None:
    """lupdate the sources into the ``.ts`` of ``lang``, then lrelease it into the ``.qm``."""
    ts = ts_path(lang)
    ts.parent.mkdir(parents=True, exist_ok=True)
    PRESET_STRINGS.write_text(preset_module(), encoding="utf-8")
    files = [str(p.relative_to(ROOT)) for p in source_files()]
    # No source locations: line numbers would rewrite the .ts on every unrelated edit.
    subprocess.run(
        [tool("pyside6-lupdate"), *files, "-ts", str(ts.relative_to(ROOT)),
         "-target-language", lang, "-source-language", "en",
         "-locations", "none", "-no-obsolete", "-silent"],
        cwd=ROOT, check=True,
    )  # fmt: skip
    subprocess.run(
        [tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(ts.with_suffix(".qm"))],
        cwd=ROOT, check=True,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Update (default) or ``--check`` every shipped language; the exit code for ``make``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; change nothing")
    args = parser.parse_args(argv)
    problems = []
    for lang in LANGUAGES:
        if not args.check:
            update(lang)
            print(f"updated {ts_path(lang).relative_to(ROOT)} and its .qm")
        problems += check(ts_path(lang))
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} message(s) need a translator (Qt Linguist: pyside6-linguist)")
    # After an update, new strings are expected to be unfinished: only --check fails on them.
    return 1 if problems and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
