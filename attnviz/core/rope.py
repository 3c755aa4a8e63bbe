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
from dataclasses import dataclass

import numpy as np

from attnviz.core._validate import (
    as_float_array,
    check_choice,
    check_number,
    check_positive_int,
    result_dtype,
)
from attnviz.core.value_text import brief

ROPE_TYPES = ("default", "linear", "ntk", "dynamic", "llama3", "yarn")
LAYOUTS = ("interleaved", "half")
#: How each dimension pair fares under a context-extension scaling (:func:`scaling_regions`).
REGIONS = ("extrapolated", "interpolated", "blended")


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
    orig = check_number(
        _require(s, "original_max_position_embeddings", "yarn"),
        "original_max_position_embeddings",
        above=0,
    )
    factor = s.get("factor")
    if factor is None:
        # transformers derives the factor from the context growth when it is left out
        factor = (
            check_number(
                _require(s, "max_position_embeddings", "yarn"), "max_position_embeddings", above=0
            )
            / orig
        )
    return check_number(factor, "factor", minimum=1.0), orig


def _yarn_ramp(dim: int, base: float, s: dict) -> tuple[np.ndarray, float]:
    """YaRN's ramp per pair (0 = extrapolated, 1 = interpolated) and its factor."""
    # transformers' _compute_yarn_parameters (find_correction_range and linear_ramp_factor)
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
    return ramp, factor


def _yarn(dim: int, base: float, s: dict) -> np.ndarray:
    # transformers' _compute_yarn_parameters (the inverse frequencies; the factor is separate)
    ramp, factor = _yarn_ramp(dim, base, s)
    extrapolation_share = 1.0 - ramp
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    extrapolated = 1.0 / pos_freqs
    interpolated = 1.0 / (factor * pos_freqs)
    return interpolated * (1 - extrapolation_share) + extrapolated * extrapolation_share


def _llama3_params(s: dict) -> tuple[float, float, float, float]:
    factor = check_number(_require(s, "factor", "llama3"), "factor", minimum=1.0)
    low = check_number(_require(s, "low_freq_factor", "llama3"), "low_freq_factor", above=0)
    high = check_number(_require(s, "high_freq_factor", "llama3"), "high_freq_factor", above=0)
    if high <= low:
        raise ValueError(f"high_freq_factor ({high}) must be > low_freq_factor ({low})")
    old = check_number(
        _require(s, "original_max_position_embeddings", "llama3"),
        "original_max_position_embeddings",
        above=0,
    )
    return factor, low, high, old


def _llama3(dim: int, base: float, s: dict) -> np.ndarray:
    # transformers' _compute_llama3_parameters
    factor, low, high, old = _llama3_params(s)
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
        raise ValueError(f"scaling must be None or a rope_scaling dict, got {brief(scaling)}")
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
    if rope_type in ("ntk", "dynamic") and dim == 2:
        # One pair turns at θ₀ = base⁰ = 1 whatever the base: a new base changes nothing
        # (and d/(d−2) would divide by zero).
        _require(scaling, "factor", rope_type)
        return _default_inv_freq(dim, base)
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
        a, b = x[..., : d // 2], x[..., d // 2 :]
        out = np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)
    return out.astype(result_dtype(x), copy=False)


# --- relative position and the scalings, for the positions panel ---------------------------


def _qk(q, k, inv_freq) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = _inv_freq(inv_freq)
    q = as_float_array(q, "q", min_ndim=1).astype(np.float64, copy=False)
    k = as_float_array(k, "k", min_ndim=1).astype(np.float64, copy=False)
    for name, v in (("q", q), ("k", k)):
        if v.ndim != 1 or v.shape[0] != 2 * f.shape[0]:
            raise ValueError(
                f"{name} must be one vector of length head_dim = 2·len(inv_freq) "
                f"= {2 * f.shape[0]}, got shape {v.shape}"
            )
    return q, k, f


def _position_list(values, name: str) -> np.ndarray:
    p = as_float_array(values, name, min_ndim=1).astype(np.float64, copy=False)
    if p.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {p.shape}")
    return p


def relative_scores(q, k, inv_freq, distances, offsets=(0,), *, layout: str = "half"):
    """Scores ``(R_m q)·(R_n k)`` with ``m = offset + distance`` and ``n = offset``.

    RoPE's promise is that the score of a query at ``m`` and a key at ``n`` depends only on
    ``m − n``: every row of the result (one per offset, i.e. the same pair of tokens moved
    along the sequence) is the same, up to float64 rounding (~1e-12 relative).

    Parameters
    ----------
    q, k : array_like of shape ``(head_dim,)``, one query and one key, before rotation
    inv_freq : ``(head_dim/2,)`` inverse frequencies from :func:`rope_frequencies`
    distances : 1-D array_like of ``m − n`` (negative: the key comes after the query)
    offsets : 1-D array_like of key positions ``n``
    layout : pairing of the dimensions, as :func:`apply_rope`

    Returns
    -------
    ndarray of shape ``(len(offsets), len(distances))``, float64 (unscaled dot products)
    """
    check_choice(layout, LAYOUTS, "layout")
    q, k, f = _qk(q, k, inv_freq)
    dist = _position_list(distances, "distances")
    off = _position_list(offsets, "offsets")
    m = off[:, None] + dist[None, :]
    rq = apply_rope(q[None], m.reshape(-1, 1), f, layout=layout).reshape(m.shape + q.shape)
    rk = apply_rope(k[None], off[:, None], f, layout=layout).reshape(off.shape + k.shape)
    return np.einsum("odh,oh->od", rq, rk)


def relative_matrix(q, k, inv_freq, n: int, *, layout: str = "half") -> np.ndarray:
    """The ``n × n`` matrix of ``q_m · k_n`` for positions ``0 … n−1`` (row = query at ``m``).

    The same q and k put at every position: the matrix is Toeplitz (constant along each
    diagonal ``m − n``), which is RoPE's relative-position property drawn as a heatmap.

    Parameters
    ----------
    q, k : array_like of shape ``(head_dim,)``
    inv_freq : ``(head_dim/2,)`` inverse frequencies
    n : number of positions, ≥ 1
    layout : as :func:`apply_rope`

    Returns
    -------
    ndarray of shape ``(n, n)``, float64
    """
    check_choice(layout, LAYOUTS, "layout")
    q, k, f = _qk(q, k, inv_freq)
    n = check_positive_int(n, "n")
    pos = np.arange(n, dtype=np.float64)
    rq = apply_rope(np.broadcast_to(q, (n, q.shape[0])), pos, f, layout=layout)
    rk = apply_rope(np.broadcast_to(k, (n, k.shape[0])), pos, f, layout=layout)
    return rq @ rk.T


@dataclass(frozen=True, eq=False)
class ScalingRegions:
    """What a context-extension scaling does to each dimension pair (:func:`scaling_regions`).

    Attributes
    ----------
    rope_type : the scaling's type (``"default"`` when there is none)
    factor : its context factor (1 when there is none)
    wavelength_before, wavelength_after : tokens per turn, ``2π/θ_i``, without and with it
    ratio : ``wavelength_after / wavelength_before`` (1: unchanged, ``factor``: θ divided
        by the factor; exactly ``factor`` for ``"linear"``)
    region : one of :data:`REGIONS` per pair
    attention_factor : YaRN's magnitude correction on cos and sin (1.0 for the others)
    """

    rope_type: str
    factor: float
    wavelength_before: np.ndarray
    wavelength_after: np.ndarray
    ratio: np.ndarray
    region: np.ndarray
    attention_factor: float

    def counts(self) -> dict[str, int]:
        """Number of pairs in each region, every region named (0 when empty)."""
        return {r: int(np.count_nonzero(self.region == r)) for r in REGIONS}


def _regions_by_ratio(ratio: np.ndarray, factor: float, rtol: float) -> np.ndarray:
    region = np.full(ratio.shape, "blended", dtype="<U12")
    # "interpolated" first: with factor 1 every pair is unchanged, so "extrapolated" wins
    region[np.isclose(ratio, factor, rtol=rtol, atol=0)] = "interpolated"
    region[np.isclose(ratio, 1.0, rtol=rtol, atol=0)] = "extrapolated"
    return region


def scaling_regions(
    head_dim: int, base: float = 10000.0, scaling=None, *, seq_len=None, rtol: float = 1e-9
) -> ScalingRegions:
    """Which pairs a ``rope_scaling`` keeps, which it slows down, and which it blends.

    Each method's own definition decides the label:

    - no scaling: every pair ``"extrapolated"`` (unchanged);
    - ``"linear"`` (position interpolation): every pair ``"interpolated"`` (θ / factor);
    - ``"ntk"`` and ``"dynamic"``: the base grows, so pair ``i``'s wavelength grows by a
      smoothly varying ratio (``factor^(2i/(d−2))`` for static NTK, from 1 for the fastest
      pair to ``factor`` for the slowest); labelled by that ratio: within ``rtol`` of 1
      ``"extrapolated"``, within ``rtol`` of ``factor`` ``"interpolated"``, else
      ``"blended"``. (``"dynamic"`` changes nothing until ``seq_len`` passes the original
      context, and its ratio can pass ``factor``.)
    - ``"llama3"``: by the original wavelength, as ``_compute_llama3_parameters``: shorter than
      ``original_max_position_embeddings / high_freq_factor`` ``"extrapolated"``, longer
      than ``… / low_freq_factor`` ``"interpolated"``, in between (bounds included)
      ``"blended"``;
    - ``"yarn"``: by its ramp between the dimensions that turn ``beta_fast`` and
      ``beta_slow`` times in the original context: ramp 0 ``"extrapolated"``, ramp 1
      ``"interpolated"``, in between ``"blended"``.

    Parameters
    ----------
    head_dim, base, scaling, seq_len : as :func:`rope_frequencies`
    rtol : relative tolerance of the ratio tests (NTK and dynamic only)

    Returns
    -------
    ScalingRegions
    """
    rtol = check_number(rtol, "rtol", minimum=0.0)
    plain = rope_frequencies(head_dim, base)
    scaled = rope_frequencies(head_dim, base, scaling, seq_len=seq_len)
    before, after = wavelengths(plain), wavelengths(scaled)
    ratio = plain / scaled  # = after / before, with one rounding instead of three
    rope_type = _rope_type(scaling)
    factor = 1.0
    if rope_type == "default":
        region = np.full(ratio.shape, "extrapolated", dtype="<U12")
    elif rope_type == "linear":
        factor = float(scaling["factor"])
        ratio = np.full(ratio.shape, factor)  # θ / factor for every pair, by definition
        region = np.full(ratio.shape, "interpolated", dtype="<U12")
    elif rope_type in ("ntk", "dynamic"):
        factor = float(scaling["factor"])
        region = _regions_by_ratio(ratio, factor, rtol)
    elif rope_type == "llama3":
        factor, low, high, old = _llama3_params(scaling)
        region = np.full(ratio.shape, "blended", dtype="<U12")
        region[before < old / high] = "extrapolated"
        region[before > old / low] = "interpolated"
    else:
        ramp, factor = _yarn_ramp(int(head_dim), float(base), scaling)
        region = np.where(
            ramp == 0.0, "extrapolated", np.where(ramp == 1.0, "interpolated", "blended")
        ).astype("<U12")
    for arr in (before, after, ratio, region):
        arr.setflags(write=False)
    return ScalingRegions(
        rope_type=rope_type,
        factor=float(factor),
        wavelength_before=before,
        wavelength_after=after,
        ratio=ratio,
        region=region,
        attention_factor=rope_attention_factor(scaling),
    )
