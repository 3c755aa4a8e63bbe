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
