"""The exact path of a long sentence in one float32 pass (issue 24): its grid, entropy and
masks against the core's float64 attention on the same q, k and v, its rows on demand,
and latest-wins while a slider is dragged over 4,096 tokens."""

from __future__ import annotations

import numpy as np
import pytest

from attnviz.core.attention import attention
from attnviz.model.resolve import Resolver, _one_pass, build_mask
from attnviz.model.resolve._display import DISPLAY_CELLS
from attnviz.model.resolve._row_blocks import RowBlockAttention
from attnviz.model.topics.attention import AttentionState


class HeldRunner:
    """Keeps every job; :meth:`finish` runs one and calls back, as a pool would later."""

    def __init__(self):
        self.jobs: list = []

    def __call__(self, job, done):
        self.jobs.append((job, done))

    def finish(self, index: int = 0):
        job, done = self.jobs.pop(index)
        done(job())


def _state(n: int, **fields) -> AttentionState:
    return AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="content", **fields)


def _starts(n: int, parts: int) -> list[int]:
    return [int(g[0]) for g in np.array_split(np.arange(n), parts)]


def _grid(values: np.ndarray, rows: int, cols: int, reduce=np.add) -> np.ndarray:
    """Block sums (or any/all with ``reduce``) on array_split's rows × cols grid."""
    r, c = _starts(values.shape[0], rows), _starts(values.shape[1], cols)
    return reduce.reduceat(reduce.reduceat(values, r, axis=0), c, axis=1)


def _means(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    counts = _grid(np.ones(values.shape), rows, cols)
    return _grid(values, rows, cols) / counts


CASES = [
    (1025, {}, False),
    (1025, {"causal": True, "padding": (False,) * 5 + (True,) * 1020}, True),
    (1537, {"scale": False, "temperature": 0.3}, True),
    (2051, {"window": 64, "window_causal": False, "segments": (0,) * 1000 + (1,) * 1051}, False),
    (
        1300,
        {"causal": True, "sink": True, "sink_logit": 2.0, "padding": (False,) * 3 + (True,) * 1297},
        False,
    ),
    (3001, {"causal": True, "temperature": 2.0, "scale": False}, True),
    (2048, {"causal": True, "temperature": 0.5}, False),  # groups of two: the even layout
]


@pytest.mark.parametrize(("n", "fields", "odd_blocks"), CASES)
def test_the_one_pass_matches_the_float64_reference(monkeypatch, n, fields, odd_blocks):
    if odd_blocks:  # blocks of a few row groups that do not divide n
        monkeypatch.setattr(_one_pass, "BLOCK_CELLS", 7 * n + 5)
    s = _state(n, d_k=16, **fields)
    res = Resolver(s).results
    assert isinstance(res.attention, RowBlockAttention)
    mask = build_mask(s)
    ref = attention(
        res.q, res.k, s.v, mask=mask, scale=s.scale, temperature=s.temperature,
        terms=s.score_terms(),
    )  # fmt: skip
    # float32 logits: an absolute error of a few float32 ulps of the largest logit
    tol = 4e-7 * max(1.0, float(np.abs(ref.scores).max()))
    for name in ("weights", "scores", "output"):
        pic = res.picture(name)
        matrix = getattr(ref, name)
        rows, cols = pic.values.shape
        assert rows == DISPLAY_CELLS and pic.extent == matrix.shape
        assert cols == (DISPLAY_CELLS if name != "output" else matrix.shape[1])
        scale = 1.0 if name == "weights" else max(1.0, float(np.abs(matrix).max()))
        err = np.abs(pic.values - _means(matrix, rows, cols)).max()
        assert err <= tol * scale, (name, err)
        np.testing.assert_allclose(
            pic.entropy, _means(ref.entropy[:, None], rows, 1)[:, 0], atol=tol
        )
        if name != "output" and mask is not None:
            np.testing.assert_array_equal(pic.allowed, _grid(mask, rows, cols, np.logical_or))
    np.testing.assert_allclose(res.attention.entropy, ref.entropy, rtol=0, atol=tol)
    np.testing.assert_array_equal(res.attention.fully_masked, ref.fully_masked)
    # Rows on demand (hover, steps) and whole matrices (exports) are the float64 ones.
    for i in (0, 4, n // 2, n - 1):
        for name in ("scores", "weights", "output"):
            np.testing.assert_allclose(res.row(name, i), getattr(ref, name)[i], atol=1e-12)
    np.testing.assert_array_equal(res.matrix("weights"), ref.weights)


def test_fully_masked_rows_have_zero_weights_and_entropy():
    n = 1100
    s = _state(n, d_k=8, causal=True, padding=(False,) * 7 + (True,) * (n - 7))
    res = Resolver(s).results
    assert res.attention.fully_masked[:7].all() and not res.attention.fully_masked[7:].any()
    assert (res.attention.entropy[:7] == 0).all()
    pic = res.picture("weights")
    assert (pic.values[:3, :] == 0).all() and not pic.allowed[:3].any()  # rows 0–6: 3 cells
    assert not res.row("weights", 3).any()


def test_a_drag_over_4096_tokens_answers_only_the_newest_step():
    n = 4096
    s = _state(n, d_k=16)
    runner = HeldRunner()
    r = Resolver(s, runner=runner)
    events: list = []
    r.resolved.connect(lambda _res, names: events.append(names))
    temperatures = [float(t) for t in np.linspace(0.5, 2.0, 25)]
    for t in temperatures:
        s.temperature = t
    # One job out (latest wins), a preview for every step meanwhile.
    assert len(runner.jobs) == 1 and r.pending
    assert events == [frozenset({"preview"})] * len(temperatures)
    stride = r.preview.row_stride
    row = stride * 300
    newest = attention(r.results.q[row : row + 1], r.results.k, s.v, temperature=temperatures[-1])
    want = _means(newest.weights, 1, DISPLAY_CELLS)[0]
    np.testing.assert_allclose(r.preview.values[300], want, atol=1e-6)
    stale: list = []
    keep = r.work.on_stale
    r.work.on_stale = lambda key, out: (stale.append(out), keep(key, out))
    runner.finish()  # the first step's job was replaced: it stops, the newest starts
    assert len(runner.jobs) == 1 and not any("attention" in e for e in events)
    assert len(stale) == 1 and stale[0][2] is None  # no pass finished, q kᵀ kept
    assert r._qk_cache[5] is stale[0][0][5]
    runner.finish()
    published = [e for e in events if "attention" in e]
    assert len(published) == 1 and not r.pending and r.preview is None and not runner.jobs
    # Its values are those of the newest fields.
    fresh = Resolver(_state(n, d_k=16, temperature=temperatures[-1])).results
    np.testing.assert_array_equal(
        r.results.picture("weights").values, fresh.picture("weights").values
    )
    np.testing.assert_array_equal(r.results.attention.entropy, fresh.attention.entropy)
    last = attention(r.results.q[-1:], r.results.k, s.v, temperature=temperatures[-1])
    np.testing.assert_allclose(r.results.row("weights", n - 1), last.weights[0], atol=1e-12)
    np.testing.assert_allclose(r.results.steps.output, r.results.row("output", s.selected_query))
