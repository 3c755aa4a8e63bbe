"""attnviz bench: the figure registry, the figures at tiny sizes, the JSON and table output.

No timing is asserted: the sizes here are too small to mean anything, and the machine is
shared. The full-size figures are run by hand (``attnviz bench``).
"""

import json
import sys

import pytest

import attnviz.benchmarks as bench_pkg
from attnviz.benchmarks import core, environment, peak_rss_mib, run_isolated, skipped
from attnviz.cli import main

OVERVIEW_KEYS = {"n", "d", "seconds", "peak_rss_mib", "gflops", "torch_sdpa_gflops", "ratio"}


def test_registry_finds_figures_in_design_order():
    names = list(bench_pkg.figures())
    assert {"overview", "overview_cuda", "tiled_vs_naive", "environment"} <= set(names)
    assert names[-1] == "environment"
    assert names.index("overview") < names.index("tiled_vs_naive")


def test_overview_figure_at_tiny_n():
    result = core.overview(n=256, bins=16, repeats=1)
    assert set(result) >= OVERVIEW_KEYS
    assert (result["n"], result["d"], result["backend"]) == (256, 128, "numpy")
    assert result["workers"] >= 1 and (result["load"] is None or result["load"] >= 0)
    assert result["seconds"] > 0 and result["gflops"] > 0
    assert result["peak_rss_mib"] >= result["baseline_rss_mib"] > 0
    if result["torch_sdpa_gflops"] is None:
        assert "torch not installed" in result["torch_sdpa_skipped"]
    else:
        assert result["ratio"] == pytest.approx(
            result["gflops"] / result["torch_sdpa_gflops"], rel=0.01
        )


def test_overview_without_torch_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    result = core.overview_child(n=64, d=8, bins=4, repeats=1)
    assert result["ratio"] is None and result["torch_sdpa_gflops"] is None
    assert "torch not installed" in result["torch_sdpa_skipped"]
    # The CPU build, named: a bare "pip install torch" fetches CUDA wheels of several GB.
    assert "--index-url https://download.pytorch.org/whl/cpu" in result["torch_sdpa_skipped"]


def test_cuda_figure_skips_with_a_reason(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    assert core.overview_cuda(quick=True) == skipped(
        "torch not installed (pip install torch --index-url https://download.pytorch.org/whl/cpu)"
    )
    monkeypatch.undo()
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the figure would run")
    assert core.overview_cuda(quick=True) == {"skipped": "no CUDA device"}


def test_tiled_vs_naive_at_tiny_n():
    result = core.tiled_vs_naive(n=128, d=16, block_q=32, block_k=48, repeats=1)
    assert {"tiled_seconds", "naive_seconds", "speedup", "tiled_peak_rss_mib"} <= set(result)
    assert result["n"] == 128 and result["naive_peak_rss_mib"] > 0
    assert result["max_abs_diff"] < 1e-5  # float32, exact algorithm


def test_environment_figure():
    env = environment.environment()
    assert {"python", "numpy", "torch", "cpu_count", "blas", "platform"} <= set(env)
    assert env["cpu_count"] >= 1 and env["blas"]["source"]
    assert env["writes_bytecode"] is (not sys.dont_write_bytecode)
    json.dumps(env)


def test_peak_rss_and_isolation():
    assert peak_rss_mib() > 0
    child = run_isolated("attnviz.benchmarks", "peak_rss_mib")
    assert isinstance(child, float) and child > 0
    with pytest.raises(RuntimeError, match="child process"):
        run_isolated("attnviz.benchmarks", "skipped", reason=1, unexpected=2)


def test_frozen_app_runs_figures_in_process(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    result = run_isolated(
        core.__name__, "tiled_child", kind="tiled", n=32, d=4, block_q=8, block_k=8, repeats=1
    )
    assert result["isolated"] is False and result["tiled_seconds"] >= 0


@pytest.fixture
def fake_figures(monkeypatch):
    figures = {
        "fast": lambda quick: {"n": 8 if quick else 16, "seconds": 0.5, "nested": {"a": 1}},
        "absent": lambda quick: skipped("no such device"),
    }
    monkeypatch.setattr(bench_pkg, "figures", lambda: dict(figures))
    return figures


def test_cli_json_one_member_per_figure(fake_figures, capsys):
    assert main(["bench", "--quick", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {
        "fast": {"n": 8, "seconds": 0.5, "nested": {"a": 1}},
        "absent": {"skipped": "no such device"},
    }


def test_cli_table(fake_figures, capsys):
    assert main(["bench"]) == 0
    out = capsys.readouterr().out
    assert "fast" in out and "nested.a" in out and "16" in out
    assert "skipped" in out and "no such device" in out


def test_cli_failing_figure_exits_1_and_others_still_run(fake_figures, capsys):
    def broken(quick):
        raise ZeroDivisionError("boom")

    fake_figures["broken"] = broken
    assert main(["bench", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["broken"]["error"].startswith("ZeroDivisionError: boom")
    assert out["fast"]["n"] == 16


def test_cli_only_and_unknown_figure(capsys):
    assert main(["bench", "--json", "--only", "environment"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["environment"]
    assert main(["bench", "--only", "nope"]) == 2
    assert "unknown figure nope" in capsys.readouterr().err


def test_overview_figure_leaves_blas_threads_as_found():
    from attnviz.core import _parallel

    calls = _parallel._find_openblas()
    before = calls[0]() if calls else None
    result = core.overview_child(n=128, d=8, bins=4, repeats=1)
    assert result["workers"] >= 1
    assert (calls[0]() if calls else None) == before
