"""Hypothesis over the loaders not fuzzed elsewhere: session files (both formats, as the CLI,
``read_session`` and the window's Open read them) and the ``kv --config`` reader. Each
input is a document and a layout, a card, or a one-line refusal of its own kind."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.core.hf_config import load_hf_config
from attnviz.core.kvcache import kv_cache_bytes
from attnviz.model.document import Document
from attnviz.model.session import SessionError, read_session

#: Keys a session holds, and the fields of its topics: the fuzz mostly speaks its language.
_KEYS = [
    "format_version",
    "app",
    "layout",
    "topics",
    "state",
    "version",
    "attention",
    "positions",
    "long",
    "memory",
    "tokens",
    "d_k",
    "q",
    "k",
    "v",
    "head",
    "n",
    "seed",
    "model_path",
    "model_text",
    "causal",
    "window",
    "temperature",
    "softcap",
    "sink",
]
_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.sampled_from([1, 2, 3, 2**31, 10**400, -1, 0])
    | st.floats(allow_nan=True)
    | st.text(max_size=10)
    | st.sampled_from(["\ud800", "content", "model", "/dev/zero"])
)
_json = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5)
    ),
    max_leaves=20,
)


def _session(data) -> dict:
    """A document of format 2 around fuzzed topics, or the fuzz itself (format 1 and junk)."""
    return (
        data
        if not isinstance(data, dict) or "topics" in data
        else {"format_version": 2, "app": "attnviz", "layout": "", "topics": data}
    )


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_json, st.booleans())
def test_any_session_file_opens_or_is_one_line(tmp_path, data, wrap):
    path = tmp_path / "fuzz.attnviz"
    body = _session(data) if wrap else data
    try:
        path.write_text(json.dumps(body, allow_nan=True), encoding="utf-8", errors="surrogatepass")
    except (ValueError, OverflowError):
        return  # not writable as JSON at all
    try:
        snapshot, layout = read_session(path)
    except SessionError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 500
        return
    Document().restore(snapshot)  # what reads applies to a live document without error
    assert isinstance(layout, str)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.binary(max_size=300))
def test_any_bytes_as_a_session_are_one_line(tmp_path, raw):
    path = tmp_path / "bytes.attnviz"
    path.write_bytes(raw)
    with pytest.raises(SessionError) as info:
        read_session(path)
    assert "\n" not in str(info.value)


_CONFIG_KEYS = [
    "model_type",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "hidden_size",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "max_position_embeddings",
    "sliding_window",
    "layer_types",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "text_config",
    "torch_dtype",
    "_name_or_path",
    "tie_word_embeddings",
    "sliding_window_pattern",
    "n_layer",
    "n_head",
]
_config = st.recursive(
    _leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_CONFIG_KEYS), inner, max_size=8)
    ),
    max_leaves=24,
)
_LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "hidden_size": 4096,
    "max_position_embeddings": 8192,
}


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.dictionaries(st.sampled_from(_CONFIG_KEYS), _config, max_size=8), st.booleans())
def test_any_kv_config_is_a_card_or_one_line(tmp_path, changes, on_llama):
    config = {**_LLAMA, **changes} if on_llama else changes
    path = tmp_path / "config.json"
    try:
        path.write_text(
            json.dumps(config, allow_nan=True), encoding="utf-8", errors="surrogatepass"
        )
    except (ValueError, OverflowError):
        return
    try:
        card = load_hf_config(path)
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 500, str(exc)
        return
    assert card.layers >= 1 and card.n_kv_heads >= 1 and card.head_dim >= 1
    # The card computes: the cache of a context, a whole number of bytes.
    assert kv_cache_bytes(card, 4096) >= 0


def test_a_kv_config_whose_model_type_is_a_list_is_one_line(tmp_path, capsys):
    """Found by the sweep above: a list as model_type reached a dict lookup (TypeError)."""
    from attnviz.cli import main

    path = tmp_path / "config.json"
    path.write_text(json.dumps({**_LLAMA, "model_type": ["llama"]}))
    with pytest.raises(SystemExit) as info:
        main(["kv", "--config", str(path)])
    assert info.value.code == 2  # a bad argument, as every kv --config refusal
    err = capsys.readouterr().err.strip()
    assert err.endswith("model_type must be text, got list") and "\n" not in err
