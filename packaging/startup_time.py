"""Start-to-window time of the app: ``python3 packaging/startup_time.py [EXE] [--runs N]``.

Launches the app (default: the frozen ``dist/attnviz/attnviz``) and measures the time until
its main window is mapped and visible on the X server, polled with ``xdotool search
--onlyvisible --pid``; then closes it and starts again. Without a DISPLAY it starts its own
Xvfb. Needs ``xdotool`` and, headless, ``Xvfb`` (Debian: ``apt-get install xdotool xvfb``).
Prints each run and the median; the numbers in packaging/README.md come from here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _start_xvfb() -> tuple[subprocess.Popen, str]:
    for number in range(90, 110):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            continue
        display = f":{number}"
        proc = subprocess.Popen(
            ["Xvfb", display, "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if Path(f"/tmp/.X11-unix/X{number}").exists():
                return proc, display
            time.sleep(0.05)
        proc.kill()
    raise SystemExit("could not start Xvfb")


def _visible(pid: int, env: dict) -> bool:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--pid", str(pid)],
        env=env,
        capture_output=True,
    )
    return found.returncode == 0 and bool(found.stdout.strip())


def time_to_window(cmd: list[str], env: dict, timeout: float = 30.0) -> float:
    """Seconds from launching ``cmd`` to its first visible window; the app is then closed."""
    start = time.perf_counter()
    app = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while time.perf_counter() - start < timeout:
            if app.poll() is not None:
                err = app.stderr.read().decode(errors="replace")
                raise SystemExit(f"the app exited ({app.returncode}) before its window:\n{err}")
            if _visible(app.pid, env):
                return time.perf_counter() - start
            time.sleep(0.005)
        raise SystemExit(f"no window after {timeout:.0f} s")
    finally:
        app.terminate()
        try:
            app.wait(timeout=10)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()


def main(argv: list[str] | None = None) -> int:
    """Measure ``--runs`` starts and print them with their median."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cmd", nargs="*", default=[str(ROOT / "dist" / "attnviz" / "attnviz")])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    if shutil.which("xdotool") is None:
        raise SystemExit("xdotool is needed (apt-get install xdotool)")
    xvfb = None
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_QPA", "ATTNVIZ_"))}
    if not env.get("DISPLAY"):
        xvfb, env["DISPLAY"] = _start_xvfb()
    try:
        with tempfile.TemporaryDirectory(prefix="attnviz-startup-") as home:
            # One HOME for all runs: the first start writes settings, as a user's first does.
            env.update(HOME=home, XDG_CONFIG_HOME=f"{home}/config", XDG_DATA_HOME=f"{home}/data")
            times = []
            for i in range(args.runs):
                seconds = time_to_window(args.cmd, env)
                times.append(seconds)
                print(f"run {i + 1}: {seconds:.3f} s", flush=True)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait()
    print(
        f"start to visible window: median {statistics.median(times):.3f} s, "
        f"min {min(times):.3f} s, max {max(times):.3f} s ({len(times)} runs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
