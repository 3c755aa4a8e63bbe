"""Nothing on stderr in a plain export under any locale; Qt's real warnings still shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.ui.qt_messages import harmless, utf8_variant

#: The checkout under test: ``python -m attnviz`` run from there imports its code.
ROOT = Path(__file__).resolve().parents[2]


def _run(args, env_extra, code: str | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.pop("LANG", None)
    env.update(env_extra)
    argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "attnviz", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


@pytest.mark.parametrize(
    ("locale_env", "args"),
    [
        ({"LC_ALL": "C"}, ["--preset", "gato", "--out", "x.png"]),
        ({"LC_ALL": "POSIX"}, ["--preset", "gato", "--out", "x.svg"]),
        ({"LANG": "C", "LC_CTYPE": "C"}, ["--panel", "overview", "--out", "o.png"]),
        ({"LC_ALL": "C"}, ["--panel", "memory", "--out", "m.svg"]),
    ],
)
def test_a_plain_export_prints_nothing_on_stderr_under_a_c_locale(tmp_path, locale_env, args):
    args = [*args[:-1], str(tmp_path / args[-1])]
    r = _run(["export", "--width", "320", "--height", "180", *args], locale_env)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.startswith("wrote ")
    assert Path(args[-1]).stat().st_size > 1000


def test_real_qt_warnings_still_reach_stderr():
    code = (
        "from attnviz.ui.app import require_working_binding\n"
        "require_working_binding()\n"
        "from PySide6.QtCore import qWarning\n"
        "qWarning('This plugin does not support propagateSizeHints()')\n"
        "qWarning('QPainter::begin: Paint device returned engine == 0, type: 1')\n"
    )
    r = _run([], {"LC_ALL": "C", "QT_QPA_PLATFORM": "offscreen"}, code)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == ["QPainter::begin: Paint device returned engine == 0, type: 1"]


def test_the_utf8_variant_is_the_one_qt_would_switch_to():
    assert utf8_variant("C") == "C.UTF-8"
    assert utf8_variant("POSIX") == "C.UTF-8"
    assert utf8_variant("de_DE@euro") == "de_DE.UTF-8"
    assert utf8_variant("pt_BR.ISO-8859-1") == "pt_BR.UTF-8"


def test_only_qt_set_up_notices_are_harmless():
    assert harmless("This plugin does not support propagateSizeHints()")
    assert harmless(
        'Detected locale "C" with character encoding "ANSI_X3.4-1968", which is not UTF-8.\n'
        'Qt depends on a UTF-8 locale, and has switched to "C.UTF-8" instead.'
    )
    assert not harmless("QPainter::begin: Paint device returned engine == 0")
    assert not harmless("QFont::setPixelSize: Pixel size <= 0 (0)")
