"""Qt-style ``%1``, ``%2`` … placeholders filled in translated text, without Qt.

Its own module (not :mod:`attnviz.ui.language`, which sets Qt's translators and locale) so
that widgets can fill their texts without importing the module that configures them.
"""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"%(\d+)")


def fill(text: str, *args) -> str:
    """Fill Qt-style ``%1``, ``%2`` … placeholders (translators may reorder them) in one
    pass, so an argument that itself holds "%2" (a token) is never filled again."""

    def part(match: re.Match) -> str:
        i = int(match.group(1))
        return str(args[i - 1]) if 1 <= i <= len(args) else match.group(0)

    return _PLACEHOLDER.sub(part, text)
