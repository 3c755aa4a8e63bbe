"""One module per topic; :func:`topic_classes` finds them all.

A module here defines one :class:`~attnviz.model.topic.Topic` subclass (with its ``NAME``);
adding a topic means adding a module, nothing else: the document, the session files, the
undo history, ``--set`` and ``--list-fields`` pick it up.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from attnviz.model.topic import Topic


@cache
def topic_classes() -> tuple[type[Topic], ...]:
    """Every topic class, ordered by ``ORDER`` then name."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Topic)
                and value is not Topic
                and value.__module__ == module.__name__
                and value.NAME
            ):
                found.append(value)
    return tuple(sorted(found, key=lambda c: (c.ORDER, c.NAME)))


def topic_names() -> tuple[str, ...]:
    """The names of every topic (``attention``, ``positions``, …)."""
    return tuple(c.NAME for c in topic_classes())
