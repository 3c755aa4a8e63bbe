"""Typed fields of a topic: what a value may be, how it is read and how it is written.

Each :class:`Field` checks a value strictly and raises :class:`StateError` (one line naming
the field) instead of coercing it: ``"no"`` is not a boolean, ``"abc"`` is not a list of
flags, a number of four hundred digits is refused before it is converted, and nothing
non-finite gets in. A message is one line whatever the value (:func:`brief`: an array of
NaN is "an array of shape (3, 4) holding NaN", never its repr). The same descriptions
serve ``attnviz export --set`` and ``--list-fields``, the session files and the undo
history.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from attnviz.core.value_text import brief

#: Largest magnitude of a vector component: big enough for any real activation, small
#: enough that q·k of 1024-dimensional vectors stays far from float64 overflow.
MAX_ABS = 1e6
#: Longest text a field holds (a token, a label, a preset id).
MAX_TEXT = 200


class StateError(ValueError):
    """A value a control tried to set is out of range or inconsistent."""


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _is_pair_shaped(value) -> bool:
    """A list, a tuple or a flat array: what ``len`` and iteration may be asked of (a 0-d
    array has no length; a text is not a pair of numbers)."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def check_text(name: str, value, *, limit: int = MAX_TEXT) -> str:
    """A string that UTF-8 can encode (no lone surrogates), at most ``limit`` characters."""
    if not isinstance(value, str):
        raise StateError(f"{name} must be text, got {type(value).__name__}")
    if len(value) > limit:
        raise StateError(f"{name} is longer than {limit} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise StateError(f"{name} holds a character that cannot be saved ({exc.reason})") from None
    return value


#: The kinds a field may be declared with (each has its checker ``Field._<kind>``).
FieldKind = Literal[
    "int", "float", "bool", "choice", "text", "texts", "flags", "ints", "matrix", "optmatrix",
    "pair", "cell", "int_rows",
]  # fmt: skip
KINDS: tuple[str, ...] = get_args(FieldKind)


@dataclass(frozen=True)
class Field:
    """One field of a topic.

    Parameters
    ----------
    name : the field's name (a contract: ``--set TOPIC.NAME=...`` uses it)
    kind : ``int``, ``float``, ``bool``, ``choice``, ``text``, ``texts``, ``flags``,
        ``ints``, ``matrix`` (2-D float array), ``optmatrix`` (a matrix or None), ``pair`` (low <
        high), ``cell`` (None or
        two indices), ``int_rows`` (rows of ``width`` integers: ``[[layer, head], …]``)
    default : the value of a fresh topic
    lo, hi : inclusive bounds of a number, of each entry of ``ints``, of a cell's indices
    choices : the allowed values of a ``choice``
    max_len : the longest ``texts``/``flags``/``ints`` sequence, the most ``int_rows`` rows
    width : the integers in each row of an ``int_rows``
    doc : one line for ``--list-fields``
    recompute : False for restyle-only fields (colormap, levels)
    browse : True for selections, which are not undo steps
    label : the name of an undo step that changes the field ("Temperature"), marked
        ``QT_TRANSLATE_NOOP("UndoController", ...)`` (:mod:`attnviz.model.i18n`) for the
        UI to translate; "" for none (the step is then named after the field)
    """

    name: str
    kind: FieldKind
    default: object
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    max_len: int | None = None
    doc: str = ""
    recompute: bool = True
    browse: bool = False
    label: str = ""
    width: int | None = None

    def __post_init__(self) -> None:
        # A declaration that could never hold fails when its module is imported, not at the
        # first value a user sets.
        if self.kind not in KINDS:
            raise TypeError(f"field {self.name}: unknown kind {self.kind!r} (one of {KINDS})")
        if self.kind == "choice" and not self.choices:
            raise TypeError(f"field {self.name}: a choice needs its choices")
        if self.kind == "int_rows" and not (self.width and self.max_len):
            raise TypeError(f"field {self.name}: rows of integers need a width and a max_len")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise TypeError(f"field {self.name}: lo {self.lo} is above hi {self.hi}")
        if self.kind == "matrix" and self.default is None:
            return  # the topic derives it (a head's vectors from its seed)
        try:
            self.coerce(self.default)
        except StateError as exc:
            raise TypeError(f"field {self.name}: its default is not valid: {exc}") from None

    # --- checking ----------------------------------------------------------------------
    def coerce(self, value):
        """The value as the topic stores it; :class:`StateError` when it is not valid."""
        check = getattr(self, f"_{self.kind}")
        return check(value)

    def _range(self, value, shown=None):
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise StateError(
                f"{self.name} must be between {_bound(self.lo)} and {_bound(self.hi)}, "
                f"got {shown or brief(value)}"
            )
        return value

    def _int(self, value):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
            value = int(value)  # JSON may write 8 as 8.0
        if not _is_int(value):
            raise StateError(f"{self.name} must be an integer, got {brief(value)}")
        return int(self._range(int(value)))

    def _float(self, value):
        if not _is_real(value):
            raise StateError(f"{self.name} must be a number, got {brief(value)}")
        try:
            out = float(value)
        except OverflowError:
            raise StateError(f"{self.name}: {brief(value)} is too large") from None
        if not math.isfinite(out):
            raise StateError(f"{self.name} must be a finite number, got {brief(out)}")
        return self._range(out)

    def _bool(self, value):
        if not isinstance(value, (bool, np.bool_)):
            raise StateError(f"{self.name} must be true or false, got {brief(value)}")
        return bool(value)

    def _choice(self, value):
        if not isinstance(value, str):
            raise StateError(
                f"{self.name} must be one of {', '.join(map(str, self.choices))}, "
                f"got {brief(value)}"
            )
        if value not in self.choices:
            # The list of choices is the useful half of the line: a long unknown text is
            # named by its length only, so the line stays short whatever the list.
            shown = brief(value) if len(value) <= 40 else f"(a text of {len(value)} characters)"
            raise StateError(
                f"unknown {self.name} {shown}; expected one of {', '.join(map(str, self.choices))}"
            )
        return value

    def _text(self, value):
        return check_text(self.name, value)

    def _sequence(self, value) -> Sequence:
        if isinstance(value, (str, bytes, dict)) or not isinstance(value, (Sequence, np.ndarray)):
            raise StateError(f"{self.name} must be a list, got {type(value).__name__}")
        if isinstance(value, np.ndarray) and value.ndim != 1:
            raise StateError(f"{self.name} must be a flat list, got {brief(value)}")
        if self.max_len is not None and len(value) > self.max_len:
            raise StateError(f"{self.name} has {len(value)} entries; at most {self.max_len}")
        return value

    def _texts(self, value):
        seq = self._sequence(value)
        return tuple(check_text(f"{self.name}[{i}]", t) for i, t in enumerate(seq))

    def _flags(self, value):
        seq = self._sequence(value)
        if not all(isinstance(x, (bool, np.bool_)) for x in seq):
            raise StateError(f"{self.name} must be a list of true/false flags")
        return tuple(bool(x) for x in seq)

    def _ints(self, value):
        seq = self._sequence(value)
        item = Field(f"{self.name} entry", "int", 0, self.lo, self.hi)
        return tuple(item.coerce(x) for x in seq)

    def _matrix(self, value):
        return check_matrix(self.name, value)

    def _optmatrix(self, value):
        return None if value is None else check_matrix(self.name, value)

    def _pair(self, value):
        if not _is_pair_shaped(value):
            raise StateError(f"{self.name} must be a pair [low, high], got {brief(value)}")
        if len(value) != 2:
            raise StateError(f"{self.name} must be a pair [low, high], got {brief(value)}")
        item = Field(self.name, "float", 0.0, self.lo, self.hi)
        lo, hi = (item.coerce(x) for x in value)
        if not lo < hi:
            raise StateError(f"{self.name} must have low < high, got {[lo, hi]}")
        return (lo, hi)

    def _cell(self, value):
        if value is None:
            return None
        if not _is_pair_shaped(value) or len(value) != 2:
            raise StateError(
                f"{self.name} must be null or a pair [row, column], got {brief(value)}"
            )
        item = Field(self.name, "int", 0, self.lo, self.hi)
        return tuple(item.coerce(x) for x in value)

    def _int_rows(self, value):
        shape = "[" + ", ".join(["…"] * (self.width or 0)) + "]"
        if isinstance(value, np.ndarray) and value.ndim == 2:
            value = list(value)  # a session's base64 matrix: its rows
        elif isinstance(value, np.ndarray) and not (value.ndim == 1 and value.size == 0):
            raise StateError(f"{self.name} must be a list of {shape}, got {brief(value)}")
        seq = self._sequence(value)
        rows = []
        for i, row in enumerate(seq):
            if not _is_pair_shaped(row) or len(row) != self.width:
                raise StateError(
                    f"{self.name}[{i}] must be {self.width} integers {shape}, got {brief(row)}"
                )
            item = Field(f"{self.name}[{i}] entry", "int", 0, self.lo, self.hi)
            rows.append(tuple(item.coerce(x) for x in row))
        return tuple(rows)

    # --- describing --------------------------------------------------------------------
    def describe(self) -> str:
        """``kind, range or choices, default`` for ``--list-fields``."""
        parts = [self.kind]
        if self.choices:
            parts.append("one of " + "|".join(map(str, self.choices)))
        elif self.lo is not None or self.hi is not None:
            parts.append(f"{_bound(self.lo)}..{_bound(self.hi)}")
        if self.width is not None:
            parts.append(f"rows of {self.width}")
        if self.max_len is not None:
            parts.append(f"up to {self.max_len} entries")
        default = self.default
        if isinstance(default, tuple):
            default = list(default)
        if self.kind == "matrix":
            default = "follows the other fields"
        elif self.kind == "optmatrix":
            default = "null"
        parts.append(f"default {default}")
        return ", ".join(parts)


def _bound(x) -> str:
    if x is None:
        return "∞"
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def check_matrix(name: str, value) -> np.ndarray:
    """A finite, read-only float64 matrix with entries within ±:data:`MAX_ABS`."""
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise StateError(f"{name} must be a matrix (a list of rows of numbers)")
    if isinstance(value, np.ndarray) and value.dtype.kind not in "biuf":
        raise StateError(f"{name} must hold numbers, got {value.dtype}")
    try:
        arr = np.array(value, dtype=np.float64)
    except OverflowError:
        raise StateError(f"{name} holds a number too large to use") from None
    except (TypeError, ValueError):
        raise StateError(f"{name} must be a matrix of numbers with rows of equal length") from None
    if arr.ndim != 2:
        raise StateError(f"{name} must be a matrix (rows × columns), got {arr.ndim} dimension(s)")
    bad = ~np.isfinite(arr)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise StateError(
            f"{name} holds a non-finite number ({brief(arr[row, col])} at row {row}, column {col})"
        )
    big = np.abs(arr) > MAX_ABS
    if big.any():
        row, col = (int(i) for i in np.argwhere(big)[0])
        raise StateError(
            f"{name} holds a number larger than {MAX_ABS:g} in magnitude "
            f"({brief(arr[row, col])} at row {row}, column {col})"
        )
    arr.flags.writeable = False
    return arr
