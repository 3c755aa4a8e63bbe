"""What an error message says about a bad value: one short line, never an array's repr.

A refused value may be anything a session file, ``--set``, a notebook or a script hands
over: a 4,096 × 1,024 array of NaN, a list of a million numbers, a number of four hundred
digits, a text of a megabyte. Printing it whole fills a dialog or a terminal with pages
of numbers and hides the one line that says what is wrong. :func:`brief` says instead what
kind of value it is ("an array of shape (3, 4) holding NaN", "a list of 5000 entries",
"a 401-digit integer"), or the value itself when it is short.
"""

from __future__ import annotations

import math

import numpy as np

#: Longest rendering of a text or a short list kept as it is (quotes included).
SHORT = 40
#: Longest list or tuple whose entries are looked at for a short rendering.
_SHORT_ITEMS = 8


def _float_text(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


def _array_kind(arr) -> str:
    """What is wrong or notable inside a numeric array: NaN, ±inf, or its largest magnitude."""
    try:
        values = np.asarray(arr)
        if values.dtype.kind not in "fc" or values.size == 0:
            return ""
        if values.dtype.kind == "c":
            return " of complex numbers"
        if np.isnan(values).any():
            return " holding NaN"
        if np.isinf(values).any():
            return " holding inf"
        return f" with |x| up to {float(np.abs(values).max()):.3g}"
    except (TypeError, ValueError, MemoryError):
        return ""


def _shape_text(shape) -> str:
    dims = tuple(int(d) for d in shape)
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def _array_text(value) -> str:
    shape = getattr(value, "shape", ())
    dtype = getattr(value, "dtype", None)
    if len(shape) == 0:
        try:
            return f"a 0-d array ({brief(value.item())})"
        except (TypeError, ValueError, AttributeError, RuntimeError):
            return "a 0-d array"
    kind = ""
    if isinstance(value, np.ndarray):
        kind = _array_kind(value)
    elif dtype is not None and "float" in str(dtype):  # a tensor: look without importing torch
        try:
            kind = _array_kind(value.detach().cpu().double().numpy())
        except (AttributeError, RuntimeError, TypeError, ValueError, MemoryError):
            kind = ""
    name = "an array" if isinstance(value, np.ndarray) else f"a {type(value).__name__}"
    return f"{name} of shape {_shape_text(shape)}{kind}"


def _text(value: str) -> str:
    shown = repr(value)
    if len(shown) <= SHORT:
        return shown
    return repr(value[: SHORT // 2]) + f"… ({len(value)} characters)"


def _sequence_text(value) -> str:
    noun = "a list" if isinstance(value, list) else "a tuple"
    if len(value) <= _SHORT_ITEMS:
        parts = [brief(x) for x in value]
        shown = "[" + ", ".join(parts) + "]"
        if len(shown) <= SHORT and all(len(p) < SHORT // 2 for p in parts):
            return shown
    entries = "entry" if len(value) == 1 else "entries"
    return f"{noun} of {len(value)} {entries}"


def brief(value) -> str:
    """A one-line description of ``value`` for an error message, at most about 80 characters.

    Short values are shown as they are (``3``, ``2.5``, ``'abc'``, ``NaN``, ``[1, 2]``);
    anything else by its kind and size (``an array of shape (3, 4) holding NaN``, ``a list of
    5000 entries``, ``a 401-digit integer``, ``a text of 5000 characters``, ``an object with
    2 keys``). Never raises, never prints an array's entries.
    """
    try:
        if value is None or isinstance(value, (bool, np.bool_)):
            return repr(value if value is None else bool(value))
        if isinstance(value, (int, np.integer)):
            number = int(value)
            if number.bit_length() > 64:
                return f"a {int(number.bit_length() * 0.30103) + 1}-digit integer"
            return str(number)
        if isinstance(value, (float, np.floating)):
            return _float_text(float(value))
        if isinstance(value, str):
            return _text(value)
        if isinstance(value, (bytes, bytearray)):
            return f"{len(value)} bytes"
        if hasattr(value, "shape") and hasattr(value, "dtype"):
            return _array_text(value)
        if isinstance(value, (list, tuple)):
            return _sequence_text(value)
        if isinstance(value, dict):
            keys = "key" if len(value) == 1 else "keys"
            return f"an object with {len(value)} {keys}"
        return f"a value of type {type(value).__name__}"
    except Exception:
        return f"a value of type {type(value).__name__}"
