"""Temperature tuning (Llama 4's NoPE layers): query i's scores times
τᵢ = 1 + tuning·ln(⌊(i + 1) / floor⌋ + 1), against Llama 4's own formula written in torch,
finite differences, and the chain order with the cap and ALiBi."""

import numpy as np
import pytest

from attnviz.core import masks
from attnviz.core.attention import attention, attention_backward
from attnviz.core.score_terms import MAX_TUNING_FLOOR, ScoreTerms


def _qkv(n=9, d=4, seed=5):
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(size=(n, d)) * 2 for _ in range(4))


def test_tuning_scales_q_as_llama4_does_in_torch():
    """Llama 4 multiplies the query states by τ before the attention call; attnviz
    multiplies the scores' rows, which is the same number."""
    torch = pytest.importorskip("torch")
    q, k, v, _ = _qkv()
    mask = masks.causal_mask(9)
    res = attention(q, k, v, mask=mask, terms=ScoreTerms(tuning=0.1, tuning_floor=2))
    positions = torch.arange(9, dtype=torch.float64)
    # Llama4TextAttention.forward, as transformers 5 writes it:
    scales = torch.log1p(torch.floor((positions + 1.0) / 2)) * 0.1 + 1.0
    tq = torch.tensor(q) * scales[:, None]
    s = tq @ torch.tensor(k).T / 2.0
    s = s.masked_fill(~torch.tensor(mask), float("-inf"))
    want = torch.softmax(s, -1).numpy()
    np.testing.assert_allclose(res.weights, want, rtol=0, atol=1e-14)
    # The tuning bites: rows past the first floor differ from the untuned head's.
    plain = attention(q, k, v, mask=mask)
    assert np.array_equal(res.weights[0], plain.weights[0])
    assert np.abs(res.weights[5:] - plain.weights[5:]).max() > 1e-3


def test_the_factors_are_one_before_the_first_floor_and_grow_by_log_steps():
    t = ScoreTerms(tuning=0.5, tuning_floor=4)
    tau = t.row_factors(12)[:, 0]
    assert np.array_equal(tau[:3], np.ones(3))  # i + 1 < 4
    np.testing.assert_allclose(tau[3:7], 1 + 0.5 * np.log(2))
    np.testing.assert_allclose(tau[7:11], 1 + 0.5 * np.log(3))
    np.testing.assert_allclose(tau[11], 1 + 0.5 * np.log(4))
    # Rows of a block starting at row 6 (the row blocks of a long sentence).
    np.testing.assert_array_equal(t.row_factors(3, row0=6)[:, 0], tau[6:9])
    assert ScoreTerms().row_factors(5) is None


def test_tuning_comes_before_the_cap_and_alibi():
    q, k, v, _ = _qkv()
    terms = ScoreTerms(softcap=1.5, alibi=0.25, tuning=0.3, tuning_floor=3)
    s = (q @ k.T) / 2.0
    tau = 1 + 0.3 * np.log1p(np.floor((np.arange(9) + 1) / 3))
    i = np.arange(9)
    want = 1.5 * np.tanh(s * tau[:, None] / 1.5) - 0.25 * np.abs(i[:, None] - i[None, :])
    np.testing.assert_allclose(attention(q, k, v, terms=terms).scores, want, atol=1e-14)


def test_tuning_off_changes_nothing_bit_for_bit():
    q, k, v, _ = _qkv()
    a = attention(q, k, v, mask=masks.causal_mask(9))
    b = attention(q, k, v, mask=masks.causal_mask(9), terms=ScoreTerms(tuning_floor=3))
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.scores, b.scores)
    assert ScoreTerms(tuning_floor=3).plain and not ScoreTerms(tuning=0.1).plain


def test_gradients_agree_with_torch_autograd_through_the_tuning():
    torch = pytest.importorskip("torch")
    q, k, v, d_o = _qkv(n=6, d=3)
    terms = ScoreTerms(tuning=0.4, tuning_floor=2, softcap=1.1)
    grads = attention_backward(d_o, q, k, v, mask=masks.causal_mask(6), terms=terms)
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    scales = torch.log1p(torch.floor((torch.arange(6, dtype=torch.float64) + 1) / 2)) * 0.4 + 1
    s = (tq * scales[:, None]) @ tk.T / np.sqrt(3)
    s = 1.1 * torch.tanh(s / 1.1)
    s = s.masked_fill(~torch.tensor(masks.causal_mask(6)), float("-inf"))
    (torch.softmax(s, -1) @ tv * torch.tensor(d_o)).sum().backward()
    np.testing.assert_allclose(grads.dq, tq.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(grads.dk, tk.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(grads.dv, tv.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tuning": -0.1},
        {"tuning": float("nan")},
        {"tuning": 1e400},
        {"tuning": 11.0},
        {"tuning": "0.1"},
        {"tuning_floor": 0},
        {"tuning_floor": 2.5},
        {"tuning_floor": True},
        {"tuning_floor": MAX_TUNING_FLOOR + 1},
        {"tuning_floor": 10**400},
    ],
)
def test_bad_tuning_is_refused(kwargs):
    with pytest.raises(ValueError):
        ScoreTerms(**kwargs)
