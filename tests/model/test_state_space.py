"""State-space models with no softmax layer at all (Mamba-2, Mamba, Falcon-Mamba) open by
proof: every layer is its mixing matrix M, captured from the model's own scan and proven
against its output before it is drawn; the heads panel says it has no softmax heads, the
prediction is the model's own logits, and ablations are refused in one line (no attention
heads to switch off).

Tiny random Mamba-2 and Mamba (1) causal language models are built here."""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core import hf_mixing  # noqa: E402
from attnviz.model import layer_mixing, real_mixing, real_model  # noqa: E402
from attnviz.model.layer_analysis import model_rollout  # noqa: E402
from attnviz.model.panel_data import panel_data  # noqa: E402
from attnviz.model.workspace import Workspace  # noqa: E402
from tests.core.test_hf_capture import save_word_tokenizer  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _config  # noqa: E402
from tests.core.test_hf_mixing import SCAN_ARGS, _direct_ssd, _raw_kernel_call  # noqa: E402

pytestmark = pytest.mark.slow
SIZES = {
    "mamba2": dict(num_heads=4, head_dim=8, hidden_size=32, n_groups=1, state_size=8, expand=1),
    "mamba": dict(hidden_size=16, state_size=4, expand=2),
    "falcon_mamba": dict(hidden_size=16, state_size=4, expand=2),
}


def _build(folder, family: str) -> str:
    if family not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {family}")
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(_config(family, 2, **SIZES[family]))
    with torch.no_grad():  # a scale at which earlier tokens reach later ones
        for name, p in model.named_parameters():
            if p.dim() == 2 and "embed" not in name:
                p.normal_(0.0, 0.5)
    model.save_pretrained(str(folder), safe_serialization=True)
    save_word_tokenizer(folder)
    return str(folder)


@pytest.fixture(scope="module")
def mamba2(tmp_path_factory):
    import importlib

    folder = _build(tmp_path_factory.mktemp("mamba2"), "mamba2")
    module = importlib.import_module("transformers.models.mamba2.modeling_mamba2")
    if not hasattr(module, "mamba2_chunk_scan"):
        pytest.skip(f"transformers {transformers.__version__} scans Mamba-2 inline")
    yield folder
    real_model.STORE.clear()
    real_mixing.clear()
    layer_mixing.clear()


def _workspace(folder: str) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=folder, model_text=TEXT)
    return ws


def test_a_mamba2_model_opens_every_layer_its_proven_scan(mamba2):
    cap = real_model.STORE.capture(mamba2, TEXT)
    assert cap.layers == () and cap.kinds == ("Mamba-2", "Mamba-2")
    loaded = real_model.STORE.model(mamba2)
    for layer in (0, 1):
        raw = _raw_kernel_call(loaded, layer, ("mamba2_chunk_scan",), "mixer", SCAN_ARGS)
        x = raw["hidden_states"][0].double().numpy().transpose(1, 0, 2)
        out = raw["out"][0].double().numpy().transpose(1, 0, 2)
        dt = torch.nn.functional.softplus(raw["dt"][0].double() + raw["dt_bias"].double())
        dt = dt.clamp(*raw.get("dt_limit", (0.0, float("inf")))).numpy()
        a = raw["A"].double().numpy()
        d = raw["D"].detach().double().numpy().reshape(x.shape[0], -1)[:, 0]
        for head in range(x.shape[0]):
            kind, m = real_mixing.mixing_matrix(mamba2, TEXT, layer, head)
            assert kind == "Mamba-2"
            np.testing.assert_allclose(m @ x[head], out[head], atol=1e-5, rtol=0)
            direct = _direct_ssd(
                x.shape[1],
                raw["C"][0, :, 0].double().numpy(),
                raw["B"][0, :, 0].double().numpy(),
                dt[:, head],
                a[head],
                float(d[head]),
            )
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)
        assert np.abs(np.tril(m, -1)).max() > 1e-4  # earlier tokens reach later ones


def test_its_views_draw_m_and_its_prediction_is_its_own(mamba2):
    ws = _workspace(mamba2)
    assert ws.state.layer == 0 and ws.state.matrix == "mixing"
    grid = layer_mixing.model_mixing(mamba2, TEXT)
    assert all(row is not None and row.kind == "Mamba-2" for row in grid)
    np.testing.assert_allclose(
        panel_data(ws, "heatmap", "mixing").values, grid[0].matrices[0], atol=1e-12
    )
    # Rollout: each layer the mean over its heads of |M| with rows summing to 1.
    n = len(ws.state.tokens)
    want = np.eye(n)
    for row in grid:
        shares = np.abs(row.matrices) / np.abs(row.matrices).sum(axis=2, keepdims=True)
        mixed = 0.5 * shares.mean(axis=0) + 0.5 * np.eye(n)
        want = mixed / mixed.sum(axis=1, keepdims=True) @ want
    cap = real_model.STORE.capture(mamba2, TEXT)
    np.testing.assert_allclose(model_rollout(cap, mamba2, TEXT)[-1], want, atol=1e-12)
    # The prediction: the model's own next-token distribution at the last token.
    model = transformers.AutoModelForCausalLM.from_pretrained(mamba2).eval()
    with torch.no_grad():
        logits = model(torch.tensor([list(cap.ids)])).logits[0, -1].double()
    want_p = torch.softmax(logits, -1).numpy()
    got = panel_data(ws, "prediction", "probabilities")  # a row per vocabulary token
    np.testing.assert_allclose(got.values[:, 0], want_p, atol=1e-6)


def test_no_attention_heads_to_switch_off_is_said_in_one_line(mamba2):
    ws = _workspace(mamba2)
    for name in ("ablation",):
        with pytest.raises(ValueError, match="no attention heads to switch off") as info:
            panel_data(ws, "prediction", name)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError) as info:  # the heads topic: no q, k, v heads here
        panel_data(ws, "heads", "weights")
    assert "not softmax attention" in str(info.value) and "\n" not in str(info.value)


def test_the_heads_panel_says_it_has_no_softmax_heads(mamba2, qtbot):
    from attnviz.ui.panels.heads import HeadsPanel

    ws = _workspace(mamba2)
    panel = HeadsPanel(ws)
    qtbot.addWidget(panel)
    panel.resize(900, 700)
    panel.show()
    panel.set_shown(True)
    qtbot.waitUntil(lambda: "not softmax attention" in panel.summary.text(), timeout=30_000)
    assert not panel.message.isVisible()  # no error line: a state said, not a failure


@pytest.mark.parametrize("family", ["mamba", "falcon_mamba"])
def test_a_mamba_1_model_opens_each_channel_its_proven_selective_scan(tmp_path, family):
    import importlib

    folder = _build(tmp_path, family)
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    if not hasattr(module, "mamba_selective_scan"):
        pytest.skip(f"transformers {transformers.__version__} scans Mamba inline")
    cap = real_model.STORE.capture(folder, TEXT)
    assert cap.layers == () and cap.kinds == ("Mamba", "Mamba")
    found = real_mixing.layer_mixing(folder, TEXT, 1)
    config = transformers.AutoConfig.from_pretrained(folder)
    assert found.heads == config.intermediate_size  # a head per channel of the scan
    for channel in (0, 13, found.heads - 1):
        kind, m = real_mixing.mixing_matrix(folder, TEXT, 1, channel)
        assert kind == "Mamba" and np.all(np.triu(m, 1) == 0)
        np.testing.assert_allclose(hf_mixing.prove_head(found, channel), m)
    # Its prediction is its own: the distribution against transformers' logits.
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = model(torch.tensor([list(cap.ids)])).logits[0, -1].double()
    want = torch.softmax(logits, -1).numpy()
    got = panel_data(_workspace(folder), "prediction", "probabilities")  # a row a token
    np.testing.assert_allclose(got.values[:, 0], want, atol=1e-6)
    real_model.STORE.clear()
    real_mixing.clear()
