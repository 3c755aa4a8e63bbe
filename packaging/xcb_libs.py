"""The libraries Qt's xcb plugin loads, for the bundle: ``python packaging/xcb_libs.py DIR``.

A desktop without ``libxcb-icccm4`` or ``libxcb-keysyms1`` cannot open Qt's X11 window, and
neither can a bundle built on a machine that lacks them (PyInstaller copies what it finds).
This puts into ``DIR`` every library that the installed PySide6's ``libqxcb.so`` and
``libQt6XcbQpa.so.6`` need and that this machine does not have, taken from the Debian
packages themselves (``apt-get download``, then ``dpkg-deb -x``: no root, nothing installed
on the build machine). The spec adds ``DIR`` to the bundle. Where that cannot be done it
stops with the exact command that installs them. Standard library only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attnviz.platform_check import (  # noqa: E402
    PACKAGES,
    install_hint,
    missing_libraries,
    xcb_plugin_files,
)


def fetch(missing: list[str], dest: Path) -> list[Path]:
    """Download the Debian packages of ``missing`` and copy their libraries into ``dest``."""
    unknown = [m for m in missing if m not in PACKAGES]
    if unknown:
        raise SystemExit(f"xcb_libs: no Debian package known for {', '.join(unknown)}")
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        raise SystemExit(
            f"xcb_libs: the bundle needs {', '.join(missing)}, which this machine "
            f"lacks; install them and build again: {install_hint(missing)}"
        )
    dest.mkdir(parents=True, exist_ok=True)
    packages = sorted({PACKAGES[m][0] for m in missing})
    copied = []
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            ["apt-get", "download", *packages], cwd=tmp, capture_output=True, text=True, timeout=300
        )
        if r.returncode != 0:
            raise SystemExit(
                f"xcb_libs: apt-get download {' '.join(packages)} failed "
                f"({r.stderr.strip().splitlines()[-1:]}); install them and "
                f"build again: {install_hint(missing)}"
            )
        unpacked = Path(tmp) / "unpacked"
        for deb in Path(tmp).glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        for name in missing:
            found = [p for p in unpacked.rglob(name)]
            if not found:
                raise SystemExit(f"xcb_libs: {name} is not in {', '.join(packages)}")
            target = dest / name
            shutil.copy(found[0].resolve(), target)  # the real file, under its soname
            copied.append(target)
    return copied


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python packaging/xcb_libs.py DIR", file=sys.stderr)
        return 2
    dest = Path(argv[0])
    if not sys.platform.startswith("linux"):
        return 0
    missing = missing_libraries(xcb_plugin_files())
    have = {p.name for p in dest.glob("*.so*")} if dest.is_dir() else set()
    needed = [m for m in missing if m not in have]
    if needed:
        copied = fetch(needed, dest)
        print(
            f"xcb_libs: {', '.join(p.name for p in copied)} taken from their Debian "
            f"packages into {dest}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
