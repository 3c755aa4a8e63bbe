"""House rules and the command line contract."""

import subprocess
import sys

import pytest

from attnviz import __version__


def test_core_and_model_import_no_qt():
    """core → model → ui, never upward: every module of core (its subpackages too) imports
    no model module, and every module of model none of ui, and neither Qt."""
    code = (
        "import sys, pkgutil, importlib, attnviz.core\n"
        "def every(pkg):\n"
        "    return [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]\n"
        "core = every(attnviz.core)\n"
        "for name in core: importlib.import_module(name)\n"
        "upward = [m for m in sys.modules if m.startswith(('attnviz.model', 'attnviz.ui'))]\n"
        "import attnviz.model\n"
        "model = every(attnviz.model)\n"
        "for name in model: importlib.import_module(name)\n"
        "qt = ('PySide6', 'PyQt5', 'PyQt6', 'pyqtgraph', 'superqt', 'shiboken6')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in qt or m.startswith('attnviz.ui')]\n"
        "print(len(core), len(model), upward, bad)\n"
        "sys.exit(1 if bad or upward else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    cores, models = map(int, r.stdout.split()[:2])
    # Every module, subpackages included (model/resolve and model/topics hold most).
    assert cores >= 20 and models >= 35, r.stdout


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
