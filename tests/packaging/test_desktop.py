"""Desktop integration: the entry, the sessions' MIME type, the metainfo, their installer."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from attnviz import __version__
from attnviz.ui.app import APP_ID

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"
ICONS = Path(__file__).resolve().parents[2] / "resources" / "icons"
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def _entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_entry_names_the_app_id_and_opens_sessions():
    entry = _entry()
    assert entry["Icon"] == APP_ID and entry["Exec"] == "attnviz %f"
    assert entry["MimeType"] == "application/x-attnviz;"
    mime = ET.parse(PACKAGING / f"{APP_ID}.xml").getroot()
    kind = mime.find(f"{MIME_NS}mime-type")
    assert kind.get("type") == "application/x-attnviz"
    glob = kind.find(f"{MIME_NS}glob")
    # shared-mime-info globs match in any case unless case-sensitive="true".
    assert glob.get("pattern") == "*.attnviz" and glob.get("case-sensitive") != "true"


def test_the_metainfo_is_the_apps():
    root = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.find("provides/mediatype").text == "application/x-attnviz"
    assert root.find("releases/release").get("version") == __version__
    assert root.findtext("project_license") == "MIT"


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="no appstreamcli here")
def test_appstreamcli_validates_the_metainfo():
    r = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(PACKAGING / f"{APP_ID}.metainfo.xml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "E:" not in r.stdout and "W:" not in r.stdout, r.stdout


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None, reason="no desktop-file-validate here"
)
def test_desktop_file_validate_accepts_the_entry():
    r = subprocess.run(
        ["desktop-file-validate", str(PACKAGING / f"{APP_ID}.desktop")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def _fake_bundle(folder: Path) -> Path:
    """A bundle folder as build.sh leaves it: the executable, the icons, the files."""
    (folder / "_internal" / "resources").mkdir(parents=True)
    shutil.copytree(ICONS, folder / "_internal" / "resources" / "icons")
    exe = folder / "attnviz"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    for name in (
        f"{APP_ID}.desktop",
        f"{APP_ID}.xml",
        f"{APP_ID}.metainfo.xml",
        "install-desktop.sh",
    ):
        shutil.copy(PACKAGING / name, folder / name)
    return folder


def test_install_desktop_puts_everything_in_place_and_takes_it_out(tmp_path):
    bundle = _fake_bundle(tmp_path / "my apps" / "attnviz")  # a space, as on laptops
    data = tmp_path / "data"
    env = {**os.environ, "XDG_DATA_HOME": str(data)}
    r = subprocess.run(
        ["bash", str(bundle / "install-desktop.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    desktop = data / "applications" / f"{APP_ID}.desktop"
    text = desktop.read_text(encoding="utf-8")
    assert f'Exec="{bundle / "attnviz"}" %f' in text and "MimeType=application/x-attnviz;" in text
    installed = [
        desktop,
        data / "mime" / "packages" / f"{APP_ID}.xml",
        data / "metainfo" / f"{APP_ID}.metainfo.xml",
        data / "icons" / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png",
        data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
    ]
    assert all(p.is_file() for p in installed), [p for p in installed if not p.is_file()]
    if shutil.which("gio") and shutil.which("update-desktop-database"):
        # What a GIO file manager (Nautilus, Thunar, Caja…) asks before opening a session:
        # the file's type by its suffix in capitals too, then the application for it.
        session = tmp_path / "Lecture 3.ATTNVIZ"
        session.write_text("{}")
        env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
        kind = subprocess.run(
            ["gio", "info", "-a", "standard::content-type", str(session)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        assert "application/x-attnviz" in kind
        found = subprocess.run(
            ["gio", "mime", "application/x-attnviz"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        assert f"Default application for “application/x-attnviz”: {APP_ID}.desktop" in found
    r = subprocess.run(
        ["bash", str(bundle / "install-desktop.sh"), "--remove"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and not any(p.exists() for p in installed)


def test_the_build_takes_the_xcb_libraries_this_machine_lacks_or_says_how(tmp_path, monkeypatch):
    import sys

    sys.path.insert(0, str(PACKAGING))
    import xcb_libs

    monkeypatch.setattr(xcb_libs.shutil, "which", lambda name: None)  # no apt here
    with pytest.raises(SystemExit) as info:
        xcb_libs.fetch(["libxcb-icccm.so.4"], tmp_path)
    assert "sudo apt install libxcb-icccm4" in str(info.value)
    assert "sudo dnf install xcb-util-wm" in str(info.value)
    monkeypatch.undo()
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        pytest.skip("no apt here to download from")
    r = subprocess.run(
        ["apt-get", "download", "--print-uris", "libxcb-icccm4"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if r.returncode != 0:
        pytest.skip("apt has no package lists here")
    copied = xcb_libs.fetch(["libxcb-icccm.so.4"], tmp_path / "libs")
    assert [p.name for p in copied] == ["libxcb-icccm.so.4"]
    assert copied[0].read_bytes()[:4] == b"\x7fELF"
