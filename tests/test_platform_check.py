"""Before Qt starts: a missing xcb library is one line with the command that installs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from attnviz.platform_check import (
    install_hint,
    missing_libraries,
    platform_problem,
    uses_xcb,
    xcb_plugin_files,
)

LDD = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-icccm.so.4 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f)
\tlibxcb-keysyms.so.1 => not found
"""


def test_the_missing_libraries_are_read_from_ldd_and_named_with_their_packages(monkeypatch):
    assert missing_libraries(["a", "b"], lambda path: LDD) == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
    ]
    assert install_hint(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]) == (
        "sudo apt install libxcb-icccm4 libxcb-keysyms1 (Debian/Ubuntu) or "
        "sudo dnf install xcb-util-keysyms xcb-util-wm (Fedora)"
    )
    line = platform_problem({"DISPLAY": ":0"}, lambda path: LDD)
    if sys.platform.startswith("linux") and xcb_plugin_files():
        assert line.startswith(
            "attnviz: Qt's X11 platform plugin cannot load: "
            "libxcb-icccm.so.4, libxcb-keysyms.so.1 are missing; sudo apt"
        )
        assert "\n" not in line
    import attnviz.platform_check as check

    monkeypatch.setattr(check, "display_answers", lambda display, timeout=1.0: True)
    assert platform_problem({"DISPLAY": ":0"}, lambda path: "") is None


def test_only_a_session_qt_would_open_with_xcb_is_checked():
    linux = sys.platform.startswith("linux")
    assert uses_xcb({"DISPLAY": ":0"}) is linux
    assert not uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert uses_xcb({"QT_QPA_PLATFORM": "xcb"}) is linux
    assert not uses_xcb(
        {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
    )
    assert not uses_xcb({})


@pytest.mark.skipif(
    not xcb_plugin_files() or not missing_libraries(xcb_plugin_files()),
    reason="every library of Qt's xcb plugin is installed here",
)
def test_on_a_machine_without_them_the_window_is_one_line_not_an_abort():
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["DISPLAY"] = ":99"
    r = subprocess.run(
        [sys.executable, "-m", "attnviz"], capture_output=True, text=True, env=env, timeout=60
    )
    assert r.returncode == 1  # not 134 (SIGABRT)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "platform plugin cannot load" in lines[0]
    for name in missing_libraries(xcb_plugin_files()):
        assert name in lines[0]


def test_a_display_nobody_answers_is_one_line_before_qt():
    from attnviz.platform_check import display_answers

    free = next(n for n in range(90, 200) if not display_answers(f":{n}", 0.2))
    line = platform_problem({"DISPLAY": f":{free}"}, lambda path: "")
    if sys.platform.startswith("linux") and xcb_plugin_files():
        assert line == (
            f"attnviz: no X server answers at DISPLAY=:{free}; start the desktop "
            "session, or a virtual display (xvfb-run attnviz), or correct DISPLAY"
        )
    assert display_answers("not-a-display") is True  # a form not known: Qt decides


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="no xvfb-run here")
def test_a_running_x_server_answers():
    script = (
        "import os, sys; from attnviz.platform_check import display_answers; "
        "sys.exit(0 if display_answers(os.environ['DISPLAY']) else 1)"
    )
    r = subprocess.run(
        ["xvfb-run", "-a", sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr


def test_the_loader_answers_first_and_ldd_runs_only_when_a_file_will_not_load(
    monkeypatch, tmp_path
):
    import ctypes.util

    import attnviz.platform_check as check

    not_a_library = tmp_path / "libqxcb.so"
    not_a_library.write_bytes(b"not an ELF file")
    assert check.all_load([not_a_library]) is False
    libc = ctypes.util.find_library("c")
    if sys.platform.startswith("linux") and libc:
        assert check.all_load([libc]) is True
    assert check.all_load([]) is True

    if not (sys.platform.startswith("linux") and xcb_plugin_files()):
        return
    calls = []
    monkeypatch.setattr(check, "display_answers", lambda display, timeout=1.0: True)
    monkeypatch.setattr(check, "_ldd", lambda path: calls.append(path) or LDD)
    monkeypatch.setattr(check, "all_load", lambda files: True)
    assert platform_problem({"DISPLAY": ":0"}) is None
    assert calls == []  # everything loads: no ldd process at all
    monkeypatch.setattr(check, "all_load", lambda files: False)
    line = platform_problem({"DISPLAY": ":0"})
    assert calls and "libxcb-icccm.so.4, libxcb-keysyms.so.1 are missing" in line
