"""install-desktop.sh from a folder whose path holds what the Desktop Entry spec escapes.

Issue 39 item 7: from a path holding ``&`` the installer wrote a broken Exec line and
reported success (sed's ``&`` is "the matched text"); ``|`` or a newline stopped it half
way (icons, MIME type and metainfo installed, no ``.desktop``); ``"``, ``$``, backticks and
backslashes were not escaped. Now the path is quoted as the spec says (an Exec argument in
double quotes, then the string escapes), and a path the entry cannot hold is refused before
anything is written. Each entry is read back by a parser of the spec written here, and
launched by GIO where it is installed (what GNOME's and Xfce's menus run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from attnviz.ui.app import APP_ID
from tests.packaging.test_desktop import _fake_bundle

#: The spec's string escapes ("Possible value types").
_ESCAPES = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
#: Characters that need an Exec argument to be quoted; inside quotes, those escaped.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
_QUOTED_ESCAPES = set('"`$\\')


def _unescape(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\":
            out.append(_ESCAPES[value[i + 1]])  # any other escape is invalid: KeyError
            i += 2
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def _exec_arguments(value: str) -> list[str]:
    """The arguments of an Exec value after the string escapes, as the spec reads them."""
    args, current, i, quoted = [], None, 0, False
    while i < len(value):
        c = value[i]
        if quoted:
            if c == "\\":
                assert value[i + 1] in _QUOTED_ESCAPES, value
                current += value[i + 1]
                i += 1
            elif c == '"':
                quoted = False
            else:
                assert c not in "`$", f"unescaped {c!r} inside quotes in {value!r}"
                current += c
        elif c == " ":
            if current is not None:
                args.append(current)
            current = None
        elif c == '"':
            quoted, current = True, current or ""
        else:
            assert c not in _RESERVED, f"unquoted reserved {c!r} in {value!r}"
            current = (current or "") + c
        i += 1
    assert not quoted, value
    if current is not None:
        args.append(current)
    return [a.replace("%%", "%") if not a.startswith("%") else a for a in args]


def _keys(desktop: Path) -> dict[str, str]:
    lines = desktop.read_text(encoding="utf-8").split("\n")
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def _bundle(tmp_path: Path, name: str) -> Path:
    bundle = _fake_bundle(tmp_path / "apps" / name / "attnviz")
    record = tmp_path / "argv0"
    exe = bundle / "attnviz"
    exe.write_text(f'#!/bin/sh\nprintf "%s" "$0" > "{record}"\n')
    exe.chmod(0o755)
    return bundle


def _install(bundle: Path, data: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    return subprocess.run(
        ["bash", str(bundle / "install-desktop.sh"), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


HOSTILE = [
    "a&b",
    "a|b",
    "new\nline",
    "trailing newline\n",
    'say "hi"',
    "dollar$HOME",
    "back`tick`",
    "back\\slash",
    "semi;colon 'single'",
    "tab\there",
    "~tilde*?#()<>",
    "acentuação 🙂",
]


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_hostile_folder_name_is_quoted_as_the_spec_says(tmp_path, name):
    bundle = _bundle(tmp_path, name)
    data = tmp_path / "data"
    r = _install(bundle, data)
    assert r.returncode == 0, r.stderr
    desktop = data / "applications" / f"{APP_ID}.desktop"
    keys = _keys(desktop)  # every line one key: a newline in the path is escaped
    exe = str(bundle / "attnviz")
    assert _exec_arguments(_unescape(keys["Exec"])) == [exe, "%f"]
    assert _unescape(keys["TryExec"]) == exe
    assert keys["MimeType"] == "application/x-attnviz;" and keys["Icon"] == APP_ID
    if shutil.which("gio"):
        env = {**os.environ, "XDG_DATA_HOME": str(data)}
        g = subprocess.run(
            ["gio", "launch", str(desktop)], env=env, capture_output=True, text=True, timeout=60
        )
        assert g.returncode == 0, g.stderr
        assert (tmp_path / "argv0").read_text() == exe  # GIO ran this bundle's program
    r = _install(bundle, data, "--remove")
    assert r.returncode == 0 and not desktop.exists()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("100%", "holds '%', which desktop menus (GIO) cannot launch"),
        ("bell\x07", "holds a control character no desktop entry can"),
        (os.fsdecode(b"latin1-\xe7"), "is not UTF-8 text, which a desktop entry must be"),
    ],
    ids=["percent", "control", "not-utf8"],
)
def test_a_path_the_entry_cannot_hold_is_refused_before_anything_is_written(tmp_path, name, why):
    if "\x07" not in name and "%" not in name and shutil.which("iconv") is None:
        pytest.skip("no iconv here to tell UTF-8")
    bundle = _bundle(tmp_path, name)
    data = tmp_path / "data"
    r = _install(bundle, data)
    assert r.returncode == 1
    assert r.stderr == (
        f"cannot add attnviz to the desktop: the folder's path {why}; move the bundle to a "
        "folder without it (nothing was written)\n"
    )
    assert not data.exists()  # no icons, MIME type or metainfo without their entry
