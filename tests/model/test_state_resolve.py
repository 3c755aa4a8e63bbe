"""The Qt-free state, the resolver's dependency tracking, and presets applied to the state."""

import numpy as np
import pytest

from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.resolve import Resolver, build_mask
from attnviz.model.topics.attention import AttentionState, StateError


def test_default_state_is_banco_and_resolves_to_the_chapter_numbers():
    s = AttentionState()
    r = Resolver(s)
    st = r.results.steps
    assert st.token == "banco"
    np.testing.assert_array_equal(st.raw, [1, 3, 4])
    np.testing.assert_allclose(st.scaled.round(2), [0.71, 2.12, 2.83])
    np.testing.assert_allclose(st.weights.round(2), [0.07, 0.31, 0.62])
    np.testing.assert_allclose(st.output.round(2), [0.85, 0.15])


def test_one_event_per_update_with_changed_names():
    s = AttentionState()
    seen = []
    s.changed.connect(seen.append)
    s.update(scale=False, temperature=2.0)
    s.d_k = 2  # unchanged: no event
    s.causal = True
    assert seen == [frozenset({"scale", "temperature"}), frozenset({"causal"})]


def test_invalid_update_changes_nothing():
    s = AttentionState()
    before = s.snapshot()
    for bad in (
        {"temperature": 0.0},
        {"temperature": float("nan")},
        {"tokens": []},
        {"tokens": ["a", " "]},
        {"q": [[np.inf, 0], [0, 0], [0, 0]]},
        {"selected_query": 7},
        {"head": "nope"},
        {"d_k": 5000, "head": "content"},
        {"levels": (1, 0)},
        {"window": -1},
        {"nonexistent": 1},
    ):
        with pytest.raises(StateError):
            s.update(**bad)
    after = s.snapshot()
    for key, val in before.items():
        assert np.array_equal(val, after[key]) if isinstance(val, np.ndarray) else val == after[key]


def test_manual_vectors_follow_tokens_and_d_k():
    s = AttentionState()
    s.tokens = ("sentei", "banco", "praça", "hoje")
    assert s.q.shape == (4, 2) and np.all(s.q[3] == 0) and len(s.padding) == 4
    s.d_k = 3
    assert s.q.shape == (4, 3) and s.k.shape == (4, 3) and s.v.shape == (4, 2)
    np.testing.assert_array_equal(s.q[1], [1, 2, 0])
    s.tokens = ("a",)
    assert s.q.shape == (1, 3) and s.selected_query == 0


def test_synthetic_head_regenerates_on_seed_and_d_k():
    s = AttentionState()
    s.update(head="previous", tokens=tuple("abcdef"), d_k=8)
    q1 = s.q.copy()
    assert q1.shape == (6, 8)
    s.seed = 5  # previous-token q/k do not depend on the seed, v does
    assert not np.array_equal(s.v, q1)
    s.d_k = 16
    assert s.q.shape == (6, 16)


def test_resolver_recomputes_only_what_depends():
    s = AttentionState()
    r = Resolver(s)
    events = []
    r.resolved.connect(lambda res, names: events.append(names))
    att0 = r.results.attention
    s.selected_query = 0
    assert events[-1] == frozenset({"steps"}) and r.results.attention is att0
    s.colormap = "cividis"
    assert events[-1] == frozenset({"colormap"}) and r.results.attention is att0
    s.causal = True
    assert {"mask", "attention", "steps"} <= events[-1]
    assert r.results.generation == 3
    assert np.all(np.triu(r.results.attention.weights, 1) == 0)


@pytest.mark.parametrize(
    "settings",
    [
        {"causal": True},
        {"padding": (True, True, False)},
        {"segments": (0, 0, 1)},
        {"window": 1},
        {"window": 2, "window_causal": False},
    ],
)
def test_every_mask_kind_reaches_the_weights(settings):
    s = AttentionState()
    r = Resolver(s)
    s.update(**settings)
    m = build_mask(s)
    w = r.results.attention.weights
    assert m is not None and np.all(w[~m] == 0)
    np.testing.assert_allclose(w[m.any(axis=1)].sum(axis=1), 1)


def test_experiment_praca_money_through_the_state():
    p = load_preset("banco").with_experiment("praca-money")
    s = AttentionState(**preset_state_values(p))
    r = Resolver(s)
    np.testing.assert_allclose(r.results.steps.output.round(2), [0.23, 0.77])


@pytest.mark.parametrize("pid", ["banco", "lesson-sqrt-dk", "gato", "long-sentence", "blog-2d"])
def test_presets_apply_to_state(pid):
    s = AttentionState(**preset_state_values(load_preset(pid)))
    r = Resolver(s)
    assert s.preset_id == pid
    assert np.all(np.isfinite(r.results.attention.weights))


def test_lesson_preset_toggling_divisor():
    s = AttentionState(**preset_state_values(load_preset("lesson-sqrt-dk")))
    r = Resolver(s)
    np.testing.assert_allclose(r.results.steps.weights.round(3), [0.419, 0.326, 0.254])
    s.scale = False
    np.testing.assert_allclose(r.results.steps.weights.round(4), [0.9817, 0.0180, 0.0003])


def test_resolver_equals_attention_exactly_after_any_edit_sequence():
    from attnviz.core.attention import attention

    s = AttentionState(tokens=tuple("abcdefgh"), head="content", d_k=16, seed=2)
    r = Resolver(s)
    for edit in (
        {"temperature": 0.37},
        {"scale": False},
        {"causal": True},
        {"seed": 4},
        {"head": "manual"},
        {"q": s.q * 1.5},
        {"v": s.v[:, :3]},
        {"window": 3, "window_causal": False},
    ):
        s.update(**edit)
        ref = attention(s.q, s.k, s.v, mask=build_mask(s), scale=s.scale, temperature=s.temperature)
        got = r.results.attention
        for name in ("scores", "weights", "output", "entropy"):
            np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))


class _ManualRunner:
    """Holds jobs until the test runs them, in any order (a thread pool, made explicit)."""

    def __init__(self):
        self.jobs = []

    def __call__(self, job, done):
        self.jobs.append((job, done))

    def finish(self, index):
        job, done = self.jobs[index]
        done(job())


def _big_state():
    from attnviz.model.resolve import ASYNC_CELLS

    n = int(ASYNC_CELLS**0.5) + 1
    return AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="previous", d_k=4)


def test_large_recompute_goes_to_the_runner_and_stale_results_are_dropped():
    from attnviz.core.attention import attention

    s = _big_state()
    runner = _ManualRunner()
    r = Resolver(s, runner=runner)
    busy, events = [], []
    r.busy.connect(busy.append)
    r.resolved.connect(lambda res, names: events.append(names))
    first = r.results.attention
    s.temperature = 2.0
    s.temperature = 3.0
    # One job at a time (latest value wins); each step shows a quick preview meanwhile.
    assert len(runner.jobs) == 1 and r.pending and busy == [True]
    assert events == [frozenset({"preview"})] * 2 and not r.preview.exact
    assert r.results.attention is first  # nothing exact published yet
    runner.finish(0)  # the job for T = 2 returns stale: it is dropped, one for T = 3 starts
    assert len(runner.jobs) == 2 and r.results.attention is first and r.pending
    runner.finish(1)
    assert not r.pending and busy == [True, False] and events[-1] >= {"attention"}
    assert r.preview is None
    ref = attention(s.q, s.k, s.v, temperature=3.0)
    np.testing.assert_array_equal(r.results.attention.weights, ref.weights)


def test_the_preview_is_every_strided_row_exact_with_keys_pooled():
    from attnviz.core.attention import attention
    from attnviz.model.resolve._display import DISPLAY_CELLS, PREVIEW_ROWS

    s = _big_state()
    r = Resolver(s, runner=_ManualRunner())
    s.update(causal=True)  # a mask change also previews (q kᵀ is kept)
    s.temperature = 0.5
    pic = r.preview
    n = s.n
    stride = -(-n // min(n, PREVIEW_ROWS))
    exact = attention(s.q, s.k, s.v, temperature=0.5, mask=np.tril(np.ones((n, n), bool)))
    rows = exact.weights[::stride]
    assert pic.values.shape == (rows.shape[0], min(n, DISPLAY_CELLS))
    groups = np.array_split(np.arange(n), pic.values.shape[1])
    pooled = np.stack([rows[:, g].mean(axis=1) for g in groups], axis=1)
    np.testing.assert_allclose(pic.values, pooled, atol=2e-6)
    assert pic.extent == (n, n) and pic.row_stride == stride


def test_selection_during_a_pending_job_is_applied_when_it_finishes():
    s = _big_state()
    runner = _ManualRunner()
    r = Resolver(s, runner=runner)
    s.tokens = s.tokens + ("extra",)  # n grows: the old result has one row fewer
    s.selected_query = s.n - 1  # must not index the old, smaller result
    assert r.results.steps.query != s.n - 1
    runner.finish(0)
    assert r.results.steps.query == s.n - 1 and r.results.steps.token == "extra"
    assert r.results.attention.weights.shape == (s.n, s.n)


def test_small_matrices_stay_synchronous_even_with_a_runner():
    s = AttentionState()
    runner = _ManualRunner()
    r = Resolver(s, runner=runner)
    s.temperature = 2.0
    assert not runner.jobs and not r.pending
    np.testing.assert_allclose(r.results.attention.weights.sum(axis=1), 1)


def test_a_long_sentence_is_drawn_from_block_means_of_the_exact_matrix():
    from attnviz.model.resolve._display import DISPLAY_CELLS

    n = DISPLAY_CELLS + 77
    s = AttentionState(tokens=tuple(f"t{i}" for i in range(n)), head="decay", d_k=4)
    s.update(causal=True)
    r = Resolver(s)
    pic = r.results.picture("weights")
    w = r.results.attention.weights
    groups = np.array_split(np.arange(n), DISPLAY_CELLS)
    pooled = np.array([[w[np.ix_(a, b)].mean() for b in groups[:50]] for a in groups[:50]])
    np.testing.assert_allclose(pic.values[:50, :50], pooled, atol=1e-6)
    assert pic.extent == (n, n) and pic.values.shape == (DISPLAY_CELLS, DISPLAY_CELLS)
    # a block is hatched only when all of it is masked (the strict upper triangle of blocks)
    assert not pic.allowed[0, 5] and pic.allowed[5, 0] and pic.allowed[5, 5]
