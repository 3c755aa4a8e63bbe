"""Mask conventions of DESIGN.md, multi-head layout, and the synthetic heads."""

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import attention
from attnviz.core.heads import HEAD_KINDS, generate_head
from attnviz.core.multihead import merge_heads, split_heads


def test_causal_square_and_rectangular():
    np.testing.assert_array_equal(masks.causal_mask(3), np.tril(np.ones((3, 3), bool)))
    # n_k > n_q: queries are the last n_q positions
    np.testing.assert_array_equal(
        masks.causal_mask(2, 4), [[True, True, True, False], [True, True, True, True]]
    )


def test_padding_hides_keys_from_every_query():
    m = masks.padding_mask([True, True, False])
    assert m.shape == (1, 3)
    res = attention(np.ones((3, 2)), np.ones((3, 2)), np.eye(3)[:, :2])
    res_p = attention(np.ones((3, 2)), np.ones((3, 2)), np.eye(3)[:, :2], mask=m)
    assert np.all(res_p.weights[:, 2] == 0)
    assert not np.allclose(res.weights, res_p.weights)


def test_document_and_window():
    d = masks.document_mask([0, 0, 1, 1, 1])
    assert d[1, 0] and not d[2, 1] and d[4, 2]
    w = masks.sliding_window_mask(5, 2)
    assert w[3, 2] and w[3, 3] and not w[3, 1] and not w[2, 3]
    w2 = masks.sliding_window_mask(5, 2, causal=False)
    assert w2[2, 3] and w2[2, 1] and not w2[2, 4]
    both = masks.combine(masks.causal_mask(5), d)
    assert both[4, 2] and not both[4, 1] and not both[2, 3]


def test_gato_causal_gives_four_next_token_examples():
    from attnviz.model.presets import load_preset

    p = load_preset("gato")
    m = masks.causal_mask(len(p.tokens))
    res = attention(p.q, p.k, p.v, mask=m)
    # each prefix predicts the next word: 4 training examples from 5 tokens
    visible = [p.tokens[: int(r.sum())] for r in m[:-1]]
    assert len(visible) == 4 and visible[0] == ["o"] and visible[-1] == p.tokens[:4]
    assert np.all(np.triu(res.weights, 1) == 0)


def test_split_merge_contiguous_blocks():
    x = np.arange(2 * 12, dtype=float).reshape(2, 12)
    h = split_heads(x, 3)
    assert h.shape == (3, 2, 4)
    np.testing.assert_array_equal(h[1, 0], x[0, 4:8])
    np.testing.assert_array_equal(merge_heads(h), x)


@pytest.mark.parametrize("kind", HEAD_KINDS)
def test_heads_are_deterministic(kind):
    a = generate_head(kind, 10, 8, seed=3)
    b = generate_head(kind, 10, 8, seed=3)
    for x, y in ((a.q, b.q), (a.k, b.k), (a.v, b.v)):
        np.testing.assert_array_equal(x, y)
    assert a.q.shape == (10, 8) and a.v.shape == (10, 8)


def test_previous_token_head_attends_to_previous():
    h = generate_head("previous", 32, 16, seed=0)
    w = attention(h.q, h.k, h.v).weights
    assert np.all(np.argmax(w[1:], axis=1) == np.arange(31))
    assert np.min(w[np.arange(1, 32), np.arange(31)]) > 0.9


def test_distance_decay_head_decays_with_distance():
    h = generate_head("decay", 40, 8, seed=0)
    w = attention(h.q, h.k, h.v).weights
    i = 20
    row = w[i]
    assert np.argmax(row) == i
    assert np.all(np.diff(row[i:]) < 0) and np.all(np.diff(row[: i + 1]) > 0)


def test_content_head_matches_equal_tokens():
    toks = ["the", "cat", "saw", "the", "dog", "and", "the", "bird"]
    h = generate_head("content", len(toks), 32, seed=1, tokens=toks)
    w = attention(h.q, h.k, h.v).weights
    the = [i for i, t in enumerate(toks) if t == "the"]
    for i in the:
        assert w[i, the].sum() > 0.9
