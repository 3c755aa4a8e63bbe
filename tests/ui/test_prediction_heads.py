"""The prediction panel's heads through W^O (each head's direct effect on the target's
logit, an attribution) on a tiny random Llama: the picture is the export and transformers'
own formula, it follows the target and the position and not the sampling, a masked-LM's
refusal is one line on it, and a soak in the window leaves it showing the current inputs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from attnviz.model.workspace import Workspace
from attnviz.ui.panels.prediction import PredictionPanel
from attnviz.ui.theme import theme_named
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, switch_theme, undo

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from tests.tiny_models import MASKED, SENTENCE, make_model  # noqa: E402

_SHOTS = __import__("os").path.isdir("/tmp/scratch")


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> str:
    return make_model(tmp_path_factory.mktemp("llama"), "llama")


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


def _workspace(path: str, text: str = SENTENCE, **prediction) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path, model_text=text)
    ws.document.prediction.update(**prediction)
    return ws


def _oracle(path: str, at: int, target: int) -> np.ndarray:
    """transformers' Llama: each head's slice of o_proj's input (a pre-hook) times its
    columns of o_proj's weight, times the final RMSNorm's weight over the clean residual's
    RMS (the config's epsilon), onto the target's lm_head row minus the rows' mean."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        path, local_files_only=True, attn_implementation="eager", dtype=torch.float32
    ).eval()
    enc = transformers.AutoTokenizer.from_pretrained(path)(SENTENCE, return_tensors="pt")
    seen = {}
    hooks = [
        layer.self_attn.o_proj.register_forward_pre_hook(
            lambda _m, args, i=i: seen.__setitem__(i, args[0][0, at].double())
        )
        for i, layer in enumerate(model.model.layers)
    ]
    hooks.append(
        model.model.norm.register_forward_pre_hook(
            lambda _m, args: seen.__setitem__("r", args[0][0, at].double())
        )
    )
    with torch.no_grad():
        model(**enc)
        for h in hooks:
            h.remove()
        r = seen["r"]
        scale = model.model.norm.weight.double() / torch.sqrt(
            (r * r).mean() + model.config.rms_norm_eps
        )
        w_u = model.lm_head.weight.double()
        u = w_u[target] - w_u.mean(dim=0)
        d = model.config.head_dim
        out = np.zeros((len(model.model.layers), 4))
        for i, layer in enumerate(model.model.layers):
            w_o = layer.self_attn.o_proj.weight.double()
            for h in range(4):
                cols = slice(h * d, (h + 1) * d)
                out[i, h] = float((w_o[:, cols] @ seen[i][cols]) * scale @ u)
    return out


def test_the_picture_is_the_export_and_transformers_formula(llama, panel):
    from attnviz.model.resolve.prediction import prediction_data

    ws = _workspace(llama)
    p = panel(ws)
    box = p.head_logits
    shown = box.view.values()
    assert shown.shape == (2, 4) and np.isfinite(shown).all()
    exported = prediction_data(ws, "head_logits")
    np.testing.assert_array_equal(shown, exported.values)
    res = p.results
    np.testing.assert_allclose(shown, _oracle(llama, res.position, res.target), atol=1e-4)
    name = res.target_token
    assert f"logit({name})" in exported.corner and "attribution" in exported.corner
    assert "an attribution, not a proof" in box.view.title() and f"“{name}”" in box.view.title()
    found = box.found
    assert f"{found.logit:.3f}" in box.note.text() and "frozen at the clean run" in box.note.text()
    assert found.total() == pytest.approx(found.logit, abs=1e-4)
    tip = box.view.hover_cell(1, 2)
    from attnviz.ui.widgets.numbers import exact

    assert exact(shown[1, 2]) in tip and f"“{name}”" in tip and "not a proof" in tip
    # The sampling and an ablation change no direct effect; the target and position do.
    ws.document.prediction.update(temperature=0.5, top_k=3, ablate=((0, 1),))
    np.testing.assert_array_equal(box.view.values(), shown)
    ws.document.prediction.update(target="dog", position=4)
    res = p.results
    assert res.target_token == "dog" and box.view.target == "dog"
    np.testing.assert_allclose(box.view.values(), _oracle(llama, 4, res.target), atol=1e-4)
    np.testing.assert_array_equal(box.view.values(), prediction_data(ws, "head_logits").values)
    # At the projector's size no text of the panel runs into another.
    from PySide6.QtWidgets import QScrollArea

    from attnviz.ui.text_overlap import check_texts, report

    p.resize(1280, 720)
    p.findChild(QScrollArea).ensureWidgetVisible(box)
    overlaps = [f for f in check_texts(p) if f.kind == "overlap"]
    assert not overlaps, report(overlaps)
    if _SHOTS:
        box.grab().save("/tmp/scratch/prediction-head-logits.png")


def test_a_masked_lm_is_refused_on_the_picture_in_one_line(tmp_path, panel):
    path = make_model(tmp_path, "bert")
    p = panel(_workspace(path, MASKED))
    assert p.results is not None  # the prediction itself is made
    note = p.head_logits.note.text()
    assert note.startswith(f"{tmp_path.name}: a masked-LM head transforms the residual")
    assert "\n" not in note and p.head_logits.view.values().size == 0


def test_without_a_model_the_picture_says_why(panel):
    p = panel(Workspace())
    assert p.head_logits.note.text() == "No attribution: see the line below."
    assert p.head_logits.view.values().size == 0


def test_soak_of_the_attribution_in_the_window(llama, qtbot, make_window):
    rng = random.Random("head-logits-soak")
    window = make_window()
    window.models.open_path(llama, SENTENCE)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    window.docks["prediction"].show()
    window.docks["prediction"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "prediction"))
    panel = window.panels["prediction"]
    pred = window.document.prediction
    resolver = window.workspace.resolver_for("prediction")
    view = panel.head_logits.view
    # Docked in a tab the pictures are pages, and a page behind computes nothing: the
    # heads' page is brought forward, as the lecturer does.
    assert panel.picture_pages.isVisibleTo(panel)
    assert not panel.head_logits.isVisibleTo(panel)
    panel.picture_pages.setCurrentWidget(panel.head_logits.parentWidget())
    assert panel.head_logits.isVisibleTo(panel)

    def rest():
        send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

    Soak(
        rng,
        [
            Action("target", lambda: pred.update(target=rng.choice(("", "dog", "river"))), 0.2),
            Action("position", lambda: pred.update(position=rng.choice((-1, 0, 4, 30))), 0.15),
            Action("temperature", lambda: pred.update(temperature=rng.uniform(0.2, 3.0)), 0.1),
            Action("ablate", lambda: pred.update(ablate=((rng.randrange(2), 1),)), 0.1),
            Action("rest", rest, 0.2),
            undo(window, 0.1),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.05),
            switch_theme(window, rng, 0.05),
        ],
        settle=lambda _step: qtbot.wait(2),
    ).run(40)
    pred.update(position=-1, target="river")
    qtbot.waitUntil(
        lambda: panel.current and panel.head_logits.key == resolver.map_key(), timeout=60_000
    )
    np.testing.assert_array_equal(view.values(), resolver.head_logits().values)
    assert view.target == "river"
