"""The long topic: the overview map and blocks against the exact n×n weights, cancel, the
memory guard, the tiles demo against attention(), the synthetic heads, strict fields."""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core import _parallel, memory_guard
from attnviz.core.attention import attention
from attnviz.core.masks import causal_mask
from attnviz.core.memory_guard import MemoryRefused
from attnviz.core.tiled import Cancelled
from attnviz.model.fields import StateError
from attnviz.model.panel_data import data_names, panel_data
from attnviz.model.resolve import long as long_model
from attnviz.model.resolve import long_backends
from attnviz.model.resolve._long_heads import content_words, generate_qk
from attnviz.model.resolve._long_tiles import tile_memory, tiles_demo
from attnviz.model.topics.long import LongState
from attnviz.model.workspace import Workspace
from tests.model.test_latest_work import HeldRunner

N = 4096


def _exact(ov) -> np.ndarray:
    """The n×n weights of the overview's own q and k, in float64, by the dense core."""
    n = ov.q.shape[0]
    mask = causal_mask(n) if ov.causal else None
    q, k = ov.q.astype(np.float64), ov.k.astype(np.float64)
    return attention(q, k, k, mask=mask, scale=ov.scale).weights


def _pooled(a: np.ndarray, bins: int, reduce: str, rows=None, cols=None) -> np.ndarray:
    """``a`` pooled over numpy.array_split groups of its rows and columns, cell by cell."""
    f = np.mean if reduce == "mean" else np.max
    rg = np.array_split(np.arange(a.shape[0]), rows or bins)
    cg = np.array_split(np.arange(a.shape[1]), cols or bins)
    return np.array([[f(a[np.ix_(r, c)]) for c in cg] for r in rg])


@pytest.fixture(scope="module")
def exact_4096():
    """Overviews of a 4096-token content head (100 bins: groups of 41 and 40 tokens) and the
    exact weights, causal and not."""
    out = {}
    for causal in (False, True):
        ws = Workspace()
        ws.document.long.update(n=N, bins=100, causal=causal)
        maps = {}
        for reduce in ("mean", "max"):
            ws.document.long.update(reduce=reduce)
            maps[reduce] = panel_data(ws, "overview", "overview").values
        ov = ws.resolver_for("long").overview_now()
        out[causal] = (ws, maps, _exact(ov))
    return out


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("reduce", ["mean", "max"])
def test_overview_equals_the_pooled_exact_weights(exact_4096, causal, reduce):
    _ws, maps, weights = exact_4096[causal]
    got = maps[reduce]
    assert got.shape == (100, 100) and got.dtype == np.float32
    assert np.max(np.abs(got - _pooled(weights, 100, reduce))) <= 1e-6
    if reduce == "mean":  # every row group's weights add up to its rows: Σ_J |J|·cell = 1
        sizes = np.array([len(g) for g in np.array_split(np.arange(N), 100)])
        np.testing.assert_allclose(got @ sizes, 1.0, atol=1e-5)


@pytest.mark.parametrize("causal", [False, True])
def test_block_equals_the_exact_sub_block(exact_4096, causal):
    ws, _maps, weights = exact_4096[causal]
    for rows, cols in (((1000, 1100), (900, 1300)), ((0, 64), (0, 64)), ((4000, 4096), (50, 90))):
        ws.document.long.update(rows=rows, cols=cols)
        data = panel_data(ws, "overview", "block")
        want = weights[rows[0] : rows[1], cols[0] : cols[1]]
        assert data.values.shape == want.shape
        assert np.max(np.abs(data.values - want)) <= 1e-5  # float32 weights, ≤ 1
        assert data.rows[0] == str(rows[0]) and data.columns[-1] == str(cols[1] - 1)
    ws.document.long.update(rows=(), cols=())


def test_region_map_is_the_pooled_window(exact_4096):
    ws, _maps, weights = exact_4096[True]
    ov = ws.resolver_for("long").overview_now()
    for reduce in ("mean", "max"):
        got = long_model.region_map(ov, 100, 1900, 37, 3001, 50, reduce)
        want = _pooled(weights[100:1900, 37:3001], 50, reduce)
        # float32 weights: a max near 1 is a single weight, rounded to ~1e-6 of itself.
        assert np.max(np.abs(got - want)) <= (1e-6 if reduce == "mean" else 1e-5)


def test_float64_overview_is_exact_to_rounding():
    ws = Workspace()
    ws.document.long.update(n=1024, bins=96, dtype="float64", head="previous", causal=True)
    got = panel_data(ws, "overview", "overview").values
    assert got.dtype == np.float64
    weights = _exact(ws.resolver_for("long").overview_now())
    assert np.max(np.abs(got - _pooled(weights, 96, "mean"))) <= 1e-14


def test_q_and_k_exports_are_the_generated_head():
    ws = Workspace()
    ws.document.long.update(n=512, d_k=32, head="random", seed=3, bins=64)
    assert data_names("overview") == ("overview", "block", "q", "k")
    q = panel_data(ws, "overview", "q").values
    k = panel_data(ws, "overview", "k").values
    want_q, want_k = generate_qk("random", 512, 32, 3, np.float32)
    assert q.dtype == np.float32 and np.array_equal(q, want_q) and np.array_equal(k, want_k)


def test_a_too_large_block_export_says_how_to_narrow_it():
    ws = Workspace()
    ws.document.long.update(n=8192, bins=64)
    with pytest.raises(ValueError, match="long.rows"):
        panel_data(ws, "overview", "block")


def test_cli_export_of_the_overview(tmp_path):
    out = tmp_path / "x.npy"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--panel",
            "overview",
            "--matrix",
            "overview",
            "--set",
            "long.n=4096",
            "--set",
            "long.bins=64",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    got = np.load(out)
    ov = long_model.run_overview(LongState(n=4096, bins=64).snapshot())
    assert got.shape == (64, 64) and np.array_equal(got, ov.map)
    weights = _exact(ov)
    assert np.max(np.abs(got - weights.reshape(64, 64, 64, 64).mean(axis=(1, 3)))) <= 1e-6


# --- progress, cancel, memory guard ---------------------------------------------------
def test_cancel_stops_a_32k_job_quickly():
    values = LongState(n=32768, d_k=64).snapshot()
    flag, seen, box = threading.Event(), [], {}

    def progress(fraction):
        seen.append(fraction)

    def run():
        try:
            long_model.run_overview(values, progress, flag)
        except Cancelled:
            box["cancelled"] = True

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.perf_counter() + 120
    while not any(f > long_model._GENERATE_SHARE for f in seen):  # the map has started
        assert worker.is_alive() and time.perf_counter() < deadline
        time.sleep(0.005)
    flag.set()
    reported = len(seen)
    worker.join(60)
    assert not worker.is_alive() and "cancelled" in box
    # Counted, not timed: each thread ends within the tile it is in (one report each).
    assert len(seen) - reported <= 2 * _parallel.cores() + 1
    assert seen == sorted(seen) and seen[-1] < 1.0


def test_cancel_while_making_the_head():
    flag = threading.Event()
    flag.set()
    with pytest.raises(Cancelled):
        long_model.run_overview(LongState(n=65536).snapshot(), None, flag)


def test_memory_guard_refuses_with_the_numbers(monkeypatch):
    monkeypatch.setattr(memory_guard, "available_bytes", lambda backend="numpy": 1 << 30)
    values = LongState(n=262144, d_k=512, bins=1024, dtype="float64").snapshot()
    need = memory_guard.estimate_overview_bytes(262144, 512, 1024, "numpy", np.float64)
    with pytest.raises(MemoryRefused) as info:
        long_model.run_overview(values)
    text = str(info.value)
    assert f"{need / memory_guard.GiB:.1f} GiB" in text and "1.0 GiB free" in text
    assert "262,144" in text
    assert long_model.memory_needed(values) == need


def test_progress_reaches_one_and_the_result_says_where_it_ran():
    seen = []
    ov = long_model.run_overview(LongState(n=2048, bins=64).snapshot(), seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    assert ov.backend == "numpy" and ov.seconds >= ov.generate_seconds > 0
    assert ov.lse.shape == (2048,)


def test_backend_status_lists_what_is_here():
    status = long_backends.backend_status(refresh=True)
    assert status["numpy"].available and status["auto"].available
    torch = pytest.importorskip("torch")
    assert status["torch"].available and status["torch"].detail == torch.__version__
    if torch.cuda.is_available():
        assert status["cuda"].available
    else:
        assert not status["cuda"].available and status["cuda"].reason == "no-cuda"


def test_torch_backend_gives_the_numpy_map():
    pytest.importorskip("torch")
    values = LongState(n=1024, bins=32, head="decay", causal=True).snapshot()
    ref = long_model.run_overview(values)
    got = long_model.run_overview({**values, "backend": "torch"})
    assert got.backend == "torch"
    np.testing.assert_allclose(got.map, ref.map, rtol=1e-4, atol=1e-9)


# --- the synthetic heads ----------------------------------------------------------------
def _weights(head: str, n: int, d: int = 64, causal: bool = False) -> np.ndarray:
    q, k = generate_qk(head, n, d, 0, np.float64)
    return attention(q, k, k, mask=causal_mask(n) if causal else None).weights


def test_previous_head_looks_one_token_back():
    a = _weights("previous", 2048)
    assert np.mean(np.diag(a, -1)) > 0.9 and a[0, 0] > 0.9


def test_content_head_matches_equal_words_within_a_passage():
    n = 2048
    words, vocab = content_words(n, 0)
    a = _weights("content", n)
    same = words[:, None] == words[None, :]
    assert vocab == 16 + 2 * 48
    assert np.mean(np.sum(a * same, axis=1)) > 0.9  # most weight on the same word
    # Passage words never occur in another passage: their queries stay in their block.
    own = words >= 16
    first = np.arange(n) < 1024
    assert np.sum(a[np.ix_(own & first, ~first)]) / np.sum(own & first) < 0.01


def test_decay_head_is_a_band_and_random_head_is_diffuse():
    n = 1024
    a = _weights("decay", n)
    dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    sigma = n / 32
    assert np.mean(np.sum(a * (dist <= 2 * sigma), axis=1)) > 0.95
    r = _weights("random", n)
    assert r.max() < 0.1  # no key takes much of any row


def test_heads_are_deterministic_and_in_the_asked_dtype():
    for head in ("content", "previous", "decay", "random"):
        q1, k1 = generate_qk(head, 300, 7, 5, np.float32)
        q2, k2 = generate_qk(head, 300, 7, 5, np.float32)
        assert q1.dtype == np.float32 and q1.shape == (300, 7)
        assert np.array_equal(q1, q2) and np.array_equal(k1, k2)
        assert not np.array_equal(generate_qk(head, 300, 7, 6, np.float32)[1], k1) or head in (
            "previous",  # seeds change the frequencies, not always every entry of k[0]
        )


# --- the tiles demo ---------------------------------------------------------------------
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head", ["content", "previous", "decay", "random"])
def test_tiles_final_output_equals_attention(head, causal):
    values = LongState(
        head=head, causal=causal, tiles_n=37, tiles_d=5, block_q=8, block_k=6
    ).snapshot()
    demo = tiles_demo(values)
    mask = causal_mask(37) if causal else None
    dense = attention(demo.q, demo.k, demo.v, mask=mask)
    np.testing.assert_allclose(demo.output, dense.output, rtol=1e-12, atol=1e-12)
    assert demo.max_error() < 1e-12
    assert len(demo.steps) == 5 * 7
    for s in demo.steps:
        if s.last:  # each row block's last step holds its final output, max and sum
            np.testing.assert_allclose(s.partial_output, dense.output[s.rows], atol=1e-12)
            scores = np.where(mask[s.rows] if causal else True, dense.scores[s.rows], -np.inf)
            np.testing.assert_allclose(s.running_max, scores.max(axis=1))
            total = np.exp(scores - scores.max(axis=1, keepdims=True)).sum(axis=1)
            np.testing.assert_allclose(s.running_sum, total)
    assert demo.finished_rows(len(demo.steps) - 1) == 37 and demo.finished_rows(0) == 0
    if causal:
        assert demo.steps[2].skipped and not demo.steps[1].skipped  # keys 12–17 vs 6–11
        assert not demo.visited(len(demo.steps) - 1)[0, 1]


def test_tile_memory_against_the_square():
    assert tile_memory(16, 4, 4, 4, 4) == (4 * 4 + 4 * 8 + 16 + 8 + 16, 256)
    held, dense = tile_memory(32768, 64, 64, 16, 16)
    assert dense == 32768**2 and held == 16 * 64 + 16 * 128 + 256 + 32 + 16 * 64


# --- fields ---------------------------------------------------------------------------
def test_dependent_fields_follow():
    t = LongState()
    t.update(n=8192, bins=1024, rows=(100, 8000), cols=(5, 6))
    t.update(n=512)
    assert t.bins == 512 and t.rows == () and t.cols == (5, 6)
    t.update(backend="cuda", dtype="bfloat16")
    t.update(backend="numpy")
    assert t.dtype == "float32"
    t.update(tile_step=15)
    t.update(block_q=8)
    assert t.tile_step == 7
    with pytest.raises(StateError, match="bins"):
        t.update(n=256, bins=300)
    with pytest.raises(StateError, match="cuda"):
        t.update(dtype="float16")
    with pytest.raises(StateError, match="rows"):
        t.update(rows=(10, 5))
    with pytest.raises(StateError, match="tile_step"):
        t.update(tile_step=200)


def test_resolver_is_light_and_lazy():
    ws = Workspace()
    resolver = ws.resolver_for("long")
    res = resolver.results
    assert res.window == (0, 4096, 0, 4096) and resolver.cached_overview() is None
    assert len(res.tiles.steps) == 16
    ws.document.long.update(rows=(10, 20))
    assert resolver.results.window == (10, 20, 0, 4096)
    assert resolver.results.tiles is res.tiles  # the zoom does not redo the tiles
    ws.document.long.update(n=128, bins=16)
    ov = resolver.overview_now()
    assert resolver.cached_overview() is ov and resolver.overview_now() is ov
    ws.document.long.update(seed=1)
    assert resolver.cached_overview() is None


def test_the_resolver_runs_the_map_and_the_zoom_latest_wins_and_keeps_the_map():
    runner = HeldRunner()
    ws = Workspace(runner=runner)
    ws.document.long.update(n=256, bins=16)
    resolver = ws.resolver_for("long")
    maps, fails, details = [], [], []
    resolver.overview_ready.connect(maps.append)
    resolver.overview_failed.connect(fails.append)
    resolver.detail_ready.connect(details.append)
    assert resolver.request_overview() is None and resolver.map_running
    assert resolver.request_overview() is None and len(runner.jobs) == 1  # on its way
    ws.document.long.update(seed=3)
    assert resolver.request_overview() is None and len(runner.jobs) == 2
    runner.finish(0)  # the first map, told to stop, ends quietly
    assert maps == [] and fails == [] and resolver.map_running
    runner.finish(0)
    want = long_model.run_overview(resolver.results.values)
    assert len(maps) == 1 and np.array_equal(maps[0].map, want.map)
    assert not resolver.map_running and resolver.map_progress == 1.0
    assert resolver.request_overview() is maps[0] and resolver.overview_now() is maps[0]
    # The zoom: exact weights of a small window, none for the whole map.
    ws.document.long.update(rows=(10, 20), cols=(0, 30))
    assert resolver.request_detail() and resolver.request_detail() and len(runner.jobs) == 1
    runner.finish(0)
    (detail,) = details
    assert detail.exact and detail.key == (maps[0].key, (10, 20, 0, 30))
    np.testing.assert_array_equal(detail.values, long_model.exact_block(maps[0], 10, 20, 0, 30))
    np.testing.assert_array_equal(detail.rows, np.arange(10, 21))
    ws.document.long.update(rows=(), cols=())
    assert not resolver.request_detail() and not runner.jobs


def test_cancelling_the_map_says_so_at_once_and_only_the_last_watcher_stops_it():
    runner = HeldRunner()
    ws = Workspace(runner=runner)
    ws.document.long.update(n=256, bins=16)
    resolver = ws.resolver_for("long")
    fails = []
    resolver.overview_failed.connect(fails.append)
    one, other = object(), object()
    resolver.watch(one)
    resolver.watch(other)
    resolver.request_overview()
    resolver.stop_unless_watched(one)  # another view still looks: the map goes on
    assert resolver.map_running and fails == []
    resolver.unwatch(other)
    resolver.stop_unless_watched(one)
    assert not resolver.map_running and len(fails) == 1 and isinstance(fails[0], Cancelled)
    runner.finish(0)  # the stopped job's answer reaches nobody
    assert len(fails) == 1 and resolver.cached_overview() is None
    assert not resolver.cancel_overview()


_weird = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.just(10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(1e400),
    st.text(max_size=8),
    st.sampled_from(["8", "true", "no", "1e400", "float32 ", "[]"]),
    st.none(),
    st.booleans(),
    st.lists(st.integers(min_value=-5, max_value=300000), max_size=3),
    st.lists(st.text(max_size=2), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(LongState.field_names()), _weird)
def test_any_value_is_taken_or_refused_cleanly(name, value):
    t = LongState()
    before = t.snapshot()
    try:
        t.update(**{name: value})
    except StateError:
        assert t.snapshot() == before
        return
    field = t.field(name)
    got = t.get(name)
    if field.kind == "int":
        assert isinstance(got, int) and field.lo <= got <= field.hi
    elif field.kind == "bool":
        assert isinstance(got, bool)
    elif field.kind == "choice":
        assert got in field.choices


@pytest.mark.parametrize(
    "name, value",
    [
        ("n", 10**400),
        ("n", 1e400),
        ("n", "4096"),
        ("n", 1 << 19),
        ("n", 63),
        ("d_k", 4.5),
        ("bins", True),
        ("causal", "no"),
        ("causal", 1),
        ("scale", None),
        ("head", "Content"),
        ("backend", 3),
        ("dtype", "float128"),
        ("rows", "0,10"),
        ("rows", [5]),
        ("seed", -1),
        ("cols", [0, 10**400]),
        ("tiles_n", 65),
        ("block_q", 3),
        ("block_k", 17),
        ("log_color", "true"),
        ("tile_step", 1e400),
    ],
)
def test_bad_values_are_refused_with_nothing_changed(name, value):
    t = LongState()
    before = t.snapshot()
    with pytest.raises(StateError):
        t.update(**{name: value})
    assert t.snapshot() == before
    assert not math.isnan(t.n)


def test_session_and_undo_keep_the_long_topic(tmp_path):
    from attnviz.model.document import Document
    from attnviz.model.history import History
    from attnviz.model.session import load_session, save_session

    doc = Document()
    history = History(doc)
    doc.long.update(n=8192, head="decay", dtype="float64", bins=512)
    doc.long.update(rows=(100, 8000), cols=(5, 90), tile_step=3)  # browsing: no undo step
    doc.long.update(n=256)  # bins follows; a window past the end is dropped
    assert doc.long.bins == 256 and doc.long.rows == () and doc.long.cols == (5, 90)
    history.undo()
    assert doc.long.n == 8192 and doc.long.bins == 512
    path = tmp_path / "long.attnviz"
    save_session(doc, path)
    other = Document()
    load_session(other, path)
    assert other.long.snapshot() == doc.long.snapshot()
