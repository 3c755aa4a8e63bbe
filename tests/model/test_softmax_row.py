"""The softmax written out for the steps panel: the row e^s and its sum (the hand-worked
example's 2.03, 8.34, 16.92 and 27.3), and the naive softmax that skips the max: inf and
NaN exactly where each number format overflows, against torch computing the same naive
formula, and the stable weights wherever nothing overflows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core import masks
from attnviz.model.fields import StateError
from attnviz.model.panel_data import panel_data
from attnviz.model.resolve.softmax_row import EXP_LIMITS, softmax_row
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace


def _banco() -> Workspace:
    ws = Workspace()
    ws.document.restore(document_preset_values("banco"))
    return ws


def test_the_hand_worked_row_of_exponentials_and_its_sum():
    ws = _banco()
    ws.state.update(steps_exp=True)
    exp = panel_data(ws, "steps", "exp").values[0]
    scaled = np.array([1, 3, 4]) / math.sqrt(2)
    np.testing.assert_allclose(exp, np.exp(scaled), rtol=1e-15)
    assert [round(x, 2) for x in exp] == [2.03, 8.34, 16.92]
    assert round(float(exp.sum()), 1) == 27.3
    row = softmax_row(scaled, np.exp(scaled) / exp.sum(), None, naive=False, dtype="float64")
    np.testing.assert_allclose(row.exp / row.total, [0.0743, 0.3057, 0.6200], atol=5e-5)


def test_the_limits_are_where_each_format_overflows():
    assert {k: round(v, 2) for k, v in EXP_LIMITS.items()} == {
        "float16": 11.09,
        "float32": 88.72,
        "float64": 709.78,
    }
    for dtype, limit in EXP_LIMITS.items():
        below = softmax_row(np.array([limit - 0.01, 0.0]), None, None, naive=True, dtype=dtype)
        above = softmax_row(np.array([limit + 0.01, 0.0]), None, None, naive=True, dtype=dtype)
        assert not below.overflow and np.isfinite(below.weights).all()
        assert above.overflow and np.isinf(above.exp[0]) and np.isnan(above.weights[0])


def test_naive_float16_is_torchs_naive_float16():
    torch = pytest.importorskip("torch")
    scores = np.array([16.0, 8.0, 0.0, -np.inf])
    row = softmax_row(scores, None, None, naive=True, dtype="float16")
    t = torch.tensor(scores, dtype=torch.float16)
    e = torch.exp(t)
    want = (e / e.sum()).double().numpy()
    np.testing.assert_array_equal(np.isnan(row.weights), np.isnan(want))
    np.testing.assert_array_equal(row.weights[~np.isnan(want)], want[~np.isnan(want)])
    assert np.isinf(row.exp[0]) and row.exp[3] == 0 and math.isinf(row.total)
    assert row.dtype == "float16" and row.overflow
    # The stable softmax of the same scores: exactly representable, no overflow.
    stable = torch.softmax(torch.tensor(scores), -1).numpy()
    assert stable[0] == pytest.approx(0.99966, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-80, 80), min_size=1, max_size=12),
    st.sampled_from(["float32", "float64"]),
    st.one_of(st.none(), st.floats(-5, 5)),
)
def test_where_nothing_overflows_the_naive_softmax_is_the_stable_one(scores, dtype, sink):
    s = np.array(scores)
    top = max(s.max(), sink if sink is not None else -np.inf)
    e = np.exp(s - top)
    stable = e / (e.sum() + (np.exp(sink - top) if sink is not None else 0.0))
    row = softmax_row(s, stable, sink, naive=True, dtype=dtype)
    assert not row.overflow
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(row.weights, stable, rtol=tol, atol=1e-30)
    shown = softmax_row(s, stable, sink, naive=False, dtype=dtype)
    assert np.array_equal(shown.weights, stable)  # the stable weights, as they are


def test_a_masked_key_has_no_exponential_and_a_sink_adds_to_the_sum():
    scores = np.array([1.0, -np.inf, 0.0])
    row = softmax_row(scores, None, 0.5, naive=True, dtype="float64")
    assert row.exp[1] == 0
    assert row.total == pytest.approx(math.e + 1 + math.exp(0.5), rel=1e-15)


def test_the_naive_switch_reaches_step_four_and_the_export():
    """The sqrt-dk deck's overflow step: scores 16, 8, 0 in float16."""
    ws = Workspace()
    ws.document.restore(document_preset_values("lesson-sqrt-dk"))
    ws.state.update(scale=False, temperature=0.5, selected_query=0)
    np.testing.assert_allclose(panel_data(ws, "steps", "scaled").values[0], [16, 8, 0])
    stable = panel_data(ws, "steps", "weights").values[0]
    assert np.isfinite(stable).all() and stable[0] > 0.999
    ws.state.update(naive_softmax=True, softmax_dtype="float16")
    w = panel_data(ws, "steps", "weights").values[0]
    assert np.isnan(w[0]) and list(w[1:]) == [0.0, 0.0]
    assert np.isnan(panel_data(ws, "steps", "output").values).all()
    assert np.isinf(panel_data(ws, "steps", "exp").values[0, 0])
    # float32 holds e^16: the naive weights are the stable ones again.
    ws.state.update(softmax_dtype="float32")
    np.testing.assert_allclose(panel_data(ws, "steps", "weights").values[0], stable, rtol=1e-6)
    # The heatmap keeps the stable softmax throughout.
    assert np.isfinite(ws.resolver.results.attention.weights).all()


def test_a_causal_row_keeps_its_masked_keys_at_zero():
    ws = _banco()
    ws.state.update(causal=True, selected_query=1, naive_softmax=True)
    w = panel_data(ws, "steps", "weights").values[0]
    allowed = masks.causal_mask(3)[1]
    assert w[~allowed].tolist() == [0.0] and w[allowed].sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    "bad",
    [{"softmax_dtype": "float8"}, {"softmax_dtype": 16}, {"naive_softmax": "yes"},
     {"steps_exp": 2}],
)  # fmt: skip
def test_bad_softmax_settings_are_refused(bad):
    ws = _banco()
    with pytest.raises(StateError):
        ws.state.update(**bad)
    assert ws.state.softmax_dtype == "float64" and not ws.state.naive_softmax


def test_an_unknown_dtype_is_refused_in_one_line():
    with pytest.raises(ValueError, match="dtype must be one of float16, float32, float64"):
        softmax_row(np.zeros(2), None, None, naive=True, dtype="int8")
