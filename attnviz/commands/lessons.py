"""``attnviz lessons``: the guided lessons, one per line (id, title, number of steps).

``--check`` plays every step of every lesson on a fresh workspace and checks each number its
caption quotes against what the panels compute (no Qt needed), then renders each step as
presentation mode shows it at ``--width × --height`` (``--large-fonts``, ``--lang``, with
``--set`` fields applied after the step's own) and reads what the step's panels drew: a
quoted number that is not among their texts, a text that is elided or cut, and two texts
that overlap or run together (or a curve drawn through one: the text check of
:mod:`attnviz.ui.text_overlap`, every box as drawn) are problems.
It prints one line per lesson that passes and one per step that does not, and exits 1 when
any does not. ``--no-slides`` skips the rendering; the numbers are checked with the
``--set`` fields all the same.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from attnviz.commands._args import SIZE_RANGE, TerminalProgress, one_line_error, print_output
from attnviz.core.wording import counted

EXAMPLES = """examples:
  attnviz lessons
  attnviz lessons --lang pt_BR
  attnviz lessons --check --no-slides
  attnviz lessons --check --lesson sqrt-dk --width 1280 --height 720 --large-fonts"""


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``lessons`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "lessons",
        help="list the guided lessons (id, title, steps), or check them",
        description="List the guided lessons, one per line: id, title and number of steps, "
        "separated by tabs. Present one with F5 in the app, or export it as slides with "
        "`attnviz export --lesson ID --out DIR`.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--lang",
        choices=("en", "pt_BR"),
        default=None,
        help="language of titles and of the checked slides (default: ATTNVIZ_LANG, else en)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per lesson (with --check: per step with problems)",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="play every step: check every quoted number against the panels, then render "
        "the step as a slide and check that its panels draw each quoted number, and that "
        "no text is cut or overlaps another",
    )
    p.add_argument(
        "--no-slides",
        action="store_true",
        help="with --check: the numbers only, no rendering (no Qt needed)",
    )
    p.add_argument("--width", type=int, default=1280, help="slide width in pixels (1280)")
    p.add_argument("--height", type=int, default=720, help="slide height in pixels (720)")
    p.add_argument(
        "--large-fonts", action="store_true", help="the slides with View → Large Fonts' type"
    )
    p.add_argument(
        "--lesson",
        action="append",
        default=[],
        metavar="ID",
        help="check only this lesson (repeatable)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TOPIC.FIELD=VALUE",
        help="set a field after each step's own state (e.g. display.decimals=2)",
    )
    p.error = one_line_error.__get__(p)
    p.set_defaults(_lessons_parser=p)
    return p


def _lessons(wanted: list[str], parser):
    from attnviz.model.lessons import shipped_lessons
    from attnviz.model.panels import panel_ids

    lessons = shipped_lessons(panel_ids())
    unknown = sorted(set(wanted) - {x.id for x in lessons})
    if unknown:
        parser.error(f"unknown lesson {unknown[0]!r}; lessons: {', '.join(x.id for x in lessons)}")
    return tuple(x for x in lessons if not wanted or x.id in wanted)


def _overrides(items: list[str], parser) -> dict:
    from attnviz.model.document import Document, parse_value
    from attnviz.model.fields import StateError

    probe, out = Document(), {}
    for item in items:
        path, sep, text = item.partition("=")
        if not sep or not path.strip():
            parser.error(f"--set {item!r}: write TOPIC.FIELD=VALUE, e.g. display.decimals=2")
        try:
            value = parse_value(text)
            probe.set_field(path.strip(), value)  # a bad name or value, before any work
        except StateError as exc:
            parser.error(f"--set {exc}")
        out[path.strip()] = value
    return out


def _language(args) -> str:
    """``--lang``, else ``ATTNVIZ_LANG`` as the app reads it (any Portuguese is pt_BR),
    else English; without Qt, so that the list and the numbers' check need none."""
    if args.lang:
        return args.lang
    forced = os.environ.get("ATTNVIZ_LANG", "").strip().lower()
    return "pt_BR" if forced.startswith("pt") else "en"


def _slide_problems(lessons, args, lang: str, overrides: dict):
    """``(lesson, index, problems)`` of every step rendered as a slide."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    require_working_binding()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from attnviz.model.fields import StateError
    from attnviz.model.workspace import Workspace
    from attnviz.ui import language
    from attnviz.ui.slides import check_step
    from attnviz.ui.stage import STAGE_LARGE_FONTS

    if not language.install_translations(app, lang):
        print(f"attnviz lessons: no translation for {lang}; using English", file=sys.stderr)
    scale = STAGE_LARGE_FONTS if args.large_fonts else 1.0
    progress = TerminalProgress("slide", sum(len(lesson) for lesson in lessons))
    done = 0
    for lesson in lessons:
        workspace = Workspace()
        for index in range(len(lesson)):
            progress.step(done)
            done += 1
            try:
                problems = check_step(
                    workspace,
                    lesson,
                    index,
                    args.width,
                    args.height,
                    lang=lang,
                    font_scale=scale,
                    overrides=overrides,
                )
            except StateError as exc:  # a --set value this step's scene refuses
                problems = [f"--set {exc}"]
            yield lesson, index, problems
    progress.done()


def _check(lessons, args, parser) -> int:
    from attnviz.model.lesson_check import verify_lesson

    lang = _language(args)
    overrides = _overrides(args.set, parser)

    lo, hi = SIZE_RANGE  # the sizes a slide can be exported at
    for name in ("width", "height"):
        if not lo <= getattr(args, name) <= hi:
            parser.error(f"--{name} {getattr(args, name)} is out of range ({lo}..{hi} pixels)")
    failed = 0
    bad: dict[str, list[str]] = {}
    records = []
    for lesson in lessons:
        problems = verify_lesson(lesson, overrides)
        if problems:
            bad[lesson.id] = problems
            records.append({"lesson": lesson.id, "step": None, "problems": problems})
    if not args.no_slides:
        for lesson, index, problems in _slide_problems(lessons, args, lang, overrides):
            line = f"step {index + 1}: " + "; ".join(problems)
            if problems and line not in bad.get(lesson.id, ()):  # (a --set both refuse)
                bad.setdefault(lesson.id, []).append(line)
                records.append({"lesson": lesson.id, "step": index + 1, "problems": problems})
    if args.json:
        lines = "\n".join(json.dumps(record, ensure_ascii=False) for record in records)
        status = print_output(lines, "attnviz lessons") if records else 0
        return status or (1 if records else 0)
    where = (
        ""
        if args.no_slides
        else (
            f" at {args.width}×{args.height}{', large fonts' if args.large_fonts else ''}, {lang}"
        )
    )
    if overrides:
        where += " with " + ", ".join(args.set)
    lines = []
    for lesson in lessons:
        problems = bad.get(lesson.id, [])
        failed += bool(problems)
        if not problems:
            lines.append(f"{lesson.id}: {counted(len(lesson), 'step')} ok{where}")
        lines += [f"{lesson.id} {problem}" for problem in problems]
    status = print_output("\n".join(lines), "attnviz lessons")
    return status or (1 if failed else 0)


def run(args) -> int:
    """Print the list (or the check); 0, or 1 when a lesson is broken."""
    from attnviz.model.lessons import LessonError

    parser = args._lessons_parser
    try:
        lessons = _lessons(args.lesson, parser)
    except LessonError as exc:
        print(f"attnviz lessons: {exc}", file=sys.stderr)
        return 1
    if args.check:
        return _check(lessons, args, parser)
    lang = _language(args)
    if args.json:
        lines = [
            json.dumps(
                {"id": x.id, "title": x.title_in(lang), "steps": len(x), "source": x.source},
                ensure_ascii=False,
            )
            for x in lessons
        ]
    else:
        lines = [f"{x.id}\t{x.title_in(lang)}\t{len(x)}" for x in lessons]
    return print_output("\n".join(lines), "attnviz lessons")
