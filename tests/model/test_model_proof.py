"""Every real head is proven before it is shown: attnviz's weights must be the model's."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from attnviz.core.attention import softmax
from attnviz.core.hf_capture import Capture, LayerCapture, ModelError
from attnviz.core.masks import causal_mask, sliding_window_mask
from attnviz.model.model_proof import TOLERANCE, layer_difference, prove_capture

N, D, H, H_KV = 6, 4, 4, 2


def _layer(
    rng,
    allowed,
    *,
    scaling=D**-0.5,
    softcap=None,
    window=None,
    weights=None,
    alibi=None,
    sinks=None,
    record=True,
):
    """A layer whose weights are computed as a model would; ``record=False`` leaves its
    cap, slopes and sinks out of the capture (a term the capture did not see)."""
    q = rng.normal(size=(H, N, D)).astype(np.float32)
    k = rng.normal(size=(H_KV, N, D)).astype(np.float32)
    v = rng.normal(size=(H_KV, N, D)).astype(np.float32)
    if weights is None:
        kk = np.repeat(k, H // H_KV, axis=0).astype(np.float64)
        s = np.einsum("hid,hjd->hij", q.astype(np.float64), kk) * scaling
        if softcap:
            s = softcap * np.tanh(s / softcap)
        if alibi is not None:  # as BLOOM adds it: slope · key position
            s = s + alibi[:, None, None] * np.arange(N)[None, None, :]
        s = np.where(allowed, s, -np.inf)
        if sinks is not None:  # as gpt-oss: a column of sink logits, dropped after
            col = np.broadcast_to(sinks[:, None, None], (H, N, 1))
            weights = softmax(np.concatenate([s, col], -1))[..., :-1].astype(np.float32)
        else:
            weights = softmax(s).astype(np.float32)
    if not record:
        softcap = alibi = sinks = None
    return LayerCapture(q, k, v, weights, allowed, scaling, softcap, window, alibi, sinks)


def _capture(layers) -> Capture:
    return Capture(
        "tiny",
        "/tiny",
        "t",
        "decoder",
        tuple("abcdef"),
        (False,) * N,
        tuple(range(N)),
        tuple(layers),
        H,
        H_KV,
        D,
        H * D,
    )


def test_the_models_own_weights_pass():
    rng = np.random.default_rng(0)
    cap = _capture(
        [
            _layer(rng, np.ones((N, N), bool)),
            _layer(rng, causal_mask(N)),
            _layer(rng, sliding_window_mask(N, 3), window=3),
            _layer(rng, causal_mask(N), scaling=0.2),  # a scale of its own: a temperature
        ]
    )
    prove_capture(cap)
    assert all(layer_difference(cap, i)[0] < 1e-6 for i in range(4))


def test_an_altered_capture_is_refused_naming_the_layer_and_head():
    rng = np.random.default_rng(1)
    good = _layer(rng, causal_mask(N))
    bad_w = good.weights.copy()
    bad_w[3, 4, 0] += 2 * TOLERANCE
    bad = LayerCapture(good.q, good.k, good.v, bad_w, good.allowed, good.scaling)
    with pytest.raises(ModelError) as info:
        prove_capture(_capture([good, bad]))
    message = str(info.value)
    assert "layer 1, head 3" in message and "2.0e-04" in message
    assert "\n" not in message


@pytest.mark.parametrize("where", [(3, 0, 5), (2, 5, 0)])  # a future key; before a window
def test_a_weight_where_attnviz_draws_zero_is_refused(monkeypatch, where):
    """A block is computed over the keys its rows may see; a weight the model puts outside
    them (read, not computed) still refuses."""
    from attnviz.model import model_proof

    monkeypatch.setattr(model_proof, "BLOCK_ROWS", 2)
    rng = np.random.default_rng(4)
    allowed = sliding_window_mask(N, 3) if where[1] == 5 else causal_mask(N)
    good = _layer(rng, allowed, window=3 if where[1] == 5 else None)
    prove_capture(_capture([good]))  # the model's own: every block passes
    bad_w = good.weights.copy()
    bad_w[where] = 3 * TOLERANCE
    bad = LayerCapture(
        good.q, good.k, good.v, bad_w, good.allowed, good.scaling, window=good.window
    )
    with pytest.raises(ModelError, match=f"layer 0, head {where[0]}.*3.0e-04"):
        prove_capture(_capture([bad]))


def test_a_mask_attnviz_cannot_draw_is_refused_and_named():
    rng = np.random.default_rng(2)
    odd = causal_mask(N)
    odd[4, 1] = False  # one key hidden from one query: no window, no mask the topic has
    with pytest.raises(ModelError, match="layer 0.*cannot draw"):
        prove_capture(_capture([_layer(rng, odd, window=2)]))


def test_capping_alibi_and_sinks_are_drawn_exactly():
    rng = np.random.default_rng(3)
    slopes = np.array([0.5, 0.25, 0.125, 0.0625])
    sinks = np.array([0.3, -1.0, 2.0, 0.0])
    cap = _capture(
        [
            _layer(rng, causal_mask(N), scaling=1.0, softcap=1.0),  # a cap that bites
            _layer(rng, causal_mask(N), alibi=slopes),
            _layer(rng, causal_mask(N), sinks=sinks),
            _layer(rng, sliding_window_mask(N, 3), window=3, softcap=2.0, sinks=sinks),
        ]
    )
    prove_capture(cap)
    assert all(layer_difference(cap, i)[0] < 1e-6 for i in range(4))


@pytest.mark.parametrize(
    "term",
    [
        {"softcap": 1.0, "scaling": 1.0},
        {"alibi": np.array([0.5, 0.25, 0.125, 0.0625])},
        {"sinks": np.array([1.0, 2.0, 0.5, 1.5])},
    ],
)
def test_a_term_the_capture_did_not_see_is_refused(term):
    rng = np.random.default_rng(3)
    layer = _layer(rng, causal_mask(N), record=False, **term)
    with pytest.raises(ModelError, match="layer 0.*not q·kᵀ times one scale"):
        prove_capture(_capture([layer]))


def test_non_finite_weights_are_refused():
    rng = np.random.default_rng(4)
    good = _layer(rng, causal_mask(N))
    nan = good.weights.copy()
    nan[0, 2, 1] = np.nan
    bad = LayerCapture(good.q, good.k, good.v, nan, good.allowed, good.scaling)
    with pytest.raises(ModelError, match="layer 0, head 0"):
        prove_capture(_capture([bad]))


@pytest.mark.slow
def test_a_config_that_leaves_out_the_class_default_cap_is_shown_exactly(tmp_path):
    """Gemma 2 caps its scores at 50 by its class default even when config.json says
    nothing: the capture records the cap the model applies, and the heads are its own."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from attnviz.model.real_model import ModelStore
    from tests.core.test_hf_capture import WORDS, save_word_tokenizer

    torch.manual_seed(0)
    config = transformers.Gemma2Config(
        vocab_size=len(WORDS) + 2,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        max_position_embeddings=64,
        bos_token_id=1,
        attn_logit_softcapping=50.0,
        query_pre_attn_scalar=8,
    )
    model = transformers.AutoModel.from_config(config)
    with torch.no_grad():  # large weights: scores far past the cap's linear range
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 6.0)
    model.save_pretrained(str(tmp_path), safe_serialization=True)
    save_word_tokenizer(tmp_path)
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg.pop("attn_logit_softcapping")
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    capture = ModelStore().capture(str(tmp_path), "the cat sat on the river bank")
    assert all(lc.softcap == 50.0 for lc in capture.layers)
    # The cap bites: without it the weights would differ from the model's.
    lc = capture.layers[0]
    q, k = lc.q[3].astype(np.float64), lc.k[1].astype(np.float64)
    free = softmax(np.where(lc.allowed, (q @ k.T) * lc.scaling, -np.inf))
    assert np.max(np.abs(free - lc.weights[3])) > 1e-2
    assert layer_difference(capture, 0)[0] < 1e-5


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", [0, 1, 3])
@pytest.mark.parametrize("window_causal", [False, True])
def test_the_proofs_mask_is_the_resolvers(causal, window, window_causal):
    from attnviz.model.model_proof import topic_mask
    from attnviz.model.resolve.attention import mask_from_key

    n = 7
    key = (n, causal, (True,) * n, (0,) * n, window, window_causal)
    ours, theirs = topic_mask(causal, window, n, window_causal), mask_from_key(key)
    full = np.ones((n, n), bool)
    np.testing.assert_array_equal(
        full if ours is None else ours, full if theirs is None else theirs
    )


def test_a_window_that_looks_both_ways_is_drawn_and_passes():
    rng = np.random.default_rng(5)
    both = sliding_window_mask(N, 2, causal=False)
    prove_capture(_capture([_layer(rng, both, window=2)]))


# --- the quick measure, and what it is trusted with --------------------------------------
def _layers_of_every_kind(rng):
    """One layer of each kind the topic draws: every pair, causal, windows, a scale of its
    own, capping, ALiBi, sinks, and a multi-head one (as many KV heads as query heads)."""
    slopes = np.array([0.5, 0.25, 0.125, 0.0625])
    sinks = np.array([0.3, -1.0, 2.0, 0.0])
    layers = [
        _layer(rng, np.ones((N, N), bool)),
        _layer(rng, causal_mask(N)),
        _layer(rng, sliding_window_mask(N, 3), window=3),
        _layer(rng, sliding_window_mask(N, 2, causal=False), window=2),
        _layer(rng, causal_mask(N), scaling=0.2),
        _layer(rng, causal_mask(N), scaling=1.0, softcap=1.0),
        _layer(rng, causal_mask(N), alibi=slopes),
        _layer(rng, causal_mask(N), sinks=sinks),
        _layer(rng, sliding_window_mask(N, 3), window=3, softcap=2.0, sinks=sinks),
        _layer(rng, causal_mask(N), scaling=150.0),  # logits past float32's limit
    ]
    g = _layer(rng, causal_mask(N))
    mha = LayerCapture(
        g.q, np.repeat(g.k, H // H_KV, 0), np.repeat(g.v, H // H_KV, 0), g.weights,
        g.allowed, g.scaling,
    )  # fmt: skip
    return [*layers, mha]


@pytest.mark.parametrize("cells", [N * N, 3 * N * N, 1 << 23])  # heads a step: 1, 3, all
def test_the_quick_measure_is_the_references(monkeypatch, cells):
    """Every head at once in torch (float32 for plain scores) measures the difference the
    float64 reference does, for every kind of layer, a step of heads across KV groups,
    and finds an altered weight at the same head, within float32's rounding."""
    pytest.importorskip("torch")
    from attnviz.core import hf_proof
    from attnviz.model.model_proof import block_difference, fast_difference

    monkeypatch.setattr(hf_proof, "CHUNK_CELLS", cells)
    rng = np.random.default_rng(6)
    for lc in _layers_of_every_kind(rng):
        fast = fast_difference(lc)
        reference = block_difference(lc, lambda head, lc=lc: lc.weights[head])
        assert fast is not None and fast[0] < 1e-6 and abs(fast[0] - reference[0]) < 1e-6
        for where in ((2, 4, 1), (3, 5, 5), (1, 0, 0)):
            bad_w = lc.weights.copy()
            bad_w[where] += 3e-4
            bad = dataclasses.replace(lc, weights=bad_w)
            fast = fast_difference(bad)
            reference = block_difference(bad, lambda head, bad=bad: bad.weights[head])
            assert fast[1] == reference[1] == where[0]
            assert abs(fast[0] - reference[0]) < 1e-6


def test_large_logits_are_measured_in_float64(monkeypatch):
    """Scaled scores past FLOAT32_LOGITS: float32's rounding of them is near the
    tolerance, so the layer is measured again in float64 — the reference's figure."""
    torch = pytest.importorskip("torch")
    from attnviz.core import hf_proof
    from attnviz.model.model_proof import block_difference, fast_difference

    dtypes = []
    real = hf_proof._differences

    def spy(torch_, qt, kt, wt, dtype, *args):
        dtypes.append(dtype)
        return real(torch_, qt, kt, wt, dtype, *args)

    monkeypatch.setattr(hf_proof, "_differences", spy)
    rng = np.random.default_rng(12)
    small, large = _layer(rng, causal_mask(N)), _layer(rng, causal_mask(N), scaling=150.0)
    fast_difference(small)
    assert dtypes == [torch.float32]
    dtypes.clear()
    bad_w = large.weights.copy()
    bad_w[3, 4, 2] += 5e-5
    bad = dataclasses.replace(large, weights=bad_w)
    fast = fast_difference(bad)
    assert dtypes == [torch.float32, torch.float64]
    reference = block_difference(bad, lambda head: bad.weights[head])
    assert fast[1] == reference[1] == 3 and abs(fast[0] - reference[0]) < 1e-12


def test_without_torch_the_reference_alone_decides(monkeypatch):
    from attnviz.model import model_proof

    monkeypatch.setattr(model_proof, "heads_difference", lambda *a, **k: None)
    rng = np.random.default_rng(8)
    layers = _layers_of_every_kind(rng)
    prove_capture(_capture(layers))
    bad_w = layers[1].weights.copy()
    bad_w[2, 3, 1] += 2 * TOLERANCE
    with pytest.raises(ModelError, match=r"layer 0, head 2: .*2\.0e-04"):
        prove_capture(_capture([dataclasses.replace(layers[1], weights=bad_w)]))


def test_a_figure_near_the_tolerance_is_the_references(monkeypatch):
    """Above FAST_PASS the quick figure decides nothing: the reference measures again, and
    its figure (and head) are the ones a refusal quotes."""
    from attnviz.model import model_proof

    rng = np.random.default_rng(9)
    good = _layer(rng, causal_mask(N))
    monkeypatch.setattr(model_proof, "fast_difference", lambda *a, **k: (0.9 * TOLERANCE, 3))
    reference = model_proof.block_difference(good, lambda head: good.weights[head])
    assert layer_difference(_capture([good]), 0) == reference
    prove_capture(_capture([good]))  # the reference passes it: a quick 9e-5 refuses nothing


def test_a_score_bound_inside_the_float32_limit_is_never_passed_by_a_score():
    """Cauchy–Schwarz with float32's rounding: where the bound says no score can pass
    FLOAT32_LOGITS, none does (so the scan it skips would have found none); a bound past
    the limit, or NaN, leaves the scan to decide."""
    torch = pytest.importorskip("torch")
    from attnviz.core.hf_proof import FLOAT32_LOGITS, _logits_bounded

    rng = np.random.default_rng(31)
    skipped = scanned = 0
    for trial in range(300):
        h, n, d = 3, int(rng.integers(2, 40)), int(rng.choice([2, 8, 32, 64]))
        size = 10 ** rng.uniform(-1, 1.6)
        q = torch.from_numpy((rng.standard_normal((h, n, d)) * size).astype(np.float32))
        k = torch.from_numpy((rng.standard_normal((h, n, d)) * size).astype(np.float32))
        if trial % 3 == 0:  # aligned rows: the bound is reached (nearly) exactly
            k = q.clone()
        scale = float(rng.choice([1 / np.sqrt(d), 1.0, -0.5]))
        scores = torch.baddbmm(torch.empty(h, n, n), q, k.transpose(1, 2), beta=0.0, alpha=scale)
        largest = float(scores.abs().max())
        if _logits_bounded(torch, q, k, scale):
            skipped += 1
            assert largest <= FLOAT32_LOGITS
        else:
            scanned += 1
    assert skipped > 50 and scanned > 50  # both ways were tried
    q = torch.ones(1, 2, 4)
    q[0, 1, 2] = float("nan")
    assert not _logits_bounded(torch, q, torch.ones(1, 2, 4), 0.5)
    q[0, 1, 2] = float("inf")
    assert not _logits_bounded(torch, q, torch.ones(1, 2, 4), 0.5)
    # Aligned rows right at the limit: 4 · 4 · 8 = 128 exactly, rounding room included
    # past it, so the scan decides (and finds 128, which float32 still measures).
    assert not _logits_bounded(torch, torch.full((1, 1, 16), 1.0), torch.full((1, 1, 16), 1.0), 8.0)
    assert _logits_bounded(torch, torch.full((1, 1, 16), 1.0), torch.full((1, 1, 16), 1.0), 7.9)
