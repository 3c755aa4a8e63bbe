"""The projections head source: X and W in the attention topic, the heads resolver, exports,
sessions and undo (issue 12)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.attention import softmax
from attnviz.core.multihead import multi_head_attention
from attnviz.model.data_files import DataFileError, write_data
from attnviz.model.document import Document, field_listing
from attnviz.model.history import History
from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.resolve import heads as heads_module
from attnviz.model.session import load_session, save_session, session_dict
from attnviz.model.topics.attention import MATS, AttentionState, StateError
from attnviz.model.workspace import Workspace


def _workspace(preset="heads", **values) -> Workspace:
    ws = Workspace()
    ws.state.update(**preset_state_values(load_preset(preset)))
    if values:
        ws.state.update(**values)
    return ws


def _data(ws, name):
    return panel_data(ws, "heads", name).values


def test_the_heads_preset_is_a_seeded_sentence_of_eight_heads_and_two_kv_heads():
    s = _workspace().state
    assert (s.head, s.d_model, s.n_heads, s.n_kv_heads, s.d_k) == ("projections", 64, 8, 2, 8)
    assert all(s.get(name) is None for name in MATS)  # every matrix drawn from the seed
    assert s.tokens[:4] == ("o", "banco", "da", "praça") and s.n == 12
    two = _workspace("heads-2d").state
    assert two.d_model == 2 and two.x.shape == (5, 2)


@pytest.mark.parametrize("n_kv", [1, 2, 8])  # MQA, GQA, MHA
def test_weights_and_output_equal_torch_sdpa_on_the_exported_x_and_w(n_kv):
    torch = pytest.importorskip("torch")
    ws = _workspace(n_kv_heads=n_kv)
    x, w_q, w_k, w_v, w_o = (_data(ws, name) for name in MATS)
    weights, output = _data(ws, "weights"), _data(ws, "output")
    assert weights.shape == (8, 12, 12) and output.shape == (12, 64)
    assert w_k.shape == (64, 8 * n_kv)
    n, d = 12, 8
    q = torch.from_numpy(x @ w_q).view(n, 8, d).transpose(0, 1)[None]
    k = torch.from_numpy(x @ w_k).view(n, n_kv, d).transpose(0, 1)[None]
    v = torch.from_numpy(x @ w_v).view(n, n_kv, d).transpose(0, 1)[None]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    heads = sdpa(q, k, v, enable_gqa=True)[0]
    ref_out = (heads.transpose(0, 1).reshape(n, 8 * d) @ torch.from_numpy(np.array(w_o))).numpy()
    eye = torch.eye(n, dtype=torch.float64).expand(1, n_kv, n, n)
    ref_w = sdpa(q, k, eye, enable_gqa=True)[0].numpy()
    np.testing.assert_allclose(weights, ref_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, ref_out, rtol=0, atol=1e-12)
    out, w = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=8, n_kv_heads=n_kv)
    np.testing.assert_allclose(weights, w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, out, rtol=0, atol=1e-12)


@pytest.mark.parametrize("settings_", [{}, {"causal": True, "rope": True, "temperature": 0.7}])
def test_every_tile_is_the_heatmap_of_its_head(settings_):
    ws = _workspace(**settings_)
    grid = ws.resolver_for("heads").results
    for head in range(8):
        ws.state.update(head_index=head)
        heatmap = ws.resolver.results.attention
        np.testing.assert_array_equal(grid.weights[head], heatmap.weights)
        np.testing.assert_array_equal(grid.head_outputs[head], heatmap.output)
    assert ws.resolver_for("heads").results is grid  # selecting a head recomputes nothing


def test_the_2d_preset_gives_the_hand_computable_weights():
    ws = _workspace("heads-2d")
    s = ws.state
    x = np.array([[2, 0], [0.5, 0.5], [1.5, 1.5], [0.5, -0.5], [0, 2]])
    np.testing.assert_array_equal(s.x, x)
    # Head 0: W_Q = W_K = I, so the scores of "banco" are x_banco · x_j / √2.
    np.testing.assert_allclose(
        ws.resolver.results.attention.weights[2],
        softmax(np.array([3, 1.5, 4.5, 0, 3]) / np.sqrt(2)),
        atol=1e-15,
    )
    # Head 1 turns the query by 90°: "banco" [1.5, 1.5] asks for [−1.5, 1.5].
    s.update(head_index=1)
    np.testing.assert_allclose(s.q[2], [-1.5, 1.5])
    np.testing.assert_array_equal(s.k, x)  # MQA: both heads read the same keys


def test_editing_an_embedding_row_changes_only_what_depends_on_it():
    ws = _workspace(causal=True)
    s = ws.state
    before = {name: _data(ws, name) for name in ("weights", "output")}
    q0, k0, v0 = s.q, s.k, s.v
    i = 5
    x = s.projections()["x"].copy()
    x[i] += 0.5
    s.update(x=x)
    assert s.x is not None and all(s.get(n) is None for n in ("w_q", "w_k", "w_v", "w_o"))
    rows = np.arange(s.n) != i
    for new, old in ((s.q, q0), (s.k, k0), (s.v, v0)):
        np.testing.assert_array_equal(new[rows], old[rows])
        assert not np.allclose(new[i], old[i])
    weights, output = _data(ws, "weights"), _data(ws, "output")
    # Causal: queries before token i never see it.
    np.testing.assert_array_equal(weights[:, :i], before["weights"][:, :i])
    np.testing.assert_array_equal(output[:i], before["output"][:i])
    assert not np.allclose(output[i:], before["output"][i:])


@pytest.mark.parametrize("preset", ["heads", "heads-2d", "banco", "gato"])
def test_every_shape_in_the_table_matches_its_array(preset):
    res = _workspace(preset).resolver_for("heads").results
    for row in res.shapes:
        assert res.array(row.key).shape == row.shape, row
    ws = _workspace(preset)
    if res.projections:
        for name in MATS:
            assert _data(ws, name).shape == next(r.shape for r in res.shapes if r.key == name)
        assert len(res.shapes) == 13
    else:
        assert res.weights.shape == (1, ws.state.n, ws.state.n)
        np.testing.assert_array_equal(res.weights[0], ws.resolver.results.attention.weights)
        with pytest.raises(ValueError, match="head=projections"):
            _data(ws, "x")


def test_the_layout_follows_the_number_of_heads():
    s = AttentionState(**preset_state_values(load_preset("heads")))
    s.update(head_index=7)
    s.update(n_heads=6)  # 2 KV heads still divide 6; d_head = 64 // 6
    assert (s.n_kv_heads, s.d_k, s.head_index) == (2, 10, 5)
    s.update(n_heads=9)  # 2 no longer divides 9: the largest divisor below
    assert s.n_kv_heads == 1 and s.projections()["w_q"].shape == (64, 9 * 7)
    with pytest.raises(StateError, match="does not divide"):
        s.update(n_kv_heads=2)
    with pytest.raises(StateError, match="wider than"):
        s.update(d_k=1024)
    assert s.n_kv_heads == 1 and s.d_k == 7


def test_a_typed_w_keeps_its_heads_when_heads_are_removed():
    s = AttentionState(**preset_state_values(load_preset("heads")))
    w = s.projections()["w_q"].copy()
    w[:, 8:16] = 1.0  # head 1's block
    s.update(w_q=w)
    s.update(n_heads=4)  # d_head 8 → 16, W_Q still 64 × 64: the typed numbers stay as typed
    np.testing.assert_array_equal(s.w_q, w)
    s.update(n_heads=2, d_k=16)  # W_Q becomes 64 × 32: heads 0 and 1 keep their blocks
    np.testing.assert_array_equal(s.w_q, w[:, :32])
    s.update(n_heads=8, d_k=8)  # 8 heads of width 8: head 1 was columns 16:24
    np.testing.assert_array_equal(s.w_q[:, 8:16], w[:, 16:24])
    assert s.w_q.shape == (64, 64) and not np.any(s.w_q[:, 16:] == 1.0)


def test_sessions_keep_typed_matrices_and_leave_the_seeded_ones_out(tmp_path):
    s = AttentionState(**preset_state_values(load_preset("heads")))
    x = s.projections()["x"].copy()
    x[0, :3] = [1.0, 2.0, 3.0]
    s.update(x=x, n_kv_heads=1, head_index=3)
    body = session_dict(s)["topics"]["attention"]
    assert body["w_q"] is None and body["w_o"] is None and "q" not in body
    save_session(s, tmp_path / "h.attnviz")
    t = AttentionState()
    load_session(t, tmp_path / "h.attnviz")
    for key, value in s.snapshot().items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(t.get(key), value)
        else:
            assert t.get(key) == value, key


def test_a_version_1_session_still_opens(tmp_path):
    path = tmp_path / "old.attnviz"
    path.write_text(
        json.dumps(
            {
                "format_version": 1,
                "state": {
                    "tokens": ["a", "b"],
                    "q": [[1, 0], [0, 1]],
                    "k": [[1, 0], [0, 1]],
                    "v": [[1, 0], [0, 1]],
                    "d_k": 2,
                },
            }
        ),
        encoding="utf-8",
    )
    t = AttentionState()
    load_session(t, path)
    assert t.head == "manual" and t.tokens == ("a", "b") and t.x is None
    assert (t.n_heads, t.n_kv_heads, t.head_index) == (4, 2, 0)


def test_undo_restores_every_step_and_stores_no_seeded_array():
    doc = Document()
    history = History(doc)
    s = doc.attention
    start = s.snapshot()
    edits = [
        preset_state_values(load_preset("heads")),
        {"head_index": 3},
        {"n_kv_heads": 1},
        {"n_heads": 4},
        {"d_model": 32},
        {"seed": 9},
        {"head_index": 1},
    ]
    snapshots = []
    for i, edit in enumerate(edits):
        history.clock = lambda i=i: 10.0 * i  # never merged
        s.update(**edit)
        snapshots.append(s.snapshot())
    # Banco's typed Q, K, V (3 × 2 each) before the preset; after it, seeded X and W and
    # derived Q/K/V: nothing more to keep.
    assert 3 * 6 * 8 <= history.nbytes < 3 * 6 * 8 + 16 * 1024  # and the texts
    kept = history.nbytes
    x = s.projections()["x"].copy()
    x[2, 0] = 5.0
    history.clock = lambda: 1000.0
    s.update(x=x)
    assert kept + x.nbytes <= history.nbytes < kept + x.nbytes + 1024  # the typed X only
    snapshots.append(s.snapshot())
    for snap in reversed([start, *snapshots[:-1]]):
        history.undo()
        _assert_same(s.snapshot(), snap)
    for snap in snapshots:
        history.redo()
        _assert_same(s.snapshot(), snap)


def _assert_same(a: dict, b: dict) -> None:
    for key in a:
        if isinstance(a[key], np.ndarray) or isinstance(b[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key


def test_weights_are_npy_only_and_a_large_grid_is_refused_clearly(tmp_path, monkeypatch):
    ws = _workspace()
    with pytest.raises(DataFileError, match="npy"):
        write_data(panel_data(ws, "heads", "weights"), tmp_path / "w.csv")
    write_data(panel_data(ws, "heads", "output"), tmp_path / "o.csv")
    assert (tmp_path / "o.csv").read_text().splitlines()[1].startswith("o,")
    monkeypatch.setattr(heads_module, "MAX_GRID_CELLS", 100)
    ws.state.update(temperature=0.9)
    res = ws.resolver_for("heads").results
    assert res.weights is None and "1,152 score entries" in res.too_large
    with pytest.raises(ValueError, match="more than the 100"):
        _data(ws, "weights")


def test_the_new_fields_are_listed():
    listing = field_listing()
    for name in ("d_model", "n_heads", "n_kv_heads", "head_index", *MATS):
        assert f"attention.{name}\t" in listing


BAD_VALUES = st.one_of(
    st.integers(min_value=2**63, max_value=2**400),
    st.integers(max_value=-1),
    st.just(1e400),
    st.just(float("nan")),
    st.just(float("inf")),
    st.text(max_size=5),
    st.booleans(),
    st.just([[1, "a"]]),
    st.just([[1e400]]),
    st.just({"a": 1}),
    st.just([1, 2, 3]),
)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(["d_model", "n_heads", "n_kv_heads", "head_index", *MATS]),
    value=BAD_VALUES,
)
def test_bad_values_raise_and_change_nothing(name, value):
    s = AttentionState(**preset_state_values(load_preset("heads-2d")))
    before = s.snapshot()
    seen = []
    s.changed.connect(seen.append)
    with pytest.raises(StateError):
        s.update(**{name: value})
    _assert_same(s.snapshot(), before)
    assert not seen
