"""The long map of a hybrid's non-softmax head: its proven mixing matrix M, pooled signed.

Tiny random hybrids are built here — Qwen3-Next (Gated DeltaNet, softmax, …), Bamba
(Mamba-2, softmax, …), LFM2 (short convolution, softmax, …) and Jamba (Mamba, softmax, …).
Each map is compared with M pooled in this test (the block mean, and the entry farthest
from 0 found by argmax of |M|), each zoomed block with M's slice; the Qwen3-Next M also
against the model's own kernel output (M @ v), its softmax layer against transformers'
eager weights.
"""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

from attnviz.core.hf_mixing import GDN_KERNELS  # noqa: E402
from attnviz.model import real_mixing, real_model  # noqa: E402
from attnviz.model.panel_data import panel_data  # noqa: E402
from attnviz.model.resolve import _long_model  # noqa: E402
from attnviz.model.resolve import long as long_model  # noqa: E402
from attnviz.model.workspace import Workspace  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _oracle, _tiny  # noqa: E402
from tests.core.test_hf_mixing import _raw_kernel_call  # noqa: E402

pytestmark = pytest.mark.slow
#: family → (its first non-softmax layer's kind, that layer, a softmax layer).
HYBRIDS = {
    "qwen3_next": ("Gated DeltaNet", 0, 1),
    "bamba": ("Mamba-2", 0, 1),
    "lfm2": ("short convolution", 0, 1),
    "jamba": ("Mamba", 0, 1),
}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A folder per family, built once; the caches forgotten after the module."""
    made = {}

    def get(family: str) -> str:
        if family not in made:
            if family not in transformers.CONFIG_MAPPING:
                pytest.skip(f"transformers {transformers.__version__} has no {family}")
            folder = tmp_path_factory.mktemp(family)
            _tiny(folder, family)
            made[family] = str(folder)
        return made[family]

    yield get
    real_model.STORE.clear()
    real_mixing.clear()


def _workspace(folder: str, layer: int, head: int) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=folder, model_text=TEXT)
    ws.document.attention.update(layer=layer, model_head=head)
    return ws


def pooled(m: np.ndarray, bins: int, reduce: str) -> np.ndarray:
    """M pooled as the map is, written here: numpy.array_split groups, each cell the
    block's mean or its entry of largest |M| (argmax of |M|)."""
    groups = np.array_split(np.arange(m.shape[0]), bins)
    out = np.empty((bins, bins))
    for a, r in enumerate(groups):
        for b, c in enumerate(groups):
            block = m[np.ix_(r, c)].ravel()
            out[a, b] = block.mean() if reduce == "mean" else block[np.argmax(np.abs(block))]
    return out


@pytest.mark.parametrize("family", sorted(HYBRIDS))
def test_the_map_and_the_zoom_are_the_heads_proven_mixing_matrix(folders, family):
    kind, layer, softmax_layer = HYBRIDS[family]
    folder = folders(family)
    ws = _workspace(folder, layer, 1)
    resolver = ws.resolver_for("long")
    m = real_mixing.mixing_matrix(folder, TEXT, layer, 1)[1]
    n = m.shape[0]
    assert np.any(m < 0) or kind == "Mamba-2", "a signed M tests the signed extreme"
    for bins in (4, 5, n):
        for reduce in ("mean", "max"):
            ws.document.long.update(head="model", bins=bins, reduce=reduce)
            res = resolver.results
            assert res.source.kind == kind and res.values["n"] == n
            ov = resolver.overview_now()
            assert ov.signed and ov.kind == kind and ov.map.shape == (bins, bins)
            np.testing.assert_allclose(ov.map, pooled(m, bins, reduce), atol=1e-12, rtol=0)
    # Every zoomed block is M's slice; a zoomed region pooled the same signed way.
    np.testing.assert_array_equal(long_model.exact_block(ov, 0, n, 0, n), m)
    np.testing.assert_array_equal(long_model.exact_block(ov, 2, 7, 1, 4), m[2:7, 1:4])
    for reduce in ("mean", "max"):
        region = long_model.region_map(ov, 0, n, 0, n, 3, reduce)
        np.testing.assert_allclose(region, pooled(m, 3, reduce), atol=1e-12, rtol=0)
    detail = long_model.zoom_detail(ov, (3, 9, 0, 6), 4, "max")
    assert detail.exact
    np.testing.assert_array_equal(detail.values, m[3:9, 0:6])
    ws.document.long.update(rows=(3, 7), cols=(0, 5))
    block = panel_data(ws, "overview", "block")
    np.testing.assert_array_equal(block.values, m[3:7, 0:5])
    assert kind in block.corner and block.rows[0] == "3"
    # A softmax layer of the same hybrid maps its weights again (unsigned).
    ws.document.long.update(rows=(), cols=(), bins=4, reduce="max")
    ws.document.attention.update(layer=softmax_layer, model_head=0)
    ov = resolver.overview_now()
    weights = real_mixing.mixing_matrix(folder, TEXT, softmax_layer, 0)[1]
    assert not ov.signed and resolver.results.source.kind == ""
    groups = np.array_split(np.arange(n), 4)
    want = np.array([[weights[np.ix_(r, c)].max() for c in groups] for r in groups])
    np.testing.assert_allclose(ov.map, want, atol=1e-5)


def test_the_gated_deltanet_map_reproduces_the_kernel_and_the_softmax_layer_transformers(
    folders,
):
    """Against the model itself: the M the map pools, times the kernel's values, is the
    kernel's output; the softmax layer's map is transformers' eager weights."""
    folder = folders("qwen3_next")
    loaded = real_model.STORE.model(folder)
    raw = _raw_kernel_call(loaded, 2, GDN_KERNELS)
    v, out = (raw[n][0].double().numpy().transpose(1, 0, 2) for n in ("value", "out"))
    eager = _oracle(loaded, list(loaded.tokenize(TEXT)[0]), (1, 3))[1]
    ws = _workspace(folder, 2, 3)
    n = v.shape[1]
    ws.document.long.update(head="model", bins=n, reduce="mean")
    resolver = ws.resolver_for("long")
    m = resolver.overview_now().map  # bins = n: every cell one entry of M
    np.testing.assert_allclose(m @ v[3], out[3], atol=1e-5, rtol=0)
    ws.document.attention.update(layer=3, model_head=2)
    np.testing.assert_allclose(resolver.overview_now().map, eager[2], atol=1e-5)


def test_the_estimates_count_m_and_its_capture(folders, monkeypatch):
    folder = folders("qwen3_next")
    ws = _workspace(folder, 0, 1)
    ws.document.long.update(head="model", bins=4)
    res = ws.resolver_for("long").results
    n, d = res.values["n"], res.values["d_k"]
    found = real_mixing.layer_mixing(folder, TEXT, 0)
    capture = sum(a.nbytes for a in (found.q, found.k, found.v, found.out, *found.gates.values()))
    assert res.values["mixing_capture_bytes"] == capture > 0
    assert res.need_bytes == _long_model.mixing_bytes(n, capture, 4)
    assert res.need_bytes >= 8 * n * n + capture
    widths = []
    monkeypatch.setattr(long_model, "_cell_seconds", lambda w, dtype: widths.append(w) or 1e-9)
    seconds = long_model.overview_seconds(res.values)
    assert widths == [max(d, _long_model.MIXING_WIDTH)]
    assert seconds == pytest.approx(_long_model.MIXING_CELL_SHARE["Gated DeltaNet"] * n * n * 1e-9)
    ws.document.attention.update(layer=1, model_head=0)  # softmax: the row blocks' share
    values = ws.resolver_for("long").results.values
    assert values["mixing_kind"] == ""
    assert long_model.overview_seconds(values) == pytest.approx(
        _long_model.MODEL_CELL_SHARE * n * n * 1e-9
    )


def test_q_and_k_say_what_they_are_or_are_refused_in_one_line(folders, tmp_path, capsys):
    folder = folders("bamba")
    ws = _workspace(folder, 0, 2)
    ws.document.long.update(head="model", bins=4)
    q, k = panel_data(ws, "overview", "q"), panel_data(ws, "overview", "k")
    np.testing.assert_array_equal(q.values, ws.document.attention.q)
    np.testing.assert_array_equal(k.values, ws.document.attention.k)
    assert "C, its scan's output matrix" in q.corner and "Mamba-2" in q.corner
    assert "B, its scan's input matrix" in k.corner
    overview = panel_data(ws, "overview", "overview")
    assert "M (Mamba-2)" in overview.corner and "mean" in overview.corner
    ws = _workspace(folders("jamba"), 0, 2)  # a Mamba channel: no q or k of its own
    ws.document.long.update(head="model", bins=4)
    for name in ("q", "k"):
        with pytest.raises(ValueError) as info:
            panel_data(ws, "overview", name)
        assert "\n" not in str(info.value) and f"Mamba head has no {name}" in str(info.value)
    assert panel_data(ws, "overview", "overview").values.shape == (4, 4)
    from attnviz.cli import main

    out = tmp_path / "q.csv"
    argv = ["export", "--model", folders("jamba"), "--text", TEXT, "--set", "attention.layer=0",
            "--set", "long.head=model", "--panel", "overview", "--matrix", "q",
            "--out", str(out)]  # fmt: skip
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a Mamba head has no q of its own" in err[0] and not out.exists()


def test_the_cli_exports_the_long_map_of_a_gated_deltanet_layer(folders, tmp_path, capsys):
    from attnviz.cli import main

    folder = folders("qwen3_next")
    m = real_mixing.mixing_matrix(folder, TEXT, 2, 1)[1]
    argv = ["export", "--model", folder, "--text", TEXT, "--set", "attention.head=model",
            "--set", "attention.layer=2", "--set", "attention.model_head=1",
            "--set", "long.head=model", "--set", "long.bins=4", "--set", "long.reduce=max",
            "--panel", "overview"]  # fmt: skip
    out = tmp_path / "o.npy"
    assert main([*argv, "--out", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), pooled(m, 4, "max"), atol=1e-12, rtol=0)
    csv = tmp_path / "o.csv"
    assert main([*argv, "--out", str(csv)]) == 0
    assert csv.read_text().startswith("M (Gated DeltaNet) largest |M| of each block")
    block = tmp_path / "b.npy"
    zoom = ["--set", "long.rows=[2, 9]", "--set", "long.cols=[0, 5]", "--matrix", "block"]
    assert main([*argv, *zoom, "--out", str(block)]) == 0
    np.testing.assert_array_equal(np.load(block), m[2:9, 0:5])
    png = tmp_path / "o.png"
    assert main([*argv, "--out", str(png), "--width", "640", "--height", "480"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    argv[argv.index("attention.layer=2")] = "attention.layer=3"  # softmax: weights again
    assert main([*argv, "--out", str(out)]) == 0
    weights = real_mixing.mixing_matrix(folder, TEXT, 3, 1)[1]
    assert np.all(np.load(out) >= 0) and np.load(out).max() <= weights.max() + 1e-12


def test_a_mixing_matrix_that_does_not_fit_is_refused_in_one_line(folders, monkeypatch):
    from attnviz.core import memory_guard

    ws = _workspace(folders("qwen3_next"), 0, 1)
    ws.document.long.update(head="model", bins=4)
    need = ws.resolver_for("long").results.need_bytes
    monkeypatch.setattr(memory_guard, "available_bytes", lambda backend="numpy": need // 2)
    with pytest.raises(memory_guard.MemoryRefused) as info:
        ws.resolver_for("long").overview_now()
    assert "\n" not in str(info.value) and "Gated DeltaNet" in str(info.value)
    monkeypatch.setattr(memory_guard, "available_bytes", lambda backend="numpy": 4 * need)
    assert ws.resolver_for("long").overview_now().signed
