"""memory_guard: the overview's working memory, the memory free, and the refusal."""

import numpy as np
import pytest

from attnviz.core import memory_guard, tiled
from attnviz.core.backends import BackendOutOfMemoryError, get_backend
from attnviz.core.memory_guard import (
    GiB,
    MemoryRefused,
    available_bytes,
    check_fits,
    estimate_overview_bytes,
)


def _free(monkeypatch, value):
    monkeypatch.setattr(memory_guard, "available_bytes", lambda backend="numpy": value)


def test_estimate_counts_inputs_and_grows_with_n():
    small = estimate_overview_bytes(4096, 128, 256, "numpy", "float32")
    big = estimate_overview_bytes(32768, 128, 256, "numpy", "float32")
    assert 2 * 32768 * 128 * 4 < big < 1.5 * GiB  # DESIGN: a 32k map under 1.5 GiB
    assert small < big
    without = estimate_overview_bytes(32768, 128, 256, "numpy", "float32", inputs=False)
    assert big - without == 2 * 32768 * 128 * 4
    assert estimate_overview_bytes(32768, 128, 256, "numpy", np.float64) > big
    one = estimate_overview_bytes(32768, 128, 256, "numpy", "float32", workers=1)
    assert one < estimate_overview_bytes(32768, 128, 256, "numpy", "float32", workers=8)


def test_estimate_for_torch_and_cuda_dtypes():
    cuda32 = estimate_overview_bytes(262144, 256, 512, "cuda", "float32")
    cuda16 = estimate_overview_bytes(262144, 256, 512, "cuda", "bfloat16")
    assert 2 * 262144 * 256 * 4 < cuda32 < 8 * GiB and cuda16 < cuda32
    assert estimate_overview_bytes(1000, 64, 10, "torch", "float64") > 0
    # a smaller strip, a smaller peak
    assert estimate_overview_bytes(262144, 256, 512, "cuda", "float32", tile_elements=1 << 20) < (
        cuda32
    )


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, 64, 8), "n must"),
        ((100, 0, 8), "d must"),
        ((100, 64, 1.5), "bins must"),
        ((100, 64, 8, "gpu"), "backend"),
        ((100, 64, 8, "numpy", "complex64x"), "dtype"),
    ],
)
def test_estimate_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        estimate_overview_bytes(*args)


def test_available_bytes_reads_the_system():
    free = available_bytes("numpy")
    assert free is None or free > 0
    assert available_bytes("torch") == free or available_bytes("torch") > 0


def test_available_bytes_falls_back_to_sysconf(monkeypatch):
    def no_proc(*args, **kwargs):
        raise OSError("no /proc here")

    monkeypatch.setattr(memory_guard, "open", no_proc, raising=False)
    monkeypatch.setattr(memory_guard.os, "sysconf", lambda name: 1000 if "PAGES" in name else 4096)
    assert available_bytes("numpy") == 4096 * 1000


def test_available_bytes_on_cuda_asks_torch(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (5 * 2**30, 80 * 2**30))
    assert available_bytes("cuda") == 5 * 2**30


def test_check_fits_refuses_with_both_numbers(monkeypatch):
    need = estimate_overview_bytes(32768, 128, 256, "numpy", "float32")
    _free(monkeypatch, int(need / 3))
    with pytest.raises(MemoryRefused, match=r"needs \d+\.\d GiB, \d+\.\d GiB free") as info:
        check_fits(32768, 128, 256, "numpy", "float32")
    assert f"{need / GiB:.1f} GiB" in str(info.value)
    assert isinstance(info.value, ValueError)
    _free(monkeypatch, 10 * need)
    assert check_fits(32768, 128, 256, "numpy", "float32") == need
    _free(monkeypatch, None)  # cannot tell: let it run
    assert check_fits(32768, 128, 256, "numpy", "float32") == need


def test_cuda_refusal_suggests_the_cpu(monkeypatch):
    _free(monkeypatch, 2**30)
    with pytest.raises(MemoryRefused, match="GPU memory.*CPU backend"):
        check_fits(262144, 256, 512, "cuda", "float32")


def test_cuda_strip_follows_free_memory():
    assert memory_guard.cuda_tile_elements(262144, None) == memory_guard.CUDA_MAX_TILE
    assert memory_guard.cuda_tile_elements(262144, 140 * 2**30) == memory_guard.CUDA_MAX_TILE
    assert memory_guard.cuda_tile_elements(262144, 2**30) == 2**30 // 64
    assert memory_guard.cuda_tile_elements(100, 2**40) == 100 * 100


def test_overview_is_refused_before_it_starts(monkeypatch):
    _free(monkeypatch, 1 << 10)
    q = np.zeros((64, 8))
    with pytest.raises(MemoryRefused, match="needs"):
        tiled.attention_overview(q, q, bins=4)


def test_torch_overview_is_refused_before_it_starts(monkeypatch):
    pytest.importorskip("torch")
    _free(monkeypatch, 1 << 10)
    q = np.zeros((64, 8))
    with pytest.raises(MemoryRefused, match="torch"):
        get_backend("torch").attention_overview(q, q, bins=4)
    assert issubclass(BackendOutOfMemoryError, MemoryRefused)
