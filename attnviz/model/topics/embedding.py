"""The ``embedding`` topic: a vocabulary, a batch of Zipf-distributed tokens, a table width.

A batch of ``batch_tokens`` token ids is drawn from a Zipf law of ``exponent`` over
``vocab_size`` ids (:func:`attnviz.core.embedding.zipf_tokens`, ``seed``); the embedding
table has ``vocab_size`` rows of ``d_model`` columns, shared with the output projection
when ``tied``. ``color_by`` only restyles the strip (update count or gradient norm).
"""

from __future__ import annotations

from attnviz.model.fields import Field
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: Largest vocabulary offered: 128k read as 128 × 1024 (the default is the chapter's 128,000).
MAX_VOCAB = 131_072
#: Largest batch: 2^20 tokens, the order of an LLM's training batch.
MAX_TOKENS = 1 << 20
MAX_D_MODEL = 65_536
MAX_SEED = 2**31 - 1
COLOR_BY = ("count", "norm")

FIELDS = (
    Field("vocab_size", "int", 128_000, 2, MAX_VOCAB, doc="rows of the table (token ids)",
          label=QT_TRANSLATE_NOOP("UndoController", "Vocabulary size")),
    Field("batch_tokens", "int", 8192, 1, MAX_TOKENS, doc="tokens drawn for one batch",
          label=QT_TRANSLATE_NOOP("UndoController", "Tokens in the batch")),
    Field("exponent", "float", 1.0, 0.0, 3.0,
          doc="Zipf exponent s: p(rank r) ∝ r^-s (1 ≈ natural text, 0 = uniform)",
          label=QT_TRANSLATE_NOOP("UndoController", "Zipf exponent")),
    Field("seed", "int", 0, 0, MAX_SEED, doc="seed of the token draw and of the gradient",
          label=QT_TRANSLATE_NOOP("UndoController", "Seed")),
    Field("d_model", "int", 4096, 1, MAX_D_MODEL, doc="width of each row of the table",
          label=QT_TRANSLATE_NOOP("UndoController", "Table width")),
    Field("tied", "bool", False, doc="input and output embeddings share one matrix",
          label=QT_TRANSLATE_NOOP("UndoController", "Tied embeddings")),
    Field("color_by", "choice", "count", choices=COLOR_BY, recompute=False,
          doc="what colours the strip: update count or gradient row norm",
          label=QT_TRANSLATE_NOOP("UndoController", "Strip colour")),
)  # fmt: skip


class EmbeddingState(Topic):
    """The vocabulary, batch and table whose sparse gradient the embedding panel shows."""

    NAME = "embedding"
    ORDER = 40
    FIELDS = FIELDS
