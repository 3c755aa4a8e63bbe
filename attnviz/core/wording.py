"""Numbers meeting words in English: "1 KV head", "2 KV heads", "256 bytes".

The command line speaks English and is read by people and by scripts alike; the window
translates its counts with Qt's plural forms and falls back to :func:`english_plural` for
the English source (:func:`attnviz.ui.widgets.numbers.counted`). A source text marks a
plural as ``head(s)`` (an ``s`` added) or ``entr(y|ies)`` (the singular and plural
endings), so that one text serves every count.
"""

from __future__ import annotations

import re

_CHOICE = re.compile(r"\(([^()|]*)\|([^()|]*)\)")
_ADDED = re.compile(r"\((s|es)\)")


def english_plural(text: str, n: float) -> str:
    """``text`` with its ``(s)``, ``(es)`` and ``(singular|plural)`` marks resolved for a
    count of ``n`` (singular for exactly 1, as English has it)."""
    one = n == 1
    text = _CHOICE.sub(lambda m: m.group(1) if one else m.group(2), text)
    return _ADDED.sub("" if one else r"\1", text)


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``1 layer``, ``32 layers``, ``131,072 tokens``: ``n`` grouped, then ``word`` (or
    ``plural``, by default ``word + "s"``) as the count needs."""
    n = int(n)
    noun = word if n == 1 else (plural or word + "s")
    return f"{n:,} {noun}"


def byte_count(n: float) -> str:
    """``1 byte``, ``256 bytes``, ``131,072 bytes``: a whole number of bytes in words."""
    return counted(round(n), "byte")
