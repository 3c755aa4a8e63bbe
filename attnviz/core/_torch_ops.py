"""The torch computations behind :class:`attnviz.core.backends.TorchBackend` on one
device: the blocks of scores, the row statistics and the long map's sweep over panels of
query rows (split from :mod:`attnviz.core.backends`, which imports them; torch is handed
in, never imported here).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from attnviz.core import _parallel, memory_guard, work
from attnviz.core import tiled as _tiled
from attnviz.core._validate import as_float_array


class _Sweep(NamedTuple):
    """What every panel of query rows of one :meth:`_TorchOps.overview` reads."""

    qf: Any  #: queries, (B, n_q, d)
    kf: Any  #: keys, (B, n_k, d)
    tiles: list  #: key tiles: (first key, end, first bin, runs of bins)
    bins: int
    scale: float  #: c·log2(e): scores in base 2
    buf: Any  #: room for a tile's scores, or None
    causal: bool
    off: int  #: n_k − n_q: a query sees the keys up to its own index plus this
    reduce: str | None
    runner: Any


class _TorchOps:
    """The torch computations behind :class:`TorchBackend`, on one device."""

    def __init__(self, torch, device: str):
        self.torch = torch
        self.device = device
        # Scores held at once: a cache-sized strip on the CPU, a much larger one on a GPU,
        # where each kernel launch should have millions of elements to chew on.
        self.budget = None if device.startswith("cuda") else memory_guard.TORCH_CPU_TILE

    def validate(self, x, name: str, min_ndim: int = 2):
        """numpy's checks for arrays; the same rules, in torch, for tensors."""
        torch = self.torch
        if not isinstance(x, torch.Tensor):
            return as_float_array(x, name, min_ndim=min_ndim)
        x = x.detach()
        if x.is_complex():
            raise ValueError(f"{name}: complex values are not supported")
        if not x.is_floating_point():
            x = x.to(torch.float64)
        if x.ndim < min_ndim:
            raise ValueError(
                f"{name}: expected at least {min_ndim} dimensions, got {tuple(x.shape)}"
            )
        if x.numel() == 0:
            raise ValueError(f"{name}: empty tensor (shape {tuple(x.shape)})")
        if not bool(torch.isfinite(x).all()):
            raise ValueError(f"{name}: holds non-finite values")
        return x

    def to_tensor(self, a, dtype):
        if not isinstance(a, self.torch.Tensor):
            a = self.torch.from_numpy(np.ascontiguousarray(a))
        return a.to(device=self.device, dtype=dtype)

    def numpy(self, t) -> np.ndarray:
        if t.dtype in (self.torch.bfloat16, self.torch.float16):
            t = t.float()
        return t.detach().cpu().numpy()

    def _flat(self, x, batch):
        """``(..., n, d)`` broadcast to ``batch`` and flattened to ``(B, n, d)``."""
        return x.expand(batch + tuple(x.shape[-2:])).reshape(-1, *x.shape[-2:])

    def _hide(self, s, a: int, b: int, j0: int, j1: int, off: int) -> None:
        """Set ``s[..., i − a, j − j0] = −inf`` where key j is in the future of query i."""
        if j1 - 1 > a + off:  # the tile crosses the diagonal
            t = self.torch
            hide = t.arange(j0, j1, device=self.device)[None, :] > (
                t.arange(a, b, device=self.device)[:, None] + off
            )
            s.masked_fill_(hide, -math.inf)

    def dense(self, q, k, v, c, m):
        t = self.torch
        s = t.matmul(q * c, k.transpose(-1, -2))
        if m is None:
            logits = s
            fully = t.zeros(s.shape[:-1], dtype=t.bool, device=self.device)
        else:
            mt = t.as_tensor(np.ascontiguousarray(m), device=self.device)
            logits = s.masked_fill(~mt, -math.inf)
            fully = ~mt.expand(s.shape).any(dim=-1)
        # softmax of an all −inf row is NaN; attention() defines it as zeros.
        w = t.softmax(logits, dim=-1).masked_fill(fully[..., None], 0.0)
        entropy = -t.special.xlogy(w, w).sum(dim=-1)
        return {
            "scores": s,
            "weights": w,
            "output": t.matmul(w, v),
            "entropy": entropy,
            "fully_masked": fully,
        }

    def sdpa(self, q, k, v, batch, c, causal):
        t = self.torch
        n_q, n_k = q.shape[-2], k.shape[-2]
        q4, k4, v4 = (self._flat(x, batch)[:, None] for x in (q, k, v))
        mask = None
        if causal and n_q < n_k:
            # SDPA's is_causal aligns the diagonal top-left; ours is bottom-right (decoding).
            from torch.nn.attention.bias import causal_lower_right

            mask = causal_lower_right(n_q, n_k)
        out = t.nn.functional.scaled_dot_product_attention(
            q4, k4, v4, attn_mask=mask, is_causal=causal and mask is None, scale=c
        )
        return out.reshape(batch + (n_q, v.shape[-1]))

    def _scores(self, qa, kb, scale: float, buf):
        """``scale · qa @ kbᵀ`` as float32/64; into ``buf`` (reused, no page faults) when
        possible. Half-precision products keep float32 sums and scores where torch can."""
        t = self.torch
        if qa.dtype in (t.bfloat16, t.float16):
            kt = kb.transpose(-1, -2)
            try:
                s = t.bmm(qa, kt, out_dtype=t.float32)  # CUDA: float32 accumulate and output
            except (TypeError, RuntimeError, NotImplementedError):  # CPU, older torch
                s = t.matmul(qa, kt).float()
            return s.mul_(scale)
        s = buf[: qa.shape[0] * qa.shape[-2] * kb.shape[-2]].view(qa.shape[0], qa.shape[-2], -1)
        return t.matmul(qa * scale, kb.transpose(-1, -2), out=s)

    def _tile_shape(self, n_batch: int, n_q: int, n_k: int) -> tuple[int, int]:
        """Query rows of a panel and keys of a tile: whole rows when they fit the budget
        (then no rescaling at all), which on a GPU is sized to its free memory."""
        budget = self.budget
        if budget is None:
            free = self.torch.cuda.mem_get_info(self.torch.device(self.device))[0]
            budget = memory_guard.cuda_tile_elements(max(n_q, n_k), free)
        rows = min(n_q, max(16, budget // (n_k * n_batch)))
        return rows, max(1, budget // (rows * n_batch))

    def _runs(self, s, runs, how: str):
        """Sum (or max) of each key bin of a tile, ``(B, rows, bins of the tile)``."""
        parts, o = [], 0
        for count, w in runs:
            seg = s[..., o : o + count * w].unflatten(-1, (count, w))
            parts.append(seg.sum(-1) if how == "sum" else seg.amax(-1))
            o += count * w
        return parts[0] if len(parts) == 1 else self.torch.cat(parts, -1)

    def overview(self, q, k, batch, c, bins, reduce, causal, runner):
        """:func:`attnviz.core.tiled.attention_overview`'s online softmax, batched: panels of
        query rows over tiles of key bins, with a running maximum per query and rescaled
        per-(query, key bin) sums (``reduce=None``: only the row log-sum-exp).
        Returns ``(map or None, lse)`` in float64, on the device."""
        t, dev = self.torch, self.device
        qf, kf = self._flat(q, batch), self._flat(k, batch)
        n_b, n_q, n_k = qf.shape[0], qf.shape[-2], kf.shape[-2]
        off = max(n_k - n_q, 0)
        rows, width = self._tile_shape(n_b, n_q, n_k)
        tiles = _tiled._key_tiles(*work.split_starts(n_k, bins), width)
        group = np.repeat(np.arange(bins), work.split_starts(n_q, bins)[1])
        group = t.as_tensor(group, device=dev)
        buf = self._score_buffer(qf, n_b, rows, tiles)
        scale = c * _tiled._LOG2E  # base 2: exp2 for exp
        out = t.zeros(n_b, bins, bins, dtype=t.float64, device=dev) if reduce else None
        lse = t.empty(n_b, n_q, dtype=t.float64, device=dev)
        panels = [(a, min(a + rows, n_q)) for a in range(0, n_q, rows)]
        panels = [(a, b, min(n_k, b + off) if causal else n_k) for a, b in panels]
        runner.total = max(1.0, float(sum((b - a) * end for a, b, end in panels)))
        sweep = _Sweep(qf, kf, tiles, bins, scale, buf, causal, off, reduce, runner)
        for a, b, end in panels:
            m, acc, top = self._panel_sums(sweep, a, b, end)
            self._reduce_panel(sweep, a, b, (m, acc, top), group, out, lse)
            if dev.startswith("cuda") and runner.watched:
                t.cuda.synchronize(dev)  # progress and cancel follow the GPU, not the queue
            runner.advance((b - a) * end)
        if out is not None and reduce == "mean":
            sizes = np.outer(work.split_starts(n_q, bins)[1], work.split_starts(n_k, bins)[1])
            out /= t.as_tensor(sizes.astype(np.float64), device=dev)
        shape = batch + (bins, bins)
        return (None if out is None else out.reshape(shape)), lse.reshape(batch + (n_q,))

    def _score_buffer(self, qf, n_b: int, rows: int, tiles):
        """Room for the scores of the widest tile, reused by every tile; None for
        half-precision products, which come as new float32 tensors (cached by torch)."""
        t = self.torch
        if qf.dtype in (t.bfloat16, t.float16):
            return None
        widest = max(j1 - j0 for j0, j1, _b, _r in tiles)
        return t.empty(n_b * rows * widest, dtype=qf.dtype, device=self.device)

    def _panel_sums(self, sweep: _Sweep, a: int, b: int, end: int):
        """``(m, acc, top)`` of query rows ``a:b`` over the key tiles before ``end``: the
        running maximum per query (base 2), the per-(query, key bin) sums of exp2(score −
        m), rescaled as m grows, and (``reduce="max"``) each bin's largest score."""
        t, dev = self.torch, self.device
        qf, kf, tiles, runner = sweep.qf, sweep.kf, sweep.tiles, sweep.runner
        m = None
        acc = t.zeros(qf.shape[0], b - a, sweep.bins, dtype=t.float64, device=dev)
        top = t.full_like(acc, -math.inf) if sweep.reduce == "max" else None
        for j0, j1, b0, runs in tiles:
            if j0 >= end:
                break
            runner.check()
            nb = sum(count for count, _w in runs)
            s = self._scores(qf[:, a:b], kf[:, j0:j1], sweep.scale, sweep.buf)
            if sweep.causal:
                self._hide(s, a, b, j0, j1, sweep.off)
            if top is not None:
                seg = top[..., b0 : b0 + nb]
                t.maximum(seg, self._runs(s, runs, "max").double(), out=seg)
            # Every query sees key 0, so the first tile gives each a finite maximum.
            new = s.amax(-1) if m is None else t.maximum(m, s.amax(-1))
            if m is not None:
                acc.mul_(t.exp2(m - new).double()[..., None])
            s.sub_(new[..., None]).exp2_()
            acc[..., b0 : b0 + nb] += self._runs(s, runs, "sum").double()
            m = new
        return m, acc, top

    def _reduce_panel(self, sweep: _Sweep, a: int, b: int, sums, group, out, lse) -> None:
        """Write the log-sum-exp of query rows ``a:b`` into ``lse`` and add their weights to
        ``out``'s query bins: the mean of each key bin, or its largest weight."""
        t = self.torch
        m, acc, top = sums
        total = acc.sum(-1)
        lse2 = m.double() + total.log2()
        lse[:, a:b] = lse2 / _tiled._LOG2E
        if sweep.reduce == "mean":
            out.index_add_(1, group[a:b], acc / total[..., None])
        elif sweep.reduce == "max":
            cells = t.exp2(top - lse2[..., None])
            index = group[a:b][None, :, None].expand_as(cells)
            out.scatter_reduce_(1, index, cells, "amax", include_self=True)

    def row_lse(self, q, k, batch, c, causal):
        runner = _parallel.Runner(1.0)
        lse = self.overview(q, k, batch, c, 1, None, causal, runner)[1]
        return lse.to(_real(self.torch, q.dtype))

    def block(self, q, k, ri, ci, lse, c, causal):
        t = self.torch
        n_q, n_k = q.shape[-2], k.shape[-2]
        rt, ct = t.as_tensor(ri, device=self.device), t.as_tensor(ci, device=self.device)
        s = t.matmul(q[..., rt, :] * c, k[..., ct, :].transpose(-1, -2)).to(lse.dtype)
        if causal:
            # Hide before exp: a hidden score may exceed the row's lse and overflow.
            s = s.masked_fill(ct[None, :] > rt[:, None] + max(n_k - n_q, 0), -math.inf)
        return t.exp(s - lse[..., rt, None])


def _real(torch, dtype):
    """The dtype results come back in: float32 for half-precision inputs."""
    return torch.float32 if dtype in (torch.bfloat16, torch.float16) else dtype
