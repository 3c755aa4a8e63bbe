"""Each head's contribution through W^O: the block product, torch's own multi-head
attention, and switching heads off at W^O's input (torch hooks as oracles)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.attention import attention
from attnviz.core.head_mixing import (
    check_heads_off,
    contribution_norms,
    head_contributions,
    switched_output,
)
from attnviz.core.multihead import merge_heads, project_heads, repeat_kv


def _model(n=5, d_model=8, h=4, h_kv=2, d=2, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w_q = rng.normal(size=(d_model, h * d))
    w_k = rng.normal(size=(d_model, h_kv * d))
    w_v = rng.normal(size=(d_model, h_kv * d))
    w_o = rng.normal(size=(h * d, d_model))
    return x, w_q, w_k, w_v, w_o


def _heads(x, w_q, w_k, w_v, h, h_kv):
    q, k, v = project_heads(x, w_q, w_k, w_v, n_heads=h, n_kv_heads=h_kv)
    res = attention(q, repeat_kv(k, h // h_kv), repeat_kv(v, h // h_kv))
    return res.output  # (h, n, d_head)


def _torch_layer(torch, w_q, w_k, w_v, w_o, h, h_kv, bias=None):
    """A hand-written torch attention layer: SDPA per head (GQA), then W^O as an
    nn.Linear, so a forward pre-hook can zero a head's slice of W^O's input."""
    d = w_q.shape[1] // h
    out_proj = torch.nn.Linear(h * d, w_o.shape[1], bias=bias is not None, dtype=torch.float64)
    with torch.no_grad():
        out_proj.weight.copy_(torch.from_numpy(w_o.T))
        if bias is not None:
            out_proj.bias.copy_(torch.from_numpy(bias))

    def forward(x):
        t = torch.from_numpy(x)
        n = t.shape[0]
        q = (t @ torch.from_numpy(w_q)).view(n, h, d).transpose(0, 1)[None]
        k = (t @ torch.from_numpy(w_k)).view(n, h_kv, d).transpose(0, 1)[None]
        v = (t @ torch.from_numpy(w_v)).view(n, h_kv, d).transpose(0, 1)[None]
        heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)[0]
        return out_proj(heads.transpose(0, 1).reshape(n, h * d)).detach().numpy()

    return forward, out_proj


def _zero_heads_hook(off, d):
    def hook(_module, args):
        (inp,) = args
        inp = inp.clone()
        for head in off:
            inp[..., head * d : (head + 1) * d] = 0.0  # that head's slice of W^O's input
        return (inp,)

    return hook


def test_the_contributions_sum_to_the_block_product():
    x, w_q, w_k, w_v, w_o = _model()
    heads = _heads(x, w_q, w_k, w_v, 4, 2)
    c = head_contributions(heads, w_o)
    assert c.shape == (4, 5, 8)
    o = merge_heads(heads) @ w_o
    np.testing.assert_allclose(c.sum(axis=0), o, rtol=0, atol=1e-12)
    for head in range(4):  # each term is its head's block times W^O's row block
        np.testing.assert_allclose(
            c[head], heads[head] @ w_o[2 * head : 2 * head + 2], rtol=0, atol=1e-14
        )
    norms = contribution_norms(c)
    assert norms.shape == (5, 4)
    np.testing.assert_allclose(norms[3, 1], np.sqrt((c[1, 3] ** 2).sum()), rtol=1e-15)


def test_the_sum_equals_torch_multi_head_attention_forward():
    torch = pytest.importorskip("torch")
    n, h, d = 6, 4, 3
    x, w_q, w_k, w_v, w_o = _model(n=n, d_model=h * d, h=h, h_kv=h, d=d, seed=3)
    heads = _heads(x, w_q, w_k, w_v, h, h)
    t = torch.from_numpy(x)[:, None, :]  # (n, batch 1, E)
    in_proj = torch.from_numpy(np.concatenate([w_q.T, w_k.T, w_v.T]))
    ref, _ = torch.nn.functional.multi_head_attention_forward(
        t, t, t, h * d, h, in_proj, None, None, None, False, 0.0,
        torch.from_numpy(w_o.T), None, need_weights=False,
    )  # fmt: skip
    ref = ref[:, 0, :].numpy()
    np.testing.assert_allclose(head_contributions(heads, w_o).sum(axis=0), ref, atol=1e-12)
    np.testing.assert_allclose(switched_output(heads, w_o), ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("h_kv", "off"), [(2, (1,)), (2, (0, 3)), (4, (2,)), (1, (0, 1, 2))])
def test_switching_heads_off_equals_torch_with_w_o_input_zeroed(h_kv, off):
    torch = pytest.importorskip("torch")
    x, w_q, w_k, w_v, w_o = _model(n=7, d_model=6, h=4, h_kv=h_kv, d=3, seed=1)
    forward, out_proj = _torch_layer(torch, w_q, w_k, w_v, w_o, 4, h_kv)
    clean = forward(x)
    handle = out_proj.register_forward_pre_hook(_zero_heads_hook(off, 3))
    ref = forward(x)
    handle.remove()
    heads = _heads(x, w_q, w_k, w_v, 4, h_kv)
    got = switched_output(heads, w_o, off)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert np.abs(got - clean).max() > 1e-3  # the switch moved O: the test can tell
    c = head_contributions(heads, w_o)
    np.testing.assert_allclose(got, clean - c[list(off)].sum(axis=0), rtol=0, atol=1e-12)


def test_every_head_off_leaves_the_bias():
    torch = pytest.importorskip("torch")
    x, w_q, w_k, w_v, w_o = _model(seed=2)
    bias = np.random.default_rng(9).normal(size=8)
    forward, out_proj = _torch_layer(torch, w_q, w_k, w_v, w_o, 4, 2, bias=bias)
    out_proj.register_forward_pre_hook(_zero_heads_hook(range(4), 2))
    heads = _heads(x, w_q, w_k, w_v, 4, 2)
    got = switched_output(heads, w_o, range(4), bias=bias)
    np.testing.assert_array_equal(got, np.broadcast_to(bias, (5, 8)))
    np.testing.assert_allclose(got, forward(x), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(switched_output(heads, w_o, (3, 0, 2, 1)), np.zeros((5, 8)))


@settings(max_examples=60, deadline=None)
@given(
    h=st.integers(1, 6),
    d=st.integers(1, 4),
    n=st.integers(1, 7),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_switching_off_removes_exactly_those_terms(h, d, n, seed, data):
    rng = np.random.default_rng(seed)
    heads = rng.normal(size=(h, n, d)) * rng.choice([1e-3, 1.0, 1e3])
    w_o = rng.normal(size=(h * d, 5))
    off = data.draw(st.lists(st.integers(0, h - 1), max_size=h))
    c = head_contributions(heads, w_o)
    kept = [i for i in range(h) if i not in off]
    got = switched_output(heads, w_o, off)
    scale = max(1.0, float(np.abs(c).max()))
    np.testing.assert_allclose(got, c[kept].sum(axis=0), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(c.sum(axis=0), merge_heads(heads) @ w_o, atol=1e-12 * scale)


def test_bad_heads_and_shapes_are_refused_in_one_line():
    heads, w_o = np.zeros((3, 2, 2)), np.zeros((6, 4))
    assert check_heads_off([2, 0, 2], 3) == (0, 2)
    for off, match in (([3], "outside 0…2"), ([-1], "outside"), ([True], "integer"),
                       ([1.0], "integer"), ([2**70], "outside")):  # fmt: skip
        with pytest.raises(ValueError, match=match) as err:
            switched_output(heads, w_o, off)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="6 rows"):
        head_contributions(heads, np.zeros((5, 4)))
    with pytest.raises(ValueError, match="h, n, d_head"):
        head_contributions(np.zeros((2, 2)), w_o)
