"""Build ``dist/attnviz_<version>_amd64.deb`` from the bundle: ``python3 packaging/make_deb.py``.

The package installs the one-folder bundle in ``/opt/attnviz``, ``/usr/bin/attnviz``, the
desktop entry, the icons, the sessions' MIME type and the AppStream metainfo under
``/usr/share`` (dpkg's triggers refresh the menus, the MIME database and the icon caches).
Its ``Depends`` line is read from the bundle itself: every shared library a file of the
bundle links against that the bundle does not carry is a system library, owned by a
Debian package (``dpkg -S``), or missing on the build machine and named by the table of
:mod:`attnviz.platform_check`. Standard library only, plus ``dpkg-deb``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_ID = "io.github.attnviz.Attnviz"
SIZES = (16, 32, 48, 64, 128, 256, 512)
_LDD = re.compile(r"^\s*(\S+)\s+=>\s+(not found|\S+)", re.M)


def version() -> str:
    text = (ROOT / "attnviz" / "version.py").read_text(encoding="utf-8")
    return re.search(r'__version__\s*=\s*"([^"]+)"', text).group(1)


def elf_files(bundle: Path) -> list[Path]:
    """The bundle's shared libraries and executables (ELF files)."""
    out = []
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(path)
    return out


def system_libraries(bundle: Path) -> tuple[set[str], set[str]]:
    """``(paths, missing)``: the libraries outside the bundle its files resolve, and the
    names no file of this machine provides."""
    internal = bundle / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=str(internal))
    carried = {p.name for p in bundle.rglob("*.so*")}
    paths, missing = set(), set()
    for path in elf_files(bundle):
        out = subprocess.run(
            ["ldd", str(path)], env=env, capture_output=True, text=True, timeout=60
        ).stdout
        for name, where in _LDD.findall(out):
            if where == "not found":
                if name not in carried:
                    missing.add(name)
            elif not Path(where).resolve().is_relative_to(bundle.resolve()):
                paths.add(str(Path(where).resolve()))
    return paths, missing


def owners(paths: set[str]) -> set[str]:
    """The Debian packages that own ``paths`` (``dpkg -S``; the /lib and /usr/lib spelling
    of a merged-/usr system both asked, architecture qualifiers left off as Depends writes
    them)."""
    asked = set()
    for path in paths:
        short = path.replace("/usr/lib/", "/lib/", 1)
        asked |= {path, short, short.replace("/lib/", "/usr/lib/", 1)}
    if not asked:
        return set()
    r = subprocess.run(["dpkg", "-S", *sorted(asked)], capture_output=True, text=True, timeout=120)
    found = set()
    for line in r.stdout.splitlines():
        names, _, _path = line.partition(": ")
        if names.startswith("diversion"):
            continue
        found |= {n.strip().split(":")[0] for n in names.split(",") if n.strip()}
    return found


def depends(bundle: Path) -> list[str]:
    """The packages of the ``Depends`` line, sorted."""
    sys.path.insert(0, str(ROOT))
    from attnviz.platform_check import PACKAGES

    paths, missing = system_libraries(bundle)
    packages = owners(paths)
    unknown = sorted(m for m in missing if m not in PACKAGES)
    if unknown:
        raise SystemExit(
            f"make_deb: no Debian package known for {', '.join(unknown)}; add "
            "it to PACKAGES in attnviz/platform_check.py"
        )
    packages |= {PACKAGES[m][0] for m in missing}
    return sorted(packages)


def stage(bundle: Path, root: Path) -> None:
    """Lay the package's files out under ``root``."""
    if root.exists():
        shutil.rmtree(root)
    opt = root / "opt" / "attnviz"
    shutil.copytree(bundle, opt, symlinks=True)
    for name in (
        "install-desktop.sh",
        f"{APP_ID}.desktop",
        f"{APP_ID}.xml",
        f"{APP_ID}.metainfo.xml",
    ):
        (opt / name).unlink(missing_ok=True)  # the system's copies are under /usr/share
    (root / "usr" / "bin").mkdir(parents=True)
    os.symlink("/opt/attnviz/attnviz", root / "usr" / "bin" / "attnviz")
    share = root / "usr" / "share"
    apps = share / "applications"
    apps.mkdir(parents=True)
    entry = (ROOT / "packaging" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    entry = re.sub(r"^Exec=.*$", "Exec=/usr/bin/attnviz %f", entry, flags=re.M)
    entry = re.sub(r"^TryExec=.*$", "TryExec=/usr/bin/attnviz", entry, flags=re.M)
    entry = re.sub(r"^# install-desktop\.sh.*\n", "", entry, flags=re.M)
    (apps / f"{APP_ID}.desktop").write_text(entry, encoding="utf-8")
    icons = ROOT / "resources" / "icons"
    for size in SIZES:
        folder = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True)
        shutil.copy(icons / f"attnviz-{size}.png", folder / f"{APP_ID}.png")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copy(icons / "attnviz.svg", scalable / f"{APP_ID}.svg")
    (share / "mime" / "packages").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / f"{APP_ID}.xml", share / "mime" / "packages")
    (share / "metainfo").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / f"{APP_ID}.metainfo.xml", share / "metainfo")
    doc = share / "doc" / "attnviz"
    doc.mkdir(parents=True)
    notices = (ROOT / "resources" / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    (doc / "copyright").write_text(
        "attnviz is released under the MIT License:\n\n" + licence + "\n\n" + notices,
        encoding="utf-8",
    )


def control(root: Path, packages: list[str], version_text: str) -> str:
    size_kib = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) // 1024
    return (
        "Package: attnviz\n"
        f"Version: {version_text}\n"
        "Architecture: amd64\n"
        "Maintainer: attnviz developers <attnviz@users.noreply.github.com>\n"
        f"Installed-Size: {size_kib}\n"
        f"Depends: {', '.join(packages)}\n"
        "Section: science\n"
        "Priority: optional\n"
        "Homepage: https://github.com/attnviz/attnviz\n"
        "Description: live, touchable panels for the attention of transformers\n"
        " attnviz turns the attention mechanism into panels that answer at once: tokens\n"
        " and their Q/K/V vectors, the square-root divisor, masks, the softmax and its\n"
        " gradient, RoPE, long sequences, real models and lessons for a lecture hall.\n"
    )


def build(bundle: Path, out_dir: Path, work: Path, packages: list[str] | None = None) -> Path:
    """Build the package from ``bundle`` into ``out_dir``; return its path."""
    if not (bundle / "attnviz").is_file():
        raise SystemExit(
            f"make_deb: {bundle} is not a bundle (no attnviz executable); run make package first"
        )
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("make_deb: dpkg-deb is needed (sudo apt install dpkg)")
    packages = depends(bundle) if packages is None else packages
    root = work / "root"
    stage(bundle, root)
    (root / "DEBIAN").mkdir()
    ver = version()
    (root / "DEBIAN" / "control").write_text(control(root, packages, ver), encoding="utf-8")
    out_dir.mkdir(parents=True, exist_ok=True)
    deb = out_dir / f"attnviz_{ver}_amd64.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zxz", "--build", str(root), str(deb)],
        check=True,
        capture_output=True,
        text=True,
        timeout=900,
    )
    return deb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default=str(ROOT / "dist" / "attnviz"))
    parser.add_argument("--out", default=str(ROOT / "dist"))
    args = parser.parse_args(argv)
    deb = build(Path(args.bundle), Path(args.out), ROOT / "build" / "deb")
    print(f"make_deb: {deb} ({deb.stat().st_size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
