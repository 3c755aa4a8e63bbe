"""A sentence past DENSE_LIMIT: attention by row blocks gives the dense path's numbers —
pictures, entropy, steps, hovered rows, the spread — without keeping an n × n matrix."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.model.resolve import Resolver
from attnviz.model.resolve import attention as resolve_attention
from attnviz.model.resolve._row_blocks import RowBlockAttention
from attnviz.model.topics.attention import AttentionState

N = 1500  # past DISPLAY_CELLS: the pictures are pooled grids


def _state(**fields) -> AttentionState:
    return AttentionState(
        tokens=tuple(f"t{i}" for i in range(N)),
        head="content",
        d_k=8,
        selected_query=1234,
        **fields,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"causal": True},
        {"causal": True, "window": 100, "softcap": 2.0, "alibi": 0.01, "sink": True},
        {"padding": (True,) * 700 + (False,) * 100 + (True,) * 700, "rope": True},
    ],
)
def test_row_blocks_give_the_dense_paths_numbers(monkeypatch, fields):
    dense = Resolver(_state(**fields)).results
    monkeypatch.setattr(resolve_attention, "DENSE_LIMIT", 1000)
    s = _state(**fields)
    long = Resolver(s).results
    assert isinstance(long.attention, RowBlockAttention)
    for name in ("scores", "weights", "output"):
        a, b = dense.picture(name), long.picture(name)
        assert a.extent == b.extent and a.values.shape == b.values.shape
        np.testing.assert_allclose(b.values, a.values, rtol=0, atol=1e-6, err_msg=name)
        if a.allowed is not None:
            np.testing.assert_array_equal(b.allowed, a.allowed)
        np.testing.assert_allclose(b.entropy, a.entropy, atol=1e-6)
    np.testing.assert_allclose(long.attention.entropy, dense.attention.entropy, atol=1e-12)
    np.testing.assert_array_equal(long.attention.fully_masked, dense.attention.fully_masked)
    for name in ("scores", "weights", "output"):
        np.testing.assert_allclose(long.row(name, 77), dense.matrix(name)[77], atol=1e-12)
    st_d, st_l = dense.steps, long.steps
    np.testing.assert_allclose(st_l.weights, st_d.weights, atol=1e-12)
    np.testing.assert_allclose(st_l.output, st_d.output, atol=1e-12)
    np.testing.assert_array_equal(st_l.allowed, st_d.allowed)
    # The spread of the scores the softmax sees, gathered block by block.
    seen = dense.attention.scores if dense.mask is None else dense.attention.scores[dense.mask]
    assert long.attention.score_spread == pytest.approx(float(np.std(seen)), rel=1e-9)
    # A whole matrix only on demand (an export), the same as the dense one.
    np.testing.assert_allclose(long.matrix("weights"), dense.matrix("weights"), atol=1e-12)


def test_a_slider_on_a_long_sentence_keeps_no_square_matrix(monkeypatch):
    monkeypatch.setattr(resolve_attention, "DENSE_LIMIT", 1000)
    s = _state(causal=True)
    r = Resolver(s)
    assert r._qk_cache[5] is None  # no q kᵀ kept
    s.update(temperature=0.5)
    ref = Resolver(_state(causal=True, temperature=0.5)).results
    np.testing.assert_allclose(
        r.results.picture("weights").values, ref.picture("weights").values, atol=1e-7
    )
