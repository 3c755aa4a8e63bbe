"""Before Qt starts: can its X11 platform plugin load on this machine? (No Qt imported.)

On a Linux desktop without a few small xcb libraries (``libxcb-icccm4`` and
``libxcb-keysyms1`` are the usual two) Qt aborts the process (SIGABRT) with a message that
names another library. :func:`platform_problem` first asks the dynamic loader to load the
plugin and its Qt library (as Qt will, a millisecond); only when one will not load does it
read what they link against (``ldd``, two processes, about 20 ms) and give one line
naming the missing files and the command that installs them on Debian/Ubuntu and on
Fedora. This runs on every start on X11, hence the quick way first; ``socket`` and
``subprocess`` are imported only when they are needed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

#: Library file → (Debian/Ubuntu package, Fedora package).
PACKAGES = {
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    # Qt's Wayland plugin (a Wayland session), named for the .deb's Depends line.
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)


def xcb_plugin_files() -> list[Path]:
    """The xcb platform plugin of the installed PySide6 and the Qt library it loads."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations))) / "Qt"
    files = [root / "plugins" / "platforms" / "libqxcb.so", root / "lib" / "libQt6XcbQpa.so.6"]
    return [f for f in files if f.is_file()]


def missing_libraries(files, ldd_output=None) -> list[str]:
    """The shared libraries ``files`` need that the system cannot find, in order.

    ``ldd_output(path) -> str`` runs ``ldd`` (replaced in tests); no ``ldd``, no answer.
    """
    run = ldd_output or _ldd
    missing: list[str] = []
    for path in files:
        text = run(path)
        for name in _NOT_FOUND.findall(text or ""):
            if name not in missing:
                missing.append(name)
    return missing


def all_load(files) -> bool:
    """True when the dynamic loader loads every one of ``files`` (and all they need) here.

    Loaded as Qt will load them a moment later (the same files, so nothing is loaded twice);
    False at the first that will not load, whatever the reason: :func:`missing_libraries`
    then says which libraries are missing, if any."""
    import ctypes

    for path in files:
        try:
            ctypes.CDLL(str(path))
        except OSError:
            return False
    return True


def _ldd(path: Path) -> str:
    import shutil
    import subprocess

    ldd = shutil.which("ldd")
    if ldd is None:
        return ""
    try:
        return subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def install_hint(missing: list[str]) -> str:
    """``sudo apt install … (Debian/Ubuntu) or sudo dnf install … (Fedora)`` for ``missing``."""
    known = [PACKAGES[m] for m in missing if m in PACKAGES]
    debian = sorted(dict.fromkeys(d for d, _f in known))
    fedora = sorted(dict.fromkeys(f for _d, f in known))
    if not known:
        return "install the packages that provide them"
    return (
        f"sudo apt install {' '.join(debian)} (Debian/Ubuntu) or "
        f"sudo dnf install {' '.join(fedora)} (Fedora)"
    )


def uses_xcb(environ=None) -> bool:
    """True when Qt will pick its X11 plugin: on Linux, asked for (or by default) with an
    X display, and not a Wayland session that Qt would reach natively."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    wanted = env.get("QT_QPA_PLATFORM", "")
    if wanted:
        return wanted.split(":")[0].split(";")[0] == "xcb"
    wayland = env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland"
    return bool(env.get("DISPLAY")) and not wayland


def display_answers(display: str, timeout: float = 1.0) -> bool:
    """True when an X server answers at ``display`` (``:0``, ``unix:1``, ``host:0.0``):
    its local socket (the file, or Linux's abstract one) or its TCP port 6000 + N."""
    import socket

    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return True  # a form not known here: let Qt try
    if host in ("", "unix"):
        for address in (f"/tmp/.X11-unix/X{number}", f"\0/tmp/.X11-unix/X{number}"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(timeout)
                try:
                    sock.connect(address)
                    return True
                except OSError:
                    continue
        return False
    try:
        with socket.create_connection((host, 6000 + int(number)), timeout=timeout):
            return True
    except OSError:
        return False


def platform_problem(environ=None, ldd_output=None) -> str | None:
    """One line when Qt's xcb plugin cannot load here (naming the missing libraries and how
    to install them) or its display does not answer; None when all is well, or when Qt will
    not use it. ``ldd_output`` (tests) replaces ``ldd`` and skips the loader's quick
    answer."""
    if not uses_xcb(environ):
        return None
    files = xcb_plugin_files()
    loads = ldd_output is None and all_load(files)
    missing = [] if loads else missing_libraries(files, ldd_output)
    if not missing:
        env = os.environ if environ is None else environ
        display = env.get("DISPLAY", "")
        if display and not display_answers(display):
            return (
                f"attnviz: no X server answers at DISPLAY={display}; start the desktop "
                "session, or a virtual display (xvfb-run attnviz), or correct DISPLAY"
            )
        return None
    return (
        f"attnviz: Qt's X11 platform plugin cannot load: {', '.join(missing)} "
        f"{'is' if len(missing) == 1 else 'are'} missing; {install_hint(missing)}"
    )
