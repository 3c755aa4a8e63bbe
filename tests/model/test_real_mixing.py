"""``--matrix mixing`` at any layer and head of a real hybrid, through the document and the CLI.

A tiny random Qwen3-Next (Gated DeltaNet, softmax, Gated DeltaNet, softmax) is built here:
its Gated DeltaNet layers export the M whose product with the kernel's values is the
kernel's own output, its softmax layers the model's eager weights; asking for the weights,
scores or output of a Gated DeltaNet layer is refused in one line naming its kind.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core.hf_mixing import GDN_KERNELS  # noqa: E402
from attnviz.model import real_mixing, real_model  # noqa: E402
from attnviz.model.fields import StateError  # noqa: E402
from attnviz.model.panel_data import panel_data  # noqa: E402
from attnviz.model.workspace import Workspace  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _oracle, _tiny  # noqa: E402
from tests.core.test_hf_mixing import SCAN_ARGS, _conv_hooks, _raw_kernel_call  # noqa: E402

pytestmark = pytest.mark.slow
KINDS = ("Gated DeltaNet", "softmax (gated output)") * 2


@pytest.fixture(scope="module")
def qwen3_next(tmp_path_factory):
    """The tiny Qwen3-Next's folder, and per layer what the model itself computes: the
    kernel's values and output (Gated DeltaNet) or the eager weights (softmax)."""
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Qwen3-Next")
    folder = tmp_path_factory.mktemp("qwen3_next")
    _tiny(folder, "qwen3_next")
    loaded = real_model.STORE.model(str(folder))
    ids = list(loaded.tokenize(TEXT)[0])
    eager = _oracle(loaded, ids, (1, 3))
    truth = {1: eager[0], 3: eager[1]}
    for layer in (0, 2):
        raw = _raw_kernel_call(loaded, layer, GDN_KERNELS)
        truth[layer] = tuple(
            raw[n][0].double().numpy().transpose(1, 0, 2) for n in ("value", "out")
        )
    yield str(folder), truth
    real_model.STORE.clear()
    real_mixing.clear()


def _workspace(folder: str) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=folder, model_text=TEXT)
    return ws


def test_the_cli_exports_the_mixing_matrix_of_every_layer_and_head(tmp_path, qwen3_next):
    from attnviz.cli import main

    folder, truth = qwen3_next
    for layer in range(4):
        for head in (0, 3):
            out = tmp_path / f"m{layer}{head}.npy"
            argv = ["export", "--model", folder, "--text", TEXT, "--panel", "heatmap",
                    "--set", f"attention.layer={layer}", "--set", f"attention.model_head={head}",
                    "--matrix", "mixing", "--out", str(out)]  # fmt: skip
            assert main(argv) == 0
            m = np.load(out)
            if KINDS[layer] == "Gated DeltaNet":
                v, kernel_out = truth[layer]
                np.testing.assert_allclose(m @ v[head], kernel_out[head], atol=1e-5, rtol=0)
            else:  # a softmax layer's M is its weights, the model's own
                np.testing.assert_allclose(m, truth[layer][head], atol=1e-5)
    csv = tmp_path / "m.csv"
    argv = ["export", "--model", folder, "--text", TEXT, "--set", "attention.layer=2",
            "--matrix", "mixing", "--out", str(csv)]  # fmt: skip
    assert main(argv) == 0
    assert csv.read_text().startswith("M: query \\ column,")


@pytest.mark.parametrize("matrix", ["weights", "scores", "output"])
@pytest.mark.parametrize("ext", ["csv", "png"])
def test_softmax_matrices_of_a_gated_deltanet_layer_are_refused_in_one_line(
    tmp_path, capsys, qwen3_next, matrix, ext
):
    from attnviz.cli import main

    folder, _truth = qwen3_next
    out = str(tmp_path / f"x.{ext}")
    argv = ["export", "--model", folder, "--text", TEXT, "--panel", "heatmap", "--set",
            "attention.layer=2", "--matrix", matrix, "--out", out]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "layer 2" in err[0] and "Gated DeltaNet" in err[0] and f"no attention {matrix}" in err[0]
    assert not (tmp_path / f"x.{ext}").exists()


def test_the_topic_shows_a_gated_deltanet_layer_as_its_mixing_matrix_only(qwen3_next):
    folder, truth = qwen3_next
    ws = _workspace(folder)
    state = ws.document.attention
    assert state.layer == 1 and state.matrix == "weights"  # the first softmax layer
    state.update(layer=0, model_head=2)
    assert state.matrix == "mixing"  # a Gated DeltaNet layer shows its M, never weights
    v, kernel_out = truth[0]
    np.testing.assert_allclose(state.v, v[2], atol=0)
    m = ws.resolver.results.matrix("mixing")
    assert ws.resolver.results.mixing_kind == "Gated DeltaNet"
    np.testing.assert_allclose(m @ v[2], kernel_out[2], atol=1e-5, rtol=0)
    before = state.snapshot()
    with pytest.raises(StateError, match="Gated DeltaNet layer, not softmax"):
        state.update(matrix="weights")
    assert state.matrix == "mixing" and state.snapshot().keys() == before.keys()
    with pytest.raises(ValueError, match="Gated DeltaNet"):
        panel_data(ws, "heatmap", "scores")
    state.update(layer=3, model_head=1)  # a softmax layer: M is the model's weights
    assert state.matrix == "mixing"
    np.testing.assert_allclose(ws.resolver.results.matrix("mixing"), truth[3][1], atol=1e-5)
    np.testing.assert_allclose(panel_data(ws, "heatmap", "mixing").values, truth[3][1], atol=1e-5)
    state.update(matrix="weights")  # allowed here
    np.testing.assert_allclose(panel_data(ws, "heatmap", "weights").values, truth[3][1], atol=1e-5)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["layer", "model_head", "matrix", "both"]),
            st.integers(-1, 5),
            st.sampled_from(["scores", "weights", "output", "mixing"]),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_random_layer_head_and_matrix_events_keep_a_proven_mixing_matrix(qwen3_next, events):
    """Whatever order layers, heads and matrices are asked in: each update is taken or
    refused in one line with nothing changed, and what is shown is always true — a Gated
    DeltaNet layer is at ``mixing`` with M @ v the kernel's output, no softmax matrix of
    it can be read."""
    folder, truth = qwen3_next
    ws = _workspace(folder)
    state = ws.document.attention
    for what, number, matrix in events:
        change = {"layer": {"layer": number}, "model_head": {"model_head": number},
                  "matrix": {"matrix": matrix},
                  "both": {"layer": number, "matrix": matrix}}[what]  # fmt: skip
        before = state.snapshot()
        try:
            state.update(**change)
        except StateError as exc:
            assert "\n" not in str(exc)
            after = state.snapshot()
            assert all(np.array_equal(after[k], before[k]) for k in ("q", "k", "v"))
            assert (after["layer"], after["model_head"], after["matrix"]) == (
                before["layer"], before["model_head"], before["matrix"])  # fmt: skip
        layer, head = state.layer, state.model_head
        m = panel_data(ws, "heatmap", "mixing").values
        assert m.shape == (13, 13) and np.all(np.triu(m, 1) == 0)
        if KINDS[layer] == "Gated DeltaNet":
            assert state.matrix == "mixing"
            v, kernel_out = truth[layer]
            np.testing.assert_allclose(m @ v[head], kernel_out[head], atol=1e-5, rtol=0)
            with pytest.raises(ValueError, match="Gated DeltaNet"):
                panel_data(ws, "heatmap", "weights")
        else:
            np.testing.assert_allclose(m, truth[layer][head], atol=1e-5)


@pytest.fixture(scope="module")
def falcon_h1(tmp_path_factory):
    """The tiny Falcon-H1 (4 attention heads beside 8 SSM heads in each layer): its
    eager weights and its scan's x and output, per layer."""
    if "falcon_h1" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Falcon-H1")
    folder = tmp_path_factory.mktemp("falcon_h1")
    _tiny(folder, "falcon_h1")
    loaded = real_model.STORE.model(str(folder))
    module = sys.modules[type(loaded.text_model.layers[0].mamba).__module__]
    if not hasattr(module, "mamba2_chunk_scan"):
        pytest.skip(f"transformers {transformers.__version__} scans Mamba-2 inline")
    ids = list(loaded.tokenize(TEXT)[0])
    eager = _oracle(loaded, ids, (0, 1))
    scans = [
        _raw_kernel_call(loaded, layer, ("mamba2_chunk_scan",), "mamba", SCAN_ARGS)
        for layer in (0, 1)
    ]
    yield str(folder), eager, scans
    real_model.STORE.clear()
    real_mixing.clear()


def test_attention_heads_come_first_then_the_ssm_heads_beside_them(tmp_path, capsys, falcon_h1):
    from attnviz.cli import main

    folder, eager, scans = falcon_h1
    for layer in (0, 1):
        x, out = (
            scans[layer][n][0].double().numpy().transpose(1, 0, 2) for n in ("hidden_states", "out")
        )
        attention = eager[layer].shape[0]
        assert (attention, x.shape[0]) == (4, 8)
        for head in (0, 3, 4, 11):
            path = tmp_path / f"m{layer}{head}.npy"
            argv = ["export", "--model", folder, "--text", TEXT, "--panel", "heatmap",
                    "--set", f"attention.layer={layer}", "--set", f"attention.model_head={head}",
                    "--matrix", "mixing", "--out", str(path)]  # fmt: skip
            assert main(argv) == 0
            m = np.load(path)
            if head < attention:
                np.testing.assert_allclose(m, eager[layer][head], atol=1e-5)
            else:
                ssm = head - attention
                np.testing.assert_allclose(m @ x[ssm], out[ssm], atol=1e-5, rtol=0)
    capsys.readouterr()
    out = str(tmp_path / "w.csv")
    argv = ["export", "--model", folder, "--text", TEXT, "--panel", "heatmap", "--set",
            "attention.model_head=5", "--matrix", "weights", "--out", out]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "head 5 of layer 0" in err[0] and "a Mamba-2 head" in err[0]
    ws = _workspace(folder)
    ws.state.update(layer=1, model_head=9)
    assert ws.state.matrix == "mixing" and ws.resolver.results.mixing_kind == "Mamba-2"
    with pytest.raises(StateError, match="model_head 12 is outside 0…11"):
        ws.state.update(model_head=12)


def test_a_layer_that_mixes_no_tokens_is_refused_in_one_line(capsys, tmp_path):
    from attnviz.cli import main

    if "nemotron_h" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Nemotron-H")
    _tiny(tmp_path, "nemotron_h")  # Mamba-2, softmax, MLP only, softmax
    out = str(tmp_path / "m.csv")
    argv = ["export", "--model", str(tmp_path), "--text", TEXT, "--panel", "heatmap",
            "--set", "attention.layer=2", "--matrix", "mixing", "--out", out]  # fmt: skip
    with pytest.raises(SystemExit):
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "layer 2 mixes no tokens" in err[0]
    real_model.STORE.clear()


def test_a_short_convolution_channel_exports_its_banded_matrix(tmp_path, capsys):
    from attnviz.cli import main

    if "lfm2" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no LFM2")
    folder = tmp_path / "lfm2"
    _tiny(folder, "lfm2")  # short convolution, softmax, short convolution, softmax
    seen = _conv_hooks(real_model.STORE.model(str(folder)), 2)
    capsys.readouterr()  # the folder's writing
    out = tmp_path / "m.npy"
    argv = ["export", "--model", str(folder), "--text", TEXT, "--panel", "heatmap", "--set",
            "attention.layer=2", "--set", "attention.model_head=7", "--matrix", "mixing",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    m = np.load(out)
    np.testing.assert_allclose(m @ seen["x"][7], seen["y"][7], atol=1e-5, rtol=0)
    assert np.count_nonzero(np.tril(m, -3)) == 0  # a band of the kernel's 3 taps
    argv[-4:] = ["--matrix", "weights", "--out", str(tmp_path / "w.csv")]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "short convolution layer" in err[0]
    real_model.STORE.clear()
    real_mixing.clear()


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(st.integers(-1, 2), st.integers(-1, 13), st.sampled_from(["weights", "mixing"])),
        min_size=1,
        max_size=6,
    )
)
def test_random_heads_of_attention_beside_ssm_stay_true(falcon_h1, events):
    """Random layer, head and matrix events on Falcon-H1: taken or refused in one line;
    an attention head's M is its eager weights, an SSM head (numbered after them) is
    shown as mixing only, its M @ x the scan's output."""
    folder, eager, scans = falcon_h1
    ws = _workspace(folder)
    state = ws.document.attention
    for layer, head, matrix in events:
        try:
            state.update(layer=layer, model_head=head, matrix=matrix)
        except StateError as exc:
            assert "\n" not in str(exc)
        layer, head = state.layer, state.model_head
        m = panel_data(ws, "heatmap", "mixing").values
        if head < 4:
            np.testing.assert_allclose(m, eager[layer][head], atol=1e-5)
        else:
            assert state.matrix == "mixing"
            x, out = (
                scans[layer][n][0].double().numpy()[:, head - 4] for n in ("hidden_states", "out")
            )
            np.testing.assert_allclose(m @ x, out, atol=1e-5, rtol=0)


def test_softmax_panels_refuse_a_gated_deltanet_head_in_one_line(qwen3_next):
    """Steps, gradient, entropy and the head's score spread put q and k through a softmax:
    at a Gated DeltaNet layer their arrays and pictures are refused naming the kind; at a
    softmax layer they are the head's."""
    from attnviz.model.panel_data import data_names, picture_refusal

    folder, _truth = qwen3_next
    ws = _workspace(folder)
    ws.state.update(layer=0, model_head=1)
    for panel, names in (("steps", None), ("gradient", None), ("entropy", None),
                         ("spread", ("head",))):  # fmt: skip
        for name in names or data_names(panel):
            with pytest.raises(ValueError) as info:
                panel_data(ws, panel, name)
            text = str(info.value)
            assert "\n" not in text and "Gated DeltaNet, not softmax attention" in text
        assert "Gated DeltaNet" in picture_refusal(ws, panel)
    assert panel_data(ws, "spread", "spread").values.shape[0] > 0  # synthetic: not the head's
    assert picture_refusal(ws, "heatmap") is None  # the heatmap draws M
    ws.state.update(layer=1)
    assert picture_refusal(ws, "steps") is None
    np.testing.assert_allclose(
        panel_data(ws, "steps", "weights").values[0],
        ws.resolver.results.attention.weights[ws.state.selected_query],
    )
