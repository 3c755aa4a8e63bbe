"""attention() and attention_backward() against torch in float64."""

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import attention, attention_backward
from attnviz.core.multihead import multi_head_attention
from tests.torch_oracle import torch

F = torch.nn.functional


def _rand(rng, *shape):
    return rng.normal(size=shape)


def _mask_for(kind, rng, n_q, n_k):
    if kind is None:
        return None
    if kind == "causal":
        return masks.causal_mask(n_q, n_k)
    if kind == "padding":
        valid = rng.random(n_k) > 0.3
        valid[0] = True
        return masks.padding_mask(valid)
    if kind == "document":
        seg = np.sort(rng.integers(0, 3, size=n_k))
        return masks.document_mask(seg)[-n_q:] if n_q == n_k else masks.document_mask(seg)[:n_q]
    if kind == "window":
        return masks.sliding_window_mask(n_k, 3)[:n_q]
    if kind == "window+padding":
        valid = np.ones(n_k, bool)
        valid[-1] = False
        return masks.combine(
            masks.sliding_window_mask(n_k, 4, causal=False)[:n_q], masks.padding_mask(valid)
        )
    if kind == "causal+document":
        seg = np.repeat([0, 1, 2], -(-n_k // 3))[:n_k]
        return masks.combine(masks.causal_mask(n_q, n_k), masks.document_mask(seg)[:n_q])
    raise AssertionError(kind)


def _torch_sdpa(q, k, v, mask, scale, temperature=1.0):
    tq, tk, tv = (torch.from_numpy(np.ascontiguousarray(a)) for a in (q, k, v))
    sc = (1 / np.sqrt(q.shape[-1]) if scale else 1.0) / temperature
    tm = None if mask is None else torch.from_numpy(np.ascontiguousarray(mask))
    return F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, scale=sc).numpy()


MASKS = [None, "causal", "padding", "document", "window", "window+padding", "causal+document"]


@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_forward_matches_sdpa(kind, scale, seed):
    rng = np.random.default_rng(seed)
    b, h = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    n = int(rng.integers(2, 12))
    d, dv = int(rng.integers(1, 9)), int(rng.integers(1, 6))
    q, k, v = _rand(rng, b, h, n, d), _rand(rng, b, h, n, d), _rand(rng, b, h, n, dv)
    m = _mask_for(kind, rng, n, n)
    ours = attention(q, k, v, mask=m, scale=scale).output
    ref = _torch_sdpa(q, k, v, m, scale)
    assert np.max(np.abs(ours - ref)) <= 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_forward_matches_sdpa_with_temperature_and_rectangular(seed):
    rng = np.random.default_rng(10 + seed)
    n_q, n_k, d = 3, 7, 5
    q, k, v = _rand(rng, 2, n_q, d), _rand(rng, 2, n_k, d), _rand(rng, 2, n_k, 3)
    m = masks.causal_mask(n_q, n_k)
    ours = attention(q, k, v, mask=m, temperature=0.7).output
    ref = _torch_sdpa(q, k, v, m, True, temperature=0.7)
    assert np.max(np.abs(ours - ref)) <= 1e-12


@pytest.mark.parametrize("n_heads,n_kv", [(4, 4), (4, 2), (4, 1), (6, 3)])
@pytest.mark.parametrize("kind", [None, "causal"])
def test_multihead_gqa_matches_sdpa_enable_gqa(n_heads, n_kv, kind):
    rng = np.random.default_rng(n_heads * 10 + n_kv)
    n, d_head = 9, 3
    d_model = 8
    x = _rand(rng, n, d_model)
    w_q = _rand(rng, d_model, n_heads * d_head)
    w_k = _rand(rng, d_model, n_kv * d_head)
    w_v = _rand(rng, d_model, n_kv * d_head)
    w_o = _rand(rng, n_heads * d_head, d_model)
    m = None if kind is None else masks.causal_mask(n)
    out, weights = multi_head_attention(
        x, w_q, w_k, w_v, w_o, n_heads=n_heads, n_kv_heads=n_kv, mask=m
    )
    assert weights.shape == (n_heads, n, n)

    tx = torch.from_numpy(x)
    tq = (tx @ torch.from_numpy(w_q)).view(n, n_heads, d_head).transpose(0, 1)
    tk = (tx @ torch.from_numpy(w_k)).view(n, n_kv, d_head).transpose(0, 1)
    tv = (tx @ torch.from_numpy(w_v)).view(n, n_kv, d_head).transpose(0, 1)
    tm = None if m is None else torch.from_numpy(m)
    to = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, enable_gqa=True)
    ref = (to.transpose(0, 1).reshape(n, n_heads * d_head) @ torch.from_numpy(w_o)).numpy()
    assert np.max(np.abs(out - ref)) <= 1e-12


@pytest.mark.parametrize("kind", MASKS)
@pytest.mark.parametrize("scale,temperature", [(True, 1.0), (False, 1.0), (True, 2.5)])
def test_backward_matches_autograd(kind, scale, temperature):
    rng = np.random.default_rng(7)
    n, d, dv = 6, 4, 3
    q, k, v, d_o = (
        _rand(rng, 2, n, d),
        _rand(rng, 2, n, d),
        _rand(rng, 2, n, dv),
        _rand(rng, 2, n, dv),
    )
    m = _mask_for(kind, rng, n, n)
    g = attention_backward(d_o, q, k, v, mask=m, scale=scale, temperature=temperature)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    sc = (1 / np.sqrt(d) if scale else 1.0) / temperature
    tm = None if m is None else torch.from_numpy(np.ascontiguousarray(m))
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, scale=sc)
    out.backward(torch.from_numpy(d_o))
    for ours, ref in ((g.dq, tq.grad), (g.dk, tk.grad), (g.dv, tv.grad)):
        assert np.max(np.abs(ours - ref.numpy())) <= 1e-10
    np.testing.assert_allclose(g.dscores.sum(axis=-1), 0, atol=1e-12)


def test_backward_broadcast_kv_sums_gradients():
    rng = np.random.default_rng(3)
    q, k, v, d_o = _rand(rng, 3, 5, 4), _rand(rng, 5, 4), _rand(rng, 5, 2), _rand(rng, 3, 5, 2)
    g = attention_backward(d_o, q, k, v)
    assert g.dk.shape == k.shape and g.dv.shape == v.shape
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    F.scaled_dot_product_attention(tq, tk.expand(3, 5, 4), tv.expand(3, 5, 2)).backward(
        torch.from_numpy(d_o)
    )
    assert np.max(np.abs(g.dk - tk.grad.numpy())) <= 1e-10
    assert np.max(np.abs(g.dv - tv.grad.numpy())) <= 1e-10
