"""The frozen app (dist/attnviz), checked by packaging/smoke_test.py under pytest.

Runs when ``ATTNVIZ_TEST_BUNDLE=1`` (then a missing bundle is a failure), or when a bundle
exists that is newer than every source file it is built from; otherwise skipped, so that
``make test`` neither needs a build nor reports on a stale one. ``ATTNVIZ_BUNDLE`` names
another bundle folder (e.g. dist/attnviz-torch).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_smoke():
    spec = importlib.util.spec_from_file_location(
        "smoke_test", ROOT / "packaging" / "smoke_test.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


smoke = _load_smoke()
BUNDLE = Path(os.environ.get("ATTNVIZ_BUNDLE") or ROOT / "dist" / "attnviz")
REQUIRED = os.environ.get("ATTNVIZ_TEST_BUNDLE") == "1"


def _newest_source_mtime() -> float:
    paths = [ROOT / "pyproject.toml"]
    for folder in ("attnviz", "resources", "packaging"):
        paths += [
            p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts
        ]
    return max(p.stat().st_mtime for p in paths)


def _skip_reason() -> str | None:
    if REQUIRED:
        return None
    try:
        built = smoke.executable(BUNDLE).stat().st_mtime
    except smoke.CheckError:
        return f"no bundle at {BUNDLE} (make package, or ATTNVIZ_TEST_BUNDLE=1)"
    if built < _newest_source_mtime():
        return f"{BUNDLE} is older than the sources (make package-test rebuilds it)"
    return None


_reason = _skip_reason()
needs_bundle = pytest.mark.skipif(_reason is not None, reason=_reason or "")


@pytest.fixture(scope="module")
def ctx():
    """Shared between the checks (timings); ``torch`` follows the bundle's name."""
    return {"torch": BUNDLE.name.endswith(("-torch", "-models"))}


@needs_bundle
@pytest.mark.parametrize("check", smoke.CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
def test_frozen_app(check, ctx, tmp_path):
    if REQUIRED and not BUNDLE.is_dir():
        pytest.fail(f"ATTNVIZ_TEST_BUNDLE=1 but there is no bundle at {BUNDLE}")
    try:
        check(BUNDLE.resolve(), tmp_path, ctx)
    except smoke.CheckSkipError as exc:
        pytest.skip(str(exc))
    except smoke.CheckError as exc:
        pytest.fail(str(exc), pytrace=False)


def test_describe_exit_names_signals():
    # The trap: a segfault is a negative return code, not a traceback.
    assert smoke.describe_exit(-11) == "killed by SIGSEGV (-11)"
    assert smoke.describe_exit(139).startswith("exit 139 (probably SIGSEGV")
    assert smoke.describe_exit(1) == "exit 1"


def test_png_info_reads_size_and_blankness(tmp_path):
    import struct
    import zlib

    def png(width, height, rows):
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))

    blank = tmp_path / "blank.png"
    blank.write_bytes(png(4, 2, b"\x00\x00\x00\x00\x00" * 2))
    assert smoke.png_info(blank) == (4, 2, 1)
    busy = tmp_path / "busy.png"
    busy.write_bytes(png(4, 2, b"\x00\x10\x20\x30\x40\x00\x50\x60\x70\x80"))
    assert smoke.png_info(busy)[2] > 3


def _fake_bundle(tmp_path, script: str) -> Path:
    """A folder whose ``attnviz`` is a shell script, to test how runs are judged."""
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    exe = bundle / "attnviz"
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(0o755)
    return bundle


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shell scripts as executables")
def test_a_segfault_fails_the_run(tmp_path):
    bundle = _fake_bundle(tmp_path, "echo 'self-test: ok'; kill -SEGV $$")
    with pytest.raises(smoke.CheckError, match=r"killed by SIGSEGV \(-11\)"):
        smoke.run_frozen(bundle, ["--self-test"], tmp_path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shell scripts as executables")
def test_a_traceback_fails_the_run_even_with_exit_0(tmp_path):
    script = (
        "echo 'Traceback (most recent call last):' >&2\n"
        "echo \"ModuleNotFoundError: No module named 'pyqtgraph.exporters'\" >&2\n"
        "exit 0"
    )
    with pytest.raises(smoke.CheckError, match="Traceback"):
        smoke.run_frozen(_fake_bundle(tmp_path, script), ["--self-test"], tmp_path)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shell scripts as executables")
def test_a_hang_fails_the_run(tmp_path):
    bundle = _fake_bundle(tmp_path, "exec sleep 30")
    with pytest.raises(smoke.CheckError, match="hung"):
        smoke.run_frozen(bundle, ["--self-test"], tmp_path, timeout=0.5)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="shell scripts as executables")
def test_the_run_sees_no_checkout_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("ATTNVIZ_RESOURCES", str(ROOT / "resources"))
    script = 'echo "[$PYTHONPATH][$ATTNVIZ_RESOURCES][$QT_QPA_PLATFORM][$PYTHONFAULTHANDLER]"'
    proc = smoke.run_frozen(_fake_bundle(tmp_path, script), [], tmp_path)
    assert proc.stdout.strip() == "[][][offscreen][1]"
