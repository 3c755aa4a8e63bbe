"""Heads through W^O in the document: the ``attention.heads_off`` field, the heads
resolver's terms and switched output, their exports, sessions and undo (issue 40, item 4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.core.attention import attention
from attnviz.core.multihead import project_heads, repeat_kv
from attnviz.model.document import Document, field_listing
from attnviz.model.history import History
from attnviz.model.panel_data import panel_data, write_panel_data
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.model.session import load_session, save_session
from attnviz.model.topics.attention import MATS, AttentionState, StateError
from attnviz.model.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]


def _workspace(preset="heads", **values) -> Workspace:
    ws = Workspace()
    ws.state.update(**preset_state_values(load_preset(preset)))
    if values:
        ws.state.update(**values)
    return ws


def _data(ws, name):
    return panel_data(ws, "heads", name).values


def _oracle(ws, off):
    """O from the exported X and W, each head by the core's attention, with heads ``off``
    zeroed at W^O's input by a torch forward pre-hook on W^O as an nn.Linear."""
    torch = pytest.importorskip("torch")
    x, w_q, w_k, w_v, w_o = (_data(ws, name) for name in MATS)
    s = ws.state
    h, h_kv, d = s.n_heads, s.n_kv_heads, s.d_k
    q, k, v = project_heads(x, w_q, w_k, w_v, n_heads=h, n_kv_heads=h_kv)
    heads = attention(q, repeat_kv(k, h // h_kv), repeat_kv(v, h // h_kv)).output
    concat = torch.from_numpy(np.ascontiguousarray(heads.transpose(1, 0, 2).reshape(-1, h * d)))
    out_proj = torch.nn.Linear(h * d, w_o.shape[1], bias=False, dtype=torch.float64)
    with torch.no_grad():
        out_proj.weight.copy_(torch.from_numpy(np.array(w_o.T)))

    def zero(_module, args):
        inp = args[0].clone()
        for head in off:
            inp[:, head * d : (head + 1) * d] = 0.0
        return (inp,)

    out_proj.register_forward_pre_hook(zero)
    with torch.no_grad():
        return out_proj(concat).numpy(), heads, w_o


@pytest.mark.parametrize("off", [(), (2,), (0, 5, 7)])
def test_the_exports_equal_the_oracle_and_the_terms_sum_to_o(off):
    ws = _workspace(heads_off=list(off))
    ref, heads, w_o = _oracle(ws, off)
    contributions = _data(ws, "contributions")
    assert contributions.shape == (8, 12, 64)
    output = _data(ws, "output")
    np.testing.assert_allclose(contributions.sum(axis=0), output, rtol=0, atol=1e-12)
    for head in range(8):
        term = heads[head] @ w_o[8 * head : 8 * head + 8]
        np.testing.assert_allclose(contributions[head], term, rtol=0, atol=1e-12)
    switched = _data(ws, "output_switched")
    np.testing.assert_allclose(switched, ref, rtol=0, atol=1e-12)
    if off:
        assert np.abs(switched - output).max() > 1e-2  # the switch moved O
        np.testing.assert_allclose(
            switched, output - contributions[list(off)].sum(axis=0), rtol=0, atol=1e-12
        )
    else:
        np.testing.assert_array_equal(switched, output)
    norms = panel_data(ws, "heads", "contribution_norms")
    np.testing.assert_allclose(
        norms.values, np.linalg.norm(contributions, axis=-1).T, rtol=1e-15, atol=0
    )
    assert norms.columns[7] == "head 7" and norms.rows[1] == "banco"


def test_every_head_off_gives_zero_and_a_csv():
    ws = _workspace(heads_off=list(range(8)))
    np.testing.assert_array_equal(_data(ws, "output_switched"), np.zeros((12, 64)))


def test_the_field_follows_the_layout_and_the_source():
    s = _workspace(heads_off=[6, 1, 6]).state
    assert s.heads_off == (1, 6)  # sorted, once each
    s.update(n_heads=4)
    assert s.heads_off == (1,)  # head 6 is gone
    with pytest.raises(StateError, match="head 4 is outside 0…3"):
        s.update(heads_off=[4])
    s.update(head="content")
    assert s.heads_off == ()  # the switches belong to the projections
    with pytest.raises(StateError, match="attention.head=projections"):
        s.update(heads_off=[0])
    s.update(**preset_state_values(load_preset("heads")))
    s.update(heads_off=[3])
    s.update(**preset_state_values(load_preset("heads")))
    assert s.heads_off == ()  # a preset switches every head on


def test_undo_and_redo_restore_the_switches():
    doc = Document()
    history = History(doc)
    s = doc.attention
    s.update(**preset_state_values(load_preset("heads")))
    history.clock = lambda: 100.0
    s.update(heads_off=[2])
    assert history.undo_step.changed_fields() == {("attention", "heads_off")}
    history.clock = lambda: 200.0
    s.update(head="manual")
    assert s.heads_off == ()
    history.undo()
    assert s.heads_off == (2,) and s.head == "projections"
    history.undo()
    assert s.heads_off == ()
    history.redo()
    assert s.heads_off == (2,)


def test_sessions_keep_the_switches(tmp_path):
    s = AttentionState(**preset_state_values(load_preset("heads")))
    s.update(heads_off=[0, 3])
    save_session(s, tmp_path / "h.attnviz")
    t = AttentionState()
    load_session(t, tmp_path / "h.attnviz")
    assert t.heads_off == (0, 3) and t.head == "projections"


def test_listed_and_exported_from_the_command_line(tmp_path):
    assert "attention.heads_off\tints" in field_listing()
    base = [sys.executable, "-m", "attnviz", "export", "--preset", "heads", "--panel", "heads"]
    csv = tmp_path / "o.csv"
    r = subprocess.run(
        [*base, "--matrix", "output_switched", "--set", "attention.heads_off=[0, 1, 2, 3, 4, 5, 6]",
         "--out", str(csv)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    got = np.loadtxt(csv, delimiter=",", skiprows=1, usecols=range(1, 65))
    ws = _workspace()
    np.testing.assert_allclose(got, _data(ws, "contributions")[7], rtol=1e-12, atol=1e-14)
    r = subprocess.run(
        [*base, "--matrix", "output_switched", "--set", "attention.heads_off=[8]",
         "--out", str(csv)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 2 and "head 8 is outside 0…7" in r.stderr  # a usage error
    assert len(r.stderr.strip().splitlines()) == 1


def test_other_sources_refuse_the_terms_in_one_line(tmp_path):
    ws = _workspace("banco")
    with pytest.raises(ValueError, match="needs the projections"):
        _data(ws, "contributions")
    ws = _workspace()
    write_panel_data(ws, "heads", "contribution_norms", tmp_path / "n.csv")
    assert (tmp_path / "n.csv").read_text().splitlines()[0].startswith("‖O_i·W^O_i‖,head 0,")


def test_the_switch_recomputes_only_the_heads_panel():
    ws = _workspace()
    heads, grad = ws.resolver_for("heads"), ws.resolver_for("gradient")
    _ = heads.results, grad.results
    attention_results, before = ws.resolver.results, (heads.computations, grad.computations)
    ws.state.update(heads_off=[1])
    assert heads.results.heads_off == (1,)
    assert (heads.computations, grad.computations) == (before[0] + 1, before[1])
    assert ws.resolver.results is attention_results  # the heatmap's head is the same


BAD = st.one_of(
    st.integers(min_value=2**63, max_value=2**400).map(lambda i: [i]),
    st.integers(max_value=-1).map(lambda i: [i]),
    st.integers(min_value=64, max_value=10**6).map(lambda i: [i]),
    st.integers(min_value=8, max_value=63).map(lambda i: [0, i]),  # the preset has 8 heads
    st.just([1e400]),
    st.just([float("nan")]),
    st.just([1.5]),
    st.just([True]),
    st.just(["1"]),
    st.just("1"),
    st.just(3),
    st.just(None),
    st.just({"a": 1}),
    st.just([[1, 2]]),
    st.just(list(range(65))),
    st.just(np.zeros((2, 2))),
)


@settings(max_examples=150, deadline=None)
@given(value=BAD)
def test_bad_values_raise_one_line_and_change_nothing(value):
    s = AttentionState(**{**preset_state_values(load_preset("heads")), "heads_off": (1,)})
    before = s.snapshot()
    seen = []
    s.changed.connect(seen.append)
    with pytest.raises(StateError) as err:
        s.update(heads_off=value)
    assert "\n" not in str(err.value) and len(str(err.value)) < 200
    assert s.snapshot()["heads_off"] == before["heads_off"] and not seen
