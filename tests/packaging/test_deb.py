"""The Debian package: its files, its desktop entry and a Depends line read off the bundle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.test_desktop import APP_ID, _fake_bundle

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    shutil.which("dpkg-deb") is None or shutil.which("dpkg") is None or shutil.which("ldd") is None,
    reason="dpkg-deb, dpkg and ldd are needed",
)


def _make_deb():
    sys.path.insert(0, str(ROOT / "packaging"))
    import make_deb

    return make_deb


def test_a_deb_from_the_bundle_installs_the_app_where_a_desktop_looks(tmp_path):
    make_deb = _make_deb()
    bundle = _fake_bundle(tmp_path / "attnviz")
    shutil.copy("/bin/true", bundle / "attnviz")  # a real program: it links against libc
    deb = make_deb.build(bundle, tmp_path / "out", tmp_path / "work")
    assert deb.name == f"attnviz_{make_deb.version()}_amd64.deb"
    info = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Depends", "Package", "Architecture"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Package: attnviz" in info and "Architecture: amd64" in info
    depends = info.split("Depends:", 1)[1].splitlines()[0]
    assert "libc6" in [d.strip() for d in depends.split(",")]  # who owns libc.so.6 here
    files = subprocess.run(
        ["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    for path in (
        "./opt/attnviz/attnviz",
        f"./usr/share/applications/{APP_ID}.desktop",
        f"./usr/share/mime/packages/{APP_ID}.xml",
        f"./usr/share/metainfo/{APP_ID}.metainfo.xml",
        f"./usr/share/icons/hicolor/256x256/apps/{APP_ID}.png",
        "./usr/share/doc/attnviz/copyright",
        "./usr/bin/attnviz -> /opt/attnviz/attnviz",
    ):
        assert path in files, path
    assert "./opt/attnviz/install-desktop.sh" not in files  # the system's copies instead
    unpacked = tmp_path / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    entry = (unpacked / "usr" / "share" / "applications" / f"{APP_ID}.desktop").read_text()
    assert "Exec=/usr/bin/attnviz %f" in entry and "TryExec=/usr/bin/attnviz" in entry


def test_a_missing_library_goes_into_depends_by_its_package(tmp_path, monkeypatch):
    make_deb = _make_deb()
    bundle = _fake_bundle(tmp_path / "attnviz")
    monkeypatch.setattr(
        make_deb,
        "system_libraries",
        lambda b: (set(), {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}),
    )
    assert make_deb.depends(bundle) == ["libxcb-icccm4", "libxcb-keysyms1"]
    monkeypatch.setattr(make_deb, "system_libraries", lambda b: (set(), {"libnothing.so.7"}))
    with pytest.raises(SystemExit, match="no Debian package known for libnothing.so.7"):
        make_deb.depends(bundle)
