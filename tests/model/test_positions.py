"""The positions topic: RoPE frequencies of real configurations, relative scores, equivariance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnviz.core.rope import rope_frequencies
from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset
from attnviz.model.topic_presets import document_preset_values
from attnviz.model.workspace import Workspace


def _workspace(preset: str) -> Workspace:
    ws = Workspace()
    ws.document.restore(document_preset_values(preset))
    return ws


def _llama3_reference(dim, base, factor, low, high, original):
    """transformers' _compute_llama3_parameters, written out again, loop by loop."""
    out = []
    low_wavelen, high_wavelen = original / low, original / high
    for i in range(0, dim, 2):
        f = 1.0 / base ** (i / dim)
        wavelen = 2 * math.pi / f
        if wavelen < high_wavelen:
            out.append(f)
        elif wavelen > low_wavelen:
            out.append(f / factor)
        else:
            smooth = (original / wavelen - low) / (high - low)
            out.append((1 - smooth) * f / factor + smooth * f)
    return np.array(out)


def _yarn_reference(dim, base, factor, original, beta_fast=32, beta_slow=1):
    """transformers' _compute_yarn_parameters (truncate=True), written out again."""

    def correction_dim(rotations):
        return (dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low = math.floor(correction_dim(beta_fast))
    high = math.ceil(correction_dim(beta_slow))
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for j, i in enumerate(range(0, dim, 2)):
        pos_freq = base ** (i / dim)
        extrapolation, interpolation = 1.0 / pos_freq, 1.0 / (factor * pos_freq)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        keep = 1 - ramp  # transformers' inv_freq_extrapolation_factor
        out.append(interpolation * (1 - keep) + extrapolation * keep)
    return np.array(out)


def test_rope_clock_frequencies():
    f = panel_data(_workspace("rope-clock"), "positions", "frequencies").values
    np.testing.assert_array_equal(f, rope_frequencies(8, 10000.0))
    np.testing.assert_allclose(f, [1.0, 0.1, 0.01, 0.001], rtol=1e-15)


def test_llama_3_1_frequencies_match_transformers_formula():
    ws = _workspace("rope-llama3.1")
    f = panel_data(ws, "positions", "frequencies").values
    p = ws.document.positions
    assert (p.head_dim, p.base, p.rope_type, p.factor) == (128, 500000.0, "llama3", 8.0)
    ref = _llama3_reference(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    np.testing.assert_allclose(f, ref, rtol=1e-12)
    # fast pairs kept, slow pairs divided by 8, a few blended in between
    assert f[0] == 1.0 and f[-1] == pytest.approx(ref[-1]) and f[-1] < 1 / 500000.0 ** (126 / 128)


def test_yarn_qwen2_5_frequencies_and_attention_factor():
    ws = _workspace("rope-yarn-qwen2.5")
    f = panel_data(ws, "positions", "frequencies").values
    np.testing.assert_allclose(f, _yarn_reference(128, 1e6, 4.0, 32768), rtol=1e-12)
    res = ws.resolver_for("positions").results
    assert round(res.regions.attention_factor, 4) == 1.1386


def test_relative_matrix_is_toeplitz_and_curves_coincide():
    for preset in ("rope-clock", "rope-llama3.1", "rope-yarn-qwen2.5"):
        ws = _workspace(preset)
        m = panel_data(ws, "positions", "relative").values
        for d in range(-m.shape[0] + 1, m.shape[0]):
            diag = np.diagonal(m, d)
            np.testing.assert_allclose(diag, diag[0], atol=1e-12 * abs(m).max())
        rel = ws.resolver_for("positions").results.relative
        np.testing.assert_allclose(rel[1:], np.broadcast_to(rel[0], rel[1:].shape), atol=1e-9)


def test_positions_resolver_is_lazy():
    ws = Workspace()
    resolver = ws.resolver_for("positions")
    before = resolver.computations
    for m in range(10):
        ws.document.positions.position = m + 7
    assert resolver.computations == before  # nobody looks: nothing computed
    _ = resolver.results
    assert resolver.computations == before + 1


def _permuted_weights(rope: bool):
    preset = load_preset("cachorro")
    ws = Workspace()
    ws.document.restore(document_preset_values("cachorro"))
    ws.state.rope = rope
    a1 = ws.resolver.results.attention
    ws.state.tokens = tuple(preset.extra["permuted_tokens"])
    a2 = ws.resolver.results.attention
    perm = [preset.tokens.index(t) for t in preset.extra["permuted_tokens"]]
    return a1, a2, perm


def test_cachorro_without_positions_only_permutes():
    a1, a2, perm = _permuted_weights(rope=False)
    # Exact up to the order in which BLAS sums a dot product (one unit in the last place).
    np.testing.assert_allclose(a2.weights, a1.weights[np.ix_(perm, perm)], rtol=0, atol=1e-15)
    np.testing.assert_allclose(a2.output, a1.output[perm], rtol=0, atol=1e-14)


def test_cachorro_with_rope_is_no_longer_a_permutation():
    a1, a2, perm = _permuted_weights(rope=True)
    assert np.abs(a2.weights - a1.weights[np.ix_(perm, perm)]).max() > 1e-3
    assert np.abs(a2.output - a1.output[perm]).max() > 1e-3


def test_rope_on_the_heatmap_uses_the_positions_scaling_and_tolerates_odd_d_k():
    ws = Workspace()
    ws.state.update(head="content", seed=1, d_k=7, tokens=("a", "b", "c", "d"), rope=True)
    res = ws.resolver.results
    assert res.rope_pairs == 3
    np.testing.assert_array_equal(res.q[:, 6], ws.state.q[:, 6])  # the odd one out stays
    before = res.attention.weights.copy()
    ws.document.positions.update(rope_type="linear", factor=4.0)
    assert not np.allclose(ws.resolver.results.attention.weights, before)
    ws.state.update(d_k=1)
    np.testing.assert_array_equal(ws.resolver.results.q, ws.state.q)  # nothing to turn
