"""Resolvers: one per topic, each a pure function of fields to results, kept current.

The attention resolver (:class:`Resolver`) is always on: the first window's panels show
it. The others (:mod:`attnviz.model.resolve.lazy`) compute only while a panel that shows
them is visible, or when an export asks for their results.

A resolver module is also this package's attribute before anything imported it
(``resolve.gradient``, imported on that first use): the table of panels names its
functions so, and reading the table imports none of them.
"""

import importlib
import pkgutil

from attnviz.model.resolve.attention import (
    ASYNC_CELLS,
    MASK_KEYS,
    QK_KEYS,
    RECOMPUTE_KEYS,
    RESTYLE_KEYS,
    QuerySteps,
    Resolver,
    Results,
    Runner,
    build_mask,
    mask_from_key,
    mask_key,
    query_steps,
)

__all__ = [
    "ASYNC_CELLS",
    "MASK_KEYS",
    "QK_KEYS",
    "RECOMPUTE_KEYS",
    "RESTYLE_KEYS",
    "QuerySteps",
    "Resolver",
    "Results",
    "Runner",
    "build_mask",
    "mask_from_key",
    "mask_key",
    "query_steps",
]


def __getattr__(name: str):
    # PEP 562: ``resolve.<module>`` imports the module on first use (once imported, it is
    # an ordinary attribute and this is not called again).
    if any(m.name == name for m in pkgutil.iter_modules(__path__)):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
