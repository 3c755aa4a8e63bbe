"""Session files (``.attnviz``): every topic of the document as JSON, saved atomically.

Format 2 holds ``{"format_version": 2, "app": ..., "layout": ..., "topics": {name:
{field: value}}}``; matrices of more than :data:`INLINE_ENTRIES` entries are written as
base64 of little-endian float64 (exact and compact), smaller ones as rows of numbers.
Arrays a topic regenerates (a synthetic head's Q/K/V) are left out. Format 1 files (the
attention state alone, under ``"state"``) still open, into the ``attention`` topic.

Reading is defensive: only a regular file is read, at most :data:`MAX_BYTES` of it (a pipe,
a device, ``/proc`` or ``/dev/zero`` never hang or exhaust memory); huge or non-finite
numbers, wrong types, unknown topics or fields, and values a topic refuses all become
:class:`SessionError` with one line, before anything is applied. Saving goes through a
temporary file and a rename (:mod:`attnviz.model.safe_io`), so a failed save leaves the
old file as it was.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from pathlib import Path

import numpy as np

from attnviz.core.value_text import brief
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.safe_io import FileRefused, atomic_write_text, read_text_limited
from attnviz.model.topic import Topic
from attnviz.model.topics import topic_classes
from attnviz.version import __version__

FORMAT_VERSION = 2
SUFFIX = ".attnviz"
#: Largest session file: Q, K and V of 4096 tokens × 1024 dimensions as base64 take 134 MB.
MAX_BYTES = 160 * 1024 * 1024
#: Most numbers a file written as rows of numbers may hold (counted before parsing, so a
#: file of millions of tiny numbers cannot make the parser allocate gigabytes).
MAX_NUMBERS = 3 * 4096 * 1024 + 65536
#: Matrices up to this many entries are written as readable rows.
INLINE_ENTRIES = 4096
#: Longest integer literal accepted: more digits is no setting of ours.
_MAX_DIGITS = 30


class SessionError(ValueError):
    """A session file could not be read or written; the message says why."""


def _topics(target) -> dict[str, Topic]:
    if isinstance(target, Document):
        return target.topics
    if isinstance(target, Topic):
        return {target.NAME: target}
    raise TypeError(f"expected a Document or a Topic, got {type(target).__name__}")


# --- writing ---------------------------------------------------------------------------
def _encode(value):
    if isinstance(value, np.ndarray):
        if value.size <= INLINE_ENTRIES:
            return value.tolist()
        data = np.ascontiguousarray(value, dtype="<f8").tobytes()
        return {
            "dtype": "float64",
            "shape": list(value.shape),
            "base64": base64.b64encode(data).decode("ascii"),
        }
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def session_dict(target, *, layout: str = "") -> dict:
    """The JSON-ready content of a session file for a document (or a lone topic)."""
    topics = {}
    for name, topic in _topics(target).items():
        values = topic.snapshot()
        skip = topic.regenerable(values)
        topics[name] = {k: _encode(v) for k, v in values.items() if k not in skip}
    return {
        "format_version": FORMAT_VERSION,
        "app": f"attnviz {__version__}",
        "layout": layout,
        "topics": topics,
    }


def save_session(target, path, *, layout: str = "") -> Path:
    """Write a document (or a lone topic) to ``path`` atomically; return the path written.

    Through a symlink the link's target is written; an existing file keeps its mode.
    """
    if "\0" in str(path):
        raise SessionError("cannot save: the file name holds a NUL character")
    try:
        text = json.dumps(session_dict(target, layout=layout), ensure_ascii=False, indent=1)
        return atomic_write_text(path, text)
    except FileRefused as exc:
        raise SessionError(str(exc)) from None
    except (ValueError, UnicodeError) as exc:
        raise SessionError(f"cannot save the session: {exc}") from None


# --- reading ---------------------------------------------------------------------------
def _int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise SessionError(f"the file holds an integer of {len(text)} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise SessionError(f"the file holds a number too large to use ({text[:40]})")
    return value


def _constant(name: str):
    raise SessionError(f"the file holds a non-finite number ({name})")


def read_session(path) -> tuple[dict, str]:
    """Read and validate a session file; return ``({topic: values}, layout_name)``.

    The values are checked on throwaway topics, so a file that reads here applies to a
    live document without error. A real model's head is checked by running its sentence
    through the model (see :func:`model_needed`).
    """
    return validate_session(parse_session(path), name=_file_name(path))


def _file_name(path) -> str:
    return Path(path).name if "\0" not in str(path) else "the file"


def model_needed(data) -> tuple[str, str] | None:
    """``(model_path, model_text)`` when the parsed session ``data`` shows a real model's
    head, whose check loads that model (seconds): a GUI does that on a worker first."""
    section = data.get("topics") if isinstance(data, dict) else None
    attention = section.get("attention") if isinstance(section, dict) else None
    if not isinstance(attention, dict) or attention.get("head") != "model":
        return None
    default = {cls.NAME: cls for cls in topic_classes()}["attention"].field("model_text")
    path = attention.get("model_path")
    text = attention.get("model_text", default.default)
    if not isinstance(path, str) or not path or "\0" in path or not isinstance(text, str):
        return None  # the check refuses it, quickly
    return path, text


def parse_session(path) -> dict:
    """Read a session file as JSON, refusing what is not a plain, bounded, finite file;
    :func:`validate_session` checks what it holds."""
    name = _file_name(path)
    if "\0" in str(path):
        raise SessionError("cannot open a file whose name holds a NUL character")
    try:
        raw = read_text_limited(path, MAX_BYTES)
    except FileRefused as exc:
        raise SessionError(str(exc)) from None
    if not raw.strip():
        raise SessionError(f"{name} is empty: it holds no session")
    if raw.count(",") > MAX_NUMBERS:
        raise SessionError(f"{name} holds more numbers than a session can")
    try:
        data = json.loads(raw, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except SessionError as exc:
        raise SessionError(f"{name}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SessionError(
            f"{name} is damaged or truncated (JSON error at line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise SessionError(f"{name} is nested too deeply to be a session") from None
    except (ValueError, MemoryError) as exc:
        raise SessionError(f"{name} cannot be read as a session ({exc})") from None
    return data


def validate_session(data, *, name: str = "session") -> tuple[dict, str]:
    """Check the parsed JSON of a session; return ``({topic: values}, layout_name)``."""
    if not isinstance(data, dict) or "format_version" not in data:
        raise SessionError(f"{name} is not an attnviz session (no format_version)")
    version = data["format_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise SessionError(f"{name}: format_version must be an integer, got {brief(version)}")
    if version > FORMAT_VERSION:
        raise SessionError(
            f"{name} was written by a newer attnviz (format {version}; this one reads up to "
            f"{FORMAT_VERSION}); update attnviz to open it"
        )
    if version < 1:
        raise SessionError(f"{name}: format_version {version} is not valid")
    if version == 1:
        section = {"attention": data.get("state")}
        if not isinstance(section["attention"], dict):
            raise SessionError(f"{name}: the 'state' section is missing or not an object")
    else:
        section = data.get("topics")
        if not isinstance(section, dict):
            raise SessionError(f"{name}: the 'topics' section is missing or not an object")
    layout = data.get("layout", "")
    if not isinstance(layout, str) or len(layout) > 200:
        raise SessionError(f"{name}: 'layout' must be a short text")
    snapshot = _decode_topics(section, name)
    return snapshot, layout


def _names(names: set) -> str:
    """A few of ``names`` for a message of one line (a file may hold thousands of keys)."""
    shown = sorted(map(str, names))
    text = ", ".join(x if len(x) <= 30 and x.isprintable() else brief(x) for x in shown[:3])
    return text + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")


def _decode_topics(section: dict, name: str) -> dict:
    """Every topic's values, checked; topics the file lacks get their defaults."""
    classes = {cls.NAME: cls for cls in topic_classes()}
    unknown = set(section) - set(classes)
    if unknown:
        raise SessionError(f"{name}: unknown topic(s) {_names(unknown)}")
    snapshot = {}
    for topic_name, cls in classes.items():
        fields = section.get(topic_name, {})
        if not isinstance(fields, dict):
            raise SessionError(f"{name}: topic {topic_name!r} must be an object")
        known = set(cls.field_names())
        bad = set(fields) - known
        if bad:
            raise SessionError(f"{name}: unknown field(s) of {topic_name}: {_names(bad)}")
        values = {k: _decode_value(v, f"{name}: {topic_name}.{k}") for k, v in fields.items()}
        try:
            topic = cls(**values)
        except StateError as exc:
            raise SessionError(f"{name}: {topic_name}: {exc}") from None
        snapshot[topic_name] = topic.snapshot()
    return snapshot


def _decode_value(value, label: str):
    if isinstance(value, dict) and "base64" in value:
        return _decode_array(value, label)
    return value


def _decode_array(spec: dict, label: str) -> np.ndarray:
    if set(spec) != {"dtype", "shape", "base64"} or spec["dtype"] != "float64":
        raise SessionError(f"{label}: an array needs dtype float64, shape and base64")
    shape = spec["shape"]
    if (
        not isinstance(shape, list)
        or len(shape) != 2
        or not all(
            isinstance(x, int) and not isinstance(x, bool) and 0 < x <= 1 << 20 for x in shape
        )
    ):
        raise SessionError(f"{label}: the array shape {brief(shape)} is not a matrix shape")
    if not isinstance(spec["base64"], str):
        raise SessionError(f"{label}: the array data must be base64 text")
    try:
        data = base64.b64decode(spec["base64"], validate=True)
    except (binascii.Error, ValueError):
        raise SessionError(f"{label}: the array data is not valid base64") from None
    if len(data) != shape[0] * shape[1] * 8:
        raise SessionError(f"{label}: the array data does not match its shape {shape}")
    return np.frombuffer(data, dtype="<f8").reshape(shape).astype(np.float64)


def load_session(target, path) -> str:
    """Apply the session at ``path`` to a document (or a lone topic); return its layout.

    Nothing changes when the file is refused.
    """
    snapshot, layout = read_session(path)
    topics = _topics(target)
    try:
        for topic_name, values in snapshot.items():
            if topic_name in topics:
                topics[topic_name].update(**values)
    except StateError as exc:  # cannot happen for a file read_session accepted
        raise SessionError(str(exc)) from None
    return layout
