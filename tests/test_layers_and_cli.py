"""House rules and the command line contract."""

import subprocess
import sys

import pytest

from attnviz import __version__


def test_core_and_model_import_no_qt():
    code = (
        "import sys, attnviz.core.attention, attnviz.core.masks, attnviz.core.multihead, "
        "attnviz.core.heads, attnviz.model.presets\n"
        "import pkgutil, importlib, attnviz.core, attnviz.model\n"
        "for pkg in (attnviz.core, attnviz.model):\n"
        "    for m in pkgutil.iter_modules(pkg.__path__):\n"
        "        importlib.import_module(pkg.__name__ + '.' + m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'PyQt5', 'PyQt6', 'pyqtgraph', 'superqt', 'shiboken6', 'attnviz.ui')]\n"
        "bad += [m for m in sys.modules if m.startswith('attnviz.ui')]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "attnviz", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_version():
    r = _cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"attnviz {__version__}"


def test_bad_arguments_exit_2_with_one_line():
    r = _cli("--no-such-flag")
    assert r.returncode == 2
    assert r.stderr.splitlines() == ["attnviz: error: unrecognized arguments: --no-such-flag"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display detection is Linux-only")
def test_no_display_prints_help_instead_of_qt_abort():
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    r = _cli(env=env)
    assert r.returncode == 1
    assert "no display" in r.stderr and "xvfb-run" in r.stderr


def test_self_test_exits_zero():
    r = _cli("--self-test")
    assert r.returncode == 0, r.stderr
    assert "self-test: ok" in r.stdout


def test_session_argument_opens_the_gui_on_it(monkeypatch, tmp_path):
    import attnviz.ui.app
    from attnviz import cli

    opened = []
    monkeypatch.setattr(attnviz.ui.app, "run_app", lambda **kw: opened.append(kw) or 0)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    path = str(tmp_path / "lesson.attnviz")
    assert cli.main([path]) == 0
    assert opened == [{"session": path}]
    assert cli.main([]) == 0 and opened[-1] == {"session": None}
