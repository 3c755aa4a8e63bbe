"""``attnviz lessons``: the guided lessons, one per line (id, title, number of steps).

``--check`` plays every step of every lesson on a fresh workspace and checks each number its
caption quotes against what the panels compute; it prints what is wrong and exits 1 when
anything is. No Qt is needed for either.
"""

from __future__ import annotations

import argparse
import json
import sys

from attnviz.commands._args import one_line_error, print_output


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``lessons`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "lessons",
        help="list the guided lessons (id, title, steps), or check them",
        description="List the guided lessons, one per line: id, title and number of steps, "
        "separated by tabs. Present one with F5 in the app, or export it as slides with "
        "`attnviz export --lesson ID --out DIR`.",
    )
    p.add_argument("--lang", choices=("en", "pt_BR"), default="en", help="language of titles")
    p.add_argument("--json", action="store_true", help="one JSON object per lesson")
    p.add_argument(
        "--check",
        action="store_true",
        help="play every step and check every quoted number against the panels",
    )
    p.error = one_line_error.__get__(p)
    p.set_defaults(_lessons_parser=p)
    return p


def _lessons():
    from attnviz.commands.export import panel_ids
    from attnviz.model.lessons import shipped_lessons

    return shipped_lessons(panel_ids())


def run(args) -> int:
    """Print the list (or the check); 0, or 1 when a lesson is broken."""
    from attnviz.model.lessons import LessonError, verify_lesson

    try:
        lessons = _lessons()
    except LessonError as exc:
        print(f"attnviz lessons: {exc}", file=sys.stderr)
        return 1
    if args.check:
        failed = 0
        for lesson in lessons:
            problems = verify_lesson(lesson)
            failed += bool(problems)
            state = "ok" if not problems else f"{len(problems)} problem(s)"
            print(f"{lesson.id}: {len(lesson)} steps {state}")
            for problem in problems:
                print(f"  {problem}")
        return 1 if failed else 0
    if args.json:
        lines = [
            json.dumps({"id": x.id, "title": x.title_in(args.lang), "steps": len(x),
                        "source": x.source}, ensure_ascii=False)
            for x in lessons
        ]
    else:
        lines = [f"{x.id}\t{x.title_in(args.lang)}\t{len(x)}" for x in lessons]
    return print_output("\n".join(lines), "attnviz lessons")
