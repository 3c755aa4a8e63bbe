"""Rotary position embedding (RoPE): frequencies, their context-extension scalings, rotation.

Each pair of dimensions of a query or key is a clock hand turned by ``m·θ_i`` at position
``m``; pair ``i`` turns at its own speed ``θ_i = base^(−2i/d)``. Because both q and k are
turned, ``q_m · k_n`` depends only on ``m − n``.

The scalings reproduce Hugging Face transformers' ``modeling_rope_utils`` (the functions
named in each docstring), computed here in float64 where transformers uses float32, so the
two agree to about 1e-7 relative. ``scaling`` takes the same dict as a model config's
``rope_scaling`` entry (``"type"`` is accepted for ``"rope_type"``, as transformers does).
"""

from __future__ import annotations

import math

import numpy as np

from attnviz.core._validate import (
    as_float_array,
    check_choice,
    check_number,
    check_positive_int,
    result_dtype,
)

ROPE_TYPES = ("default", "linear", "ntk", "dynamic", "llama3", "yarn")
LAYOUTS = ("interleaved", "half")


def _require(scaling: dict, key: str, rope_type: str):
    if scaling.get(key) is None:
        raise ValueError(f"rope_scaling of type {rope_type!r} needs {key!r}")
    return scaling[key]


def _default_inv_freq(dim: int, base: float) -> np.ndarray:
    # transformers: 1 / base ** (arange(0, dim, 2) / dim)
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's magnitude correction, as transformers' ``get_mscale``: ``0.1·mscale·ln(s) + 1``.

    Returns 1 for ``scale ≤ 1`` (no extension, nothing to correct).
    """
    scale = check_number(scale, "scale")
    mscale = check_number(mscale, "mscale")
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_attention_factor(factor: float, mscale=None, mscale_all_dim=None) -> float:
    """Scale YaRN applies to cos and sin (so to the logits, squared), as transformers does.

    ``get_mscale(factor)``, i.e. ``0.1·ln(factor) + 1`` for ``factor > 1`` and 1 otherwise;
    when both ``mscale`` and ``mscale_all_dim`` are given (DeepSeek's configs), the ratio
    ``get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)``
    (``_compute_yarn_parameters``). Factor 4 gives 1.1386.
    """
    factor = check_number(factor, "factor", minimum=1.0)
    if mscale and mscale_all_dim:
        return float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
    return get_mscale(factor)


def _yarn_factor(s: dict) -> tuple[float, float]:
    orig = check_number(_require(s, "original_max_position_embeddings", "yarn"),
                   "original_max_position_embeddings", above=0)
    factor = s.get("factor")
    if factor is None:
        # transformers derives the factor from the context growth when it is left out
        factor = check_number(_require(s, "max_position_embeddings", "yarn"),
                         "max_position_embeddings", above=0) / orig
    return check_number(factor, "factor", minimum=1.0), orig


def _yarn(dim: int, base: float, s: dict) -> np.ndarray:
    # transformers' _compute_yarn_parameters (the inverse frequencies; the factor is separate)
    factor, orig = _yarn_factor(s)
    beta_fast = check_number(s.get("beta_fast") or 32, "beta_fast")
    beta_slow = check_number(s.get("beta_slow") or 1, "beta_slow")
    if beta_fast <= 0 or beta_slow <= 0:
        raise ValueError(f"beta_fast and beta_slow must be > 0, got {beta_fast}, {beta_slow}")
    truncate = s.get("truncate", True)

    def correction_dim(num_rotations):
        # the dimension whose wavelength fits num_rotations times in the original context
        return (dim * math.log(orig / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # transformers' guard against a zero-width ramp
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    extrapolation_share = 1.0 - ramp
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    extrapolated = 1.0 / pos_freqs
    interpolated = 1.0 / (factor * pos_freqs)
    return interpolated * (1 - extrapolation_share) + extrapolated * extrapolation_share


def _llama3(dim: int, base: float, s: dict) -> np.ndarray:
    # transformers' _compute_llama3_parameters
    factor = check_number(_require(s, "factor", "llama3"), "factor", minimum=1.0)
    low = check_number(_require(s, "low_freq_factor", "llama3"), "low_freq_factor", above=0)
    high = check_number(_require(s, "high_freq_factor", "llama3"), "high_freq_factor", above=0)
    if high <= low:
        raise ValueError(f"high_freq_factor ({high}) must be > low_freq_factor ({low})")
    old = check_number(_require(s, "original_max_position_embeddings", "llama3"),
                  "original_max_position_embeddings", above=0)
    inv_freq = _default_inv_freq(dim, base)
    low_wavelen, high_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    # long wavelengths (> old/low) are interpolated by the factor, short ones (< old/high) kept
    out = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * out / factor + smooth * out
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, out)


def _dynamic(dim: int, base: float, s: dict, seq_len) -> np.ndarray:
    # transformers' _compute_dynamic_ntk_parameters; its config.max_position_embeddings is
    # read from the dict as original_max_position_embeddings (or max_position_embeddings)
    factor = check_number(_require(s, "factor", "dynamic"), "factor", minimum=1.0)
    key = "original_max_position_embeddings"
    if s.get(key) is None:
        key = "max_position_embeddings"
    max_pos = check_number(_require(s, key, "dynamic"), key, above=0)
    if seq_len is None or seq_len <= max_pos:
        seq_len = max_pos
    new_base = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return _default_inv_freq(dim, new_base)


def _rope_type(scaling) -> str:
    if scaling is None:
        return "default"
    if not isinstance(scaling, dict):
        raise ValueError(f"scaling must be None or a rope_scaling dict, got {scaling!r}")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    return check_choice(rope_type, ROPE_TYPES, "rope_type")


def rope_frequencies(head_dim: int, base: float = 10000.0, scaling=None, *, seq_len=None):
    """Inverse frequencies ``θ_i`` of RoPE, shape ``(head_dim/2,)``, float64.

    Parameters
    ----------
    head_dim : even int ≥ 2, the rotated width of one head
    base : the RoPE base (``rope_theta``), > 1
    scaling : None or a ``rope_scaling`` dict with ``"rope_type"``:

        - ``"default"``: no scaling;
        - ``"linear"`` (position interpolation): ``θ_i / factor``
          (``_compute_linear_scaling_rope_parameters``);
        - ``"ntk"`` (static NTK-aware): base becomes ``base·factor^(d/(d−2))``;
        - ``"dynamic"``: NTK for the current length, base becomes
          ``base·(factor·L/L₀ − (factor − 1))^(d/(d−2))`` with ``L = seq_len`` when it exceeds
          ``L₀ = original_max_position_embeddings``, and no change otherwise
          (``_compute_dynamic_ntk_parameters``);
        - ``"llama3"``: ``factor``, ``low_freq_factor``, ``high_freq_factor``,
          ``original_max_position_embeddings`` (``_compute_llama3_parameters``);
        - ``"yarn"``: ``factor``, ``original_max_position_embeddings``, optional ``beta_fast``
          (32), ``beta_slow`` (1), ``truncate`` (True) (``_compute_yarn_parameters``; its
          attention factor is :func:`yarn_attention_factor`).
    seq_len : current sequence length, used by ``"dynamic"`` only

    Returns
    -------
    ndarray of shape ``(head_dim // 2,)``
    """
    dim = check_positive_int(head_dim, "head_dim", minimum=2)
    if dim % 2:
        raise ValueError(f"head_dim must be even (dimensions rotate in pairs), got {dim}")
    base = check_number(base, "base", above=1.0)
    if seq_len is not None:
        seq_len = check_positive_int(seq_len, "seq_len")
    rope_type = _rope_type(scaling)
    if rope_type == "default":
        return _default_inv_freq(dim, base)
    if rope_type == "linear":
        factor = check_number(_require(scaling, "factor", "linear"), "factor", minimum=1.0)
        return _default_inv_freq(dim, base) / factor
    if rope_type == "ntk":
        factor = check_number(_require(scaling, "factor", "ntk"), "factor", minimum=1.0)
        return _default_inv_freq(dim, base * factor ** (dim / (dim - 2)))
    if rope_type == "dynamic":
        return _dynamic(dim, base, scaling, seq_len)
    if rope_type == "llama3":
        return _llama3(dim, base, scaling)
    return _yarn(dim, base, scaling)


def rope_attention_factor(scaling=None) -> float:
    """The factor transformers multiplies cos and sin by for this ``rope_scaling`` (1 but YaRN).

    For YaRN an explicit ``attention_factor`` wins, as in ``_compute_yarn_parameters``.
    """
    if _rope_type(scaling) != "yarn":
        return 1.0
    if scaling.get("attention_factor") is not None:
        return check_number(scaling["attention_factor"], "attention_factor", above=0)
    factor, _orig = _yarn_factor(scaling)
    return yarn_attention_factor(factor, scaling.get("mscale"), scaling.get("mscale_all_dim"))


def _inv_freq(inv_freq) -> np.ndarray:
    f = as_float_array(inv_freq, "inv_freq", min_ndim=1)
    if f.ndim != 1:
        raise ValueError(f"inv_freq must be 1-D (head_dim/2,), got shape {f.shape}")
    return f.astype(np.float64, copy=False)


def _positions(positions) -> np.ndarray:
    p = as_float_array(positions, "positions", min_ndim=1)
    return p.astype(np.float64, copy=False)


def rotation_angles(positions, inv_freq, *, wrap: bool = True) -> np.ndarray:
    """Angle of every clock hand (pair ``i``) at every position: ``m·θ_i``.

    Parameters
    ----------
    positions : array_like of shape ``(..., n)``
    inv_freq : ``(d/2,)`` inverse frequencies from :func:`rope_frequencies`
    wrap : reduce to ``[0, 2π)``, as a dial shows it

    Returns
    -------
    ndarray of shape ``(..., n, d/2)``, radians
    """
    ang = _positions(positions)[..., None] * _inv_freq(inv_freq)
    return np.mod(ang, 2 * np.pi) if wrap else ang


def wavelengths(inv_freq) -> np.ndarray:
    """Tokens per full turn of each pair: ``2π / θ_i``."""
    f = _inv_freq(inv_freq)
    if np.any(f <= 0):
        raise ValueError("inv_freq must be > 0 to have a wavelength")
    return 2 * np.pi / f


def apply_rope(
    x, positions, inv_freq, *, layout: str = "interleaved", attention_factor: float = 1.0
) -> np.ndarray:
    """Rotate queries or keys by their positions.

    Parameters
    ----------
    x : array_like of shape ``(..., n, d)``
    positions : array_like of shape ``(n,)`` or broadcastable to ``(..., n)``
    inv_freq : ``(d/2,)`` inverse frequencies
    layout : ``"interleaved"`` rotates pairs ``(2i, 2i+1)`` (the paper, Meta's Llama code);
        ``"half"`` rotates ``(i, i + d/2)``, as transformers' ``rotate_half``
    attention_factor : multiplies cos and sin, as transformers does for YaRN (1 = pure rotation)

    Returns
    -------
    ndarray of ``x``'s shape; float32 stays float32
    """
    check_choice(layout, LAYOUTS, "layout")
    x = as_float_array(x, "x")
    f = _inv_freq(inv_freq)
    d = x.shape[-1]
    if d % 2 or f.shape[0] != d // 2:
        raise ValueError(
            f"x's last dimension ({d}) must be even and twice len(inv_freq) ({f.shape[0]})"
        )
    p = _positions(positions)
    try:
        np.broadcast_shapes(p.shape, x.shape[:-1])
    except ValueError as exc:
        raise ValueError(
            f"positions of shape {p.shape} do not match x's sequence axis {x.shape[:-1]}"
        ) from exc
    scale = check_number(attention_factor, "attention_factor", above=0)
    ang = p[..., None] * f  # float64 so large positions keep their phase
    cos, sin = np.cos(ang) * scale, np.sin(ang) * scale
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]
        out = np.empty(np.broadcast_shapes(x.shape, ang.shape[:-1] + (d,)), dtype=np.float64)
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
    else:
        a, b = x[..., : d // 2], x[..., d // 2:]
        out = np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)
    return out.astype(result_dtype(x), copy=False)
