"""Queries and keys of one head in two dimensions: of one text, or of many stacked.

Two ways (:data:`PROJECTIONS`):

- ``"pca"``: :func:`attnviz.core.pair_terms.qk_projection`, the two right singular vectors
  of the stacked rows ``[Q; K]`` without centring (a plane through the origin, so a dot
  product in the plane is the head's own as far as two directions can hold it);
- ``"umap"``: UMAP (McInnes et al. 2018, the ``umap-learn`` package, an optional extra)
  of the same stacked rows under the cosine metric: a key's score with a query is
  ``|q| |k| cos``, and which rows point alike is what the neighbours keep. As AttentionViz
  (Yeh et al. 2023) does, the keys are first moved so that their mean is the queries':
  adding one vector ``c`` to every key adds ``q·c`` to all of a query's scores alike, which
  the softmax does not see, and without it the queries and keys of most heads fall in two
  far clusters, each query's neighbours only queries. Distances in the picture are not
  dot products; UMAP is stochastic, so it is seeded.

:func:`stack_texts` stacks the queries and keys of several texts (each ``(q, k)`` of one
head over one text) and says for each row its text and its position in it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import as_float_array, check_choice
from attnviz.core.pair_terms import qk_projection

PROJECTIONS = ("pca", "umap")
#: What installs UMAP (said where it is asked for and missing).
UMAP_INSTALL = "pip install 'attnviz[umap]'"
#: UMAP's neighbours per point (its own default), fewer when there are fewer points.
UMAP_NEIGHBOURS = 15
#: Fewer stacked rows than this have no neighbourhood worth keeping: PCA draws them.
UMAP_MIN_ROWS = 8


def umap_installed() -> bool:
    """True when ``umap-learn`` can be imported (looked up, not imported: its import
    compiles with numba and takes seconds)."""
    return importlib.util.find_spec("umap") is not None


@dataclass(frozen=True)
class Embedding:
    """Queries and keys in two dimensions (:func:`embed_qk`).

    ``queries``, ``keys``: ``(n, 2)``; ``method``: one of :data:`PROJECTIONS`; ``kept``:
    for PCA the share of the rows' squared length the plane holds (NaN for UMAP);
    ``basis``: PCA's ``(2, d)`` directions (None for UMAP).
    """

    queries: np.ndarray
    keys: np.ndarray
    method: str
    kept: float
    basis: np.ndarray | None


@dataclass(frozen=True)
class Stacked:
    """The rows of several texts stacked (:func:`stack_texts`): ``q``, ``k`` ``(N, d)``,
    and per row its ``text`` (0 for the first) and ``position`` within it."""

    q: np.ndarray
    k: np.ndarray
    text: np.ndarray
    position: np.ndarray


def stack_texts(parts) -> Stacked:
    """Stack ``parts``, a sequence of ``(q, k)`` (each ``(n_i, d)``, one width for all).

    Raises ValueError (one line) for no parts, a part whose q and k differ in shape, or
    parts of different widths.
    """
    parts = list(parts)
    if not parts:
        raise ValueError("no text to stack")
    qs, ks, text, position = [], [], [], []
    width = None
    for i, (q, k) in enumerate(parts):
        q = as_float_array(q, f"q of text {i}").astype(np.float64, copy=False)
        k = as_float_array(k, f"k of text {i}").astype(np.float64, copy=False)
        if q.ndim != 2 or q.shape != k.shape:
            raise ValueError(f"text {i}: q and k must be matrices of one shape, got "
                             f"{q.shape} and {k.shape}")  # fmt: skip
        if width is not None and q.shape[1] != width:
            raise ValueError(f"text {i} is {q.shape[1]} wide, the first {width}")
        width = q.shape[1]
        qs.append(q)
        ks.append(k)
        text.append(np.full(q.shape[0], i))
        position.append(np.arange(q.shape[0]))
    return Stacked(np.vstack(qs), np.vstack(ks), np.concatenate(text), np.concatenate(position))


def embed_qk(q, k, method: str = "pca", *, seed: int = 0) -> Embedding:
    """Queries ``q`` and keys ``k`` (``(n, d)`` each) in two dimensions by ``method``.

    PCA is :func:`~attnviz.core.pair_terms.qk_projection`. UMAP fits the ``2n`` stacked
    rows at once (cosine metric, :data:`UMAP_NEIGHBOURS` neighbours or fewer,
    ``random_state=seed``: the same rows and seed give the same picture); it needs the
    ``umap`` extra and at least :data:`UMAP_MIN_ROWS` rows (ValueError, one line, else).
    """
    check_choice(method, PROJECTIONS, "projection")
    if method == "pca":
        proj = qk_projection(q, k)
        return Embedding(proj.queries, proj.keys, "pca", proj.kept, proj.basis)
    q = as_float_array(q, "q").astype(np.float64, copy=False)
    k = as_float_array(k, "k").astype(np.float64, copy=False)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"q and k must be matrices of one width, got {q.shape} and {k.shape}")
    rows = np.vstack([q, k])
    if not np.isfinite(rows).all():
        raise ValueError("q and k must be finite to be projected")
    if rows.shape[0] < UMAP_MIN_ROWS:
        raise ValueError(
            f"UMAP needs at least {UMAP_MIN_ROWS} queries and keys, got {rows.shape[0]}; "
            "PCA draws a few"
        )
    n = q.shape[0]
    # Keys moved to the queries' mean: each query's weights are unchanged (see above).
    rows[n:] += q.mean(axis=0) - k.mean(axis=0)
    coords = _umap(rows, seed)
    return Embedding(coords[:n], coords[n:], "umap", float("nan"), None)


def _umap(rows: np.ndarray, seed: int) -> np.ndarray:
    if not umap_installed():
        raise ValueError(f"UMAP is not installed: {UMAP_INSTALL}")
    import warnings

    try:
        import umap  # the optional extra; imported only when asked for (seconds)
    except Exception as exc:  # numba built for another numpy, a broken install: one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"UMAP cannot be imported ({first}): {UMAP_INSTALL}") from None

    # A zero row has no direction under the cosine metric: nudged off the origin, it is
    # placed with the rows nearest its (absent) angle rather than refused.
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows = np.where(norms > 0, rows, 1e-12)
    reducer = umap.UMAP(
        n_components=2,
        n_neighbors=min(UMAP_NEIGHBOURS, rows.shape[0] - 1),
        metric="cosine",
        random_state=int(seed),
        # A seed makes UMAP single-threaded and says so; that is the point of the seed.
        n_jobs=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = reducer.fit_transform(rows)
    return np.asarray(out, dtype=np.float64)
