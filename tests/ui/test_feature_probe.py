"""PySide6's per-import probe answered from bytes: the same answers, a table PySide6 keeps
the same, and nothing changed when PySide6's internals are not where we expect them."""

import importlib
import linecache
import sys
import types

import PySide6  # noqa: F401  (loads the import hook the module speaks to)
import pytest

from attnviz.ui import feature_probe
from attnviz.ui.app import require_working_binding

feature = sys.modules["shibokensupport.feature"]


@pytest.fixture
def quick():
    """The quick probe installed (as every entry point installs it) and its original."""
    require_working_binding()
    probe = feature._mod_uses_pyside
    assert getattr(probe, "_attnviz_quick", False)
    return probe, probe.original


def test_every_entry_point_installs_it_once(quick):
    probe, original = quick
    assert feature_probe.quicken_feature_probe() is True
    assert feature._mod_uses_pyside is probe  # not wrapped a second time
    assert not getattr(original, "_attnviz_quick", False)


def test_same_answer_as_pyside_on_every_loaded_module(quick):
    probe, original = quick
    importlib.import_module("attnviz.ui.main_window")  # with pyqtgraph and numpy
    names = [
        n
        for n, m in sorted(sys.modules.items())
        if n.split(".")[0] in {"attnviz", "pyqtgraph", "numpy", "PySide6", "json", "superqt"}
        and isinstance(m, types.ModuleType)
    ]
    assert len(names) > 150
    answers = {n: probe(sys.modules[n]) for n in names}
    assert answers == {n: original(sys.modules[n]) for n in names}
    # Both kinds are among them: the check is not vacuous.
    assert answers["attnviz.ui.app"] is True and answers["attnviz.core.attention"] is False
    assert answers["pyqtgraph.Qt"] is True and answers["json"] is False


def test_new_modules_get_the_same_table_entry(quick, tmp_path, monkeypatch):
    # Top-level modules: the hook files what __import__ returns, the top package of a
    # dotted import.
    (tmp_path / "attnviz_probe_qt.py").write_text("# é: not ASCII\nfrom PySide6 import QtCore\n")
    (tmp_path / "attnviz_probe_plain.py").write_text('"""Nothing of Qt here."""\nVALUE = 1\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("attnviz_probe_qt", "attnviz_probe_plain")
    cached = set(linecache.cache)
    try:
        # An import statement, as modules import: the hook sits on builtins.__import__.
        exec("import attnviz_probe_qt, attnviz_probe_plain", {})
        table = feature.pyside_feature_dict
        assert table["attnviz_probe_qt"] == 0  # "uses PySide, no feature selected"
        assert table["attnviz_probe_plain"] == -1  # "ignore"
        # The sources were not kept in memory to answer.
        assert not {k for k in linecache.cache if "attnviz_probe" in k} - cached
    finally:
        for name in names:
            sys.modules.pop(name, None)
            feature.pyside_feature_dict.pop(name, None)


def test_a_module_without_a_readable_file_goes_to_pysides_probe(quick, monkeypatch):
    probe, _ = quick
    seen = []

    def original(module):
        seen.append(module.__name__)
        return True

    # A fresh wrap around a recording stand-in for PySide6's probe shows the fallback path.
    fake = types.SimpleNamespace(_mod_uses_pyside=original, pyside_feature_dict={})
    monkeypatch.setitem(sys.modules, "shibokensupport.feature", fake)
    assert feature_probe.quicken_feature_probe() is True
    wrapped = fake._mod_uses_pyside
    gone = types.ModuleType("gone")
    gone.__file__ = "/nonexistent/dir/gone.py"
    compiled = types.ModuleType("compiled")
    compiled.__file__ = "/somewhere/compiled.cpython-311-x86_64-linux-gnu.so"
    builtin = types.ModuleType("builtin_like")  # no __file__ at all
    assert wrapped(gone) and wrapped(compiled) and wrapped(builtin)
    assert seen == ["gone", "compiled", "builtin_like"]
    monkeypatch.undo()
    assert feature._mod_uses_pyside is probe


@pytest.mark.parametrize(
    "internals",
    [
        None,  # PySide6 moved its hook elsewhere
        types.SimpleNamespace(pyside_feature_dict={}),  # no probe function
        types.SimpleNamespace(_mod_uses_pyside=len, pyside_feature_dict=None),  # no table
        types.SimpleNamespace(_mod_uses_pyside="not callable", pyside_feature_dict={}),
    ],
)
def test_unexpected_internals_are_left_alone(monkeypatch, internals):
    monkeypatch.setitem(sys.modules, "shibokensupport.feature", internals)
    before = None if internals is None else vars(internals).copy()
    assert feature_probe.quicken_feature_probe() is False
    assert before is None or vars(internals) == before
