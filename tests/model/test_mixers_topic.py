"""The mixers topic and resolver: strict fields, sessions, undo, exports and the CLI.

The numbers come from the core (held to step-by-step recurrences in
tests/core/test_mixers.py); here the topic must refuse every bad value and change nothing,
carry its fields through sessions and undo, and export what the core computes.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.cli import main as cli
from attnviz.core.mixer_costs import state_numbers
from attnviz.core.mixers import KINDS, MixerParams, mixing_matrix, synthetic_qkv
from attnviz.core.recall import recall_curves
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.history import History
from attnviz.model.panel_data import data_names, panel_data
from attnviz.model.resolve.mixers import KIND_COLUMNS, compute_mixers
from attnviz.model.session import load_session, save_session
from attnviz.model.topics.mixers import MixersState
from attnviz.model.workspace import Workspace

BAD = st.one_of(
    st.integers(min_value=2**63, max_value=10**400),
    st.integers(max_value=-(2**40)),
    st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e300, -1e300]),
    st.just("1e400"),
    st.text(max_size=8),
    st.sampled_from([None, [], {}, b"8", [1, 2], 2.5j]),
)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(MixersState.field_names()), value=BAD)
def test_every_field_refuses_bad_values_and_changes_nothing(name, value):
    topic = MixersState()
    before = topic.snapshot()
    if name == "normalised" and isinstance(value, bool):
        return  # a boolean is this field's one good value
    with pytest.raises(StateError) as err:
        topic.update(**{name: value})
    assert "\n" not in str(err.value) and len(str(err.value)) < 300
    assert topic.snapshot() == before


@pytest.mark.parametrize(
    ("path", "value"),
    [("mixers.kind", "mamba"), ("mixers.n", 1), ("mixers.n", 257), ("mixers.d", 0),
     ("mixers.window", 0), ("mixers.top_k", 10**400), ("mixers.decay", 1.5),
     ("mixers.beta", -0.1), ("mixers.alpha", float("nan")), ("mixers.normalised", "yes"),
     ("mixers.feature_map", "gelu"), ("mixers.recall_pairs", 257), ("mixers.stride", 2.5),
     ("mixers.decode_step", 0), ("mixers.decode_step", 257), ("mixers.depth", 0),
     ("mixers.depth", 65), ("mixers.view", "graph"), ("mixers.depth", 2.5)],
)  # fmt: skip
def test_set_field_refuses_with_the_fields_name(path, value):
    doc = Document()
    with pytest.raises(StateError, match=path.split(".")[1]):
        doc.set_field(path, value)


def test_sessions_and_undo_carry_every_field(tmp_path):
    doc = Document()
    history = History(doc)
    changes = {"kind": "gated_deltanet", "n": 33, "d": 5, "seed": 9, "window": 3,
               "top_k": 2, "stride": 7, "feature_map": "relu", "normalised": False,
               "decay": 0.5, "beta": 0.25, "alpha": 0.75, "recall_pairs": 16, "view": "depth",
               "decode_step": 7, "depth": 5}  # fmt: skip
    assert set(changes) == set(MixersState.field_names())  # every field, none forgotten
    for name, value in changes.items():
        doc.set_field(f"mixers.{name}", value)
    save_session(doc, tmp_path / "s.attnviz")
    fresh = Document()
    load_session(fresh, tmp_path / "s.attnviz")
    assert {n: fresh.mixers.get(n) for n in changes} == changes
    for _ in changes:
        history.undo()
    assert doc.mixers.snapshot() == MixersState().snapshot()
    for _ in changes:
        history.redo()
    assert {n: doc.mixers.get(n) for n in changes} == changes


def test_softmax_mixing_is_the_attention_topics_weights():
    """The same q, k, v typed into the attention topic with a causal mask: its resolver's
    weights are the softmax mixer's M, and the mixers export of that kind."""
    q, k, v = synthetic_qkv(7, 4, 11)
    ws = Workspace()
    tokens = tuple(f"t{i}" for i in range(7))
    ws.document.attention.update(tokens=tokens, d_k=4, q=q, k=k, v=v, causal=True)
    weights = np.asarray(ws.resolver.results.attention.weights, dtype=np.float64)
    np.testing.assert_allclose(mixing_matrix("softmax", q, k), weights, rtol=0, atol=1e-12)
    ws.document.mixers.update(n=7, d=4, seed=11)
    exported = panel_data(ws, "mixers", "mixing")
    np.testing.assert_allclose(exported.values, weights, rtol=0, atol=1e-12)


def test_exports_are_the_cores_numbers():
    ws = Workspace()
    ws.document.mixers.update(kind="deltanet", n=12, d=3, seed=4, beta=0.7, recall_pairs=8)
    assert data_names("mixers") == (
        "mixing", "kinds", "state_sizes", "flops", "bytes", "recall", "decode_costs",
        "receptive_field",
    )  # fmt: skip
    q, k, v = synthetic_qkv(12, 3, 4)
    params = MixerParams(beta=0.7)
    mixing = panel_data(ws, "mixers", "mixing")
    np.testing.assert_array_equal(mixing.values, mixing_matrix("deltanet", q, k, params))
    assert mixing.rows == tuple(map(str, range(12))) and mixing.corner == "deltanet: M[t, s]"
    kinds = panel_data(ws, "mixers", "kinds")
    assert kinds.rows == KINDS and kinds.columns == KIND_COLUMNS
    table = dict(zip(KINDS, kinds.values, strict=True))
    dense = mixing_matrix("softmax", q, k) @ v
    out = mixing_matrix("deltanet", q, k, params) @ v
    expected = np.linalg.norm(out - dense) / np.linalg.norm(dense)
    assert table["deltanet"][0] == pytest.approx(expected, rel=1e-12)
    assert table["softmax"][0] == 0.0 and table["softmax"][1] == 1.0
    assert table["softmax"][2] == 2 * 3 * 12 and table["deltanet"][2] == 9
    assert table["softmax"][3] == 2 * 3 * 12 * 13  # Σ_t 4·d·t FLOPs
    sizes = panel_data(ws, "mixers", "state_sizes")
    lengths = np.array([int(r) for r in sizes.rows])
    assert lengths[0] == 1 and lengths[-1] == 131_072
    np.testing.assert_array_equal(sizes.values[:, 0], state_numbers("softmax", lengths, 3))
    assert set(sizes.values[:, KINDS.index("gated_deltanet")]) == {9}
    recall = panel_data(ws, "mixers", "recall")
    _lengths, curves = recall_curves(8, 3, params, 4)
    np.testing.assert_array_equal(recall.values[:, 0], curves["softmax"])
    assert recall.rows == ("1", "2", "4", "8")


def test_the_kind_is_not_an_input_switching_it_recomputes_nothing():
    ws = Workspace()
    resolver = ws.resolver_for("mixers")
    first = resolver.results
    ws.document.mixers.update(kind="linear")
    assert resolver.results is first and resolver.computations == 1


def test_compute_is_deterministic_for_its_inputs():
    a = compute_mixers(10, 4, 2, 3, 2, 2, "elu1", True, 0.9, 0.5, 0.9, 4)
    b = compute_mixers(10, 4, 2, 3, 2, 2, "elu1", True, 0.9, 0.5, 0.9, 4)
    for kind in KINDS:
        np.testing.assert_array_equal(a.matrices[kind], b.matrices[kind])
        assert a.crossings[kind] == b.crossings[kind]
    assert a.crossings["softmax"] == (None, None)
    assert a.crossings["window"][0] == 4  # 3 keys a row: cheaper than softmax from token 4


def test_cli_exports_the_mixing_matrix(tmp_path):
    out = tmp_path / "m.csv"
    args = ["export", "--panel", "mixers", "--matrix", "mixing", "--set", "mixers.kind=window",
            "--set", "mixers.window=2", "--set", "mixers.n=5", "--out", str(out)]  # fmt: skip
    assert cli(args) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["window: M[t, s]", "0", "1", "2", "3", "4"]
    values = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    assert (np.count_nonzero(values, axis=1) == [1, 2, 2, 2, 2]).all()
    np.testing.assert_allclose(values.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_cli_refuses_a_bad_field_in_one_line(capsys, tmp_path):
    out = tmp_path / "never.csv"
    with pytest.raises(SystemExit) as code:
        cli(["export", "--panel", "mixers", "--matrix", "mixing",
             "--set", "mixers.decay=1e400", "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code.value.code == 2 and not out.exists()
    assert err == "attnviz export: error: --set mixers.decay: 1e400 is not a finite number"


def test_cli_exports_one_decoding_step_and_the_reach(tmp_path):
    from attnviz.core.decode_step import COLUMNS, step_costs

    out = tmp_path / "d.csv"
    args = ["export", "--panel", "mixers", "--matrix", "decode_costs", "--set",
            "mixers.decode_step=10", "--set", "mixers.window=4", "--out", str(out)]  # fmt: skip
    assert cli(args) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["t = 10, d = 16", *COLUMNS]
    table = {r[0]: [float(x) for x in r[1:]] for r in rows[1:]}
    assert list(table) == list(KINDS)
    # Hand arithmetic at t = 10, d = 16: softmax 640 FLOPs, 1280 bytes read, 128 written,
    # 3520 FLOPs for the prefix rerun; the window reads its 4 slots.
    assert table["softmax"] == [320, 640, 1280, 128, 1408, 3520, 8320]
    assert table["window"][:3] == [128, 256, 512]
    assert table["deltanet"] == list(step_costs("deltanet", 10, 16).row())
    out = tmp_path / "r.csv"
    args = ["export", "--panel", "mixers", "--matrix", "receptive_field", "--set",
            "mixers.decode_step=40", "--set", "mixers.n=30", "--set", "mixers.window=3",
            "--set", "mixers.depth=2", "--out", str(out)]  # fmt: skip
    assert cli(args) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][0] == "token 30, window 3" and rows[0][-1] == "30"  # t is at most n
    reach = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    assert reach.shape == (3, 30)
    assert np.flatnonzero(reach[2]).tolist() == list(range(25, 30))  # 30 − 2·2 = 26 on
