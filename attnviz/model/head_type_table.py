"""The head types the layers panel scores, in one order: their names, labels and definitions.

The names are a contract: the columns of ``attnviz export --panel layers --matrix
head_types`` (its third axis, in this order) and the choices of ``display.head_type``.
The definitions are the tooltips' and the CSV's; the numbers are
:mod:`attnviz.core.head_types`'. No Qt: the UI translates the marked texts.
"""

from __future__ import annotations

import numpy as np

from attnviz.model.i18n import QT_TRANSLATE_NOOP

#: The types, in the export's order.
TYPES = ("previous", "induction", "sink", "local", "self", "next", "cls", "sep")

#: Short labels (a tile of the grid, the legend), context ``HeadTypes``.
LABELS = {
    "previous": QT_TRANSLATE_NOOP("HeadTypes", "previous token"),
    "induction": QT_TRANSLATE_NOOP("HeadTypes", "induction"),
    "sink": QT_TRANSLATE_NOOP("HeadTypes", "sink (first token)"),
    "local": QT_TRANSLATE_NOOP("HeadTypes", "local (±2)"),
    "self": QT_TRANSLATE_NOOP("HeadTypes", "self"),
    "next": QT_TRANSLATE_NOOP("HeadTypes", "next token"),
    "cls": QT_TRANSLATE_NOOP("HeadTypes", "[CLS]"),
    "sep": QT_TRANSLATE_NOOP("HeadTypes", "[SEP]"),
}

#: One or two letters a small tile carries.
LETTERS = {
    "previous": "P",
    "induction": "I",
    "sink": "S",
    "local": "L",
    "self": "D",
    "next": "N",
    "cls": "C",
    "sep": "E",
}

#: What each score is: the tooltip's line.
DEFINITIONS = {
    "previous": QT_TRANSLATE_NOOP(
        "HeadTypes", "Previous token: the mean weight of each query t ≥ 1 on key t − 1."
    ),
    "induction": QT_TRANSLATE_NOOP(
        "HeadTypes",
        "Induction (Olsson et al. 2022): on seeded random tokens of the model's own "
        "vocabulary, repeated once, the mean weight of each repeated token on the token "
        "that followed its first occurrence.",
    ),
    "sink": QT_TRANSLATE_NOOP(
        "HeadTypes", "Sink: the mean weight of each query t ≥ 1 on the first token."
    ),
    "local": QT_TRANSLATE_NOOP(
        "HeadTypes",
        "Local: the mean over queries of the weight on keys at most 2 positions away, "
        "|t − s| ≤ 2 (itself included).",
    ),
    "self": QT_TRANSLATE_NOOP("HeadTypes", "Self: the mean weight of each query on itself."),
    "next": QT_TRANSLATE_NOOP(
        "HeadTypes",
        "Next token: the mean weight of each query t ≤ n − 2 on key t + 1 "
        "(0 where the mask is causal).",
    ),
    "cls": QT_TRANSLATE_NOOP(
        "HeadTypes",
        "[CLS] (Clark et al. 2019): the mean over queries of the weight on the "
        "tokenizer's classifier token; empty where the sentence has none.",
    ),
    "sep": QT_TRANSLATE_NOOP(
        "HeadTypes",
        "[SEP] (Clark et al. 2019): the mean over queries of the weight on the "
        "tokenizer's separator tokens; empty where the sentence has none.",
    ),
}

#: ``display.head_type``: colour each head by its strongest type, or by one type's score.
HEAD_TYPE_CHOICES = ("strongest", *TYPES)
#: ``display.layers_view``: what the layers panel draws (each a ``--matrix`` name).
LAYERS_VIEWS = ("weights", "head_types", "rollout")

#: The narrower types the local window holds (each a key within ``|t − s| ≤ 2``).
IN_WINDOW = ("previous", "self", "next")


def strongest(scores) -> tuple[np.ndarray, np.ndarray]:
    """``(index, value)`` of each head's strongest type (``(..., types)`` → two ``(...)``
    arrays); -1 and NaN where a head has no score (a layer of another kind).

    The local window holds the previous token, the token itself and the next: a head
    counts as local only when none of those three holds half of its local score, so a
    previous-token head is called one, not local.
    """
    s = np.asarray(scores, dtype=np.float64)
    filled = np.where(np.isnan(s), -np.inf, s)
    local = TYPES.index("local")
    narrow = filled[..., [TYPES.index(t) for t in IN_WINDOW]].max(axis=-1)
    spread = narrow < 0.5 * filled[..., local]
    filled[..., local] = np.where(spread, filled[..., local], -np.inf)
    index = filled.argmax(axis=-1)
    value = np.take_along_axis(filled, index[..., None], axis=-1)[..., 0]
    empty = ~np.isfinite(value)
    return np.where(empty, -1, index), np.where(empty, np.nan, value)
