"""Which lesson and step is shown, and playing a step on the document; no Qt.

The window's lessons dock, presentation mode (F5) and the slides all follow one
:class:`LessonPlayer`: playing a step restores that step's scene in the document (see
:func:`attnviz.model.lesson_check.play_step`) as one undo step, and tells its listeners.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attnviz.model.events import Signal
from attnviz.model.fields import StateError
from attnviz.model.panels import panel_ids

if TYPE_CHECKING:
    from attnviz.model.lessons import Lesson


def shipped_lessons(panels) -> tuple[Lesson, ...]:
    """:func:`attnviz.model.lessons.shipped_lessons`, its modules imported on the first call:
    a window opens without reading or playing a lesson."""
    from attnviz.model.lessons import shipped_lessons as read

    return read(panels)


def neighbour(lessons, lesson: Lesson, offset: int) -> Lesson | None:
    """The lesson ``offset`` places after ``lesson`` in ``lessons`` (before it when
    negative), or None past either end or when ``lesson`` is not among them."""
    ids = [x.id for x in lessons]
    if lesson.id not in ids:
        return None
    at = ids.index(lesson.id) + offset
    return lessons[at] if 0 <= at < len(lessons) else None


def _english_label(lesson: Lesson, index: int) -> str:
    return f"Lesson: {lesson.title_in('en')}, step {index + 1}"


class LessonPlayer:
    """The lesson and step being shown; playing a step sets the document to its scene.

    Parameters
    ----------
    workspace : Workspace
        Whose document the steps are played on.
    undo : UndoController, optional
        Each step becomes one undo step named after the lesson (anything with a
        ``merging(label)`` context manager).
    label : callable ``(lesson, index) -> str``, optional
        The undo step's name; the UI passes a translated one.

    Signals
    -------
    sigStepChanged(lesson, index)
        A step was played (``lesson`` None: the lesson was closed).
    sigFailed(str)
        A step could not be played (the document is left as it was).
    """

    sigStepChanged = Signal(object, int)  # the UI's signal naming
    sigFailed = Signal(str)

    def __init__(self, workspace, undo=None, label=None) -> None:
        self.workspace = workspace
        self.undo = undo
        self.label = label or _english_label
        self.lesson: Lesson | None = None
        self.index = -1
        self._lessons: tuple[Lesson, ...] | None = None

    @property
    def lessons(self) -> tuple[Lesson, ...]:
        """Every shipped lesson (read on first use)."""
        if self._lessons is None:
            self._lessons = shipped_lessons(panel_ids())
        return self._lessons

    def find(self, lesson_id: str) -> Lesson:
        """The lesson ``lesson_id``; ``KeyError`` when there is none."""
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        raise KeyError(lesson_id)

    @property
    def step(self):
        """The step shown, or None."""
        return None if self.lesson is None else self.lesson.steps[self.index]

    def open(self, lesson_id: str, index: int = 0) -> bool:
        """Show step ``index`` of lesson ``lesson_id``; False when it cannot be played."""
        return self._play(self.find(lesson_id), index)

    def go(self, index: int) -> bool:
        """Show step ``index`` (clamped to the lesson) of the open lesson."""
        if self.lesson is None:
            return False
        return self._play(self.lesson, min(max(index, 0), len(self.lesson) - 1))

    def next(self) -> bool:
        """The next step (nothing past the last)."""
        return (
            self.lesson is not None
            and self.index + 1 < len(self.lesson)
            and self.go(self.index + 1)
        )

    def previous(self) -> bool:
        """The step before (nothing before the first)."""
        return self.lesson is not None and self.index > 0 and self.go(self.index - 1)

    def advance(self) -> bool:
        """The next step; past a lesson's last step, the first step of the next lesson
        (a lecture goes on from one lesson to the next)."""
        if self.lesson is None:
            return False
        if self.index + 1 < len(self.lesson):
            return self.go(self.index + 1)
        following = neighbour(self.lessons, self.lesson, 1)
        return following is not None and self._play(following, 0)

    def retreat(self) -> bool:
        """The step before; before a lesson's first step, the last step of the lesson
        before it (so that one step too far is undone by one step back)."""
        if self.lesson is None:
            return False
        if self.index > 0:
            return self.go(self.index - 1)
        before = neighbour(self.lessons, self.lesson, -1)
        return before is not None and self._play(before, len(before) - 1)

    def close(self) -> None:
        """Close the lesson (the document stays as it is)."""
        self.lesson, self.index = None, -1
        self.sigStepChanged.emit(None, -1)

    def _play(self, lesson: Lesson, index: int) -> bool:
        from attnviz.model.lesson_check import play_step

        label = self.label(lesson, index)
        try:
            if self.undo is not None:
                with self.undo.merging(label):
                    play_step(self.workspace.document, lesson, index)
            else:
                play_step(self.workspace.document, lesson, index)
        except (StateError, ValueError) as exc:
            self.sigFailed.emit(f"{lesson.id}, step {index + 1}: {exc}")
            return False
        self.lesson, self.index = lesson, index
        self.sigStepChanged.emit(lesson, index)
        return True
