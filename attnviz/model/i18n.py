"""Texts of the Qt-free layers that the UI shows translated.

The table of panels and the topics' fields name things the window shows (a panel's title,
an undo step's name). They cannot import Qt, but ``pyside6-lupdate`` finds a
``QT_TRANSLATE_NOOP("Context", "text")`` call by its name in any file it reads, imported
from Qt or not: this one marks the text and returns it unchanged, and the UI translates it
with ``QCoreApplication.translate(context, text)``.
"""

from __future__ import annotations


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """``text``, marked for lupdate under ``context`` (the UI translates it when shown)."""
    del context  # read by lupdate, not at run time
    return text
