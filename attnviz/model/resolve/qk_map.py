"""The query–key map of the attribution panel: the head's queries and keys in two
dimensions, of the text shown and of the extra sentences ``attention.qk_sentences`` (no Qt).

The text shown is text 0: its q and k are the attention resolver's (after RoPE, as the
heatmap's scores use them), so the selected query and its keys keep their indices. Each
extra sentence goes through the real model shown (``head == "model"``) by the proven
capture (:meth:`attnviz.model.real_model.ModelStore.capture`), and the same layer and query
head give its q and k (the same KV head, after the model's own RoPE). A synthetic head has
no model to run a sentence through: its map is its own text alone, and the note says so.

All texts are projected together (``attention.qk_projection``: PCA or UMAP,
:func:`attnviz.core.qk_embed.embed_qk`). The work is split in two for the panel: a
snapshot of the inputs taken on the caller's thread (:func:`map_inputs`) and a pure job
that may run on a worker (:func:`compute_map`), which reports progress and stops between
sentences when cancelled.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from attnviz.core.qk_embed import embed_qk, stack_texts
from attnviz.core.work import Cancelled, as_cancel
from attnviz.model.data_array import DataArray
from attnviz.model.fields import StateError
from attnviz.model.i18n import QT_TRANSLATE_NOOP

#: The ``qk_map`` export's columns: 0 for a query's row, 1 for a key's; then, where extra
#: sentences are drawn, the text of each row (0 the one shown; appended, so that the
#: first four columns read as before).
QK_COLUMNS = ("key (0 query, 1 key)", "position", "x", "y")
SENTENCE_COLUMN = "sentence (0 the text shown)"
#: UMAP's seed: the same head and sentences give the same picture.
UMAP_SEED = 0
#: Rows past which a map is computed on a worker even by PCA (drawing them is the cost).
WORKER_ROWS = 4096
#: Why a synthetic head draws its own text alone (the note under the map).
NO_MODEL_NOTE = QT_TRANSLATE_NOOP(
    "QKMap",
    "The extra sentences go through a real model (File → Open Model…); this head draws its "
    "own text alone.",
)


@dataclass(frozen=True)
class MapInputs:
    """What a map is computed from, taken on the caller's thread (hashable by :attr:`key`).

    ``q``, ``k``, ``tokens``: the text shown; ``extra``: the extra sentences to run
    through the model of ``model`` ``(path, layer, head)`` (empty when the head is not a
    model's); ``ignored``: True when sentences were given but the head has no model.
    """

    q: np.ndarray
    k: np.ndarray
    tokens: tuple[str, ...]
    method: str
    extra: tuple[str, ...]
    model: tuple[str, int, int] | None
    ignored: bool

    @property
    def key(self) -> tuple:
        """The inputs as a hashable key (the arrays by a digest of their bytes)."""
        digest = hashlib.blake2b(digest_size=16)
        for a in (self.q, self.k):
            digest.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
            digest.update(str(a.shape).encode())
        return (digest.hexdigest(), self.tokens, self.method, self.extra, self.model)

    @property
    def rows(self) -> int:
        """Queries and keys of the text shown (the extra sentences' are not known yet)."""
        return 2 * self.q.shape[0]

    @property
    def slow(self) -> bool:
        """True when the job may take long: a model runs sentences, UMAP fits, or the text
        is long (a panel runs it on a worker then, and says so)."""
        return bool(self.extra) or self.method == "umap" or self.rows > WORKER_ROWS


@dataclass(frozen=True)
class QKMapData:
    """The map: ``queries``, ``keys`` ``(N, 2)``, per row its ``text`` (0 the text shown),
    ``position`` in it and ``tokens``; ``texts`` the sentences (text 0: None, the text shown
    is its tokens); ``method``, ``kept`` (PCA's share held, NaN for UMAP) and ``note``."""

    queries: np.ndarray
    keys: np.ndarray
    text: np.ndarray
    position: np.ndarray
    tokens: tuple[str, ...]
    texts: tuple[str | None, ...]
    method: str
    kept: float
    note: str = ""

    @property
    def shown(self) -> int:
        """The rows of the text shown (the first ones)."""
        return int((self.text == 0).sum())

    @property
    def many(self) -> bool:
        """True when extra sentences are drawn."""
        return len(self.texts) > 1


def map_inputs(workspace) -> MapInputs:
    """Snapshot the inputs of the map of ``workspace``'s head (on its own thread)."""
    state, res = workspace.state, workspace.resolver.results
    q = np.array(res.q, dtype=np.float64)
    k = np.array(res.k, dtype=np.float64)
    tokens = tuple(state.tokens)
    if len(tokens) != q.shape[0]:
        tokens = tuple(str(j) for j in range(q.shape[0]))
    extra = tuple(state.qk_sentences)
    model = None
    if state.head == "model" and state.model_path:
        model = (str(state.model_path), int(state.layer), int(state.model_head))
    return MapInputs(
        q, k, tokens, str(state.qk_projection), extra if model else (), model,
        bool(extra) and model is None,
    )  # fmt: skip


def _sentence(path: str, layer: int, head: int, text: str) -> tuple:
    from attnviz.model import real_model

    try:
        cap = real_model.STORE.capture(path, text)
        arrays = real_model.head_arrays(cap, layer, head)
    except (real_model.ModelError, ValueError, IndexError, KeyError, TypeError) as exc:
        # One line naming the sentence: the capture's own reason after it.
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise StateError(f"qk_sentences: “{shown}”: {str(exc).splitlines()[0]}") from None
    return arrays["q"], arrays["k"], real_model.display_tokens(cap)


def compute_map(inputs: MapInputs, progress=None, cancel=None) -> QKMapData:
    """The map of ``inputs``: the extra sentences captured (progress up to 0.8 as they
    come), then all projected together. ``cancel`` (an Event or callable) stops it between
    sentences (:class:`~attnviz.core.work.Cancelled`)."""
    stop = as_cancel(cancel)
    parts = [(inputs.q, inputs.k)]
    tokens = list(inputs.tokens)
    for i, text in enumerate(inputs.extra):
        if stop is not None and stop():
            raise Cancelled("the query–key map was replaced")
        q, k, toks = _sentence(*inputs.model, text)
        parts.append((q, k))
        tokens.extend(toks)
        if progress is not None:
            progress(0.8 * (i + 1) / len(inputs.extra))
    stacked = stack_texts(parts)
    emb = embed_qk(stacked.q, stacked.k, inputs.method, seed=UMAP_SEED)
    if progress is not None:
        progress(1.0)
    return QKMapData(
        emb.queries, emb.keys, stacked.text, stacked.position, tuple(tokens),
        (None, *inputs.extra), emb.method, emb.kept,
        NO_MODEL_NOTE if inputs.ignored else "",
    )  # fmt: skip


def qk_map_data(workspace) -> QKMapData:
    """The map of the head shown, computed here (scripts, exports)."""
    return compute_map(map_inputs(workspace))


def qk_map_array(data: QKMapData) -> DataArray:
    """The ``qk_map`` export: a row per query, then per key, each with whether it is a key,
    its position and its two coordinates; with extra sentences, its sentence appended."""
    n = data.queries.shape[0]
    pos = data.position.astype(np.float64)
    cols = [
        np.column_stack([np.zeros(n), pos, data.queries]),
        np.column_stack([np.ones(n), pos, data.keys]),
    ]
    columns = QK_COLUMNS
    if data.many:
        text = data.text.astype(np.float64)
        cols = [np.column_stack([cols[0], text]), np.column_stack([cols[1], text])]
        columns = (*QK_COLUMNS, SENTENCE_COLUMN)
    labels = tuple(f"q {t}" for t in data.tokens) + tuple(f"k {t}" for t in data.tokens)
    return DataArray(np.vstack(cols), labels, columns, corner="query/key")
