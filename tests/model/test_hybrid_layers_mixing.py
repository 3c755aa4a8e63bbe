"""A real hybrid's every layer in the layers panel: its other layers drawn as their proven
mixing matrices, and rollout run through them.

A tiny random Qwen3-Next (Gated DeltaNet, softmax, Gated DeltaNet, softmax): the grid's
Gated DeltaNet rows hold M computed here from the direct float64 recurrence of the kernel's
raw arguments; rollout equals its definition written here from transformers' own eager
weights and those matrices; one pass captures every layer as the per-layer captures do.
"""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core import hf_mixing  # noqa: E402
from attnviz.core.block_pool import block_extreme  # noqa: E402
from attnviz.model import layer_mixing, real_mixing, real_model  # noqa: E402
from attnviz.model.layer_analysis import model_rollout, rollout_through  # noqa: E402
from attnviz.model.panel_data import panel_data  # noqa: E402
from attnviz.model.workspace import Workspace  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _oracle, _tiny  # noqa: E402
from tests.core.test_hf_mixing import _direct_gated_delta, _raw_kernel_call  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hybrid(tmp_path_factory):
    """The tiny Qwen3-Next's folder and, per layer, what the model itself says: eager
    softmax weights (layers 1, 3) or every head's M from the direct recurrence (0, 2)."""
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Qwen3-Next")
    folder = tmp_path_factory.mktemp("qwen3_next_grid")
    _tiny(folder, "qwen3_next")
    loaded = real_model.STORE.model(str(folder))
    ids = list(loaded.tokenize(TEXT)[0])
    eager = _oracle(loaded, ids, (1, 3))
    truth: dict = {1: eager[0], 3: eager[1]}
    for layer in (0, 2):
        raw = _raw_kernel_call(loaded, layer, hf_mixing.GDN_KERNELS)
        heads = raw["value"].shape[2]
        group = heads // raw["query"].shape[2]
        truth[layer] = np.stack(
            [
                _direct_gated_delta(
                    raw["query"][0, :, h // group].numpy(),
                    raw["key"][0, :, h // group].numpy(),
                    raw["g"][0, :, h].double().numpy(),
                    raw["beta"][0, :, h].double().numpy(),
                    bool(raw.get("use_qk_l2norm_in_kernel")),
                )
                for h in range(heads)
            ]
        )
    yield str(folder), truth
    real_model.STORE.clear()
    real_mixing.clear()
    layer_mixing.clear()


def test_one_pass_captures_every_layer_as_the_per_layer_captures_do(hybrid):
    folder, _truth = hybrid
    loaded = real_model.STORE.model(folder)
    both = hf_mixing.capture_mixing_layers(loaded, TEXT, (2, 0))
    assert sorted(both) == [0, 2]
    for layer in (0, 2):
        alone = hf_mixing.capture_mixing(loaded, TEXT, layer)
        for name in ("q", "k", "v", "out"):
            np.testing.assert_array_equal(getattr(both[layer], name), getattr(alone, name))
        np.testing.assert_array_equal(both[layer].gates["beta"], alone.gates["beta"])


def test_the_grid_rows_of_gated_deltanet_layers_are_their_direct_recurrences(hybrid):
    folder, truth = hybrid
    found = layer_mixing.model_mixing(folder, TEXT)
    assert [f is None for f in found] == [False, True, False, True]
    for layer in (0, 2):
        row = found[layer]
        assert row.kind == "Gated DeltaNet" and row.first == 0 and not row.pooled
        assert row.heads == truth[layer].shape[0] == row.matrices.shape[0]
        np.testing.assert_allclose(row.matrices, truth[layer], atol=1e-12, rtol=1e-9)
        assert row.scale == pytest.approx(np.abs(truth[layer]).max())
        assert not row.matrices.flags.writeable
    # At most ``most`` heads are kept, the first ones.
    two = layer_mixing.model_mixing(folder, TEXT, most=1)
    np.testing.assert_array_equal(two[0].matrices, found[0].matrices[:1])


def test_rollout_through_a_hybrid_equals_its_definition(hybrid):
    folder, truth = hybrid
    cap = real_model.STORE.capture(folder, TEXT)
    n = len(cap.ids)
    want, flows = np.eye(n), []
    for layer in range(4):
        a = truth[layer]
        if layer in (0, 2):  # |M| with each row summing to 1, as weights do
            a = np.abs(a) / np.abs(a).sum(axis=2, keepdims=True)
        mixed = 0.5 * a.mean(axis=0) + 0.5 * np.eye(n)
        want = (mixed / mixed.sum(axis=1, keepdims=True)) @ want
        flows.append(want)
    got = model_rollout(cap, folder, TEXT)
    np.testing.assert_allclose(got, np.stack(flows), atol=1e-6)
    np.testing.assert_allclose(got[-1].sum(axis=1), 1.0, atol=1e-12)
    assert rollout_through(cap) == ((0, "Gated DeltaNet"), (2, "Gated DeltaNet"))
    # The export writes the same R, rows and columns the tokens.
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=folder, model_text=TEXT)
    data = panel_data(ws, "layers", "rollout")
    np.testing.assert_allclose(data.values, want, atol=1e-6)


def test_rollout_is_cancelled_between_heads(hybrid):
    from attnviz.core.work import Cancelled

    folder, _truth = hybrid
    layer_mixing.clear()
    cap = real_model.STORE.capture(folder, TEXT)
    with pytest.raises(Cancelled):
        model_rollout(cap, folder, TEXT, cancel=lambda: True)
    with pytest.raises(ValueError, match="folder"):
        model_rollout(cap)


def test_a_head_that_does_not_reproduce_the_kernel_leaves_a_one_line_refusal(hybrid, monkeypatch):
    folder, _truth = hybrid
    layer_mixing.clear()
    real = hf_mixing.MixingLayer.matrix

    def noisy(self, head):  # layer 2's matrices no longer give the kernel's output
        m = real(self, head)
        return m + 0.1 if self.layer == 2 else m

    monkeypatch.setattr(hf_mixing.MixingLayer, "matrix", noisy)
    found = layer_mixing.model_mixing(folder, TEXT)
    layer_mixing.clear()
    assert found[0].matrices is not None and found[2].matrices is None
    assert "does not reproduce" in found[2].refusal and "\n" not in found[2].refusal


def test_block_extreme_keeps_the_value_farthest_from_zero():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(130, 130))
    m[7, 100] = -50.0
    small = block_extreme(m, 64)
    assert small.shape == (64, 64) and small.min() == -50.0
    edges = np.linspace(0, 130, 65).astype(int)
    for i in (0, 31, 63):  # each cell is its block's signed extreme
        for j in (0, 40, 63):
            block = m[edges[i] : edges[i + 1], edges[j] : edges[j + 1]]
            assert small[i, j] == block.flat[np.argmax(np.abs(block))]


def test_a_short_convolution_channel_past_255_is_chosen_and_proven(tmp_path, capsys):
    """LFM2's heads are its channels (the hidden size: 2,048 in LFM2-2.6B): the field takes
    them all, and channel 300 of a 320-wide model exports its proven banded matrix."""
    from attnviz.cli import main
    from tests.core.test_hf_capture import save_word_tokenizer
    from tests.core.test_hf_families_2026 import _config

    if "lfm2" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no LFM2")
    config = _config("lfm2", 2, full_attn_idxs=[1], block_auto_adjust_ff_dim=False, hidden_size=320)
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(config)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_word_tokenizer(tmp_path)
    capsys.readouterr()
    out = tmp_path / "m.npy"
    argv = ["export", "--model", str(tmp_path), "--text", TEXT, "--panel", "heatmap",
            "--set", "attention.layer=0", "--set", "attention.model_head=300",
            "--matrix", "mixing", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    m = np.load(out)
    got = real_mixing.layer_mixing(str(tmp_path), TEXT, 0)
    assert got.heads == 320
    np.testing.assert_allclose(m @ got.v[300], got.out[300], atol=1e-5, rtol=0)
    assert np.count_nonzero(np.tril(m, -config.conv_L_cache)) == 0  # a band of its taps
    argv[10] = "attention.model_head=320"  # one past the last channel: one line
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "outside 0…319" in err[0]
    real_model.STORE.clear()
    real_mixing.clear()


def test_the_layer_shown_exports_every_head_as_its_mixing_matrix(hybrid):
    folder, truth = hybrid
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=folder, model_text=TEXT)
    for layer in range(4):  # Gated DeltaNet: the direct recurrence; softmax: eager weights
        ws.document.attention.update(layer=layer, model_head=0)
        got = panel_data(ws, "layers", "layer_mixing").values
        atol = 1e-12 if layer in (0, 2) else 1e-6
        np.testing.assert_allclose(got, truth[layer], atol=atol, rtol=1e-6)


def test_a_hybrids_other_heads_are_typed_on_their_mixing_matrices(hybrid):
    """Every head gets its types: a Gated DeltaNet head's are those of |M| with each row
    summing to 1, M the direct recurrence; its induction score is read from the same rule
    on the repeated random sequence."""
    from attnviz.core import head_types as ht
    from attnviz.model.head_type_table import TYPES
    from attnviz.model.layer_analysis import model_head_types

    folder, truth = hybrid
    got = model_head_types(folder, TEXT)
    assert got.mixing_layers == (0, 2)
    assert not np.isnan(got.scores[:, :, TYPES.index("previous")]).any()
    for layer in (0, 2):
        shares = np.abs(truth[layer]) / np.abs(truth[layer]).sum(axis=2, keepdims=True)
        for name, score in (
            ("previous", ht.previous_token_score),
            ("self", ht.self_score),
            ("sink", ht.sink_score),
            ("local", ht.local_score),
        ):
            np.testing.assert_allclose(
                got.scores[layer, :, TYPES.index(name)], score(shares), atol=1e-12
            )
    # Induction: M of the repeat, through the same proven path, as shares.
    repeat = layer_mixing.model_mixing(folder, got.induction_text)[0].matrices
    ids = list(real_model.STORE.capture(folder, got.induction_text).ids)
    shares = np.stack([layer_mixing.abs_rows(m) for m in repeat])
    np.testing.assert_allclose(
        got.scores[0, :, TYPES.index("induction")], ht.induction_score(shares, ids), atol=1e-12
    )


def test_past_512_tokens_the_grid_keeps_each_heads_m_pooled_by_its_signed_extremes(tmp_path):
    """A long sentence keeps no n × n matrix a head in the grid: each proven M is pooled to
    64 × 64 cells, each the block's entry farthest from 0 (a sharp link either way stays)."""
    from tests.core.test_hf_capture import save_word_tokenizer
    from tests.core.test_hf_families_2026 import FAMILIES_2026

    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Qwen3-Next")
    config = FAMILIES_2026["qwen3_next"][0]()
    config.max_position_embeddings = 1024
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(config)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_word_tokenizer(tmp_path)
    folder, text = str(tmp_path), " ".join([TEXT] * 60)
    n = len(real_model.STORE.capture(folder, text).ids)
    assert n > 512
    found = layer_mixing.model_mixing(folder, text, most=2)
    row = found[0]
    assert row.pooled and row.matrices.shape == (2, 64, 64)
    for head in range(2):
        m = real_mixing.mixing_matrix(folder, text, 0, head)[1]  # proven, whole
        edges = np.linspace(0, n, 65).astype(int)
        for i, j in ((0, 0), (31, 17), (63, 63)):
            block = m[edges[i] : edges[i + 1], edges[j] : edges[j + 1]]
            assert row.matrices[head, i, j] == block.flat[np.argmax(np.abs(block))]
    assert row.scale == pytest.approx(
        max(np.abs(real_mixing.mixing_matrix(folder, text, 0, h)[1]).max() for h in range(2))
    )
    real_model.STORE.clear()
    real_mixing.clear()
    layer_mixing.clear()
