"""One decoding step per mixer, against hand arithmetic; the ring of a window; the state a
recurrent kind keeps, against the mixing matrix of the whole sequence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.decode_step import (
    COLUMNS,
    all_step_costs,
    recurrent_normaliser,
    recurrent_state,
    ring_slots,
    step_costs,
)
from attnviz.core.mixer_costs import sequence_costs
from attnviz.core.mixers import (
    KINDS,
    RECURRENT,
    MixerParams,
    feature,
    mixing_matrix,
    synthetic_qkv,
    unit_rows,
)


def test_softmax_step_reads_the_whole_cache_and_recomputing_costs_the_prefix():
    c = step_costs("softmax", 10, 16)
    assert c.held_numbers == 2 * 16 * 10  # ten keys and ten values
    assert c.flops == 4 * 16 * 10  # 2·d for each score, 2·d for each weighted value
    assert c.bytes_read == 10 * 2 * 16 * 4 and c.bytes_written == 2 * 16 * 4
    assert c.bytes == 1280 + 128
    assert c.recompute_flops == 2 * 16 * 10 * 11 == 3520  # Σ_s 4·d·s = 2·d·t·(t + 1)
    assert c.recompute_bytes == 128 * 55 + 10 * 128  # every row's reads, every append
    assert c.row() == (320, 640, 1280, 128, 1408, 3520, 8320)
    assert len(COLUMNS) == len(c.row())


def test_window_step_reads_its_ring_only():
    p = MixerParams(window=4)
    c = step_costs("window", 10, 16, p)
    assert c.held_numbers == 2 * 16 * 4
    assert c.flops == 4 * 16 * 4 and c.bytes_read == 2 * 4 * 16 * 4
    assert c.recompute_flops == 4 * 16 * (1 + 2 + 3 + 4 * 7)
    early = step_costs("window", 2, 16, p)  # the ring is not full yet
    assert early.held_numbers == 2 * 16 * 2 and early.flops == 4 * 16 * 2


def test_recurrent_steps_cost_the_same_at_every_token():
    p = MixerParams(normalised=True)
    for t in (1, 7, 100):
        c = step_costs("linear", t, 16, p)
        assert c.held_numbers == 16 * 16 + 16  # S and the normaliser z
        assert c.flops == 4 * 256 + 4 * 16
        assert c.bytes_read == c.bytes_written == 272 * 4  # read S, write it back
        assert c.recompute_flops == t * c.flops and c.recompute_bytes == t * c.bytes
    delta = step_costs("deltanet", 5, 16)
    assert delta.flops == 6 * 256 + 2 * 16 and delta.bytes == 2 * 4 * 256


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(KINDS), t=st.integers(1, 300), d=st.integers(1, 64),
    window=st.integers(1, 40), top_k=st.integers(1, 40), stride=st.integers(1, 40),
)  # fmt: skip
def test_recomputing_is_the_sequence_total_and_never_cheaper(kind, t, d, window, top_k, stride):
    p = MixerParams(window=window, top_k=top_k, stride=stride)
    c = step_costs(kind, t, d, p)
    flops, _ = sequence_costs(kind, t, d, p)
    assert c.recompute_flops == flops[-1]  # the mixers panel's curve at n = t
    assert c.recompute_flops >= c.flops and c.recompute_bytes >= c.bytes
    assert (c.recompute_flops == c.flops) == (t == 1)


def test_all_kinds_in_order_and_bad_steps_refused():
    assert tuple(all_step_costs(3, 4)) == KINDS
    for t in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="step t"):
            step_costs("softmax", t, 4)
    with pytest.raises(ValueError, match="unknown mixer kind"):
        step_costs("mamba", 3, 4)


def test_ring_slots_hold_the_latest_token_of_each_slot():
    assert ring_slots(10, 4).tolist() == [9, 10, 7, 8]  # token 10 went into slot 9 mod 4
    assert ring_slots(2, 4).tolist() == [1, 2, 0, 0]
    assert ring_slots(5, 1).tolist() == [5]
    for t in range(1, 30):
        held = ring_slots(t, 6)
        kept = sorted(int(s) for s in held if s)
        assert kept == list(range(max(1, t - 5), t + 1))  # the window's last tokens


@pytest.mark.parametrize("kind", RECURRENT)
@pytest.mark.parametrize("normalised", [True, False])
def test_the_state_reads_out_the_mixing_matrix_row(kind, normalised):
    q, k, v = synthetic_qkv(12, 5, 3)
    p = MixerParams(normalised=normalised, decay=0.8, beta=0.6, alpha=0.9)
    out = mixing_matrix(kind, q, k, p) @ v
    d = q.shape[1]
    for t in (1, 6, 12):
        state = recurrent_state(kind, k, v, t, p)
        assert state.shape == (d, d)
        if kind == "linear":
            read = feature(q[t - 1], p.feature_map)
            y = state @ read
            if normalised:
                y = y / (read @ recurrent_normaliser(k, t, p))
        elif kind == "decayed":
            y = state @ q[t - 1] / np.sqrt(d)
        else:
            y = state @ unit_rows(q)[t - 1]
        np.testing.assert_allclose(y, out[t - 1], rtol=1e-10, atol=1e-12)


def test_a_cache_kind_has_no_state():
    q, k, v = synthetic_qkv(4, 3, 0)
    with pytest.raises(ValueError, match="KV cache"):
        recurrent_state("softmax", k, v, 2)
    with pytest.raises(ValueError, match="n ≥ t"):
        recurrent_state("linear", k, v, 5)
