"""A window's reach grows with depth: the composed masks against (w − 1)·L."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.receptive_field import reach_back, receptive_field, window_mask


def test_a_hand_example():
    # Window 3: token 10 reads 8, 9, 10; through two layers 6 … 10.
    r = receptive_field(10, 3, 2)
    assert np.flatnonzero(r[0]).tolist() == [9]
    assert np.flatnonzero(r[1]).tolist() == [7, 8, 9]
    assert np.flatnonzero(r[2]).tolist() == [5, 6, 7, 8, 9]
    assert reach_back(3, 2) == 4


@settings(max_examples=150, deadline=None)
@given(t=st.integers(1, 90), window=st.integers(1, 15), depth=st.integers(0, 12))
def test_composed_masks_reach_back_w_minus_one_per_layer(t, window, depth):
    r = receptive_field(t, window, depth)
    assert r.shape == (depth + 1, t)
    for layer in range(depth + 1):
        first = max(1, t - reach_back(window, layer))
        expected = np.zeros(t, dtype=bool)
        expected[first - 1 :] = True
        np.testing.assert_array_equal(r[layer], expected)
    # The same as the mask's L-th boolean power, read at row t.
    power = np.linalg.matrix_power(window_mask(t, window).astype(np.int64), depth) > 0
    np.testing.assert_array_equal(r[depth], power[t - 1])


def test_the_mask_and_bad_input():
    m = window_mask(5, 2)
    assert m.sum() == 5 + 4 and m[4, 3] and not m[4, 2] and not m[2, 3]
    with pytest.raises(ValueError, match="window"):
        receptive_field(5, 0, 2)
    with pytest.raises(ValueError, match="depth"):
        receptive_field(5, 2, -1)
    with pytest.raises(ValueError, match="token"):
        receptive_field(2.5, 2, 1)
