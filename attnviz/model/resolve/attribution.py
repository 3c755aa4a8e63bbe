"""The attribution panel's numbers: why the head shown attends where it does (no Qt).

- ``terms``: the selected query's scaled score on each key split by rotary pair
  (:func:`attnviz.core.pair_terms.pair_terms`) in the head's own layout: the synthetic
  head's RoPE turns interleaved pairs (as the heatmap rotates them), a real model's its
  family's (:mod:`attnviz.core.hf_rotary`). q and k are the vectors the scores came from
  (after RoPE), so a key's terms sum to its score before tuning, cap, ALiBi, mask and sink.
- ``qk_map``: the head's queries and keys in two dimensions, of the text shown and of the
  extra sentences ``attention.qk_sentences`` (:mod:`attnviz.model.resolve.qk_map`): PCA,
  a plane through the origin (:func:`attnviz.core.pair_terms.qk_projection`), or UMAP.

Both read the always-on attention resolver: one row of terms and one SVD of 2n short
rows are cheap at every length the heatmap takes; the panel computes a map of extra
sentences, by UMAP or of a long text on a worker.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention import score_scale
from attnviz.core.pair_terms import pair_terms, rotary_pairs
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.attention import rope_frequencies_for, rope_key
from attnviz.model.resolve.qk_map import QK_COLUMNS as QK_COLUMNS
from attnviz.model.resolve.qk_map import QKMapData, qk_map_array, qk_map_data


@dataclass(frozen=True)
class Attribution:
    """One query row's scores split by rotary pair (see the module docstring).

    ``terms`` ``(n, p)``: column i pair ``pairs[i]`` (the last, for an odd width, the lone
    dimension); ``scores`` ``(n,)`` the scaled scores ``scale · q·k_j``; ``allowed`` the
    keys the mask lets the row see; ``inv_freq`` the θ of the first ``len(inv_freq)``
    pairs (the rotated ones; the others do not turn).
    """

    query: int
    token: str
    keys: tuple[str, ...]
    terms: np.ndarray
    scores: np.ndarray
    allowed: np.ndarray
    inv_freq: np.ndarray
    layout: str
    pairs: tuple[tuple[int, int], ...]
    alone: int | None
    scale: float

    @property
    def periods(self) -> np.ndarray:
        """Tokens per turn of each column's pair, ``2π/θ_i`` (inf: a pair that does not
        turn, or the lone dimension)."""
        out = np.full(self.terms.shape[1], np.inf)
        out[: self.inv_freq.size] = 2 * np.pi / self.inv_freq
        return out

    def column_labels(self) -> tuple[str, ...]:
        """``"(a,b)"`` per pair, ``"(d)"`` for a lone dimension."""
        labels = [f"({a},{b})" for a, b in self.pairs]
        if self.alone is not None:
            labels.append(f"({self.alone})")
        return tuple(labels)

    def top_key(self) -> int | None:
        """The key of largest score the query may see (None: it may see none)."""
        if not self.allowed.any():
            return None
        return int(np.argmax(np.where(self.allowed, self.scores, -np.inf)))

    def top_fast_share(self) -> float:
        """:meth:`fast_share` of :meth:`top_key` over the fastest half of the pairs (what
        the panel's line says; NaN when the query may see no key)."""
        top = self.top_key()
        if top is None:
            return float("nan")
        return self.fast_share(top, max(1, self.terms.shape[1] // 2))

    def fast_share(self, key: int, fast: int) -> float:
        """The share of key ``key``'s |terms| in its first ``fast`` columns (the fastest
        pairs): near 1 for a head that looks by distance, near 0 for one that looks by
        content (NaN when every term is 0)."""
        row = np.abs(self.terms[key])
        total = float(row.sum())
        return float(row[:fast].sum() / total) if total > 0 else float("nan")


def _model_rotation(state, d: int) -> tuple[str, np.ndarray]:
    """A real model's layout and θ for its layer shown (``"half"`` and none when the model
    is not loaded in this process: the split is still exact, the periods unknown)."""
    from attnviz.core.hf_rotary import rotary_layout
    from attnviz.model import real_model

    loaded = real_model.STORE.loaded(state.model_path)
    if loaded is None:
        return "half", np.zeros(0)
    model_type = str(getattr(loaded.config, "model_type", ""))
    layout, inv = rotary_layout(model_type, loaded.config, loaded.text_model, state.layer)
    return layout, inv[: d // 2]


def _rotation(workspace, d: int, pairs_turned: int) -> tuple[str, np.ndarray]:
    state = workspace.state
    if state.head == "model":
        return _model_rotation(state, d)
    key = rope_key(state, workspace.resolver.positions)
    if key is None or pairs_turned == 0:
        return "interleaved", np.zeros(0)
    return "interleaved", rope_frequencies_for(2 * pairs_turned, dict(key[1]))


def attribution(workspace) -> Attribution:
    """The selected query's scores split by pair, for the head the heatmap shows."""
    state, res = workspace.state, workspace.resolver.results
    q, k = np.asarray(res.q, np.float64), np.asarray(res.k, np.float64)
    n, d = k.shape
    i = min(max(int(state.selected_query), 0), q.shape[0] - 1)
    layout, inv = _rotation(workspace, d, int(res.rope_pairs))
    rotated = 2 * inv.size
    c = score_scale(d, state.scale, state.temperature)
    terms = pair_terms(q[i], k, c, layout=layout, rotated=rotated)
    a, b, alone = rotary_pairs(d, layout, rotated)
    tokens = tuple(state.tokens)
    keys = tokens if len(tokens) == n else tuple(str(j) for j in range(n))
    allowed = np.ones(n, bool) if res.mask is None else np.asarray(res.mask[i], bool)
    return Attribution(
        query=i,
        token=keys[i] if i < n else str(i),
        keys=keys,
        terms=terms,
        scores=c * (k @ q[i]),
        allowed=allowed,
        inv_freq=inv,
        layout=layout,
        pairs=tuple(zip(a.tolist(), b.tolist(), strict=True)),
        alone=alone,
        scale=c,
    )


def qk_map(workspace) -> QKMapData:
    """The head's queries and keys (after RoPE, as the scores use them), with those of the
    extra sentences, projected together (:func:`attnviz.model.resolve.qk_map.compute_map`)."""
    return qk_map_data(workspace)


def attribution_data(workspace, name: str) -> DataArray:
    """The attribution panel's arrays: ``terms`` (keys × pairs, the selected query's
    scaled score split by rotary pair; a column per pair named by its dimensions) and
    ``qk_map`` (a row per query, then per key: whether it is a key, its position and its
    two coordinates in the map of :func:`qk_map`; with extra sentences, each row's sentence
    in a fifth column)."""
    if name == "qk_map":
        return qk_map_array(qk_map(workspace))
    if name != "terms":
        raise ValueError(f"unknown attribution array {name!r}; known: terms, qk_map")
    att = attribution(workspace)
    corner = f"scaled score of “{att.token}” per pair: key \\ pair"
    return DataArray(att.terms, att.keys, att.column_labels(), corner=corner)
