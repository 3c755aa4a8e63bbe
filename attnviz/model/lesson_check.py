"""A lesson played and checked (no Qt): a step's scene in a document, and whether the
panels show what the step sets and quotes.

Steps are scenes, not edits (:mod:`attnviz.model.lessons`): step k is the defaults, then
steps 0 … k in order, so stepping back, a slide and a test all see the same state.
"""

from __future__ import annotations

import numpy as np

from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.lessons import Lesson, apply_step_values
from attnviz.model.quotes import quote_value


def step_snapshot(lesson: Lesson, index: int) -> dict:
    """The document snapshot of step ``index``: the defaults, then steps 0 … index."""
    if not 0 <= index < len(lesson.steps):
        raise IndexError(f"lesson {lesson.id} has steps 1 to {len(lesson.steps)}")
    document = Document()
    for step in lesson.steps[: index + 1]:
        apply_step_values(document, step)
    return document.snapshot()


def play_step(document: Document, lesson: Lesson, index: int) -> None:
    """Show step ``index`` in ``document`` (all of it or, on an error, nothing)."""
    document.restore(step_snapshot(lesson, index))


def check_step(workspace, lesson: Lesson, index: int, overrides=()) -> list[str]:
    """Problems of step ``index`` as ``workspace`` shows it now: fields that differ from what
    the step sets (but those in ``overrides``, set on purpose after it), and quoted numbers
    the panels do not compute. Empty when all is well."""
    problems = []
    step = lesson.steps[index]
    for path, value in step.fields().items():
        if path in overrides:
            continue
        topic, _, field = path.partition(".")
        expected = workspace.document[topic].field(field).coerce(value)
        got = workspace.document[topic].get(field)
        if not _same(got, expected):
            problems.append(f"step {index + 1}: {path} is {got!r}, the lesson sets {value!r}")
    for quote in step.quotes:
        try:
            got = quote_value(workspace, quote.source)
        except (KeyError, IndexError, AttributeError, TypeError, ValueError) as exc:
            problems.append(f"step {index + 1}: quote {quote.text['en']!r}: {exc}")
            continue
        if not quote.matches(got):
            problems.append(
                f"step {index + 1}: quote {quote.text['en']!r} is {got!r} on the panels"
            )
    return problems


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    return a == b


def verify_lesson(lesson: Lesson, overrides: dict | None = None) -> list[str]:
    """Play every step of ``lesson`` on a fresh workspace and list what is wrong.

    ``overrides`` (``{"topic.field": value}``, ``attnviz lessons --check --set``) are set
    after each step's own state, as the slides' check sets them: a quoted number they
    change is a problem.
    """
    from attnviz.model.workspace import Workspace

    overrides = overrides or {}
    problems = []
    workspace = Workspace()
    for index in range(len(lesson.steps)):
        play_step(workspace.document, lesson, index)
        try:
            for path, value in overrides.items():
                workspace.document.set_field(path, value)
        except StateError as exc:  # a value another step's scene refuses (2 tokens, not 3)
            problems.append(f"step {index + 1}: --set {exc}")
            continue
        problems += check_step(workspace, lesson, index, overrides)
    return problems
