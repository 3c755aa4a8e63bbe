"""Hypothesis against the model-folder check: any config and any safetensors header give a
ModelInfo or one line of ModelError, never another exception (no transformers needed)."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.core.hf_capture import FAMILIES, ModelError, inspect_folder

JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
CONFIG = st.fixed_dictionaries(
    {"model_type": st.sampled_from(sorted(FAMILIES)) | JSONISH},
    optional={
        "num_hidden_layers": st.integers(-3, 20_000) | JSONISH,
        "num_attention_heads": st.integers(-3, 64) | JSONISH,
        "hidden_size": st.integers(-3, 4096) | JSONISH,
        "n_layer": st.integers(-3, 100) | JSONISH,
        "attn_logit_softcapping": st.floats(0, 100) | JSONISH,
        "text_config": JSONISH,
        "auto_map": st.just({}) | JSONISH,
    },
)
TENSOR = st.fixed_dictionaries(
    {
        "dtype": st.sampled_from(["F32", "F16", "BF16", "I64", "U8", "X9"]) | JSONISH,
        "shape": st.lists(st.integers(-4, 2**40), max_size=4) | JSONISH,
        "data_offsets": st.lists(st.integers(0, 2**40), min_size=2, max_size=2) | JSONISH,
    }
)
NAMES = st.sampled_from(
    [
        "encoder.layer.0.attention.self.query.weight",
        "model.layers.3.self_attn.q_proj.weight",
        "embeddings.weight",
        "layers.999999999.x",
        "__metadata__",
    ]
) | st.text(max_size=20)
HEADER = st.dictionaries(NAMES, TENSOR | JSONISH, max_size=6) | JSONISH


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(config=CONFIG, header=HEADER)
def test_any_config_and_header_is_a_model_info_or_one_line(tmp_path, config, header):
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    raw = json.dumps(header).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(64))
    (tmp_path / "vocab.txt").write_text("[UNK]\n", encoding="utf-8")
    try:
        info = inspect_folder(tmp_path, free_bytes=None)
    except ModelError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 600
        return
    assert info.model_type in FAMILIES and info.params > 0
