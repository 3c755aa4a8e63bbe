"""Smoke test of the frozen app: ``python3 packaging/smoke_test.py [--torch] [BUNDLE]``.

Runs the bundle the way a user would (from another folder, with a fresh HOME, nothing of
the checkout on the path) and checks each result. Standard library only, so it runs with
any ``python3``; ``tests/packaging/test_bundle.py`` runs the same checks under pytest.

The trap it is built for: a module that pyqtgraph (or our CLI) imports only lazily is
missing from the bundle, and the frozen app dies inside a Qt event handler with a segfault
(no traceback) or prints a traceback from a slot and exits 0. So every run is checked for a
signal exit, a non-zero exit, and a traceback or fatal error on stderr, with
``PYTHONFAULTHANDLER=1`` so that a native crash at least prints the Python stack.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 180  # a cold first start on a busy 2-core machine takes a few seconds, not minutes

#: Modules that pyqtgraph imports only when a menu, dialog or export is first used.
PYQTGRAPH_LAZY = (
    "pyqtgraph.exporters",
    "pyqtgraph.exporters.ImageExporter",
    "pyqtgraph.exporters.SVGExporter",
    "pyqtgraph.exporters.CSVExporter",
    "pyqtgraph.GraphicsScene.exportDialog",
    "pyqtgraph.GraphicsScene.exportDialogTemplate_generic",
    "pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu",
    "pyqtgraph.graphicsItems.ViewBox.axisCtrlTemplate_generic",
    "pyqtgraph.graphicsItems.PlotItem.plotConfigTemplate_generic",
    "pyqtgraph.imageview.ImageView",
    "pyqtgraph.imageview.ImageViewTemplate_generic",
    "pyqtgraph.colormap",
    "pyqtgraph.widgets.ColorMapButton",
    "pyqtgraph.graphicsItems.ColorBarItem",
    "pyqtgraph.graphicsItems.HistogramLUTItem",
)

#: Lines on stderr that mean something went wrong even when the exit code is 0 (PySide6
#: prints a traceback from a failing slot and carries on).
_BAD_STDERR = re.compile(
    r"Traceback \(most recent call last\)|Fatal Python error|ModuleNotFoundError|"
    r"ImportError|\[PYI-\d+:ERROR\]|Segmentation fault"
)


@dataclass
class Outcome:
    """The result of one check: passed, failed (with why) or skipped (with why)."""

    name: str
    status: str  # "passed" | "failed" | "skipped"
    detail: str = ""
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


class CheckError(Exception):
    """A check found a problem; the message says which."""


class CheckSkipError(Exception):
    """A check does not apply to this tree (e.g. a command that has not landed yet)."""


def executable(bundle: Path) -> Path:
    """The frozen app's executable inside ``bundle`` (the console one on Windows/macOS)."""
    for name in ("attnviz-cli.exe", "attnviz-cli", "attnviz.exe", "attnviz"):
        if (bundle / name).is_file():
            return bundle / name
    raise CheckError(f"no attnviz executable in {bundle}")


def internal_dir(bundle: Path) -> Path:
    """Where PyInstaller 6 puts the bundled files (``_internal``, next to the executable)."""
    return bundle / "_internal" if (bundle / "_internal").is_dir() else bundle


def describe_exit(code: int) -> str:
    """A readable exit status: a negative code is the signal that killed the process."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name} ({code})"
    if code > 128 and code - 128 in {s.value for s in signal.Signals}:
        # The shell's spelling of a signal death, e.g. when run through a wrapper script.
        return f"exit {code} (probably {signal.Signals(code - 128).name})"
    return f"exit {code}"


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a frozen run: nothing from the checkout or the venv leaks in."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "ATTNVIZ_", "VIRTUAL_ENV", "XDG_", "QT_", "PYQTGRAPH"))
    }
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_RUNTIME_DIR=str(home / "runtime"),
        QT_QPA_PLATFORM="offscreen",
        PYTHONFAULTHANDLER="1",
    )
    (home / "runtime").mkdir(parents=True, exist_ok=True, mode=0o700)
    env.update(extra)
    return env


def run_frozen(
    bundle: Path, args: list[str], home: Path, *, timeout: float = TIMEOUT_S, **env: str
) -> subprocess.CompletedProcess:
    """Run the frozen app with ``args`` from ``home`` and fail on any sign of a crash."""
    exe = executable(bundle)
    try:
        proc = subprocess.run(
            [str(exe), *args],
            cwd=home,
            env=clean_env(home, **env),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise CheckError(f"`attnviz {' '.join(args)}` hung for {timeout:.0f} s") from exc
    bad = _BAD_STDERR.search(proc.stderr)
    if proc.returncode != 0 or bad:
        why = describe_exit(proc.returncode) if proc.returncode else f"stderr has {bad.group()!r}"
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise CheckError(f"`attnviz {' '.join(args)}`: {why}\n{tail}")
    return proc


def source_modules(package: str = "attnviz") -> list[str]:
    """Every module of the checkout's ``attnviz`` package, by dotted name."""
    names = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__":
            continue  # importing it is harmless, but it is the entry point, not a module
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def command_names() -> list[str]:
    """Subcommands of the checkout (modules of attnviz/commands not starting with "_")."""
    return sorted(
        p.stem for p in (ROOT / "attnviz" / "commands").glob("*.py") if not p.stem.startswith("_")
    )


def version() -> str:
    """``attnviz.version.__version__`` read from the checkout, without importing it."""
    text = (ROOT / "attnviz" / "version.py").read_text(encoding="utf-8")
    return re.search(r'__version__\s*=\s*"([^"]+)"', text).group(1)


def png_info(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of distinct bytes of the decoded image rows.

    Standard library only (zlib): enough to tell an exact-size, non-blank PNG from an
    empty or single-colour one without Qt.
    """
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return width, height, len(set(raw[: 1 << 20]))


# --- the checks --------------------------------------------------------------------------


def check_version(bundle: Path, home: Path, ctx: dict) -> str:
    """``attnviz --version`` prints the checkout's version (also times a bare start)."""
    start = time.perf_counter()
    proc = run_frozen(bundle, ["--version"], home)
    ctx["version_s"] = time.perf_counter() - start
    if version() not in proc.stdout:
        raise CheckError(f"--version printed {proc.stdout.strip()!r}, expected {version()}")
    return proc.stdout.strip()


def check_commands_listed(bundle: Path, home: Path, ctx: dict) -> str:
    """``--help`` lists every subcommand: the frozen pkgutil listing of attnviz.commands works."""
    proc = run_frozen(bundle, ["--help"], home)
    missing = [c for c in command_names() if not re.search(rf"^\s+{c}\b", proc.stdout, re.M)]
    if missing:
        raise CheckError(f"--help does not list {missing}:\n{proc.stdout}")
    return f"{len(command_names())} commands: {', '.join(command_names())}"


def check_imports(bundle: Path, home: Path, ctx: dict) -> str:
    """Every attnviz module and pyqtgraph's lazily imported modules import in the bundle."""
    names = source_modules() + list(PYQTGRAPH_LAZY)
    if ctx.get("torch"):
        names.append("torch")
    run_frozen(bundle, [], home, ATTNVIZ_IMPORT_PROBE=",".join(names))
    return f"{len(names)} modules"


def check_files(bundle: Path, home: Path, ctx: dict) -> str:
    """Resources, colormaps and Qt translations are in the bundle; torch only when asked."""
    internal = internal_dir(bundle)
    wanted = [
        internal / "resources" / "presets" / "banco.json",
        internal / "resources" / "icons" / "attnviz.svg",
        internal / "resources" / "icons" / "attnviz-256.png",
        internal / "resources" / "translations" / "attnviz_pt_BR.qm",
        internal / "resources" / "THIRD_PARTY_NOTICES.md",
        # builtin:induction, the shipped model (its weights and curves)
        internal / "resources" / "models" / "induction" / "model.safetensors",
        internal / "resources" / "models" / "induction" / "training.csv",
    ]
    if sys.platform.startswith("linux"):
        app = "io.github.attnviz.Attnviz"
        wanted += [
            bundle / f"{app}.desktop",
            bundle / f"{app}.xml",
            bundle / f"{app}.metainfo.xml",
            bundle / "install-desktop.sh",
        ]
    missing = [str(p.relative_to(bundle)) for p in wanted if not p.is_file()]
    maps = list((internal / "pyqtgraph" / "colors" / "maps").glob("*"))
    if not maps:
        missing.append("pyqtgraph/colors/maps/*")
    if missing:
        raise CheckError(f"missing from the bundle: {missing}")
    has_torch = (internal / "torch").is_dir()
    if has_torch != bool(ctx.get("torch")):
        raise CheckError(f"torch in the bundle: {has_torch}, expected {bool(ctx.get('torch'))}")
    for binding in ("PyQt5", "PyQt6", "PySide2"):
        if (internal / binding).exists():
            raise CheckError(f"a second Qt binding is bundled: {binding}")
    # GNU readline is GPL-3.0: the bundle is built without Python's readline module.
    readline = sorted(str(p.relative_to(internal)) for p in internal.rglob("*readline*"))
    if readline:
        raise CheckError(f"GNU readline is bundled: {readline}")
    return f"{len(maps)} colormap files; torch: {has_torch}"


def check_self_test(bundle: Path, home: Path, ctx: dict) -> str:
    """``attnviz --self-test`` (offscreen) exits 0 and says ok."""
    start = time.perf_counter()
    proc = run_frozen(bundle, ["--self-test"], home)
    ctx["self_test_s"] = time.perf_counter() - start
    if "ok" not in proc.stdout:
        raise CheckError(f"--self-test exited 0 but printed {proc.stdout.strip()!r}")
    return proc.stdout.strip().splitlines()[-1]


def check_kv(bundle: Path, home: Path, ctx: dict) -> str:
    """``attnviz kv --model llama-3-8b --context 8192 --json`` prints JSON."""
    if "kv" not in command_names():
        raise CheckSkipError("the kv command is not in this tree yet")
    proc = run_frozen(bundle, ["kv", "--model", "llama-3-8b", "--context", "8192", "--json"], home)
    try:
        json.loads(proc.stdout)
    except ValueError as exc:
        raise CheckError(f"kv --json printed no JSON: {proc.stdout[:300]!r}") from exc
    return "JSON ok"


def check_export(bundle: Path, home: Path, ctx: dict) -> str:
    """``attnviz export`` writes an exact-size, non-blank PNG of the banco heatmap."""
    if "export" not in command_names():
        # Kept here on purpose: it runs, and must pass, as soon as the command lands.
        raise CheckSkipError("the export command is not in this tree yet")
    out = home / "x.png"
    args = ["export", "--preset", "banco", "--panel", "heatmap", "--out", str(out)]
    run_frozen(bundle, [*args, "--width", "640", "--height", "360"], home)
    if not out.is_file():
        raise CheckError("export exited 0 but wrote no file")
    width, height, distinct = png_info(out)
    if (width, height) != (640, 360):
        raise CheckError(f"export wrote {width}×{height}, expected 640×360")
    if distinct < 3:
        raise CheckError("export wrote a blank image")
    return f"{width}×{height}, {out.stat().st_size} bytes"


def check_animation(bundle: Path, home: Path, ctx: dict) -> str:
    """``attnviz export --animate`` writes an animated GIF and WebP of the exact size (Pillow
    and its WebP module are in the bundle; AVIF, fonts and colour management are left out)."""
    made = []
    for ext in ("gif", "webp"):
        out = home / f"sweep.{ext}"
        args = ["export", "--preset", "banco", "--animate", "attention.temperature=0.5:2"]
        args += ["--frames", "3", "--width", "160", "--height", "100", "--out", str(out)]
        run_frozen(bundle, args, home)
        if not out.is_file():
            raise CheckError(f"export --animate exited 0 but wrote no {ext}")
        data = out.read_bytes()
        if ext == "gif":
            size = struct.unpack("<HH", data[6:10])
            animated = data[:6] == b"GIF89a" and b"NETSCAPE2.0" in data
        else:
            # VP8X: a 24-bit width − 1 and height − 1 at bytes 24–29; ANIM: an animation.
            size = tuple(1 + int.from_bytes(data[i : i + 3], "little") for i in (24, 27))
            animated = data[8:16] == b"WEBPVP8X" and b"ANIM" in data[:64]
        if size != (160, 100) or not animated:
            raise CheckError(f"export --animate wrote a {ext} of {size}, animated: {animated}")
        made.append(f"{ext} {len(data)} bytes")
    return ", ".join(made)


#: Libraries that must come from the bundle itself: a "not found" among them is a broken
#: bundle (over-eager filtering), not a library the user's system is expected to have.
_BUNDLED_LIB = re.compile(r"^lib(Qt6|pyside6|shiboken6|python3|icu)")
#: Qt's X11 platform plugin and its Qt library: a missing dependency of either is no window.
_XCB_PLUGIN = {"libqxcb.so", "libQt6XcbQpa.so.6"}


def check_libs(bundle: Path, home: Path, ctx: dict) -> str:
    """(Linux) Every shared library and Qt plugin of the bundle finds its dependencies.

    A missing Qt or Python library fails; a missing system library (e.g. libxcb-icccm on a
    build machine without X11 packages) is only reported: the user's desktop has it.
    """
    if not sys.platform.startswith("linux"):
        raise CheckSkipError("ldd is Linux only")
    internal = internal_dir(bundle)
    env = dict(os.environ, LD_LIBRARY_PATH=str(internal))
    missing: dict[str, set[str]] = {}
    files = [p for p in internal.rglob("*.so*") if p.is_file() and not p.is_symlink()]
    for path in files:
        out = subprocess.run(["ldd", str(path)], env=env, capture_output=True, text=True).stdout
        for name in re.findall(r"^\s*(\S+) => not found", out, re.M):
            missing.setdefault(name, set()).add(path.name)
    broken = {name: users for name, users in missing.items() if _BUNDLED_LIB.match(name)}
    if broken:
        raise CheckError(f"libraries filtered out but still needed: {broken}")
    # The window: what Qt's X11 plugin loads must be in the bundle, whatever the desktop has.
    window = {name: users for name, users in missing.items() if users & _XCB_PLUGIN}
    if window:
        raise CheckError(
            f"Qt's X11 plugin cannot load from the bundle, missing: "
            f"{sorted(window)} (packaging/xcb_libs.py puts them in)"
        )
    note = f"; system libraries not on this machine: {sorted(missing)}" if missing else ""
    return f"{len(files)} libraries resolve{note}"


def check_model(bundle: Path, home: Path, ctx: dict) -> str:
    """With ``--models DIR``: the frozen app opens that model folder (the packaged MiniLM
    in CI), captures a sentence, proves it and exports a head's weights, rows summing to 1."""
    folder = ctx.get("models")
    if folder is None:
        raise CheckSkipError("no model folder given (--models DIR)")
    out = home / "weights.csv"
    text = "I sat on the bank of the river"
    args = [
        "export",
        "--model",
        str(folder),
        "--text",
        text,
        "--panel",
        "heatmap",
        "--matrix",
        "weights",
        "--set",
        "attention.layer=2",
        "--set",
        "attention.model_head=5",
        "--out",
        str(out),
    ]
    run_frozen(bundle, args, home)
    if not out.is_file():
        raise CheckError("export --model exited 0 but wrote no file")
    rows = [line.split(",") for line in out.read_text(encoding="utf-8").splitlines()]
    values = [[float(x) for x in row[1:]] for row in rows[1:]]
    n = len(values)
    if n < 5 or any(len(row) != n for row in values):
        raise CheckError(f"the weights are not n × n: {n} rows of {[len(r) for r in values]}")
    worst = max(abs(sum(row) - 1.0) for row in values)
    if worst > 1e-5:
        raise CheckError(f"a row of the weights sums to 1 ± {worst:.1e}")
    return f"{n} × {n} weights of layer 2, head 5; tokens {', '.join(r[0] for r in rows[1:4])}…"


CHECKS: list[Callable[[Path, Path, dict], str]] = [
    check_files,
    check_libs,
    check_version,
    check_commands_listed,
    check_imports,
    check_self_test,
    check_kv,
    check_export,
    check_animation,
    check_model,
]


def run_check(check, bundle: Path, ctx: dict) -> Outcome:
    """Run one check in a fresh HOME folder and report its outcome."""
    name = check.__name__.removeprefix("check_")
    with tempfile.TemporaryDirectory(prefix="attnviz-smoke-") as tmp:
        start = time.perf_counter()
        try:
            detail = check(bundle, Path(tmp), ctx)
        except CheckSkipError as exc:
            return Outcome(name, "skipped", str(exc))
        except CheckError as exc:
            return Outcome(name, "failed", str(exc), time.perf_counter() - start)
        return Outcome(name, "passed", detail, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Run every check on the bundle; exit 1 when any failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", type=Path, default=ROOT / "dist" / "attnviz")
    parser.add_argument("--torch", action="store_true", help="the bundle must include torch")
    parser.add_argument(
        "--models",
        type=Path,
        metavar="DIR",
        help="the bundle has the models extra: open this model folder",
    )
    args = parser.parse_args(argv)
    if not args.bundle.is_dir():
        print(f"smoke: no bundle at {args.bundle}; build it with `make package`", file=sys.stderr)
        return 1
    bundle = args.bundle.resolve()
    ctx = {"torch": args.torch or args.models is not None, "models": args.models}
    outcomes = [run_check(check, bundle, ctx) for check in CHECKS]
    for o in outcomes:
        timing = f" ({o.seconds:.2f} s)" if o.seconds else ""
        print(f"smoke: {o.status.upper():7} {o.name}{timing}: {o.detail}")
    counts = {s: sum(o.status == s for o in outcomes) for s in ("passed", "failed", "skipped")}
    print(
        f"smoke: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    )
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
