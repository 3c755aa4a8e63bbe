"""Reading a small JSON file that may be anything: the one guarded read of core.

A config.json, a model card or a tokenizer config comes from a folder the user chose: it
may be a FIFO (an ``open`` would wait forever), a device or a link to one (``/dev/zero``
reads without end), huge, not UTF-8, or JSON nested past the recursion limit. Each is
refused with a short reason; the caller names the file and raises its own kind of error.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path


def read_json_file(path: Path, limit: int):
    """The JSON value in ``path``: a regular file of at most ``limit`` bytes of UTF-8 (a
    byte-order mark allowed). ``ValueError`` with the reason alone otherwise: "not a regular
    file", "larger than N MiB", "cannot read it (why)", "not UTF-8 text", "not valid JSON
    (why)"."""
    mib = f"{limit / 2**20:g} MiB"
    try:
        info = path.stat()  # before any open: a FIFO is refused without waiting on it
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > limit:
            raise ValueError(f"larger than {mib}")
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)  # a file that grew meanwhile is read no further
    except OSError as exc:
        raise ValueError(f"cannot read it ({exc.strerror or exc})") from None
    if len(raw) > limit:
        raise ValueError(f"larger than {mib}")
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split(";")[0].split()) or type(exc).__name__
        raise ValueError(f"not valid JSON ({reason})") from None
