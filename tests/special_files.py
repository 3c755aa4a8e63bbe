"""Things a path can name besides a regular file, made for the tests that attack the loaders
and the outputs (tests/test_loaders_special_files.py, tests/test_output_paths_fuzz.py), and
a watchdog that turns a hang into a failure."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
from pathlib import Path


def plant(kind: str, path: Path) -> None:
    """Make ``path`` a ``kind``: file, folder, fifo, socket, dev-zero, dev-null (links to
    those devices), loop (a link to itself), dangling (a link into a missing folder),
    sparse-3gb, empty or binary."""
    if kind == "file":
        path.write_bytes(b"old contents")
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind in ("dev-zero", "dev-null"):
        path.symlink_to("/dev/" + kind[4:])
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "dangling":
        path.symlink_to(path.parent / "gone" / "x")
    elif kind == "sparse-3gb":
        with open(path, "wb") as fh:
            fh.truncate(3 * 2**30)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 64)
    else:
        raise ValueError(f"no such kind: {kind}")


class HungError(Exception):
    """What the watchdog raises: the work blocked (a FIFO read or written)."""


@contextlib.contextmanager
def watchdog(seconds: int):
    """Raise :class:`HungError` in the main thread when the block runs past ``seconds``."""

    def fire(signum, frame):
        raise HungError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
