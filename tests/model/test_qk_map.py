"""The query–key map's fields and export (``attention.qk_projection``, ``qk_colour``,
``qk_sentences``; ``--matrix qk_map``): hostile values refused in one line, the hand-worked
example's map, and many sentences of a real model projected together, each sentence's q
and k the heatmap's own for that sentence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.model.fields import StateError
from attnviz.model.panel_data import panel_data
from attnviz.model.resolve.qk_map import (
    NO_MODEL_NOTE,
    QK_COLUMNS,
    SENTENCE_COLUMN,
    map_inputs,
    qk_map_data,
)
from attnviz.model.topics import _attention_qk_fields as qk_fields
from attnviz.model.topics._attention_qk_fields import MAX_QK_SENTENCE, MAX_QK_SENTENCES
from attnviz.model.workspace import Workspace

_wrong = st.one_of(
    st.integers(-(10**6), 10**6),
    st.integers(2**63, 10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.binary(max_size=5),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from(["qk_projection", "qk_colour", "qk_sentences"]),
    value=st.one_of(
        _wrong,
        st.text(max_size=20),
        st.lists(_wrong, min_size=1, max_size=3),
        st.lists(st.text(max_size=5), max_size=3),
    ),
)
def test_hostile_values_are_refused_in_one_line_or_taken_whole(field, value):
    ws = Workspace()
    before = ws.state.snapshot()
    try:
        ws.state.update(**{field: value})
    except StateError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 400
        assert ws.state.snapshot() == before  # nothing half taken
        return
    taken = getattr(ws.state, field)
    if field == "qk_sentences":
        assert isinstance(taken, tuple) and all(t.strip() for t in taken)
    else:
        assert taken in qk_fields.QK_COLOURS + ("pca", "umap")


def test_sentences_are_bounded_and_none_empty():
    ws = Workspace()
    for value, match in (
        ((" ",), r"qk_sentences\[0\] is empty"),
        (("a", ""), r"qk_sentences\[1\] is empty"),
        (("x" * (MAX_QK_SENTENCE + 1),), f"longer than {MAX_QK_SENTENCE} characters"),
        (("a",) * (MAX_QK_SENTENCES + 1), f"at most {MAX_QK_SENTENCES}"),
        ("a sentence", "must be a list"),
        (("\ud800",), "cannot be saved"),
    ):
        with pytest.raises(StateError, match=match):
            ws.state.update(qk_sentences=value)
    ws.state.update(qk_sentences=("x" * MAX_QK_SENTENCE,) * 2)
    assert len(ws.state.qk_sentences) == 2


def test_umap_without_its_extra_is_refused_in_one_line(monkeypatch):
    monkeypatch.setattr(qk_fields, "umap_installed", lambda: False)
    ws = Workspace()
    with pytest.raises(StateError) as info:
        ws.state.update(qk_projection="umap")
    assert str(info.value) == ("qk_projection: UMAP is not installed (pip install 'attnviz[umap]')")
    assert ws.state.qk_projection == "pca"


def test_the_cli_refuses_umap_without_its_extra_in_one_line(monkeypatch, capsys, tmp_path):
    from attnviz.cli import main

    monkeypatch.setattr(qk_fields, "umap_installed", lambda: False)
    with pytest.raises(SystemExit) as exc:
        main(["export", "--set", "attention.qk_projection=umap", "--out", str(tmp_path / "a.png")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "attnviz export: error: --set attention.qk_projection: qk_projection: UMAP is not "
        "installed (pip install 'attnviz[umap]')"
    ]


def test_the_fields_travel_in_a_snapshot():
    ws = Workspace()
    ws.state.update(qk_colour="token", qk_sentences=("one two", "three"))
    snap = ws.state.snapshot()
    other = Workspace()
    other.state.update(**snap)
    assert other.state.qk_colour == "token" and other.state.qk_sentences == ("one two", "three")


def test_the_hand_worked_map_shows_banco_reaching_praca_by_their_dot_product():
    ws = Workspace()
    data = qk_map_data(ws)
    q_banco = data.queries[1]
    reach = data.keys @ q_banco  # in the plane: the head's own scores (a 2-d head)
    np.testing.assert_allclose(reach, [1.0, 3.0, 4.0], atol=1e-12)
    assert data.tokens[int(np.argmax(reach))] == "praça" and data.kept == pytest.approx(1.0)
    export = panel_data(ws, "attribution", "qk_map")
    assert export.columns == QK_COLUMNS  # one text: the columns as before
    assert export.rows == ("q sentei", "q banco", "q praça", "k sentei", "k banco", "k praça")


def test_a_synthetic_head_draws_its_own_text_and_says_why():
    ws = Workspace()
    ws.state.update(qk_sentences=("the bank", "a river"))
    inputs = map_inputs(ws)
    assert inputs.extra == () and inputs.ignored and not inputs.slow
    data = qk_map_data(ws)
    assert not data.many and data.note == NO_MODEL_NOTE
    assert panel_data(ws, "attribution", "qk_map").columns == QK_COLUMNS


def test_a_long_text_is_computed_off_the_gui_thread():
    ws = Workspace()
    ws.state.update(tokens=tuple(f"t{i % 40}" for i in range(3000)), head="content", d_k=16)
    inputs = map_inputs(ws)
    assert inputs.slow and inputs.rows == 6000
    data = qk_map_data(ws)
    rows = np.vstack([ws.resolver.results.q, ws.resolver.results.k])
    _u, _s, vt = np.linalg.svd(rows, full_matrices=False)
    got = np.vstack([data.queries, data.keys])
    for r in range(2):
        want = rows @ vt[r]
        np.testing.assert_allclose(np.abs(got[:, r]), np.abs(want), atol=1e-8)


# --- a real model: sentences through the proven capture -----------------------------------
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import SENTENCE, make_model  # noqa: E402

EXTRA = ("a dog ran on the bank", "the river of the cat")


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return make_model(tmp_path_factory.mktemp("llama"), "llama", layers=2)


def _head(path: str, text: str, layer: int, head: int):
    """The heatmap's q and k of ``text`` at (layer, head): a workspace showing it."""
    ws = Workspace()
    ws.state.update(head="model", model_path=path, model_text=text, layer=layer, model_head=head)
    res = ws.resolver.results
    return np.asarray(res.q, np.float64), np.asarray(res.k, np.float64), ws.state.tokens


def test_many_sentences_are_projected_together_with_the_heatmaps_own_vectors(llama):
    layer, head = 1, 2
    ws = Workspace()
    ws.state.update(
        head="model", model_path=llama, model_text=SENTENCE, layer=layer, model_head=head
    )
    ws.state.update(qk_sentences=EXTRA)
    assert map_inputs(ws).slow
    export = panel_data(ws, "attribution", "qk_map")
    assert export.columns == (*QK_COLUMNS, SENTENCE_COLUMN)  # appended: the four as before
    texts = (SENTENCE, *EXTRA)
    heads = [_head(llama, t, layer, head) for t in texts]
    q = np.vstack([h[0] for h in heads])
    k = np.vstack([h[1] for h in heads])
    n = q.shape[0]
    assert export.values.shape == (2 * n, 5)
    # The oracle: numpy's SVD of the stacked [Q; K] of the three sentences.
    rows = np.vstack([q, k])
    _u, _s, vt = np.linalg.svd(rows, full_matrices=False)
    for r in range(2):
        want = rows @ vt[r]
        got = export.values[:, 2 + r]
        sign = 1.0 if got @ want >= 0 else -1.0
        np.testing.assert_allclose(got, sign * want, atol=1e-6)
    sentence = np.concatenate([np.full(h[0].shape[0], i) for i, h in enumerate(heads)])
    np.testing.assert_array_equal(export.values[:, 4], np.concatenate([sentence, sentence]))
    position = np.concatenate([np.arange(h[0].shape[0]) for h in heads])
    np.testing.assert_array_equal(export.values[:, 1], np.concatenate([position, position]))
    tokens = [t for h in heads for t in h[2]]
    assert export.rows[:n] == tuple(f"q {t}" for t in tokens)


def test_a_sentence_the_model_refuses_is_one_line_naming_it(llama, monkeypatch):
    from attnviz.model import real_model

    ws = Workspace()
    ws.state.update(head="model", model_path=llama, model_text=SENTENCE)
    ws.state.update(qk_sentences=("the cat", "a sentence that breaks"))

    def refuse(path, text, progress=None):
        raise real_model.ModelError("the sentence is longer than the model's context")

    monkeypatch.setattr(real_model.STORE, "capture", refuse)
    with pytest.raises(ValueError) as info:
        qk_map_data(ws)
    assert str(info.value) == (
        "qk_sentences: “the cat”: the sentence is longer than the model's context"
    )
