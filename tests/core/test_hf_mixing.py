"""A real hybrid's non-softmax layers as mixing matrices, against the model's own kernels.

Each kind on a tiny random hybrid of transformers (seeded, built by the config builders of
:mod:`tests.core.test_hf_families_2026`): ``M @ v`` is the kernel's own output, and ``M``
itself is the direct float64 recurrence written here from the kernel's raw arguments (the
product of the per-step transitions, not attnviz's basis-vector form). A kernel that no
longer matches (noise added) is refused in one line. A family this transformers does not
have is skipped (the floor lane).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core import hf_mixing  # noqa: E402
from attnviz.core.hf_capture import load_model  # noqa: E402
from attnviz.core.hf_errors import ModelError  # noqa: E402
from tests.core.test_hf_families_2026 import TEXT, _tiny  # noqa: E402

pytestmark = pytest.mark.slow

GDN = ("qwen3_next", "qwen3_5", "olmo_hybrid")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """family → its tiny model loaded (built once per module)."""
    cache = {}

    def get(family):
        if family not in cache:
            folder = tmp_path_factory.mktemp(family)
            _tiny(folder, family)
            cache[family] = load_model(str(folder), free_bytes=None)
        return cache[family]

    return get


def _non_softmax(loaded) -> list[int]:
    cap = loaded.capture(TEXT)
    return [i for i in range(cap.layer_count) if cap.captured(i) is None]


GDN_ARGS = ("query", "key", "value", "g", "beta")


def _raw_kernel_call(loaded, layer: int, names, child="linear_attn", positional=GDN_ARGS):
    """The raw arguments and output of the kernel that layer ``layer``'s mixer (its child
    ``child``) calls, from a wrapper of this test's own (every call recorded; the layer's
    is picked by the mixer running when it was made)."""
    from attnviz.core.hf_layers import decoder_layers

    blocks = decoder_layers(loaded.text_model, loaded.config.num_hidden_layers)
    mixer = getattr(blocks[layer], child)
    mixers = [getattr(b, child) for b in blocks if getattr(b, child, None) is not None]
    module = sys.modules[type(mixer).__module__]
    seen, calls = [], []
    pre = [m.register_forward_pre_hook(lambda m, a: seen.append(m)) for m in mixers]
    pre += [m.register_forward_hook(lambda m, a, o: seen.append(None)) for m in mixers]
    originals = {n: getattr(module, n) for n in names if hasattr(module, n)}

    def wrap(fn):
        def inner(*args, **kwargs):
            out = fn(*args, **kwargs)
            named = dict(zip(positional, args, strict=False))
            calls.append((seen[-1], named | kwargs, out[0]))
            return out

        return inner

    own = {n: f for n, f in vars(mixer).items() if n in names and callable(f)}  # 5.0's
    for other in mixers:
        for n, fn in own.items():
            vars(other)[n] = wrap(fn)
    try:
        for n, fn in originals.items():
            setattr(module, n, wrap(fn))
        with torch.no_grad():
            ids = loaded.tokenize(TEXT)[0]
            loaded.text_model(input_ids=torch.tensor([ids]))
    finally:
        for n, fn in originals.items():
            setattr(module, n, fn)
        for other in mixers:
            for n, fn in own.items():
                vars(other)[n] = fn
        for h in pre:
            h.remove()
    found = [c for c in calls if c[0] is mixer]
    assert len(found) == 1
    given = found[0][1] | {"out": found[0][2]}
    return {k: v.detach() if torch.is_tensor(v) else v for k, v in given.items()}


def _direct_gated_delta(q, k, g, beta, l2norm: bool) -> np.ndarray:
    """M[t, s] = q_tᵀ A_t A_{t−1} … A_{s+1} β_s k_s with A_r = (I − β_r k_r k_rᵀ) diag(e^{g_r}):
    the gated delta rule S_t = A_t S_{t−1} + β_t k_t v_tᵀ, out_t = S_tᵀ q_t, written out
    in float64 from the kernel's raw q, k (one head, (n, d)), g ((n,), or KDA's (n, d):
    a decay per key channel) and β ((n,))."""
    q, k = q.astype(np.float64), k.astype(np.float64)
    if l2norm:
        q = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6)
        k = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
    q = q / np.sqrt(q.shape[1])
    n, d = k.shape
    m = np.zeros((n, n))
    for s in range(n):
        carried = beta[s] * k[s]  # what v_s wrote into the state, as a key-side vector
        m[s, s] = q[s] @ carried
        for t in range(s + 1, n):
            decay = np.diag(np.broadcast_to(np.exp(g[t]), (d,)))
            a = (np.eye(d) - beta[t] * np.outer(k[t], k[t])) @ decay
            carried = a @ carried
            m[t, s] = q[t] @ carried
    return m


@pytest.mark.parametrize("family", GDN)
def test_gated_deltanet_mixing_reproduces_the_kernel_and_the_direct_recurrence(built, family):
    if family not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {family}")
    loaded = built(family)
    layers = _non_softmax(loaded)
    assert layers == [0, 2]
    for layer in layers:
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "Gated DeltaNet" and mixing.layer == layer
        raw = _raw_kernel_call(loaded, layer, hf_mixing.GDN_KERNELS)
        v = raw["value"][0].double().numpy().transpose(1, 0, 2)
        out = raw["out"][0].double().numpy().transpose(1, 0, 2)
        heads = v.shape[0]
        assert mixing.heads == heads and mixing.v.shape == v.shape
        group = heads // raw["query"].shape[2]
        for h in range(heads):
            m = hf_mixing.prove_head(mixing, h)
            # M @ v is the model's own kernel output, to float32's rounding.
            np.testing.assert_allclose(m @ v[h], out[h], atol=1e-5, rtol=0)
            direct = _direct_gated_delta(
                raw["query"][0, :, h // group].numpy(),
                raw["key"][0, :, h // group].numpy(),
                raw["g"][0, :, h].double().numpy(),
                raw["beta"][0, :, h].double().numpy(),
                bool(raw.get("use_qk_l2norm_in_kernel")),
            )
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)
            assert np.all(np.triu(m, 1) == 0)  # causal: no later value reaches a token
        # The matrix is not trivially diagonal: earlier tokens reach later ones.
        assert (
            max(np.abs(np.tril(hf_mixing.prove_head(mixing, h), -1)).max() for h in range(heads))
            > 1e-4
        )


def test_a_kernel_that_no_longer_matches_is_refused_in_one_line(built, monkeypatch):
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip("no Qwen3-Next in this transformers")
    loaded = built("qwen3_next")
    mixing = hf_mixing.capture_mixing(loaded, TEXT, 0)
    noisy = hf_mixing.MixingLayer(
        mixing.kind, mixing.layer, mixing.q, mixing.k, mixing.v,
        mixing.out + 1e-3 * np.random.default_rng(0).standard_normal(mixing.out.shape),
        mixing.gates,
    )  # fmt: skip
    with pytest.raises(ModelError) as info:
        hf_mixing.prove_head(noisy, 1)
    text = str(info.value)
    assert "\n" not in text and "Gated DeltaNet" in text and "layer 0 head 1" in text
    # The same through the model: its kernel made to add noise to what it returns.
    mixer = _mixer(loaded, 0)
    module = sys.modules[type(mixer).__module__]
    kernel = module.torch_chunk_gated_delta_rule

    def noisy_kernel(*args, **kwargs):
        out, state = kernel(*args, **kwargs)
        return out + 1e-3 * torch.randn_like(out), state

    monkeypatch.setattr(module, "torch_chunk_gated_delta_rule", noisy_kernel)
    if "chunk_gated_delta_rule" in vars(mixer):  # transformers 5.0 keeps it on the module
        monkeypatch.setitem(vars(mixer), "chunk_gated_delta_rule", noisy_kernel)
    with pytest.raises(ModelError, match=r"^layer 0 head 0: the Gated DeltaNet mixing matrix"):
        hf_mixing.prove_head(hf_mixing.capture_mixing(loaded, TEXT, 0), 0)


def _mixer(loaded, layer):
    from attnviz.core.hf_layers import decoder_layers

    return decoder_layers(loaded.text_model, loaded.config.num_hidden_layers)[layer].linear_attn


def test_a_softmax_layer_or_one_out_of_range_is_refused_in_one_line(built):
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip("no Qwen3-Next in this transformers")
    loaded = built("qwen3_next")
    for layer in (1, 9, -1):
        with pytest.raises(ModelError) as info:
            hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert "\n" not in str(info.value)


def test_the_delta_rule_matrix_of_constant_gates_is_the_synthetic_mixers():
    """With one β and α for every token, the per-token form is attnviz's synthetic
    Gated DeltaNet (:mod:`attnviz.core.mixers`), on the same unit q and k."""
    from attnviz.core.mixers import MixerParams, mixing_matrix, unit_rows

    rng = np.random.default_rng(3)
    q, k = rng.standard_normal((9, 5)), rng.standard_normal((9, 5))
    params = MixerParams(beta=0.7, alpha=0.8)
    ours = hf_mixing.delta_rule_matrix(unit_rows(q), unit_rows(k), np.full(9, 0.7), np.full(9, 0.8))
    np.testing.assert_allclose(ours, mixing_matrix("gated_deltanet", q, k, params), atol=1e-13)


# --- Mamba-2 ------------------------------------------------------------------------------
#: family → (its Mamba-2 layers, the decoder layer's child that holds the mixer).
MAMBA2 = {
    "bamba": ((0, 2), "mamba"),
    "nemotron_h": ((0,), "mixer"),
    "granitemoehybrid": ((0, 2), "mamba"),
    "falcon_h1": ((0, 1), "mamba"),  # beside the attention in every layer
    "zamba2": ((0, 2), "mamba"),
}
SCAN_ARGS = ("hidden_states", "dt", "A", "B", "C", "chunk_size")


def _direct_ssd(x_len, c, b, dt, a, d_skip) -> np.ndarray:
    """M of one SSM head by running its recurrence on a unit impulse at each position s:
    ``h_t = e^{Δ_t A} h_{t−1} + Δ_t B_t x_t``, ``y_t = C_t · h_t + D x_t`` (x_t = δ_ts),
    in float64 — the scan as the Mamba-2 paper states it, not its chunked form."""
    m = np.zeros((x_len, x_len))
    for s in range(x_len):
        h = np.zeros(b.shape[1])
        for t in range(x_len):
            x = 1.0 if t == s else 0.0
            h = np.exp(dt[t] * a) * h + dt[t] * b[t] * x
            m[t, s] = c[t] @ h + d_skip * x
    return m


@pytest.mark.parametrize("family", sorted(MAMBA2))
def test_mamba2_mixing_reproduces_the_scan_and_the_direct_recurrence(built, family):
    if family not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {family}")
    import importlib

    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    if not hasattr(module, "mamba2_chunk_scan"):  # an older transformers scans inline
        pytest.skip(f"transformers {transformers.__version__} has no mamba2_chunk_scan")
    loaded = built(family)
    layers, child = MAMBA2[family]
    for layer in layers:
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "Mamba-2"
        raw = _raw_kernel_call(loaded, layer, ("mamba2_chunk_scan",), child, SCAN_ARGS)
        x = raw["hidden_states"][0].double().numpy().transpose(1, 0, 2)  # (heads, n, P)
        out = raw["out"][0].double().numpy().transpose(1, 0, 2)
        heads, n = x.shape[0], x.shape[1]
        assert mixing.heads == heads  # the SSM heads
        dt = raw["dt"][0].double() + raw["dt_bias"].double()
        dt = torch.nn.functional.softplus(dt) if raw.get("dt_softplus") else dt
        dt = dt.clamp(*raw.get("dt_limit", (0.0, float("inf")))).numpy()  # (n, heads)
        a = raw["A"].double().numpy()
        groups = raw["B"].shape[2]
        for h in range(heads):
            m = hf_mixing.prove_head(mixing, h)
            np.testing.assert_allclose(m @ x[h], out[h], atol=1e-5, rtol=0)
            g = h // (heads // groups)
            direct = _direct_ssd(
                n,
                raw["C"][0, :, g].double().numpy(),
                raw["B"][0, :, g].double().numpy(),
                dt[:, h],
                a[h],
                float(raw["D"].detach().double().numpy().reshape(heads, -1)[h, 0]),
            )
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)
            assert np.all(np.triu(m, 1) == 0)
        assert np.abs(np.tril(m, -1)).max() > 1e-4  # earlier tokens reach later ones


# --- short convolutions (LFM2) ------------------------------------------------------------
def _conv_hooks(loaded, layer: int) -> dict:
    """B, C, x (the block's input projection's output) and y (its output projection's
    input), from hooks of this test's own."""
    from attnviz.core.hf_layers import decoder_layers

    conv = decoder_layers(loaded.text_model, loaded.config.num_hidden_layers)[layer].conv
    seen = {}
    hooks = (
        conv.in_proj.register_forward_hook(lambda m, a, o: seen.setdefault("bcx", o.detach())),
        conv.out_proj.register_forward_pre_hook(lambda m, a: seen.setdefault("y", a[0].detach())),
    )
    try:
        with torch.no_grad():
            loaded.text_model(input_ids=torch.tensor([loaded.tokenize(TEXT)[0]]))
    finally:
        for h in hooks:
            h.remove()
    b, c, x = seen["bcx"][0].double().numpy().T.reshape(3, -1, seen["bcx"].shape[1])
    return {"B": b, "C": c, "x": x, "y": seen["y"][0].double().numpy().T, "conv": conv}


def test_a_short_convolution_is_its_banded_gated_matrix(built):
    if "lfm2" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no LFM2")
    loaded = built("lfm2")
    for layer in (0, 2):
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "short convolution"
        seen = _conv_hooks(loaded, layer)
        taps = seen["conv"].conv.weight.detach().double().numpy()[:, 0, :]
        channels, n = seen["x"].shape
        width = taps.shape[1]
        assert mixing.heads == channels and width == 3
        for ch in range(channels):
            m = hf_mixing.prove_head(mixing, ch)
            np.testing.assert_allclose(m @ seen["x"][ch], seen["y"][ch], atol=1e-5, rtol=0)
            # The convolution written out: y_t = C_t Σ_lag w[K−1−lag] B_{t−lag} x_{t−lag}.
            direct = np.zeros((n, n))
            for t in range(n):
                for lag in range(min(width, t + 1)):
                    s = t - lag
                    direct[t, s] = seen["C"][ch, t] * taps[ch, width - 1 - lag] * seen["B"][ch, s]
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)
        assert np.count_nonzero(np.tril(m, -width)) == 0 and np.abs(np.tril(m, -1)).max() > 0


# --- KDA and lightning attention -----------------------------------------------------------
@pytest.mark.parametrize("family", ["kimi_linear", "bailing_hybrid"])
def test_kda_mixing_reproduces_the_kernel_and_the_direct_recurrence(built, family):
    if family not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no {family}")
    loaded = built(family)
    for layer in (0, 2):
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "KDA (Kimi Delta Attention)"
        raw = _raw_kernel_call(loaded, layer, hf_mixing.KDA_KERNELS, "self_attn")
        v = raw["value"][0].double().numpy().transpose(1, 0, 2)
        out = raw["out"][0].double().numpy().transpose(1, 0, 2)
        assert raw["g"].dim() == 4  # a decay per key channel
        for h in range(v.shape[0]):
            m = hf_mixing.prove_head(mixing, h)
            np.testing.assert_allclose(m @ v[h], out[h], atol=1e-5, rtol=0)
            direct = _direct_gated_delta(
                raw["query"][0, :, h].numpy(),
                raw["key"][0, :, h].numpy(),
                raw["g"][0, :, h].double().numpy(),
                raw["beta"][0, :, h].double().numpy(),
                bool(raw.get("use_qk_l2norm_in_kernel")),
            )
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)


def test_lightning_attention_is_its_decayed_linear_recurrence(built):
    if "minimax" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no MiniMax")
    from attnviz.core.hf_layers import decoder_layers

    loaded = built("minimax")  # softmax, lightning, softmax, lightning
    blocks = decoder_layers(loaded.text_model, loaded.config.num_hidden_layers)
    seen = {}
    for layer in (1, 3):
        block = blocks[layer].self_attn
        seen.clear()
        hooks = (
            block.act_fn.register_forward_hook(lambda m, a, o: seen.setdefault("qkv", o)),
            block.norm.register_forward_pre_hook(lambda m, a: seen.setdefault("out", a[0])),
        )
        try:
            with torch.no_grad():
                loaded.text_model(input_ids=torch.tensor([loaded.tokenize(TEXT)[0]]))
        finally:
            for hook in hooks:
                hook.remove()
        heads = block.num_attention_heads
        n = seen["qkv"].shape[1]
        q, k, v = np.split(seen["qkv"][0].double().numpy().reshape(n, heads, -1), 3, axis=-1)
        out = seen["out"][0].double().numpy().reshape(n, heads, -1)
        rates = block.slope_rate.double().numpy().reshape(heads)
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "lightning attention" and mixing.heads == heads
        for h in range(heads):
            m = hf_mixing.prove_head(mixing, h)
            scale = np.abs(out[:, h]).max()  # outputs of a few hundred: float32's 1e-7 of it
            np.testing.assert_allclose(m @ v[:, h], out[:, h], atol=2e-6 * scale, rtol=0)
            # S_t = e^{−λ} S_{t−1} + k_t v_tᵀ, out_t = S_tᵀ q_t: its impulse responses.
            direct = np.zeros((n, n))
            for s in range(n):
                state = np.zeros(k.shape[-1])
                for t in range(n):
                    state = np.exp(-rates[h]) * state + (k[t, h] if t == s else 0.0)
                    direct[t, s] = q[t, h] @ state
            np.testing.assert_allclose(m, direct, atol=1e-9 * scale, rtol=1e-9)


def test_jambas_mamba_is_its_selective_scan(built):
    """Jamba's Mamba (1) layers: one head per channel, M @ x the scan's output before its
    gate, and M the impulse response of h_t = e^{Δ_t A} ⊙ h_{t−1} + Δ_t B_t x_t,
    y_t = C_t · h_t + D x_t written here."""
    import importlib

    if "jamba" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Jamba")
    module = importlib.import_module("transformers.models.jamba.modeling_jamba")
    if not hasattr(module, "mamba_selective_scan"):
        pytest.skip(f"transformers {transformers.__version__} scans Jamba's Mamba inline")
    loaded = built("jamba")  # Mamba, softmax, Mamba, softmax
    args = ("hidden_states", "dt", "A", "B", "C", "D")
    for layer in (0, 2):
        mixing = hf_mixing.capture_mixing(loaded, TEXT, layer)
        assert mixing.kind == "Mamba"
        raw = _raw_kernel_call(loaded, layer, ("mamba_selective_scan",), "mamba", args)
        x = raw["hidden_states"][0].double().numpy()  # (channels, n)
        gated = raw["out"][0].double().numpy()
        z = raw["z"][0].double()
        dt = torch.nn.functional.softplus(
            raw["dt"][0].double() + raw["delta_bias"].double()[:, None]
        )
        dt, z = dt.numpy(), (z * torch.sigmoid(z)).numpy()  # silu
        a = raw["A"].double().numpy()
        b, c = raw["B"][0].double().numpy().T, raw["C"][0].double().numpy().T  # (n, state)
        d = raw["D"].double().numpy()
        channels, n = x.shape
        assert mixing.heads == channels
        for ch in range(0, channels, 7):
            m = hf_mixing.prove_head(mixing, ch)
            # The model's own output is gated after the scan: M @ x ⊙ silu(z) is it.
            np.testing.assert_allclose((m @ x[ch]) * z[ch], gated[ch], atol=1e-5, rtol=0)
            direct = np.zeros((n, n))
            for s in range(n):
                h = np.zeros(a.shape[1])
                for t in range(n):
                    impulse = 1.0 if t == s else 0.0
                    h = np.exp(dt[ch, t] * a[ch]) * h + dt[ch, t] * b[t] * impulse
                    direct[t, s] = c[t] @ h + d[ch] * impulse
            np.testing.assert_allclose(m, direct, atol=1e-12, rtol=1e-9)
