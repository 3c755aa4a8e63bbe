"""Input checks shared by the core modules: one place for the error messages."""

from __future__ import annotations

import math

import numpy as np

from attnviz.core.value_text import brief


def as_float_array(x, name: str, *, min_ndim: int = 2, allow_neg_inf: bool = False) -> np.ndarray:
    """Return ``x`` as a float array, keeping float32 and promoting the rest to float64.

    Raises ``ValueError`` naming ``name`` when the array is not numeric, has fewer than
    ``min_ndim`` dimensions, is empty along its last two axes, or holds NaN/inf (−inf is
    accepted when ``allow_neg_inf``, for masked scores).
    """
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name}: cannot be read as a numeric array ({exc})") from exc
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise ValueError(f"{name}: expected a numeric array, got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise ValueError(f"{name}: complex values are not supported")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name}: expected at least {min_ndim} dimensions (..., n, d), got shape {arr.shape}"
        )
    if min_ndim >= 2 and (arr.shape[-2] == 0):
        raise ValueError(f"{name}: the sequence is empty (shape {arr.shape})")
    if min_ndim >= 1 and arr.shape[-1] == 0:
        raise ValueError(
            f"{name}: the last dimension is empty (shape {arr.shape}); d_k must be ≥ 1"
        )
    if allow_neg_inf:
        bad = np.isnan(arr) | (arr == np.inf)
    else:
        bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}: non-finite value {arr[idx]} at index {idx}")
    return arr


def check_temperature(temperature) -> float:
    """Return the temperature as a float, or raise ``ValueError`` unless finite and > 0."""
    try:
        t = float(temperature)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"temperature must be a number, got {brief(temperature)}") from exc
    if not math.isfinite(t) or t <= 0:
        raise ValueError(f"temperature must be finite and > 0, got {brief(temperature)}")
    return t


def scale_factor(d_k: int, scale: bool, temperature) -> float:
    """The factor ``c`` of the scores ``q kᵀ · c``: ``1/(√d_k · T)``, or ``1/T`` unscaled.

    Raises ``ValueError`` unless ``c`` is finite and nonzero: a temperature of 5e-324 is
    finite and > 0, yet ``1/T`` is inf and every score inf or NaN.
    """
    t = check_temperature(temperature)
    c = (1.0 / math.sqrt(d_k) if scale else 1.0) / t
    if not math.isfinite(c) or c == 0.0:
        raise ValueError(
            f"temperature {brief(t)} makes the scale 1/(√d_k·T) {'0' if c == 0.0 else 'infinite'}"
            f"; use a temperature from 1e-300 to 1e300"
        )
    return c


#: The largest bound on |score| each dtype computes safely: the softmax subtracts two
#: scores and the overview multiplies them by log2(e), so 2^4 below the largest value.
_SCORE_ROOM = {np.dtype(np.float32): 2.0**124, np.dtype(np.float64): 2.0**1020}


def _max_abs(x) -> float:
    """max |x| without an |x| array (two reductions), for numpy arrays and torch tensors."""
    return max(float(x.max()), -float(x.min()))


def score_bound(q, k, c: float) -> float:
    """An upper bound on every |q_i·k_j|·c and on each partial sum of it, in either order
    of the product and the scale: ``d · max|q| · max|k| · max(c, 1)`` (inf when it overflows)."""
    return q.shape[-1] * _max_abs(q) * _max_abs(k) * max(c, 1.0)


def compute_dtype(dtype, q, k, c: float):
    """The dtype in which ``q kᵀ · c`` is computed without overflow.

    ``dtype`` itself when the scores fit it; float64 for float32 inputs whose scores could
    overflow float32 (q = 1e20 against keys of −1e20: float32 scores are −inf and the row
    would lose its weights); ``ValueError`` when even float64 could overflow.
    """
    bound = score_bound(q, k, c)
    if bound <= _SCORE_ROOM[np.dtype(dtype)]:
        return np.dtype(dtype)
    if bound <= _SCORE_ROOM[np.dtype(np.float64)]:
        return np.dtype(np.float64)
    reach = "beyond" if math.isinf(bound) else f"{bound:.3g}, near the end of"
    fix = "smaller q or k" + (f", or a larger temperature (the scale is {c:.3g})" if c > 1 else "")
    raise ValueError(
        f"the scores overflow: |q·k| times the scale may reach {reach} float64's range "
        f"(1.8e308); use {fix}"
    )


def narrowest(values: np.ndarray, dtype) -> np.ndarray:
    """``values`` in ``dtype`` when every finite entry fits it, else as they are (float64
    scores that float32 cannot hold stay float64 rather than turn into ±inf)."""
    dtype = np.dtype(dtype)
    if values.dtype == dtype:
        return values
    finite = values[np.isfinite(values)]
    if finite.size and _max_abs(finite) > float(np.finfo(dtype).max):
        return values
    return values.astype(dtype)


def cast_to(x, dtype, name: str) -> np.ndarray:
    """``x`` checked as :func:`as_float_array` does and cast to ``dtype``, refusing values
    that ``dtype`` cannot hold (1e300 would otherwise become inf in float32)."""
    arr = as_float_array(x, name, min_ndim=1)
    with np.errstate(over="ignore"):
        out = arr.astype(dtype, copy=False)
    if not np.isfinite(out).all():
        raise ValueError(
            f"{name}: {brief(_max_abs(arr))} does not fit in {np.dtype(dtype).name} "
            "(the backend's dtype); use float64 or smaller values"
        )
    return out


def check_number(value, name: str, *, minimum: float | None = None, above: float | None = None):
    """Return ``value`` as a finite float (≥ ``minimum``, > ``above``) or raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {brief(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {brief(value)}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be ≥ {minimum:g}, got {brief(value)}")
    if above is not None and v <= above:
        raise ValueError(f"{name} must be > {above:g}, got {brief(value)}")
    return v


def check_choice(value, options, name: str):
    """Raise ``ValueError`` listing ``options`` unless ``value`` is one of them."""
    if value not in options:
        raise ValueError(
            f"unknown {name} {brief(value)}; expected one of {', '.join(map(repr, options))}"
        )
    return value


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int ≥ ``minimum`` or raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {brief(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be ≥ {minimum}, got {value}")
    return int(value)


def result_dtype(*arrays: np.ndarray):
    """float32 only when every input is float32, float64 otherwise."""
    return np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
