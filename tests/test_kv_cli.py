"""``attnviz kv``: the printed table, the JSON and the exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.cli import main
from tests.core.test_kvcache import GIB, IDS  # the cards DESIGN.md names, listed once


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "attnviz", "kv", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _json(capsys, line: str) -> dict:
    """Run ``attnviz kv <line> --json`` in this process and parse what it prints."""
    assert main(["kv", *line.split(), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _error(capsys, *args) -> str:
    with pytest.raises(SystemExit) as exc:
        main(["kv", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err  # one line, no usage block
    assert err.startswith("attnviz kv: error: ")
    return err.rstrip("\n")


def test_llama3_8b_table_in_a_subprocess():
    r = _cli("--model", "llama-3-8b", "--context", "131072")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "131,072 bytes = 128 KiB" in out
    assert "17,179,869,184 bytes = 16 GiB = 17.18 GB" in out
    assert "34.36 GB" in out  # the score matrix at 128k, 16-bit
    assert "weights (8.03B params)" in out
    rows = {
        line.split()[0]: line
        for line in out.splitlines()
        if line[2:5] in ("MHA", "GQA", "MQA", "MLA")
    }
    assert set(rows) == {"MHA", "GQA", "MQA", "MLA"}
    assert "512 KiB" in rows["MHA"] and "64 GiB" in rows["MHA"] and rows["MHA"].endswith("4×")
    assert rows["GQA"].split()[1] == "*"  # the card itself
    assert "source:" in out and "config.json" in out


def test_128k_is_the_same_as_131072(capsys):
    assert main(["kv", "--model", "llama-3-8b", "--context", "131072"]) == 0
    first = capsys.readouterr().out
    assert main(["kv", "--model", "llama-3-8b", "--context", "128k"]) == 0
    assert capsys.readouterr().out == first


def test_json(capsys):
    r = _json(capsys, "--model llama-3-8b --context 128k")
    assert r["kv_bytes_per_token"] == 131_072
    assert r["kv_cache_bytes"] == 16 * GIB
    assert r["context"] == 131_072 and r["batch"] == 1 and r["dtype"] == "bf16"
    assert r["weights_bytes"] == 2 * 8_030_261_248
    assert r["score_matrix"] == {
        "n": 131_072,
        "entries": 17_179_869_184,
        "heads": 32,
        "full_layers": 32,
        "sliding_layers": 0,
        "total_entries": 17_179_869_184 * 32 * 32,
        "bytes_per_element": 2,
        "bytes": 34_359_738_368,
    }
    assert r["recurrent_state_bytes"] == 0
    assert "decode_tokens_per_s" not in r  # only with --bandwidth
    by_design = {v["design"]: v for v in r["variants"]}
    assert by_design["MHA"]["kv_bytes_per_token"] == 4 * 131_072
    assert by_design["MHA"]["ratio"] == 4.0
    assert by_design["MQA"]["n_kv_heads"] == 1
    assert by_design["MLA"]["latent"] == [512, 64]
    assert r["model"]["id"] == "llama-3-8b" and "config.json" in r["model"]["source"]


def test_json_in_a_subprocess():
    r = _cli("--model", "deepseek-v3", "--context", "1000", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["attention"] == "MLA"
    assert data["kv_bytes_per_token"] == 61 * (512 + 64) * 2
    assert data["kv_cache_bytes"] == 1000 * 61 * (512 + 64) * 2


def test_batch_and_dtype(capsys):
    one = _json(capsys, "--model qwen3-8b --context 32k")
    four = _json(capsys, "--model qwen3-8b --context 32k --batch 4")
    assert four["kv_cache_bytes"] == 4 * one["kv_cache_bytes"]
    fp8 = _json(capsys, "--model qwen3-8b --context 32k --dtype fp8")
    assert fp8["kv_bytes_per_token"] * 2 == one["kv_bytes_per_token"]
    assert fp8["bytes_per_element"] == 1
    int4 = _json(capsys, "--model qwen3-8b --context 32k --dtype int4")
    assert int4["bytes_per_element"] == 0.5
    assert int4["kv_bytes_per_token"] * 4 == one["kv_bytes_per_token"]


def test_context_defaults_to_the_card(capsys):
    r = _json(capsys, "--model qwen3.8-27b")
    assert r["context"] == 262_144
    assert r["score_matrix"]["entries"] == 68_719_476_736
    assert r["kv_bytes_per_token"] == 16 * 2 * 4 * 256 * 2
    assert r["weights_bytes"] == 2 * 26_895_998_464
    # The lesson's total: 262,144² entries × 24 heads × 16 full-attention layers.
    assert r["score_matrix"]["total_entries"] == 26_388_279_066_624


def test_hybrid_and_sliding_tables(capsys):
    assert main(["kv", "--model", "qwen3.8-27b"]) == 0
    out = capsys.readouterr().out
    assert "16 with attention (48 linear/state-space)" in out
    assert "× 24 heads × 16 full-attention layers = 26,388,279,066,624 entries" in out
    assert "79,429,632 bytes" in out and "48 layers × (786,432 + 40,960 elements)" in out
    assert main(["kv", "--layers", "4", "--kv-heads", "2", "--head-dim", "8",
                 "--context", "9"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "weights" in out and "unknown" in out
    assert main(["kv", "--model", "mistral-7b", "--context", "128k"]) == 0
    out = capsys.readouterr().out
    assert "512 MiB" in out and "sliding layers hold 4,096 tokens" in out


LLAMA_FLAGS = "--layers 32 --heads 32 --kv-heads 8 --head-dim 128"


def test_card_given_by_flags_matches_the_preset(capsys):
    preset = _json(capsys, "--model llama-3-8b --context 128k")
    flags = _json(capsys, f"{LLAMA_FLAGS} --params 8030261248 --context 128k")
    for key in ("kv_bytes_per_token", "kv_cache_bytes", "weights_bytes", "variants"):
        assert flags[key] == preset[key]
    assert flags["model"]["name"] == "custom"


def test_flags_for_mla_hybrid_and_window(capsys):
    mla = _json(
        capsys,
        "--layers 61 --heads 128 --kv-heads 128 --head-dim 128 "
        "--kv-lora-rank 512 --rope-head-dim 64 --context 10",
    )
    assert mla["kv_bytes_per_token"] == 61 * 576 * 2 and mla["attention"] == "MLA"
    hybrid = _json(
        capsys,
        "--layers 64 --heads 24 --kv-heads 4 --head-dim 256 --attention-layers 16 --context 256k",
    )
    assert hybrid["kv_cache_bytes"] == 16 * GIB
    window = _json(capsys, f"{LLAMA_FLAGS} --sliding-window 4096 --context 128k")
    assert window["kv_cache_bytes"] == 4096 * 131_072  # every layer slides by default
    some = _json(capsys, f"{LLAMA_FLAGS} --sliding-window 4096 --sliding-layers 16 --context 8k")
    assert some["kv_cache_bytes"] == (16 * 8192 + 16 * 4096) * 4096


def test_unknown_model_exits_2_and_lists_the_ids():
    r = _cli("--model", "gpt-5", "--context", "1000")
    assert r.returncode == 2
    last = r.stderr.strip().splitlines()[-1]
    assert "unknown model 'gpt-5'" in last
    assert all(model_id in last for model_id in IDS)
    assert r.stdout == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "llama-3-8b", "--context", "0"], "--context"),
        (["--model", "llama-3-8b", "--context", "lots"], "cannot read a token count"),
        (["--model", "llama-3-8b", "--context", "1k", "--batch", "0"], "--batch"),
        (["--model", "llama-3-8b", "--dtype", "int8"], "invalid choice: 'int8'"),
        (["--model", "llama-3-8b", "--layers", "4"], "cannot be combined with --layers"),
        (["--layers", "32", "--kv-heads", "8", "--context", "1k"], "missing: --head-dim"),
        (["--context", "1k"], "give --model NAME"),
        (["--layers", "32", "--heads", "30", "--kv-heads", "8", "--head-dim", "128"], "divide"),
        (["--layers", "4", "--kv-heads", "8", "--head-dim", "128"], "--context is required"),
        (["--layers", "4", "--kv-heads", "2", "--head-dim", "8", "--context", "9",
          "--attention-layers", "5"], "exceeds layers"),
        (["--layers", "4", "--kv-heads", "2", "--head-dim", "8", "--context", "9",
          "--rope-head-dim", "64"], "kv_lora_rank"),
        (["--layers", "4", "--kv-heads", "2", "--head-dim", "8", "--context", "9",
          "--params", "-1"], "--params"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_with_one_line(capsys, args, message):
    assert message in _error(capsys, *args)


def test_bad_arguments_in_a_subprocess():
    r = _cli("--layers", "32", "--heads", "30", "--kv-heads", "8", "--head-dim", "128")
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("attnviz kv: error: n_kv_heads (8)")


def test_list_models(capsys):
    assert main(["kv", "--list-models"]) == 0
    out = capsys.readouterr().out
    assert all(model_id in out for model_id in IDS)


# --- --config: a Hugging Face config.json ----------------------------------------------------


@pytest.fixture
def llama_config(tmp_path):
    from tests.core.test_hf_config import LLAMA_3_1_8B

    folder = tmp_path / "Llama-3.1-8B"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(LLAMA_3_1_8B), encoding="utf-8")
    return str(path)


def test_config_gives_the_shipped_numbers(capsys, llama_config):
    preset = _json(capsys, "--model llama-3-8b --context 128k")
    mine = _json(capsys, f"--config {llama_config} --context 128k")
    for key in ("kv_bytes_per_token", "kv_cache_bytes", "weights_bytes", "variants"):
        assert mine[key] == preset[key]
    assert mine["model"]["name"] == "Llama-3.1-8B"
    assert _json(capsys, f"--config {llama_config}")["context"] == 131_072  # the config's


def test_config_table_in_a_subprocess(llama_config):
    r = _cli("--config", llama_config, "--context", "131072")
    assert r.returncode == 0, r.stderr
    assert "131,072 bytes = 128 KiB" in r.stdout
    assert "17,179,869,184 bytes = 16 GiB" in r.stdout
    assert r.stdout.startswith("Llama-3.1-8B\n")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "llama-3-8b"], "--config cannot be combined with --model"),
        (["--layers", "4", "--kv-heads", "2"], "--config cannot be combined with --layers, "
                                               "--kv-heads"),
    ],
)  # fmt: skip
def test_config_is_exclusive(capsys, llama_config, extra, message):
    assert message in _error(capsys, "--config", llama_config, *extra)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not valid JSON"),
        ('{"num_hidden_layers": 32}', "missing key 'num_attention_heads'"),
        ('{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 3, '
         '"head_dim": 8}', "num_key_value_heads (3) must divide num_attention_heads (32)"),
        ('{"num_hidden_layers": 1' + "0" * 400 + ', "num_attention_heads": 32}',
         "num_hidden_layers must be from 1 to 100,000"),
    ],
)  # fmt: skip
def test_broken_config_exits_2_with_one_line(capsys, tmp_path, content, message):
    path = tmp_path / "config.json"
    path.write_text(content, encoding="utf-8")
    line = _error(capsys, "--config", str(path), "--context", "1k")
    assert line.startswith(f"attnviz kv: error: --config: {path}: ") and message in line


def test_config_may_be_the_model_folder_in_a_subprocess(tmp_path, llama_config):
    """It said "not a regular file" for a model's folder: the folder's config.json is read."""
    folder = str(Path(llama_config).parent)
    r = _cli("--config", folder, "--context", "131072")
    assert r.returncode == 0, r.stderr
    assert r.stdout == _cli("--config", llama_config, "--context", "131072").stdout
    assert r.stdout.startswith("Llama-3.1-8B\n")
    (tmp_path / "empty").mkdir()
    r = _cli("--config", str(tmp_path / "empty"), "--context", "1k")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        f"attnviz kv: error: --config: {tmp_path / 'empty'}: a folder without a config.json "
        "(give the model's folder or its config.json)"
    ]


def test_an_encoder_says_it_keeps_no_cache_and_prices_none(capsys, tmp_path):
    """BERT reads its sentence at once and generates nothing: a cache of 36 KiB per token
    would be a number about nothing. One line says so; weights and scores follow."""
    from tests.core.test_hf_config import BERT_BASE

    folder = tmp_path / "bert-base-uncased"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(BERT_BASE), encoding="utf-8")
    assert main(["kv", "--config", str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:5] == [
        "bert-base-uncased",
        "  an encoder keeps no generation KV cache: it reads the whole sequence at once and "
        "generates no token (its weights and score matrix follow)",
        "  12 layers, all with attention",
        "  12 heads · head_dim 64",
        "  bf16 (2 bytes per element) · context 512 tokens · batch 1",
    ]
    text = "\n".join(lines)
    assert "KV cache" not in text.replace("no generation KV cache", "")
    assert "512² = 262,144 entries" in text and "512 KiB = 524.29 kB" in text
    report = _json(capsys, f"--config {folder}")
    assert report["encoder"] is True and report["variants"] == []
    assert report["kv_bytes_per_token"] is None and report["kv_cache_bytes"] is None
    assert report["score_matrix"]["bytes"] == 512 * 512 * 2
    assert _json(capsys, "--model llama-3-8b")["encoder"] is False


def test_numbers_meet_words_in_the_singular_and_units_are_said_once(capsys):
    """ "1 KV heads", "1 layers", "256 bytes = 256 bytes" in the report of a small card."""
    small = ["kv", "--layers", "1", "--kv-heads", "1", "--head-dim", "64", "--context", "1"]
    assert main(small) == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines()]
    assert lines[1:4] == [
        "1 layer, with attention",
        "1 query head, 1 KV head (MHA) · head_dim 64",
        "bf16 (2 bytes per element) · context 1 token · batch 1",
    ]
    assert "KV cache per token    256 bytes" in lines
    assert "KV cache at context   256 bytes" in lines
    assert "score matrix S        1² = 1 entry" in lines
    assert "one head of one layer in 16-bit: 2 bytes" in lines
    assert "(bf16, 1 token):" in out
    for wrong in ("1 layers", "1 KV heads", "1 query heads", "1 tokens", "1 entries", "bytes ="):
        assert wrong not in out, wrong
    fp8 = ["kv", "--layers", "2", "--kv-heads", "1", "--head-dim", "1", "--context", "1"]
    assert main([*fp8, "--dtype", "fp8"]) == 0
    out = capsys.readouterr().out
    assert "KV cache per token    4 bytes" in out
    assert "one head of one layer in 16-bit: 2 bytes" in out


@pytest.mark.parametrize("encoding", ["utf-8", "ascii"])
def test_a_name_with_a_lone_surrogate_prints_escaped(tmp_path, encoding):
    import os
    import subprocess
    import sys

    config = tmp_path / "hand-edited.json"  # named by its _name_or_path
    config.write_text(
        '{"model_type": "llama", "_name_or_path": "a\\ud800b", '
        '"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64, '
        '"max_position_embeddings": 4096}',
        encoding="utf-8",
    )
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "kv", "--config", str(config)],
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": encoding},
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert r.stdout.decode(encoding).splitlines()[0] == "a\\ud800b"


@pytest.mark.parametrize(
    ("model", "context", "rate"),
    [("llama-3-8b", "128k", 100.8), ("deepseek-v3", "128k", 2.5), ("qwen3.8-27b", "256k", 47.1)],
)
def test_bandwidth_adds_the_decode_ceiling(capsys, model, context, rate):
    r = _json(capsys, f"--model {model} --context {context} --bandwidth 3350")
    step = r["weights_bytes"] + r["kv_cache_bytes"] + r["recurrent_state_bytes"]
    assert r["decode_bytes_per_token"] == step
    assert r["decode_tokens_per_s"] == pytest.approx(3350e9 / step, rel=1e-12)
    assert round(r["decode_tokens_per_s"], 1) == rate
    assert r["bandwidth_gbs"] == 3350.0
    kinds = [c["kind"] for c in r["decode_ceilings"]]
    assert kinds[0] == "card" and "fp8" in kinds
    assert main(["kv", "--model", model, "--context", context, "--bandwidth", "3350"]) == 0
    out = capsys.readouterr().out
    assert "Decode ceiling at 3,350 GB/s, batch 1" in out
    card_row = next(line for line in out.splitlines() if line.startswith("  this card"))
    assert card_row.split()[-1] == f"{rate:,.1f}"


def test_llama_decode_json_in_a_subprocess():
    r = _cli("--model", "llama-3-8b", "--context", "131072", "--bandwidth", "3350", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["weights_bytes"] == 16_060_522_496 and data["recurrent_state_bytes"] == 0
    assert round(data["decode_tokens_per_s"], 1) == 100.8


@pytest.mark.parametrize("bad", ["0", "-1", "1e400", "nan", "inf", "text", "", "2e6", "0x10"])
def test_hostile_bandwidths_are_refused_in_one_line(capsys, bad):
    err = _error(capsys, "--model", "llama-3-8b", f"--bandwidth={bad}")
    assert "--bandwidth" in err and "GB/s" in err
