"""Bad input raises ValueError that names the problem."""

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import (
    attention,
    attention_backward,
    scaled_scores,
    softmax,
    softmax_jacobian,
)
from attnviz.core.heads import generate_head
from attnviz.core.multihead import multi_head_attention, split_heads

Q = np.ones((3, 2))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: attention(np.ones((3, 2)), np.ones((3, 4)), np.ones((3, 2))), "share d_k"),
        (lambda: attention(Q, np.ones((3, 2)), np.ones((4, 2))), "same number of keys"),
        (lambda: attention(Q, Q, np.array([[1, 2], [np.nan, 0], [0, 0]])), "non-finite"),
        (lambda: attention(Q, np.array([[np.inf, 0]] * 3), Q), "non-finite"),
        (lambda: attention(np.ones((0, 2)), Q, Q), "empty"),
        (lambda: attention(np.ones((3, 0)), np.ones((3, 0)), Q), "d_k must be ≥ 1"),
        (lambda: attention(Q, Q, Q, temperature=0), "temperature"),
        (lambda: attention(Q, Q, Q, temperature=-1), "temperature"),
        (lambda: attention(Q, Q, Q, temperature=float("nan")), "temperature"),
        (lambda: attention(Q, Q, Q, mask=np.ones((2, 2), bool)), "does not broadcast"),
        (lambda: attention(Q, Q, Q, mask=np.ones((3, 3)) * 0.5), "boolean"),
        (lambda: attention(np.ones(3), Q, Q), "at least 2 dimensions"),
        (
            lambda: attention(np.ones((2, 3, 2)), np.ones((3, 3, 2)), np.ones((3, 3, 2))),
            "broadcast",
        ),
        (lambda: attention(Q, Q, Q, scale="yes"), "scale"),
        (lambda: attention([["a", "b"]] * 3, Q, Q), "numeric"),
        (lambda: scaled_scores(Q, np.ones((3, 5))), "share d_k"),
        (lambda: softmax(np.array([1.0, np.nan])), "non-finite"),
        (lambda: softmax_jacobian(np.ones((2, 2))), "one row"),
        (lambda: attention_backward(np.ones((2, 2)), Q, Q, Q), "d_output"),
        (lambda: masks.causal_mask(0), "n_q"),
        (lambda: masks.sliding_window_mask(4, 0), "window"),
        (lambda: masks.padding_mask([]), "non-empty"),
        (lambda: masks.document_mask([0.5, 1.5]), "integers"),
        (lambda: masks.combine(), "at least one"),
        (lambda: masks.combine(np.ones((2, 2), bool), np.ones((3, 3), bool)), "broadcast"),
        (lambda: split_heads(np.ones((3, 10)), 4), "does not divide"),
        (lambda: generate_head("nope", 3, 4), "unknown head kind"),
        (lambda: generate_head("content", 3, 10**6), "too large"),
        (lambda: generate_head("content", 0, 4), "n must be"),
        (lambda: generate_head("decay", 3, 2), "d_k ≥ 3"),
    ],
)
def test_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _mha(n_heads, n_kv, d_model=8, q_cols=8, kv_cols=8):
    x = np.ones((3, d_model))
    return multi_head_attention(
        x,
        np.ones((d_model, q_cols)),
        np.ones((d_model, kv_cols)),
        np.ones((d_model, kv_cols)),
        np.ones((q_cols, d_model)),
        n_heads=n_heads,
        n_kv_heads=n_kv,
    )


def test_multihead_errors():
    with pytest.raises(ValueError, match="n_heads=3 does not divide"):
        _mha(3, None)
    with pytest.raises(ValueError, match="n_kv_heads=3 does not divide n_heads=4"):
        _mha(4, 3, kv_cols=6)
    with pytest.raises(ValueError, match="columns"):
        _mha(4, 2, kv_cols=8)
    with pytest.raises(ValueError, match="n_heads must be ≥ 1"):
        _mha(0, None)
    out, w = _mha(4, 2, kv_cols=4)
    assert out.shape == (3, 8) and w.shape == (4, 3, 3)


def test_float32_stays_float32_and_float64_default():
    q = np.ones((3, 2), np.float32)
    assert attention(q, q, q).output.dtype == np.float32
    assert attention(q, q, q).weights.dtype == np.float32
    assert attention([[1, 2]], [[1, 0]], [[3]]).output.dtype == np.float64
