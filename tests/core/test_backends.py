"""get_backend(): the same functions on numpy, torch (CPU) and CUDA, and their errors."""

import subprocess
import sys

import numpy as np
import pytest

from attnviz.core import backends, tiled
from attnviz.core.attention import attention
from attnviz.core.backends import (
    BackendOutOfMemoryError,
    BackendUnavailableError,
    NumpyBackend,
    get_backend,
)
from attnviz.core.masks import causal_mask, padding_mask
from attnviz.core.memory_guard import MemoryRefused
from attnviz.core.tiled import Cancelled

FIELDS = ("scores", "weights", "output", "entropy")


def _qkv(seed, n_q, n_k, d=6, d_v=4, batch=(), dtype=np.float64):
    rng = np.random.default_rng(seed)
    return tuple(
        rng.normal(size=batch + shape).astype(dtype) for shape in ((n_q, d), (n_k, d), (n_k, d_v))
    )


def _no_torch(monkeypatch):
    """Make ``import torch`` fail as it does where torch is not installed."""
    monkeypatch.setitem(sys.modules, "torch", None)


def test_importing_the_core_does_not_import_torch():
    code = (
        "import sys, attnviz.core.backends, attnviz.core.tiled\n"
        "sys.exit(1 if 'torch' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_numpy_backend_is_the_reference():
    q, k, v = _qkv(0, 9, 11)
    b = get_backend("numpy")
    assert (b.name, b.device) == ("numpy", "cpu")
    np.testing.assert_array_equal(b.attention(q, k, v).weights, attention(q, k, v).weights)
    out, lse = b.tiled_attention(q, k, v, block_q=4, block_k=3, causal=True)
    ref = tiled.tiled_attention(q, k, v, block_q=4, block_k=3, causal=True)
    np.testing.assert_array_equal(out, ref[0])
    ov = b.attention_overview(q, k, bins=3, reduce="max")
    np.testing.assert_array_equal(ov, tiled.attention_overview(q, k, bins=3, reduce="max"))
    blk = b.attention_block(q, k, slice(1, 4), slice(0, 11), lse=lse, causal=True)
    np.testing.assert_allclose(blk, attention(q, k, v, mask=causal_mask(9, 11)).weights[1:4])
    f32 = get_backend("numpy", dtype="float32").attention_overview(q, k, bins=3)
    assert f32.dtype == np.float32


def test_missing_torch_gives_install_hint(monkeypatch):
    _no_torch(monkeypatch)
    for name in ("torch", "cuda"):
        # The CPU build, from its own index: a bare "pip install torch" is CUDA, several GB.
        with pytest.raises(BackendUnavailableError, match=r"--index-url https://download"):
            get_backend(name)
    assert isinstance(get_backend("auto"), NumpyBackend)
    q, k, _v = _qkv(1, 8, 8)
    assert attention_overview_auto(q, k).shape == (2, 2)
    with pytest.raises(BackendUnavailableError, match="whl/cpu"):
        get_backend("torch").attention_overview(q, k, bins=2)
    assert issubclass(BackendUnavailableError, RuntimeError)


def attention_overview_auto(q, k):
    return get_backend("auto").attention_overview(q, k, bins=2)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "gpu"}, "backend"),
        ({"name": "numpy", "dtype": "bfloat16"}, "dtype"),
        ({"name": "numpy", "dtype": "float16"}, "dtype"),
    ],
)
def test_bad_names_and_dtypes(kwargs, match):
    with pytest.raises(ValueError, match=match):
        get_backend(**kwargs)


# ---- torch on the CPU (skipped cleanly where torch is absent) ---------------------------------


@pytest.fixture
def torch():
    from tests.torch_oracle import torch

    return torch


SHAPES = [
    # n_q, n_k, causal, q batch, k/v batch
    (33, 33, False, (), ()),
    (33, 33, True, (2,), (2,)),
    (12, 40, True, (2, 1), (1, 3)),  # decoding: diagonal bottom-right, heads broadcast
    (40, 12, True, (), ()),
    (40, 12, False, (3,), ()),
]


@pytest.mark.parametrize(("n_q", "n_k", "causal", "bq", "bk"), SHAPES)
def test_torch_cpu_float64_matches_numpy(torch, n_q, n_k, causal, bq, bk):
    rng = np.random.default_rng(2)
    q = rng.normal(size=bq + (n_q, 6))
    k = rng.normal(size=bk + (n_k, 6))
    v = rng.normal(size=bk + (n_k, 4))
    tb, nb = get_backend("torch"), get_backend("numpy")
    assert (tb.name, tb.device) == ("torch", "cpu")
    mask = causal_mask(n_q, n_k) if causal else None
    got, ref = tb.attention(q, k, v, mask=mask), nb.attention(q, k, v, mask=mask)
    for f in FIELDS:
        assert isinstance(getattr(got, f), np.ndarray)
        assert np.abs(getattr(got, f) - getattr(ref, f)).max() <= 1e-10, f
    out, lse = tb.tiled_attention(q, k, v, block_q=7, block_k=5, causal=causal)
    out_n, lse_n = nb.tiled_attention(q, k, v, block_q=7, block_k=5, causal=causal)
    assert out.dtype == lse.dtype == np.float64
    assert np.abs(out - out_n).max() <= 1e-10 and np.abs(lse - lse_n).max() <= 1e-10
    for reduce in ("mean", "max"):
        for bins in (1, 5, 12):
            a = tb.attention_overview(q, k, bins=bins, reduce=reduce, causal=causal)
            b = nb.attention_overview(q, k, bins=bins, reduce=reduce, causal=causal)
            assert a.shape == b.shape and np.abs(a - b).max() <= 1e-10, (reduce, bins)
    rows, cols = slice(2, 11), slice(1, None, 2)
    a = tb.attention_block(q, k, rows, cols, lse=lse_n, causal=causal)
    b = nb.attention_block(q, k, rows, cols, lse=lse_n, causal=causal)
    assert np.abs(a - b).max() <= 1e-10


def test_torch_cpu_float32_within_torch_defaults(torch):
    q, k, v = _qkv(3, 48, 48, batch=(2,), dtype=np.float32)
    tb, nb = get_backend("torch"), get_backend("numpy")

    def close(a, b):
        assert a.dtype == b.dtype == np.float32
        torch.testing.assert_close(torch.from_numpy(a), torch.from_numpy(b))

    got, ref = tb.attention(q, k, v), nb.attention(q, k, v)
    for f in FIELDS:
        close(getattr(got, f), getattr(ref, f))
    out, lse = tb.tiled_attention(q, k, v, block_q=16, block_k=16, causal=True)
    out_n, lse_n = nb.tiled_attention(q, k, v, block_q=16, block_k=16, causal=True)
    close(out, out_n)
    close(lse, lse_n)
    for reduce in ("mean", "max"):
        close(
            tb.attention_overview(q, k, bins=7, reduce=reduce, causal=True),
            nb.attention_overview(q, k, bins=7, reduce=reduce, causal=True),
        )
    close(
        tb.attention_block(q, k, slice(0, 9), slice(3, 30), lse=lse_n, causal=True),
        nb.attention_block(q, k, slice(0, 9), slice(3, 30), lse=lse_n, causal=True),
    )


def test_torch_small_strips_match(torch, monkeypatch):
    tb = get_backend("torch")
    monkeypatch.setattr(tb.ops, "budget", 30)  # strips of one or two rows
    q, k, _v = _qkv(4, 41, 23, batch=(2,))
    for reduce in ("mean", "max"):
        a = tb.attention_overview(q, k, bins=6, reduce=reduce, causal=True)
        b = tiled.attention_overview(q, k, bins=6, reduce=reduce, causal=True)
        assert np.abs(a - b).max() <= 1e-12


def test_torch_overview_lse_progress_and_cancel(torch):
    tb, nb = get_backend("torch"), get_backend("numpy")
    q, k, _v = _qkv(9, 40, 40, batch=(2,))
    tb.ops.budget = 16 * 10  # panels of 16 rows, tiles of 10 keys: rescaling on the way
    seen = []
    kw = {"bins": 6, "causal": True, "return_lse": True}
    got, lse = tb.attention_overview(q, k, progress=seen.append, **kw)
    ref, ref_lse = nb.attention_overview(q, k, **kw)
    assert np.abs(got - ref).max() <= 1e-12 and np.abs(lse - ref_lse).max() <= 1e-10
    assert len(seen) > 2 and seen[-1] == 1.0 and seen == sorted(seen)
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3  # after a few tiles

    with pytest.raises(Cancelled):
        tb.attention_overview(q, k, bins=6, cancel=cancel)
    with pytest.raises(ValueError, match="cancel"):
        tb.attention_overview(q, k, bins=6, cancel="stop")
    # the numpy backend object passes them on
    flag = __import__("threading").Event()
    flag.set()
    with pytest.raises(Cancelled):
        nb.attention_overview(q, k, bins=6, cancel=flag)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_path_runs_on_the_cpu(torch, dtype):
    """The CUDA half-precision code (float32 scores from half products) on torch's CPU."""
    tb, nb = backends.TorchBackend("cpu", dtype), get_backend("numpy")
    q, k, _v = _qkv(10, 120, 120, d=32, dtype=np.float32)
    for reduce in ("mean", "max"):
        a = tb.attention_overview(q, k, bins=8, reduce=reduce, causal=True)
        b = nb.attention_overview(q, k, bins=8, reduce=reduce, causal=True)
        assert a.dtype == np.float32 and np.abs(a - b).max() <= 1e-2 * b.max()


def test_cuda_strips_are_sized_to_free_memory(torch, monkeypatch):
    ops = get_backend("torch").ops
    monkeypatch.setattr(ops, "budget", None)  # as on a GPU
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (140 * 2**30, 141 * 2**30))
    assert ops._tile_shape(1, 262144, 262144) == (1024, 262144)  # whole rows, 1 GiB of scores
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (2**30, 141 * 2**30))
    rows, width = ops._tile_shape(1, 262144, 262144)
    assert (rows, width) == (64, 262144) and rows * width == 2**30 // 64


def test_torch_accepts_tensors_and_masks(torch):
    q, k, v = _qkv(5, 7, 7)
    tb = get_backend("torch")
    valid = np.array([True] * 6 + [False])
    mask = padding_mask(valid) & np.eye(7, dtype=bool)[:, ::-1] | ~np.eye(7, dtype=bool)
    mask[0] = False  # a query with no key at all: zeros, not NaN
    got = tb.attention(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), mask=mask)
    ref = attention(q, k, v, mask=mask)
    for f in FIELDS:
        assert np.abs(getattr(got, f) - getattr(ref, f)).max() <= 1e-10
    np.testing.assert_array_equal(got.fully_masked, ref.fully_masked)
    assert not np.isnan(got.weights).any()


def test_torch_bad_input_raises_value_error(torch):
    tb = get_backend("torch")
    q, k, v = _qkv(6, 6, 6)
    bad_t = torch.from_numpy(q).clone()
    bad_t[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        tb.tiled_attention(bad_t, k, v, block_q=2, block_k=2)
    with pytest.raises(ValueError, match="d_k"):
        tb.attention(q, k[:, :3], v)
    with pytest.raises(ValueError, match="bins"):
        tb.attention_overview(q, k, bins=9)
    with pytest.raises(ValueError, match="reduce"):
        tb.attention_overview(q, k, bins=2, reduce="sum")
    with pytest.raises(ValueError, match="slice"):
        tb.attention_block(q, k, [1, 2], slice(0, 2), lse=np.zeros(6))
    with pytest.raises(ValueError, match="block_q"):
        tb.tiled_attention(q, k, v, block_q=0, block_k=2)
    with pytest.raises(ValueError, match="dtype"):
        get_backend("torch", dtype="bfloat16")


def test_no_cuda_is_a_clear_error_and_auto_falls_back(torch, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(BackendUnavailableError, match="CUDA is not available"):
        get_backend("cuda")
    assert get_backend("auto").name == "numpy"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert get_backend("auto").name == "cuda"  # nothing runs on it here


def test_out_of_memory_suggests_smaller_n_or_cpu(torch, monkeypatch):
    tb = get_backend("torch")
    q, k, _v = _qkv(7, 8, 8)

    def boom(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 256.00 GiB")

    monkeypatch.setattr(tb.ops, "overview", boom)
    monkeypatch.setattr(tb, "device", "cuda")
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    with pytest.raises(BackendOutOfMemoryError, match="smaller n.*get_backend\\('numpy'\\)"):
        tb.attention_overview(q, k, bins=2)
    # one refusal for "before" and "during": MemoryRefused (a ValueError), never a crash
    assert issubclass(BackendOutOfMemoryError, MemoryError)
    assert issubclass(BackendOutOfMemoryError, MemoryRefused)
    monkeypatch.setattr(tb, "device", "cpu")

    def cpu_oom(*args, **kwargs):
        raise RuntimeError("[enforce fail] DefaultCPUAllocator: can't allocate memory: 9 GB")

    monkeypatch.setattr(tb.ops, "overview", cpu_oom)
    with pytest.raises(MemoryRefused, match="the CPU ran out of memory"):
        tb.attention_overview(q, k, bins=2)

    def other(*args, **kwargs):
        raise RuntimeError("some other failure")

    monkeypatch.setattr(tb.ops, "overview", other)
    with pytest.raises(RuntimeError, match="some other failure"):
        tb.attention_overview(q, k, bins=2)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_cuda_matches_numpy(torch, dtype):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here")
    q, k, v = _qkv(8, 300, 300, d=64, d_v=64, dtype=np.float32)
    cb, nb = get_backend("cuda", dtype=dtype), get_backend("numpy")
    tol = {"rtol": 1.3e-6, "atol": 1e-5} if dtype == "float32" else {"rtol": 2e-2, "atol": 2e-2}
    out, lse = cb.tiled_attention(q, k, v, block_q=64, block_k=64, causal=True)
    out_n, lse_n = nb.tiled_attention(q, k, v, block_q=64, block_k=64, causal=True)
    np.testing.assert_allclose(out, out_n, **tol)
    np.testing.assert_allclose(lse, lse_n, **tol)
    for reduce in ("mean", "max"):
        a = cb.attention_overview(q, k, bins=16, reduce=reduce, causal=True)
        b = nb.attention_overview(q, k, bins=16, reduce=reduce, causal=True)
        np.testing.assert_allclose(a, b, rtol=tol["rtol"] * 10, atol=tol["atol"])
    assert backends.get_backend("auto").name == "cuda"
