"""Resolvers: one per topic, each a pure function of fields to results, kept current.

The attention resolver (:class:`Resolver`) is always on: the first window's panels show
it. The others (:mod:`attnviz.model.resolve.lazy`) compute only while a panel that shows
them is visible, or when an export asks for their results.
"""

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
