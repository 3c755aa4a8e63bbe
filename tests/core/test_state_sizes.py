"""A hybrid's fixed state read from its config equals what transformers' cache holds.

Each tiny random model runs five tokens with a cache; the elements of its conv and
recurrent states in a linear or state-space layer are the card's ``conv_elements`` and
``state_elements``.
"""

import pytest

from attnviz.core.hf_config import card_from_hf_config

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

SMALL = dict(hidden_size=32, num_attention_heads=4, num_key_value_heads=2, intermediate_size=16,
             vocab_size=13)  # fmt: skip


def _qwen3_5():
    return transformers.Qwen3_5TextConfig(
        **SMALL, num_hidden_layers=4, head_dim=8,
        layer_types=["linear_attention", "full_attention"] * 2, linear_key_head_dim=8,
        linear_value_head_dim=6, linear_num_key_heads=2, linear_num_value_heads=4,
        linear_conv_kernel_dim=3,
    )  # fmt: skip


def _nemotron_h():
    return transformers.NemotronHConfig(
        **SMALL, num_hidden_layers=2, hybrid_override_pattern="M*", head_dim=8,
        mamba_num_heads=4, mamba_head_dim=6, ssm_state_size=5, n_groups=2, conv_kernel=3,
    )  # fmt: skip


def _bamba():
    return transformers.BambaConfig(
        **SMALL, num_hidden_layers=2, attn_layer_indices=[1], mamba_n_heads=4,
        mamba_d_head=16, mamba_d_state=5, mamba_n_groups=2, mamba_d_conv=3,
    )  # fmt: skip


def _jamba():
    return transformers.JambaConfig(
        **SMALL, num_hidden_layers=2, attn_layer_period=2, attn_layer_offset=1,
        mamba_d_state=5, mamba_d_conv=3, mamba_expand=2, num_experts=1, expert_layer_period=1,
        expert_layer_offset=0, use_mamba_kernels=False,
    )  # fmt: skip


def _lfm2():
    return transformers.Lfm2Config(
        **SMALL, num_hidden_layers=2, layer_types=["conv", "full_attention"], conv_L_cache=3
    )


def _state_layer(cache):
    """(recurrent elements, conv elements) of the first layer that keeps a conv state."""
    for layer in cache.layers:
        conv = getattr(layer, "conv_states", None)
        conv = conv.get(0) if isinstance(conv, dict) else conv
        if isinstance(conv, list):
            conv = conv[0] if conv else None
        if isinstance(conv, torch.Tensor):
            rec = getattr(layer, "recurrent_states", None)
            rec = rec.get(0) if isinstance(rec, dict) else rec
            if isinstance(rec, list):
                rec = rec[0] if rec else None
            return (rec.numel() if isinstance(rec, torch.Tensor) else 0), conv.numel()
    raise AssertionError("no layer kept a state")


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (_qwen3_5, (4 * 8 * 6, (2 * 2 * 8 + 4 * 6) * 3)),  # Gated DeltaNet
        (_nemotron_h, (4 * 6 * 5, (4 * 6 + 2 * 2 * 5) * 3)),  # Mamba-2
        (_bamba, (4 * 16 * 5, (4 * 16 + 2 * 2 * 5) * 3)),  # Mamba-2
        (_jamba, (64 * 5, 64 * 3)),  # Mamba-1: expand 2 × hidden 32 channels
        (_lfm2, (0, 32 * 3)),  # short convolutions only
    ],
    ids=["qwen3_5", "nemotron_h", "bamba", "jamba", "lfm2"],
)
def test_the_state_in_the_config_is_the_state_in_the_cache(build, expected):
    config = build()
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
    with torch.no_grad():
        out = model(torch.tensor([[1, 2, 3, 4, 5]]), use_cache=True)
    held = _state_layer(out.past_key_values)
    data = config.to_dict()
    # transformers 5 writes Nemotron-H's layout as layers_block_type; a saved hub config
    # gives num_hidden_layers and hybrid_override_pattern.
    data.setdefault("num_hidden_layers", config.num_hidden_layers)
    if "hybrid_override_pattern" not in data and hasattr(config, "hybrid_override_pattern"):
        data["hybrid_override_pattern"] = config.hybrid_override_pattern
    card = card_from_hf_config(data)
    assert (card.state_elements, card.conv_elements) == held == expected
    assert card.attention_layers < card.layers
