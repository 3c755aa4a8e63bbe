"""How long a frame of an animation lasts, as each format can store it (no Qt).

Every animated format keeps a frame's time its own way, and a time it cannot keep must be
refused before any frame is drawn, not discovered by the encoder (Pillow's
``OverflowError`` for a GIF frame of an hour) or changed without a word (an MP4 at
0.0004 frames per second written at 24):

=======  ==========================================  ===============  ==============
format   a frame's time is stored as                 shortest frame   longest frame
=======  ==========================================  ===============  ==============
GIF      hundredths of a second, 16 bits             0.02 s (1)       655.35 s
WebP     milliseconds, 24 bits                       1/60 s           16,777.215 s
APNG     a fraction of two 16-bit numbers (seconds)  1/60 s           65,535 s
MP4      the stream's rate, a fraction p/q, q ≤ 1001  1/60 s           1,000 s (2)
=======  ==========================================  ===============  ==============

(1) 0.01 s can be stored, but browsers play a GIF delay under 0.02 s as 0.1 s: 50 frames
per second is the most a GIF plays. (2) Below one frame per 1,000 s a rate with a
denominator up to 1001 (what the H.264 writer uses, for NTSC's 24000/1001) is no longer
within 0.1 % of the one asked for.

A sweep's frames at ``fps`` are stored with the error carried from frame to frame
(:func:`frame_times`: a GIF at 24 frames per second waits 4, 4, 4, 5, … hundredths), so the
animation as a whole keeps the rate asked for; a lesson's held steps are each rounded to
what the format stores (:func:`stored_hold`), and the plan the command prints is that.
Every refusal is a :class:`~attnviz.model.fields.StateError` of one line naming the value,
the format's range and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from attnviz.model.fields import StateError

#: The shortest frame of every format but GIF: the most frames per second an export has.
MAX_RATE = 60.0
#: The largest denominator of an MP4's frame rate (24000/1001, 30000/1001 are exact).
MP4_DENOMINATOR = 1001


@dataclass(frozen=True)
class FormatTiming:
    """What one format stores of a frame's time (see the module's table)."""

    name: str
    #: Seconds of one stored step (a GIF's 0.01, a WebP's 0.001); None: a fraction.
    unit: float | None
    shortest: float
    longest: float
    why: str

    @property
    def max_fps(self) -> float:
        """The most frames per second the format plays."""
        return 1.0 / self.shortest

    @property
    def min_fps(self) -> float:
        """The fewest frames per second it stores (one frame of :attr:`longest`)."""
        return 1.0 / self.longest


TIMINGS: dict[str, FormatTiming] = {
    "gif": FormatTiming(
        "a GIF", 0.01, 0.02, 655.35,
        "a GIF stores a frame's time in hundredths of a second, at most 655.35 s, and "
        "browsers play less than 0.02 s as 0.1 s",
    ),
    "webp": FormatTiming(
        "an animated WebP", 0.001, 1 / MAX_RATE, 16_777.215,
        "a WebP stores a frame's time in milliseconds, at most 16,777.215 s",
    ),
    "apng": FormatTiming(
        "an APNG", None, 1 / MAX_RATE, 65_535.0,
        "an APNG stores a frame's time as a fraction of two 16-bit numbers, at most 65,535 s",
    ),
    "mp4": FormatTiming(
        "an MP4", None, 1 / MAX_RATE, 1_000.0,
        "the H.264 writer's frame rate is a fraction with a denominator up to 1001",
    ),
}  # fmt: skip


def timing(ext: str) -> FormatTiming:
    """The timing of format ``ext`` (``gif``, ``webp``, ``apng``, ``mp4``)."""
    try:
        return TIMINGS[ext]
    except KeyError:
        known = ", ".join(TIMINGS)
        raise StateError(f"unknown animation format {ext!r}; known: {known}") from None


def _up(x: float) -> str:
    """``x`` with three significant digits, rounded up: a lower bound that is allowed."""
    if x <= 0:
        return "0"
    exp = math.floor(math.log10(x)) - 2
    return f"{math.ceil(x / 10**exp - 1e-9) * 10**exp:.6g}"


def _exact(x: float) -> str:
    """``x`` as written in the table: ``655.35``, ``16,777.215``, ``65,535``."""
    return f"{x:,.3f}".rstrip("0").rstrip(".")


def fps_range(ext: str) -> tuple[float, float]:
    """The frames per second format ``ext`` stores and plays: ``(lowest, highest)``."""
    t = timing(ext)
    return t.min_fps, t.max_fps


def check_fps_for(ext: str, fps, name: str = "fps") -> float:
    """``fps`` when format ``ext`` can time frames at that rate; StateError (one line:
    ``name``, the format's range and why) otherwise."""
    t = timing(ext)
    try:
        value = float(fps)
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if isinstance(fps, bool) or not math.isfinite(value):
        raise StateError(f"{name} must be a number of frames per second, got {fps!r}")
    # A whisker of float error at either end is the end itself (1 / (1 / 60) is 60).
    if not t.min_fps * (1 - 1e-12) <= value <= t.max_fps * (1 + 1e-12):
        raise StateError(
            f"{name} {value:g} is out of range for {t.name}: {_up(t.min_fps)} to "
            f"{_exact(t.max_fps)} frames per second ({t.why})"
        )
    return value


def mp4_rate(fps: float) -> Fraction:
    """The frame rate an MP4 is written with: ``fps`` as a fraction whose denominator is
    at most 1001 (24000/1001 exactly)."""
    return Fraction(float(fps)).limit_denominator(MP4_DENOMINATOR)


def _stored(t: FormatTiming, seconds: float) -> float:
    if t.unit is not None:
        steps = math.floor(seconds / t.unit + 0.5)
        return steps * t.unit
    return float(Fraction(seconds).limit_denominator(65_535))


def frame_time(ext: str, fps: float, index: int) -> float:
    """The seconds frame ``index`` (from 0) of a sweep at ``fps`` is stored with in format
    ``ext`` (:func:`frame_times`)."""
    t = timing(ext)
    if ext == "mp4":
        return float(1 / mp4_rate(fps))
    if t.unit is None:
        return _stored(t, 1.0 / fps)
    per_unit = 1.0 / (fps * t.unit)  # a frame's length in units: 4.1667 hundredths at 24
    start, end = (math.floor(i * per_unit + 0.5) for i in (index, index + 1))
    return (end - start) * t.unit


def frame_times(ext: str, fps: float, count: int) -> list[float]:
    """The seconds each of ``count`` frames at ``fps`` is stored with in format ``ext``.

    GIF and WebP round each frame's start to their unit, so the rounding error never adds
    up (24 frames per second in a GIF: 0.04, 0.04, 0.04, 0.05, …; the 24th frame ends at
    1 s exactly); APNG stores 1/fps as a fraction; MP4 its rate (:func:`mp4_rate`).
    StateError when the format cannot time frames at ``fps``.
    """
    fps = check_fps_for(ext, fps)
    return [frame_time(ext, fps, i) for i in range(count)]


def stored_hold(ext: str, hold: float, fps: float, name: str = "hold") -> float:
    """The seconds a lesson's held step lasts in format ``ext``: ``hold`` rounded to what
    the format stores (an MP4 repeats the step's frame at ``fps``: a whole number of
    frames). StateError (one line naming ``name``) when that is outside the format's range
    or, for an MP4, less than one frame."""
    t = timing(ext)
    hold = float(hold)
    if ext == "mp4":
        fps = check_fps_for(ext, fps)
        frames = math.floor(hold * fps + 0.5)
        if frames < 1:
            raise StateError(
                f"{name} {hold:g} s is shorter than one frame of {t.name} at {fps:g} frames "
                f"per second ({1 / fps:g} s); raise {name} or the frame rate"
            )
        return frames / fps
    stored = _stored(t, hold) if math.isfinite(hold) else math.nan
    if not t.shortest * (1 - 1e-12) <= stored <= t.longest:
        raise StateError(
            f"{name} {hold:g} s is out of range for {t.name}: {_up(t.shortest)} to "
            f"{_exact(t.longest)} s ({t.why})"
        )
    return stored


def hold_frames(hold: float, fps: float) -> int:
    """Frames of an MP4 at ``fps`` that show one held step of ``hold`` seconds (at least
    one; :func:`stored_hold` refuses a hold shorter than a frame)."""
    return max(1, math.floor(float(hold) * float(fps) + 0.5))
