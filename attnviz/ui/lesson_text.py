"""A lesson's words on screen: its caption as rich text and the name of a step's undo step.

Shared by the lessons dock and presentation mode, in a module of its own so that the dock
(a panel) does not import presentation mode, which builds stages out of panels.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from attnviz.ui import language
from attnviz.ui.widgets.placeholders import fill


def caption_html(text: str) -> str:
    """A lesson caption as rich text: escaped, ``**x**`` in bold, line breaks kept."""
    from html import escape  # (its entity tables are not needed until a caption is shown)

    out = escape(text)
    out = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", out)
    return out.replace("\n", "<br>")


def lesson_step_label(lesson, index: int) -> str:
    """The undo step a played step becomes: "Lesson: <title>, step <n>", translated."""
    return fill(
        QCoreApplication.translate("Presentation", "Lesson: %1, step %2"),
        lesson.title_in(language.active_language()),
        index + 1,
    )
