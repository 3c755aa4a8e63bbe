"""Models shipped inside attnviz, opened by name: ``builtin:induction``.

Wherever a model folder is taken (``--model``, File → Open Model…, a session, a notebook),
``builtin:NAME`` stands for the shipped folder of that name under the resources
(:func:`attnviz.paths.resource`), so a lecturer offline has a decoder whose heads mean
something without knowing where the package was installed.
"""

from __future__ import annotations

import os

from attnviz.core.hf_errors import ModelError
from attnviz.paths import resource

__all__ = ["BUILTIN_MODELS", "PREFIX", "builtin_folder", "resolve_model_path"]

PREFIX = "builtin:"
#: Name → the folder under the resources. ``induction``: the seed-0 model of
#: ``attnviz train induction`` (a previous-token head in layer 0, an induction head in 1).
BUILTIN_MODELS = {"induction": ("models", "induction")}


def builtin_folder(name: str) -> str:
    """The shipped folder of model ``name`` (without the prefix); :class:`ModelError`
    naming the shipped ones when there is no such model."""
    parts = BUILTIN_MODELS.get(name)
    if parts is None:
        shipped = ", ".join(PREFIX + n for n in BUILTIN_MODELS)
        shown = name if len(name) <= 40 else name[:39] + "…"
        raise ModelError(f"{PREFIX}{shown!s}: no such shipped model (shipped: {shipped})")
    return str(resource(*parts))


def resolve_model_path(path: str | os.PathLike) -> str | os.PathLike:
    """``path`` itself, or the shipped folder when it is ``builtin:NAME``."""
    if isinstance(path, str) and path.startswith(PREFIX):
        return builtin_folder(path[len(PREFIX) :].strip())
    return path
