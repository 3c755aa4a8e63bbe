"""A sentence past DENSE_LIMIT: attention by row blocks gives the core's float64 numbers —
pictures (to float32), entropy, steps, hovered rows, the spread, whole matrices — without
keeping an n × n float64 matrix."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.attention import attention
from attnviz.model.resolve import Resolver, build_mask
from attnviz.model.resolve import attention as resolve_attention
from attnviz.model.resolve._display import LazyAttention
from attnviz.model.resolve._one_pass import Kept
from attnviz.model.resolve._row_blocks import DENSE_LIMIT, RowBlockAttention
from attnviz.model.topics.attention import AttentionState

N = 1500  # past DENSE_LIMIT (= DISPLAY_CELLS): the pictures are pooled grids


def _state(n: int = N, **fields) -> AttentionState:
    return AttentionState(
        tokens=tuple(f"t{i}" for i in range(n)),
        head="content",
        d_k=8,
        selected_query=min(1234, n - 1),
        **fields,
    )


def _reference(s: AttentionState, res):
    """The core's float64 attention of the vectors the scores came from (RoPE applied)."""
    return attention(
        res.q,
        res.k,
        s.v,
        mask=build_mask(s),
        scale=s.scale,
        temperature=s.temperature,
        terms=s.score_terms(),
    )


def _grid_means(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Block means on a rows × cols grid, groups as numpy.array_split makes them."""
    r = [g[0] for g in np.array_split(np.arange(values.shape[0]), rows)]
    c = [g[0] for g in np.array_split(np.arange(values.shape[1]), cols)]
    sums = np.add.reduceat(np.add.reduceat(values, r, axis=0), c, axis=1)
    return sums / np.outer(np.diff(r + [values.shape[0]]), np.diff(c + [values.shape[1]]))


@pytest.mark.parametrize(
    "fields",
    [
        {"causal": True},
        {"causal": True, "window": 100, "softcap": 2.0, "alibi": 0.01, "sink": True},
        {"causal": True, "tuning": 0.3, "tuning_floor": 256, "softcap": 3.0},
        {"padding": (True,) * 700 + (False,) * 100 + (True,) * 700, "rope": True},
    ],
)
def test_row_blocks_give_the_cores_numbers(fields):
    s = _state(**fields)
    long = Resolver(s).results
    ref = _reference(s, long)
    assert isinstance(long.attention, RowBlockAttention)
    for name in ("scores", "weights", "output"):
        pic = long.picture(name)
        matrix = getattr(ref, name)
        want = _grid_means(matrix, *pic.values.shape)
        assert pic.extent == matrix.shape and pic.values.dtype == np.float32
        scale = max(1.0, float(np.abs(matrix).max()))
        np.testing.assert_allclose(pic.values, want, rtol=0, atol=2e-6 * scale, err_msg=name)
        want = _grid_means(ref.entropy[:, None], 1024, 1)[:, 0]
        np.testing.assert_allclose(pic.entropy, want, rtol=0, atol=2e-6)
    np.testing.assert_allclose(long.attention.entropy, ref.entropy, rtol=0, atol=2e-6)
    np.testing.assert_array_equal(long.attention.fully_masked, ref.fully_masked)
    for name in ("scores", "weights", "output"):
        np.testing.assert_allclose(long.row(name, 77), getattr(ref, name)[77], atol=1e-12)
    steps = long.steps
    np.testing.assert_allclose(steps.weights, ref.weights[1234], atol=1e-12)
    np.testing.assert_allclose(steps.output, ref.output[1234], atol=1e-12)
    np.testing.assert_array_equal(steps.allowed, build_mask(s)[1234])
    # The spread of the scores the softmax sees: q kᵀ's in float64 (plain scores), the
    # capped and biased logits' gathered in the float32 pass.
    seen = ref.scores[build_mask(s)]
    rel = 1e-9 if s.score_terms().plain else 1e-6
    assert long.attention.score_spread == pytest.approx(float(np.std(seen)), rel=rel)
    # A whole matrix only on demand (an export): the core's, bit for bit.
    np.testing.assert_array_equal(long.matrix("weights"), ref.weights)


def test_the_presets_sizes_stay_on_the_float64_path():
    s = _state(n=DENSE_LIMIT)
    res = Resolver(s).results
    assert isinstance(res.attention, LazyAttention)
    ref = attention(s.q, s.k, s.v)
    np.testing.assert_array_equal(res.attention.weights, ref.weights)
    np.testing.assert_array_equal(res.attention.entropy, ref.entropy)


def test_a_slider_on_a_long_sentence_keeps_no_float64_square_matrix():
    s = _state(causal=True)
    r = Resolver(s)
    kept = r._qk_cache[5]
    assert isinstance(kept, Kept) and kept.shifted.dtype == np.float32
    s.update(temperature=0.5)
    assert r._qk_cache[5] is kept  # q kᵀ reused: a temperature step multiplies no matrices
    arrays = [*vars(r.results.attention).values(), *vars(kept).values()]
    square = [a for a in arrays if isinstance(a, np.ndarray) and a.size >= N * N]
    assert square and all(a.dtype in (np.float32, np.bool_) for a in square)
    ref = Resolver(_state(causal=True, temperature=0.5)).results
    np.testing.assert_array_equal(
        r.results.picture("weights").values, ref.picture("weights").values
    )


def test_past_the_keep_limit_every_pass_multiplies_q_and_k(monkeypatch):
    from attnviz.model.resolve import _one_pass

    s = _state(causal=True, temperature=0.7)
    kept_pic = Resolver(s).results.picture("weights")
    monkeypatch.setattr(resolve_attention, "KEEP_LIMIT", 1000)
    monkeypatch.setattr(_one_pass, "BLOCK_CELLS", 3 * N + 7)  # three rows a block, uneven
    r = Resolver(_state(causal=True, temperature=0.7))
    assert r._qk_cache[5].shifted is None
    np.testing.assert_allclose(r.results.picture("weights").values, kept_pic.values, atol=1e-6)
