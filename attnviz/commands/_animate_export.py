"""``attnviz export --animate …`` and ``attnviz export --lesson ID --out FILE.gif``.

A panel animation draws ``--frames`` frames of ``--panel`` while each ``--animate
TOPIC.FIELD=START:STOP[:log]`` moves its field (the sweeps together: frame i takes each
one's i-th value), on top of the state ``--preset``, ``--session``, ``--model`` and
``--set`` describe. Frame k is the picture ``--set FIELD=value --out x.png`` would draw.
A lesson animation plays the lesson's steps as presentation mode shows them, each held
``--hold`` seconds. The format follows the extension of ``--out``: ``.gif``, ``.webp``,
``.apng`` or ``.mp4`` (PyAV, the ``video`` extra; even width and height).

Long work is said before it goes on: the first frame is timed, and when all of them would
take more than ten seconds the estimate is printed on stderr; past a minute it needs
``--yes``. A request the free memory cannot hold is refused before the first frame.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from attnviz.commands._args import (
    LONG_WORK_S,
    SAY_WORK_S,
    SIZE_RANGE,
    TerminalProgress,
    about,
    announce_work,
    print_output,
    refused,
    unwritable,
)
from attnviz.core.wording import counted
from attnviz.model.panel_data import picture_field, show_in_picture
from attnviz.model.panels import panel_ids
from attnviz.model.safe_io import shown_path

#: Extensions of an animated --out.
ANIMATION_SUFFIXES = (".gif", ".webp", ".apng", ".mp4")
DEFAULT_FPS = 10.0
DEFAULT_HOLD_S = 3.0
#: Encoding time per pixel of a frame (Pillow's GIF quantizer and WebP, x264 are alike
#: within a factor of two): added to the first frame's drawing time for the estimate.
ENCODE_S_PER_PIXEL = 8e-8
#: Share of the free memory the frames may take.
MEMORY_HEADROOM = 0.8
_STATE_OPTIONS = ("preset", "session", "model", "text", "matrix", "title")


def is_animation(out) -> bool:
    """True when ``--out`` names an animated format."""
    return out is not None and Path(out).suffix.lower() in ANIMATION_SUFFIXES


def add_options(p) -> None:
    """The animation options of the ``export`` parser."""
    from attnviz.commands._args import bounded_float, bounded_int
    from attnviz.model.sweep import FRAMES_RANGE, MAX_FPS

    p.add_argument(
        "--animate",
        action="append",
        default=[],
        metavar="TOPIC.FIELD=START:STOP[:log]",
        help="draw --frames frames of --panel while this int or float field moves from START "
        "to STOP (both within its range), evenly or, with :log, geometrically; an integer "
        "field steps through whole values. Repeatable: the sweeps move together. Applied "
        "after --preset, --session and --set. --out FILE.gif, .webp, .apng or .mp4 (MP4: "
        "H.264, even --width and --height, needs attnviz[video])",
    )
    p.add_argument(
        "--frames",
        type=bounded_int(*FRAMES_RANGE),
        metavar="N",
        help=f"with --animate: frames of the animation ({FRAMES_RANGE[0]} to {FRAMES_RANGE[1]})",
    )
    p.add_argument(
        "--fps",
        type=bounded_float(0, MAX_FPS, example="10"),
        metavar="F",
        help=f"frames per second of an animation (default {DEFAULT_FPS:g}), within what "
        f"the format stores: GIF 0.00153 to 50 (times in hundredths of a second), WebP "
        f"and APNG to {MAX_FPS:g}, MP4 0.001 to {MAX_FPS:g}; with --lesson, the frame "
        "rate of an MP4",
    )
    p.add_argument(
        "--hold",
        type=bounded_float(0, 600, what="seconds", example="3"),
        metavar="S",
        help="with --lesson ID --out FILE.gif: seconds each step "
        f"shows (default {DEFAULT_HOLD_S:g}; a GIF keeps hundredths, at least 0.02)",
    )


def check_animation_options(args, parser) -> None:
    """Refuse --frames, --fps and --hold where they mean nothing."""
    animated = bool(args.animate) or is_animation(args.out)
    if args.window and animated:
        parser.error("--window writes one PNG; --animate draws a --panel")
    for name in ("frames", "fps", "hold"):
        if getattr(args, name) is not None and not animated:
            parser.error(
                f"--{name} goes with an animation: --animate (or --lesson) and --out "
                "FILE.gif, .webp, .apng or .mp4"
            )
    if args.hold is not None and args.lesson is None:
        parser.error("--hold goes with --lesson ID --out FILE.gif: the seconds each step shows")


def _size_and_target(args, parser) -> str:
    from attnviz.ui.animation import VideoUnavailable, check_target
    from attnviz.ui.export import ExportError

    lo, hi = SIZE_RANGE
    for name in ("width", "height"):
        value = getattr(args, name)
        if not lo <= value <= hi:
            parser.error(f"--{name} {value} is out of range ({lo}..{hi} pixels)")
    try:
        return check_target(args.out, args.width, args.height, transparent=args.transparent)
    except VideoUnavailable as exc:
        print(f"attnviz export: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except ExportError as exc:
        parser.error(f"--out {Path(args.out).name!r}: {exc}")


def _frame_timing(args, parser, ext: str) -> float | None:
    """Refuse a rate or a hold that ``ext`` cannot store, before any work; return the
    seconds a lesson's step is held as the file keeps it (None for a sweep)."""
    from attnviz.model.fields import StateError
    from attnviz.model.frame_timing import check_fps_for, stored_hold

    fps = args.fps if args.fps is not None else DEFAULT_FPS
    try:
        if args.lesson is None:
            check_fps_for(ext, fps, "--fps")
            return None
        if args.fps is not None and ext != "mp4":
            parser.error(
                f"--fps sets the frame rate of a lesson's .mp4; a .{ext} holds each step "
                "--hold seconds"
            )
        hold = args.hold if args.hold is not None else DEFAULT_HOLD_S
        return stored_hold(ext, hold, fps, "--hold")
    except StateError as exc:
        parser.error(str(exc))


def _memory_refusal(ext: str, frames: int, args) -> str | None:
    from attnviz.core.memory_guard import GiB, available_bytes
    from attnviz.ui.animation import kept_bytes

    need = kept_bytes(ext, frames, args.width, args.height, args.transparent)
    need += 8 * args.width * args.height  # the frame being drawn, and its conversion
    free = available_bytes("numpy")
    if free is None or need <= MEMORY_HEADROOM * free:
        return None
    return (
        f"{frames} frames of {args.width}×{args.height} as .{ext} need "
        f"{need / GiB:.1f} GiB of memory, {free / GiB:.1f} GiB free; use fewer --frames, "
        "a smaller size" + (", or .mp4" if ext != "mp4" else "")
    )


def _overview_work(workspace, frame_values, yes: bool) -> bool:
    """The overview's maps, estimated before any is computed (model.sweep_work), said
    past ten seconds and refused past a minute without --yes. False when refused."""
    from attnviz.model.sweep_work import overview_work

    work = overview_work(workspace.document, frame_values)
    if len(work.maps) == 1:
        return announce_work("the overview map of this sweep", work.seconds, yes=yes)
    what = f"the {len(work.maps)} overview maps of this sweep"
    return announce_work(what, work.seconds, yes=yes, verb="take")


class _Pace:
    """Times the first frames, says the estimate past SAY_WORK_S and asks for a cancel past
    LONG_WORK_S without --yes; shows ``frame i of N`` on a terminal.

    The first frame pays for fonts and the first widgets (two or three times a later
    one), so when it alone points past SAY_WORK_S the second frame's time decides.
    """

    def __init__(self, what: str, unit: str, total: int, pixels: int, yes: bool) -> None:
        self.what, self.total, self.pixels, self.yes = what, total, pixels, yes
        self.last = time.perf_counter()
        self.spent = 0.0
        self.decided = False
        self.refused = False
        self.terminal = TerminalProgress(unit, total)

    def _decide(self, done: int, per_frame: float) -> None:
        estimate = (
            self.spent
            + (self.total - done) * per_frame
            + self.total * ENCODE_S_PER_PIXEL * self.pixels
        )
        if done == 1 and estimate > SAY_WORK_S and self.total > 2:
            return  # the second frame says better
        self.decided = True
        if estimate > LONG_WORK_S and not self.yes:
            self.refused = True
            self.terminal.done()
            print(
                f"attnviz export: {self.what} would take {about(estimate)} on this "
                "machine; pass --yes to go on, or use fewer frames or a smaller size",
                file=sys.stderr,
            )
        elif estimate > SAY_WORK_S:
            print(
                f"attnviz export: {self.what} take {about(estimate)} on this machine…",
                file=sys.stderr,
            )

    def progress(self, done: int, total: int) -> None:
        now = time.perf_counter()
        per_frame, self.last = now - self.last, now
        self.spent += per_frame
        if not self.decided:
            self._decide(done, per_frame)
        if done < total and not self.refused:
            self.terminal.step(done)

    def cancel(self) -> bool:
        return self.refused


def _qt_app(args):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    require_working_binding()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from attnviz.ui import language

    lang = language.export_language(args.lang)
    if lang != "en" and not language.install_translations(app, lang):  # and the decimal comma
        print(f"attnviz export: no translation for {lang}; using English", file=sys.stderr)
    return lang


def _frames_of(args, parser, workspace) -> list[dict]:
    from attnviz.model.fields import StateError
    from attnviz.model.sweep import check_frames, parse_sweep, sweep_values

    try:
        sweeps = [parse_sweep(text, workspace.document) for text in args.animate]
    except StateError as exc:
        parser.error(f"--animate {exc}")
    try:
        frame_values = sweep_values(sweeps, args.frames)
        check_frames(workspace.document, frame_values)
    except StateError as exc:
        parser.error(f"--animate {exc}")
    return frame_values


def _encode(images, args, ext: str, pace: _Pace, durations=None) -> int:
    from attnviz.core.work import Cancelled
    from attnviz.ui.animation import write_animation
    from attnviz.ui.export import ExportError

    fps = args.fps if args.fps is not None else DEFAULT_FPS
    try:
        write_animation(images, args.out, fps, transparent=args.transparent, durations=durations)
    except Cancelled:
        return 1  # refused after the first frame: the line is printed
    except (ExportError, RuntimeError, MemoryError) as exc:
        print(f"attnviz export: {exc}", file=sys.stderr)
        return 1
    finally:
        pace.terminal.done()
    return 0


def run_animation(args, parser) -> int:
    """``attnviz export --animate …``: write the animation; 0, or 1 when it cannot."""
    if not args.animate:
        parser.error(
            "an animated --out needs --animate TOPIC.FIELD=START:STOP[:log] and "
            "--frames N (or --lesson ID)"
        )
    if not is_animation(args.out):
        parser.error("--animate writes --out FILE.gif, .webp, .apng or .mp4")
    if args.frames is None:
        parser.error("--animate needs --frames N (2 to 600)")
    if args.panel not in panel_ids() or args.panel == "lessons":
        parser.error(
            f"unknown panel {args.panel!r}; panels: "
            f"{', '.join(p for p in panel_ids() if p != 'lessons')}"
        )
    if args.matrix is not None and picture_field(args.panel, args.matrix) is None:
        parser.error("--matrix with --animate chooses the heatmap's scores, weights or output")
    ext = _size_and_target(args, parser)
    _frame_timing(args, parser, ext)
    problem = unwritable(Path(args.out))
    if problem:
        print(f"attnviz export: cannot write {shown_path(args.out)}: {problem}", file=sys.stderr)
        return 1
    from attnviz.commands._workspace import build_workspace

    workspace = build_workspace(args, parser)
    if refused(workspace, args.panel):
        return 1
    frame_values = _frames_of(args, parser, workspace)
    refusal = _memory_refusal(ext, len(frame_values), args)
    if refusal:
        print(f"attnviz export: {refusal}", file=sys.stderr)
        return 1
    if args.panel == "overview" and not _overview_work(workspace, frame_values, args.yes):
        return 1
    lang = _qt_app(args)
    from attnviz.ui.animation import iter_frames
    from attnviz.ui.export import ExportSpec

    show_in_picture(workspace, args.panel, args.matrix)
    spec = ExportSpec(args.width, args.height, args.theme, args.transparent, None, args.title)
    what = f"{len(frame_values)} frames of {args.panel} at {args.width}×{args.height}"
    pace = _Pace(what, "frame", len(frame_values), args.width * args.height, args.yes)
    frames = iter_frames(
        workspace, args.panel, frame_values, spec, progress=pace.progress, cancel=pace.cancel
    )
    status = _encode(frames, args, ext, pace)
    if status:
        return status
    swept = ", ".join(args.animate)
    return print_output(
        f"wrote {shown_path(args.out)} ({args.panel}, {counted(len(frame_values), 'frame')}, "
        f"{args.width}×{args.height}, {args.theme}, {lang}; {swept})",
        "attnviz export",
    )


def run_lesson_animation(args, parser) -> int:
    """``attnviz export --lesson ID --out FILE.gif``: the lesson's steps as one animation,
    each held ``--hold`` seconds; 0, or 1 when it cannot be written."""
    from attnviz.model.lessons import LessonError, shipped_lessons

    given = [f"--{name}" for name in _STATE_OPTIONS if getattr(args, name, None) is not None]
    given += ["--set"] if args.set else []
    given += ["--animate"] if args.animate else []
    given += ["--frames"] if args.frames is not None else []
    given += ["--panel"] if args.panel_given else []
    given += ["--transparent"] if args.transparent else []
    if given:
        parser.error(f"--lesson plays the lesson's own steps; drop {', '.join(given)}")
    if args.window:
        parser.error("give --lesson or --window, not both")
    ext = _size_and_target(args, parser)
    hold = _frame_timing(args, parser, ext)
    try:
        lessons = shipped_lessons(panel_ids())
    except LessonError as exc:
        parser.error(str(exc))
    lesson = next((x for x in lessons if x.id == args.lesson), None)
    if lesson is None:
        parser.error(f"unknown lesson {args.lesson!r}; lessons: {', '.join(x.id for x in lessons)}")
    problem = unwritable(Path(args.out))
    if problem:
        print(f"attnviz export: cannot write {shown_path(args.out)}: {problem}", file=sys.stderr)
        return 1
    lang = _qt_app(args)
    from attnviz.core.work import Cancelled
    from attnviz.ui.animation import render_lesson_frames
    from attnviz.ui.stage import STAGE_LARGE_FONTS

    what = f"{counted(len(lesson), 'slide')} of lesson {lesson.id} at {args.width}×{args.height}"
    pace = _Pace(what, "slide", len(lesson), args.width * args.height, args.yes)
    try:
        images = render_lesson_frames(
            lesson,
            args.width,
            args.height,
            progress=pace.progress,
            cancel=pace.cancel,
            dark=args.theme == "dark",
            font_scale=STAGE_LARGE_FONTS if args.large_fonts else 1.0,
        )
    except Cancelled:
        pace.terminal.done()
        return 1
    status = _encode(images, args, ext, pace, durations=[hold] * len(images))
    if status:
        return status
    # The plan as the file keeps it: the hold rounded to the format's unit (or, in an MP4,
    # to whole frames, said with the rate).
    steps = f"{counted(len(images), 'step')} of {hold:g} s"
    if ext == "mp4":
        from attnviz.model.frame_timing import hold_frames

        fps = args.fps if args.fps is not None else DEFAULT_FPS
        steps += f" ({counted(hold_frames(hold, fps), 'frame')} each at {fps:g} fps)"
    return print_output(
        f"wrote {shown_path(args.out)} (lesson {lesson.id}, {steps}, "
        f"{args.width}×{args.height}, {args.theme}, {lang})",
        "attnviz export",
    )
