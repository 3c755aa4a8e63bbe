"""Session files (``.attnviz``): the whole state as JSON, saved atomically, read defensively.

A file that is corrupt, truncated, from a newer attnviz, of the wrong shape, too large or
holding non-finite numbers is refused with :class:`SessionError`; nothing is overwritten
when saving fails (the new content goes to a temporary file first, then replaces the old
one in a single rename).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

from attnviz import __version__
from attnviz.model.state import FIELD_NAMES, MAX_TOKENS, AttentionState, StateError

FORMAT_VERSION = 1
SUFFIX = ".attnviz"
#: Larger files are refused before parsing: a real session of 4096 tokens × 1024 dims stays
#: well below this, and a hostile file should not be able to exhaust memory.
MAX_BYTES = 256 * 1024 * 1024
#: Fields kept in the file; Q/K/V only when typed by hand (synthetic heads regenerate).
_ARRAYS = ("q", "k", "v")


class SessionError(ValueError):
    """A session file could not be read or written; the message says why."""


def session_dict(state: AttentionState, *, layout: str = "") -> dict:
    """The JSON-ready content of a session file for ``state``."""
    values = state.snapshot()
    out: dict = {
        "format_version": FORMAT_VERSION,
        "app": f"attnviz {__version__}",
        "layout": layout,
    }
    fields = {}
    for name in FIELD_NAMES:
        val = values[name]
        if name in _ARRAYS:
            if values["head"] != "manual":
                continue
            val = val.tolist()
        elif isinstance(val, tuple):
            val = list(val)
        fields[name] = val
    out["state"] = fields
    return out


def save_session(state: AttentionState, path, *, layout: str = "") -> Path:
    """Write ``state`` to ``path`` atomically (temporary file, fsync, rename)."""
    path = Path(path)
    text = json.dumps(session_dict(state, layout=layout), ensure_ascii=False, indent=1)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".attnviz-", suffix=".tmp", dir=path.parent or ".")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            Path(tmp).unlink(missing_ok=True)
        raise SessionError(f"could not save the session to {path}: {exc.strerror or exc}") from exc
    return path


def _finite_hook(value: str):
    raise SessionError(f"the file holds a non-finite number ({value})")


def read_session(path) -> tuple[dict, str]:
    """Read and validate a session file; return ``(state_values, layout_name)``.

    The values are checked by building a throwaway :class:`AttentionState`, so a file that
    loads here can be applied to the live state without error.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SessionError(f"cannot open {path}: {exc.strerror or exc}") from exc
    if size > MAX_BYTES:
        raise SessionError(f"{path.name} is {size / 2**20:.0f} MiB, larger than a session can be")
    try:
        raw = path.read_bytes().decode("utf-8")
        data = json.loads(raw, parse_constant=_finite_hook)
    except UnicodeDecodeError as exc:
        raise SessionError(f"{path.name} is not a text file: not an attnviz session") from exc
    except json.JSONDecodeError as exc:
        raise SessionError(
            f"{path.name} is damaged or truncated "
            f"(JSON error at line {exc.lineno}, column {exc.colno})"
        ) from exc
    except RecursionError as exc:
        raise SessionError(f"{path.name} is nested too deeply to be a session") from exc
    return validate_session(data, name=path.name)


def validate_session(data, *, name: str = "session") -> tuple[dict, str]:
    """Check the parsed JSON of a session; return ``(state_values, layout_name)``."""
    if not isinstance(data, dict) or "format_version" not in data:
        raise SessionError(f"{name} is not an attnviz session (no format_version)")
    version = data["format_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise SessionError(f"{name}: format_version must be an integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise SessionError(
            f"{name} was written by a newer attnviz (format {version}; this one reads up to "
            f"{FORMAT_VERSION}); update attnviz to open it"
        )
    if version < 1:
        raise SessionError(f"{name}: format_version {version} is not valid")
    fields = data.get("state")
    if not isinstance(fields, dict):
        raise SessionError(f"{name}: the 'state' section is missing or not an object")
    unknown = set(fields) - set(FIELD_NAMES)
    if unknown:
        raise SessionError(f"{name}: unknown field(s) {', '.join(sorted(unknown))}")
    tokens = fields.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise SessionError(f"{name}: 'tokens' must be a list of strings")
    if len(tokens) > MAX_TOKENS:
        raise SessionError(
            f"{name}: {len(tokens)} tokens is more than attnviz holds ({MAX_TOKENS})"
        )
    for key in _ARRAYS:
        if key in fields:
            _check_matrix(fields[key], f"{name}: {key}")
    layout = data.get("layout", "")
    if not isinstance(layout, str) or len(layout) > 200:
        raise SessionError(f"{name}: 'layout' must be a short text")
    values = dict(fields)
    try:
        AttentionState(**values)
    except (StateError, ValueError, TypeError) as exc:
        raise SessionError(f"{name}: {exc}") from exc
    return values, layout


def _check_matrix(rows, label: str) -> None:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        raise SessionError(f"{label} must be a non-empty list of rows")
    width = len(rows[0])
    for r in rows:
        if len(r) != width:
            raise SessionError(f"{label}: rows have different lengths")
        for x in r:
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
                raise SessionError(f"{label}: {x!r} is not a finite number")


def load_session(state: AttentionState, path) -> str:
    """Apply the session at ``path`` to ``state`` (one undoable update); return its layout name."""
    values, layout = read_session(path)
    state.update(**values)
    return layout
