"""The same attention functions on numpy, on torch's CPU, or on a CUDA GPU.

``get_backend(name)`` returns an object with ``attention``, ``tiled_attention``,
``attention_overview`` and ``attention_block`` taking the arguments of the numpy functions
(:mod:`attnviz.core.attention`, :mod:`attnviz.core.tiled`; the backend object takes the
place of the ``backend=`` argument) and returning numpy arrays. The torch backends also
accept torch tensors.

torch is optional and slow to import, so it is imported only when a torch backend is asked
for (or "auto" has to look for a GPU), never when this module is imported.

Errors: a missing torch or CUDA raises :class:`BackendUnavailableError` (a ``RuntimeError``)
whose message names the fix (torch's CPU build from its own index, or another backend); running
out of memory raises :class:`BackendOutOfMemoryError` (a ``MemoryError``) suggesting a smaller n
or the CPU. Bad arguments raise ``ValueError`` as everywhere in the core.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
import sys

import numpy as np

from attnviz.core import _parallel, memory_guard, work
from attnviz.core import attention as _attention
from attnviz.core import tiled as _tiled
from attnviz.core._torch_ops import _real, _TorchOps
from attnviz.core._validate import (
    cast_to,
    check_choice,
    compute_dtype,
    narrowest,
    scale_factor,
)
from attnviz.core.memory_guard import MemoryRefused

#: Its CPU build (no GPU needed); a CUDA build from PyPI (a plain "pip install torch") is
#: several GB.
INSTALL_HINT = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
NAMES = ("numpy", "torch", "cuda", "auto")
_DTYPES = {
    "numpy": (None, "float32", "float64"),
    "torch": (None, "float32", "float64"),
    "cuda": (None, "float32", "bfloat16", "float16"),
}


class BackendUnavailableError(RuntimeError):
    """The backend asked for cannot run here (torch not installed, or no CUDA device)."""


class BackendOutOfMemoryError(MemoryRefused, MemoryError):
    """The device ran out of memory; the message suggests a smaller n or the CPU.

    A :class:`attnviz.core.memory_guard.MemoryRefused` (so a ``ValueError``), as the refusal
    before the start is, and a ``MemoryError``.
    """


def _import_torch():
    try:
        return importlib.import_module("torch")
    except ImportError as exc:
        raise BackendUnavailableError(
            f"this backend needs PyTorch, which is not installed; install it with: {INSTALL_HINT}"
            " (or use get_backend('numpy'))"
        ) from exc


def _torch_installed() -> bool:
    if "torch" in sys.modules:
        return sys.modules["torch"] is not None
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


class NumpyBackend:
    """The exact numpy functions; ``dtype`` ("float32"/"float64") casts inputs when set."""

    name = "numpy"
    device = "cpu"

    def __init__(self, dtype: str | None = None):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"NumpyBackend(dtype={self.dtype!r})"

    def _cast(self, *xs):
        if self.dtype is None:
            return xs
        return tuple(cast_to(x, self.dtype, name) for x, name in zip(xs, "qkv", strict=False))

    def attention(self, q, k, v, *, mask=None, scale=True, temperature=1.0):
        """:func:`attnviz.core.attention.attention`."""
        q, k, v = self._cast(q, k, v)
        return _attention.attention(q, k, v, mask=mask, scale=scale, temperature=temperature)

    def tiled_attention(self, q, k, v, *, block_q, block_k, causal=False, scale=True):
        """:func:`attnviz.core.tiled.tiled_attention`."""
        q, k, v = self._cast(q, k, v)
        return _tiled.tiled_attention(
            q, k, v, block_q=block_q, block_k=block_k, causal=causal, scale=scale
        )

    def attention_overview(self, q, k, *, bins, reduce="mean", causal=False, scale=True, **kw):
        """:func:`attnviz.core.tiled.attention_overview` (``kw``: ``return_lse``,
        ``progress``, ``cancel``)."""
        q, k = self._cast(q, k)
        return _tiled.attention_overview(
            q, k, bins=bins, reduce=reduce, causal=causal, scale=scale, **kw
        )

    def attention_block(self, q, k, rows, cols, *, lse, causal=False, scale=True):
        """:func:`attnviz.core.tiled.attention_block`."""
        q, k = self._cast(q, k)
        return _tiled.attention_block(q, k, rows, cols, lse=lse, causal=causal, scale=scale)


def _guard_memory(method):
    """Turn torch's out-of-memory errors into :class:`BackendOutOfMemoryError` with a way out."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except RuntimeError as exc:
            torch = self.torch
            oom = tuple(
                e
                for e in (
                    getattr(torch, "OutOfMemoryError", None),
                    getattr(torch.cuda, "OutOfMemoryError", None),
                )
                if e is not None
            )
            text = str(exc)
            words = ("out of memory", "not enough memory", "can't allocate memory")
            if not (isinstance(exc, oom) or any(w in text for w in words)):
                raise
            where = "the GPU" if self.device.startswith("cuda") else "the CPU"
            if where == "the GPU":
                torch.cuda.empty_cache()  # hand the strips back: the app goes on
            fix = "or the CPU backend (get_backend('numpy'))" if where == "the GPU" else ""
            raise BackendOutOfMemoryError(
                f"{where} ran out of memory in {method.__name__} ({text.splitlines()[0]}); "
                f"try a smaller n (fewer tokens) {fix}".rstrip()
            ) from exc

    return wrapper


class TorchBackend:
    """torch on the CPU (float32/float64) or a CUDA device (float32/bfloat16/float16).

    ``dtype=None`` follows the inputs on the CPU (float32 stays float32, anything else is
    float64) and means float32 on CUDA. Outputs are numpy (half precision comes back as
    float32; the overview's scores are float32 sums of half-precision products).
    """

    def __init__(self, device: str = "cpu", dtype: str | None = None):
        self.torch = _import_torch()
        self.device = device
        self.name = "cuda" if device.startswith("cuda") else "torch"
        self.dtype = dtype
        self.ops = _TorchOps(self.torch, device)

    def __repr__(self) -> str:
        return f"TorchBackend(device={self.device!r}, dtype={self.dtype!r})"

    def _inputs(self, *named, c: float = 1.0):
        """Validate and move ``(array_or_tensor, name)`` pairs (q and k first) to one device
        and dtype: the backend's, or float64 when the scores ``q kᵀ · c`` could overflow the
        float32 that holds them (as the numpy functions do). Returns the tensors and the
        dtype results come back in (numpy's name for the backend's real dtype)."""
        arrays = [self.ops.validate(x, name) for x, name in named]
        if self.dtype is not None:
            dtype = getattr(self.torch, self.dtype)
        elif self.name == "cuda":
            dtype = self.torch.float32
        else:
            all32 = all(a.dtype in (np.float32, self.torch.float32) for a in arrays)
            dtype = self.torch.float32 if all32 else self.torch.float64
        real = _real(self.torch, dtype)
        if dtype != real:  # half precision: each input must fit it
            top = float(self.torch.finfo(dtype).max)
            for a, (_x, name) in zip(arrays, named, strict=True):
                if max(float(a.max()), -float(a.min())) > top:
                    raise ValueError(
                        f"{name}: values beyond ±{top:g} do not fit in {self.dtype}; "
                        "use float32 or the numpy backend"
                    )
        out = np.float32 if real == self.torch.float32 else np.float64
        if compute_dtype(out, arrays[0], arrays[1], c) != out:
            dtype = self.torch.float64
        return [self.ops.to_tensor(a, dtype) for a in arrays], out

    @staticmethod
    def _check_shapes(q, k, v=None):
        if q.shape[-1] != k.shape[-1]:
            raise ValueError(
                f"q and k must share d_k (last dimension): q {tuple(q.shape)} vs k {tuple(k.shape)}"
            )
        if v is not None and v.shape[-2] != k.shape[-2]:
            raise ValueError(
                f"k and v must have the same number of keys: k {tuple(k.shape)} vs v "
                f"{tuple(v.shape)}"
            )
        shapes = [tuple(x.shape[:-2]) for x in (q, k, v) if x is not None]
        try:
            return np.broadcast_shapes(*shapes)
        except ValueError as exc:
            raise ValueError(f"leading (batch/head) dimensions do not broadcast: {shapes}") from exc

    @_guard_memory
    def attention(self, q, k, v, *, mask=None, scale=True, temperature=1.0):
        """:func:`attnviz.core.attention.attention` in torch (dense: it returns n×n arrays)."""
        work.check_flag(scale, "scale")
        c = scale_factor(_last_dim(q), scale, temperature)
        (q, k, v), out = self._inputs((q, "q"), (k, "k"), (v, "v"), c=c)
        batch = self._check_shapes(q, k, v)
        shape = batch + (q.shape[-2], k.shape[-2])
        # The mask rules (dtype, broadcasting) are attention()'s own; reuse them.
        m = _attention._check_mask(mask, shape)
        parts = {n: self.ops.numpy(t) for n, t in self.ops.dense(q, k, v, c, m).items()}
        for name in ("weights", "output", "entropy"):
            parts[name] = parts[name].astype(out, copy=False)
        parts["scores"] = narrowest(parts["scores"], out)
        return _attention.AttentionResult(**parts)

    @_guard_memory
    def tiled_attention(self, q, k, v, *, block_q, block_k, causal=False, scale=True):
        """:func:`attnviz.core.tiled.tiled_attention`: torch's ``scaled_dot_product_attention``
        for the output, row strips of ``block_q`` queries for the log-sum-exp."""
        _tiled._blocks(block_q, block_k)
        work.check_flag(causal, "causal")
        c = _scale(_last_dim(q), scale)
        (q, k, v), real = self._inputs((q, "q"), (k, "k"), (v, "v"), c=c)
        batch = self._check_shapes(q, k, v)
        out = self.ops.sdpa(q, k, v, batch, c, causal)
        lse = self.ops.row_lse(q, k, batch, c, causal)
        return self.ops.numpy(out).astype(real, copy=False), self.ops.numpy(lse)

    @_guard_memory
    def attention_overview(
        self,
        q,
        k,
        *,
        bins,
        reduce="mean",
        causal=False,
        scale=True,
        return_lse=False,
        progress=None,
        cancel=None,
    ):
        """:func:`attnviz.core.tiled.attention_overview` in torch: one pass, panels of query
        rows over tiles of key bins (whole rows when they fit; on a GPU the tile is sized to
        its free memory). :class:`attnviz.core.memory_guard.MemoryRefused` when it cannot
        fit, :class:`attnviz.core.tiled.Cancelled` when ``cancel`` is set."""
        check_choice(reduce, ("mean", "max"), "reduce")
        work.check_flag(causal, "causal")
        work.check_flag(return_lse, "return_lse")
        runner_args = work.as_cancel(cancel), work.as_progress(progress)
        (q, k), _real_out = self._inputs((q, "q"), (k, "k"), c=_scale(_last_dim(q), scale))
        batch = self._check_shapes(q, k)
        bins = _tiled._check_bins(bins, q.shape[-2], k.shape[-2])
        n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
        n_b = math.prod(batch)
        rows, width = self.ops._tile_shape(n_b, n_q, n_k)
        memory_guard.check_fits(
            max(n_q, n_k),
            d,
            bins,
            self.name,
            q.dtype,
            inputs=False,
            tile_elements=n_b * rows * min(width, n_k),
        )
        runner = _parallel.Runner(1.0, *runner_args)  # overview() sets the total
        out, lse = self.ops.overview(q, k, batch, _scale(d, scale), bins, reduce, causal, runner)
        runner.finish()
        real = _real(self.torch, q.dtype)
        out = self.ops.numpy(out.to(real)).astype(_real_out, copy=False)
        return (out, self.ops.numpy(lse.to(real))) if return_lse else out

    @_guard_memory
    def attention_block(self, q, k, rows, cols, *, lse, causal=False, scale=True):
        """:func:`attnviz.core.tiled.attention_block` in torch."""
        work.check_flag(causal, "causal")
        c = _scale(_last_dim(q), scale)
        (q, k), real = self._inputs((q, "q"), (k, "k"), c=c)
        self._check_shapes(q, k)
        # half precision would round lse to 3 digits: keep it in (at least) float32.
        lse_dtype = _real(self.torch, q.dtype)
        lse = self.ops.to_tensor(self.ops.validate(lse, "lse", min_ndim=1), lse_dtype)
        n_q, n_k = q.shape[-2], k.shape[-2]
        ri, ci = _tiled._indices(rows, n_q, "rows"), _tiled._indices(cols, n_k, "cols")
        if lse.shape[-1] != n_q:
            raise ValueError(f"lse must have one entry per query ({n_q}), got {tuple(lse.shape)}")
        if _tiled._lse_too_coarse(self.ops.numpy(lse[..., ri]), np.float64):
            # Scores so large that the lse cannot carry the row's sum: numpy's exact rows.
            qn, kn = (self.ops.numpy(x).astype(np.float64) * f for x, f in ((q, c), (k, 1.0)))
            return _tiled._exact_rows(qn, kn, ri, ci, causal).astype(real)
        return self.ops.numpy(self.ops.block(q, k, ri, ci, lse, c, causal)).astype(real)


def _last_dim(x) -> int:
    """d_k of an array, tensor or nested list before it is validated (1 when it has none;
    the validation that follows says what is wrong with it)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        try:
            shape = np.shape(x)
        except (ValueError, TypeError):
            return 1
    return int(shape[-1]) if len(shape) and int(shape[-1]) > 0 else 1


def _scale(d_k: int, scale) -> float:
    work.check_flag(scale, "scale")
    return 1.0 / math.sqrt(d_k) if scale else 1.0


def get_backend(name: str = "auto", *, dtype: str | None = None):
    """Return the attention functions on ``name``.

    Parameters
    ----------
    name : "numpy" (exact reference, always available), "torch" (torch on the CPU),
        "cuda" (torch on the first CUDA device) or "auto" (CUDA when available, else numpy;
        torch is imported only to look for a GPU, and only if it is installed)
    dtype : None (follow the inputs; float32 on CUDA), "float32", "float64" (numpy, torch)
        or "bfloat16", "float16" (cuda: half-precision products, float32 scores)

    Returns
    -------
    NumpyBackend or TorchBackend, with ``name``, ``device``, ``dtype`` and the methods
    ``attention``, ``tiled_attention``, ``attention_overview``, ``attention_block``.

    Raises
    ------
    BackendUnavailableError
        torch is not installed (the message says ``pip install "attnviz[torch]"``), or no
        CUDA device is visible.
    ValueError
        unknown name or a dtype the backend does not run.
    """
    check_choice(name, NAMES, "backend")
    if name == "auto":
        cuda = _torch_installed() and _import_torch().cuda.is_available()
        name = "cuda" if cuda else "numpy"
    check_choice(dtype, _DTYPES[name], f"dtype for the {name} backend")
    if name == "numpy":
        return NumpyBackend(dtype)
    torch = _import_torch()
    if name == "cuda" and not torch.cuda.is_available():
        raise BackendUnavailableError(
            f"CUDA is not available (torch {torch.__version__}, "
            f"built for CUDA {torch.version.cuda or 'none'}; no GPU visible); "
            "use get_backend('torch') for torch on the CPU or get_backend('numpy'), or install "
            "a CUDA build of torch (https://pytorch.org/get-started/locally/)"
        )
    return TorchBackend("cuda" if name == "cuda" else "cpu", dtype)
