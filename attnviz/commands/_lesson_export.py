"""``attnviz export --lesson ID --out DIR``: a lesson as slides, one PNG per step.

Each slide is the picture presentation mode shows for that step (the caption, the step's
panels, the footer, in the high-contrast theme), ``--width × --height`` pixels exactly, in
``--lang``. Files are named by step number: ``DIR/01.png``, ``DIR/02.png``, … The lesson
sets the state of every step, so the options that set a state (``--preset``, ``--set``, …)
are refused here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from attnviz.commands._args import SIZE_RANGE, TerminalProgress, print_output, unwritable
from attnviz.core.wording import counted
from attnviz.model.panels import panel_ids
from attnviz.model.safe_io import shown_path

#: Options of ``attnviz export`` that describe a state or a single figure: a lesson has its
#: own, so giving one with --lesson is a mistake worth saying.
_STATE_OPTIONS = ("preset", "session", "model", "text", "matrix", "title")


def slide_name(index: int, count: int) -> str:
    """The file name of step ``index`` (0-based) of ``count``: ``01.png`` …, padded alike."""
    return f"{index + 1:0{max(2, len(str(count)))}d}.png"


def _check(args, parser):
    from attnviz.model.lessons import LessonError, shipped_lessons

    given = [f"--{name}" for name in _STATE_OPTIONS if getattr(args, name, None) is not None]
    given += ["--set"] if args.set else []
    given += ["--transparent"] if args.transparent else []
    given += ["--panel"] if args.panel_given else []
    if given:
        parser.error(f"--lesson sets the state of every slide itself; drop {', '.join(given)}")
    if not args.out:
        parser.error("give --out DIR: the folder that receives one PNG per step")
    out = Path(args.out)
    if out.suffix.lower() in (".png", ".svg", ".csv", ".npy") or out.is_file():
        parser.error(f"--out {args.out!r} must be a folder with --lesson (one PNG per step)")
    lo, hi = SIZE_RANGE
    for name in ("width", "height"):
        value = getattr(args, name)
        if not lo <= value <= hi:
            parser.error(f"--{name} {value} is out of range ({lo}..{hi} pixels)")
    try:
        lessons = shipped_lessons(panel_ids())
    except LessonError as exc:
        parser.error(str(exc))
    for lesson in lessons:
        if lesson.id == args.lesson:
            return lesson, out
    parser.error(f"unknown lesson {args.lesson!r}; lessons: {', '.join(x.id for x in lessons)}")


def run_lesson(args, parser) -> int:
    """Write the slides of ``args.lesson`` into ``args.out``; 0, or 1 when one cannot be
    written."""
    lesson, out = _check(args, parser)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"attnviz export: cannot create {shown_path(out)}: {exc}", file=sys.stderr)
        return 1
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    require_working_binding()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from attnviz.model.workspace import Workspace
    from attnviz.ui import language
    from attnviz.ui.slides import render_step

    lang = language.export_language(args.lang)
    if not language.install_translations(app, lang):
        print(f"attnviz export: no translation for {lang}; using English", file=sys.stderr)
    from attnviz.ui.stage import STAGE_LARGE_FONTS

    workspace = Workspace()
    dark = args.theme == "dark"
    scale = STAGE_LARGE_FONTS if args.large_fonts else 1.0
    progress = TerminalProgress("slide", len(lesson))
    for index in range(len(lesson)):
        progress.step(index)
        path = out / slide_name(index, len(lesson))
        problem = unwritable(path)  # a FIFO named 01.png would hold the export forever
        if problem:
            print(f"attnviz export: cannot write {shown_path(path)}: {problem}", file=sys.stderr)
            return 1
        image = render_step(
            workspace, lesson, index, args.width, args.height, dark=dark, font_scale=scale
        )
        if not image.save(str(path), "PNG"):
            print(f"attnviz export: could not write {shown_path(path)}", file=sys.stderr)
            return 1
    progress.done()
    return print_output(
        f"wrote {counted(len(lesson), 'slide')} of lesson {lesson.id} to {shown_path(out)} "
        f"({args.width}×{args.height}, {args.theme}, {lang})",
        "attnviz export",
    )
