"""The wheel and the sdist: built without a warning, each holding what it should."""

from __future__ import annotations

import os
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    build_meta = pytest.importorskip("setuptools.build_meta")
    out = tmp_path_factory.mktemp("dist")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            wheel = out / build_meta.build_wheel(str(out))
            sdist = out / build_meta.build_sdist(str(out))
    finally:
        os.chdir(here)
    return wheel, sdist, [str(w.message).splitlines()[0] for w in caught]


@pytest.mark.slow
def test_building_gives_no_warning_that_reads_like_a_failure(dists):
    _wheel, _sdist, caught = dists
    assert caught == []


@pytest.mark.slow
def test_the_wheel_ships_what_the_app_reads_and_not_the_translators_sources(dists):
    wheel, _sdist, _ = dists
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert "attnviz/resources/translations/attnviz_pt_BR.qm" in names
    assert not [n for n in names if n.endswith(".ts")]
    assert "attnviz/resources/lessons/sqrt-dk.json" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "attnviz/resources/THIRD_PARTY_NOTICES.md" in names
    # builtin:induction: the whole model folder, with its curves and its torch
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                 "training.csv", "TRAINED_WITH.json"):  # fmt: skip
        assert f"attnviz/resources/models/induction/{name}" in names, name


@pytest.mark.slow
def test_the_sdist_holds_the_tests_and_the_sources_of_the_translations(dists):
    _wheel, sdist, _ = dists
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    for part in (
        "tests/conftest.py",
        "tests/ui/test_slide_check.py",
        "Makefile",
        "resources/translations/attnviz_pt_BR.ts",
        "resources/models/induction/model.safetensors",
        "resources/models/induction/training.csv",
        "packaging",
    ):
        assert f"{top}/{part}" in names, part
    assert not [n for n in names if n.endswith(".pyc")]


def test_every_runtime_dependency_declares_the_floor_ci_installs():
    import sys as _sys

    _sys.path.insert(0, str(ROOT / "packaging"))
    import floors

    pins = dict(p.split("==") for p in floors.floor_pins())
    assert set(pins) == {
        "PySide6-Essentials", "pyqtgraph", "numpy", "superqt", "threadpoolctl", "Pillow",
    }  # fmt: skip
    assert pins["Pillow"] == "10.1"  # animated WebP and APNG writing, Image.Quantize
    assert pins["superqt"] == "0.7.1"  # the floor of the throttles
    assert pins["PySide6-Essentials"] == "6.7"  # QTimer.singleShot(ms, context, callable)
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "test-floors:" in make and "packaging/floors.py" in make
    assert "make test-floors" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
