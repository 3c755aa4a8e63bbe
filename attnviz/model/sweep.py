"""Field sweeps for animations: ``TOPIC.FIELD=START:STOP[:log]`` read, checked and stepped.

An animation draws one panel N times while one or more numeric fields move from START to
STOP. :func:`parse_sweep` reads the text ``attnviz export --animate`` takes and checks it
against the document's typed fields (only ``int`` and ``float`` fields move; START and
STOP must be values the field accepts, so a bad one is refused in the field's own words);
:func:`sweep_values` turns sweeps into the values of every frame, one
``{"topic.field": value}`` per frame, the sweeps stepping together (frame i takes each
sweep's i-th value). A float field moves linearly, or geometrically with ``:log``; an
integer field takes the same curve rounded to whole numbers, so it steps through its
values. :func:`check_frames` tries every frame on a throwaway copy of the document before
any drawing (a ``positions.head_dim`` of 3 is refused by the topic: odd). Every error is a
:class:`~attnviz.model.fields.StateError` of one line. Nothing here imports Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attnviz.model.fields import StateError

#: Frames an animation may have: two at least (a still image is a PNG), at most 600
#: (a minute at 10 frames per second; more is a video editor's job).
FRAMES_RANGE = (2, 600)
#: Frames per second: above 0, at most 60 (GIF cannot even time 60 reliably).
MAX_FPS = 60.0
#: Numeric kinds a sweep can move.
NUMERIC_KINDS = ("int", "float")
_MAX_NUMBER_TEXT = 40


@dataclass(frozen=True)
class Sweep:
    """One field moving from ``start`` to ``stop`` (geometrically when ``log``).

    ``kind`` is the field's (``int`` or ``float``); ``start`` and ``stop`` are values the
    field accepts.
    """

    topic: str
    field: str
    start: float
    stop: float
    log: bool = False
    kind: str = "float"

    @property
    def path(self) -> str:
        """``topic.field``, as ``--set`` and the frame dictionaries name it."""
        return f"{self.topic}.{self.field}"

    def values(self, frames: int) -> list:
        """The field's value in each of ``frames`` frames (ints for an integer field); the
        first is ``start`` and the last ``stop`` exactly."""
        frames = check_frame_count(frames)
        out = []
        for i in range(frames):
            t = i / (frames - 1)
            if i == 0:
                x = self.start
            elif i == frames - 1:
                x = self.stop
            elif self.log:
                x = self.start * (self.stop / self.start) ** t
            else:
                x = self.start + (self.stop - self.start) * t
            # Float error must not step outside the ends (they are the checked values).
            x = min(max(x, min(self.start, self.stop)), max(self.start, self.stop))
            out.append(math.floor(x + 0.5) if self.kind == "int" else float(x))
        return out


def _short(text: str) -> str:
    text = str(text)
    if len(text) <= _MAX_NUMBER_TEXT:
        return repr(text)
    return f"{text[:18] + '…' + text[-18:]!r} ({len(text)} characters)"


def _number(text: str, field, path: str, which: str):
    """START or STOP as the field takes it; StateError in one line otherwise."""
    stripped = text.strip().replace("_", "")
    if not stripped or len(stripped) > _MAX_NUMBER_TEXT:
        raise StateError(f"{path}: {which} must be a number, got {_short(text)}")
    try:
        value = float(stripped)
    except ValueError:
        raise StateError(f"{path}: {which} must be a number, got {_short(text)}") from None
    if not math.isfinite(value):
        raise StateError(f"{path}: {which} must be a finite number, got {_short(text)}")
    if field.kind == "int":
        if value != math.floor(value):
            raise StateError(
                f"{path} is an integer field: {which} must be a whole number, got {_short(text)}"
            )
        value = int(value)
    try:
        return field.coerce(value)  # the field's own range, in its own words
    except StateError as exc:
        raise StateError(f"{path}: {which}: {exc}") from None


def numeric_fields(document, topic: str) -> tuple[str, ...]:
    """The names of the fields of ``topic`` a sweep can move (int and float)."""
    return tuple(f.name for f in document[topic].FIELDS if f.kind in NUMERIC_KINDS)


def parse_sweep(text: str, document) -> Sweep:
    """Read ``TOPIC.FIELD=START:STOP[:log]`` against ``document``'s fields.

    Parameters
    ----------
    text : str
        E.g. ``attention.d_k=2:256:log`` or ``attention.temperature=4:0.25``.
    document : Document
        Whose topics name the fields (only their declarations are read).

    Returns
    -------
    Sweep

    Raises
    ------
    StateError
        One line naming the field (or what is malformed): an unknown topic or field, a
        field that is not a number (a choice, a flag, text), a START or STOP the field
        refuses, equal ends, or ``:log`` with an end not above zero.
    """
    if not isinstance(text, str):
        raise StateError(
            f"a sweep must be text TOPIC.FIELD=START:STOP[:log], got {type(text).__name__}"
        )
    path, sep, spec = text.partition("=")
    path = path.strip()
    topic_name, dot, field_name = path.partition(".")
    if not sep or not dot or not topic_name or not field_name:
        raise StateError(
            f"write TOPIC.FIELD=START:STOP[:log], e.g. attention.d_k=2:256:log; got {_short(text)}"
        )
    if topic_name not in document.topics:
        raise StateError(
            f"unknown topic {_short(topic_name)}; topics: {', '.join(document.topics)}"
        )
    topic = document[topic_name]
    if field_name not in topic.field_names():
        raise StateError(
            f"the {topic_name} topic has no field {_short(field_name)}; numeric "
            f"fields: {', '.join(numeric_fields(document, topic_name))}"
        )
    field = topic.field(field_name)
    if field.kind not in NUMERIC_KINDS:
        raise StateError(
            f"{path} is a {field.kind} field; only int and float fields can be "
            "animated (set it with --set)"
        )
    parts = spec.split(":")
    log = len(parts) == 3 and parts[2].strip().lower() == "log"
    if len(parts) not in (2, 3) or (len(parts) == 3 and not log):
        raise StateError(
            f"{path}: write START:STOP or START:STOP:log after '=', got {_short(spec)}"
        )
    start = _number(parts[0], field, path, "START")
    stop = _number(parts[1], field, path, "STOP")
    if start == stop:
        raise StateError(f"{path}: START and STOP are both {start}; nothing would move")
    if log and (start <= 0 or stop <= 0):
        raise StateError(
            f"{path}: a :log sweep needs START and STOP above 0, got {start} and {stop}"
        )
    return Sweep(topic_name, field_name, start, stop, log, field.kind)


def check_frame_count(frames) -> int:
    """``frames`` when it is a whole number in :data:`FRAMES_RANGE`; StateError otherwise."""
    lo, hi = FRAMES_RANGE
    if isinstance(frames, bool) or not isinstance(frames, int) or not lo <= frames <= hi:
        raise StateError(f"an animation has {lo} to {hi} frames, got {frames!r}")
    return frames


def sweep_values(sweeps, frames: int) -> list[dict]:
    """The fields of every frame: ``[{"topic.field": value, …}, …]``, ``frames`` long.

    Several sweeps move together: frame i takes each sweep's i-th value. A field swept
    twice is refused (StateError).
    """
    frames = check_frame_count(frames)
    sweeps = list(sweeps)
    if not sweeps:
        raise StateError("an animation needs at least one sweep TOPIC.FIELD=START:STOP")
    seen: set[str] = set()
    for sweep in sweeps:
        if sweep.path in seen:
            raise StateError(f"{sweep.path} is animated twice; give each field one sweep")
        seen.add(sweep.path)
    columns = [(s.path, s.values(frames)) for s in sweeps]
    return [{path: values[i] for path, values in columns} for i in range(frames)]


def check_frames(document, frame_values: list[dict]) -> None:
    """Raise StateError (one line, with the frame number) unless the document accepts the
    fields of every frame on top of its present state (tried on throwaway copies)."""
    for i, values in enumerate(frame_values):
        by_topic: dict[str, dict] = {}
        for path, value in values.items():
            topic, _, name = path.partition(".")
            by_topic.setdefault(topic, {})[name] = value
        try:
            document.check(by_topic)
        except StateError as exc:
            shown = ", ".join(f"{p} = {v}" for p, v in values.items())
            raise StateError(f"frame {i + 1} ({shown}): {exc}") from None


def check_fps(fps) -> float:
    """``fps`` as a float in (0, :data:`MAX_FPS`]; StateError otherwise."""
    try:
        value = float(fps)
    except (TypeError, ValueError, OverflowError):
        raise StateError(f"fps must be a number above 0 and at most {MAX_FPS:g}") from None
    if isinstance(fps, bool) or not (math.isfinite(value) and 0 < value <= MAX_FPS):
        raise StateError(f"fps must be above 0 and at most {MAX_FPS:g}, got {fps!r}")
    return value
