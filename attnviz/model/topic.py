"""The base of every topic: typed fields with defaults and validation, one event per update.

A topic is one section's worth of application state (``attention``, ``positions``, …).
Controls write fields (``topic.d_k = 64`` or ``topic.update(scale=False, temperature=2)``);
the topic checks every value with its :class:`~attnviz.model.fields.Field`, lets dependent
fields follow (:meth:`Topic._follow`), checks the whole (:meth:`Topic._check`) and then
emits :attr:`Topic.changed` once with the names that changed. An invalid value raises
:class:`StateError` and changes nothing. Stored values are immutable (tuples, read-only
arrays), so a snapshot is a plain copy of the dictionary. Nothing here imports Qt.
"""

from __future__ import annotations

import difflib
from typing import ClassVar

import numpy as np

from attnviz.core.value_text import brief
from attnviz.model.events import Signal
from attnviz.model.fields import Field, StateError

__all__ = ["Field", "StateError", "Topic", "values_equal"]


def values_equal(a, b) -> bool:
    """Equality of two field values, arrays compared by shape and content."""
    if a is b:
        return True  # the common case on the slider path: the field was not touched
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    return a == b


class Topic:
    """A set of typed fields; emits ``changed(frozenset_of_names)`` once per update.

    Subclasses set :attr:`NAME`, :attr:`FIELDS` and may override :meth:`_defaults`,
    :meth:`_follow`, :meth:`_check` and :meth:`regenerable`.
    """

    NAME: ClassVar[str] = ""
    #: Where the topic sits in listings and session files (smaller first).
    ORDER: ClassVar[int] = 100
    FIELDS: ClassVar[tuple[Field, ...]] = ()

    changed = Signal(frozenset)

    def __init__(self, **values) -> None:
        object.__setattr__(self, "_values", self._defaults())
        if values:
            with self.changed.blocked():
                self.update(**values)

    # --- description -------------------------------------------------------------------
    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The names of the fields, in declaration order."""
        return tuple(f.name for f in cls.FIELDS)

    @classmethod
    def field(cls, name: str) -> Field:
        """The :class:`Field` called ``name``; :class:`StateError` when there is none."""
        for f in cls.FIELDS:
            if f.name == name:
                return f
        names = cls.field_names()
        close = difflib.get_close_matches(str(name)[:100], names, n=3)
        if close:
            hint = f"did you mean {' or '.join(close)}?"
        elif len(", ".join(names)) <= 150:
            hint = f"fields: {', '.join(names)}"
        else:  # the attention topic's fifty names would fill a screen line thrice
            hint = f"its {len(names)} fields are listed by attnviz export --list-fields"
        raise StateError(f"the {cls.NAME} topic has no field {brief(name)}; {hint}")

    @classmethod
    def recompute_keys(cls) -> frozenset:
        """Fields whose change needs new results (the others only restyle or select)."""
        return frozenset(f.name for f in cls.FIELDS if f.recompute and not f.browse)

    @classmethod
    def restyle_keys(cls) -> frozenset:
        """Fields that restyle the views without recomputing anything."""
        return frozenset(f.name for f in cls.FIELDS if not f.recompute and not f.browse)

    @classmethod
    def browse_keys(cls) -> frozenset:
        """Selections: browsing, neither an undo step nor an unsaved change."""
        return frozenset(f.name for f in cls.FIELDS if f.browse)

    @classmethod
    def _defaults(cls) -> dict:
        return {f.name: f.default for f in cls.FIELDS}

    # --- access ------------------------------------------------------------------------
    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    def __setattr__(self, name, value) -> None:
        if name in self._values:
            self.update(**{name: value})
        else:
            object.__setattr__(self, name, value)

    def get(self, name: str):
        """The value of field ``name``."""
        self.field(name)
        return self._values[name]

    def snapshot(self) -> dict:
        """Every field's value (immutable values: tuples and read-only arrays)."""
        return dict(self._values)

    def restore(self, snapshot: dict) -> frozenset:
        """Set every field of ``snapshot`` at once (as :meth:`update` does)."""
        return self.update(**snapshot)

    def regenerable(self, values: dict) -> frozenset:
        """Fields of ``values`` that the topic rebuilds from the others when they are left out.

        Undo steps and session files omit them (a synthetic head's arrays come back from
        its seed); ``values`` must then hold everything :meth:`regeneration_inputs` names.
        """
        return frozenset()

    def regeneration_inputs(self) -> frozenset:
        """The fields from which :meth:`regenerable` fields are rebuilt."""
        return frozenset()

    # --- writing -----------------------------------------------------------------------
    def update(self, **values) -> frozenset:
        """Validate and set several fields at once; emit ``changed`` once; return the names.

        Raises :class:`StateError` and changes nothing when a value is invalid.
        """
        old = self._values
        unknown = set(values) - set(old)
        if unknown:
            raise StateError(f"unknown {self.NAME} field(s): {', '.join(sorted(unknown))}")
        new = dict(old)
        for name, value in values.items():
            if value is not old[name]:
                new[name] = self.field(name).coerce(value)
        self._follow(new, old, set(values))
        self._check(new, old)
        changed = frozenset(n for n in new if not values_equal(new[n], old[n]))
        if changed:
            object.__setattr__(self, "_values", new)
            self.changed.emit(changed)
        return changed

    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        """Make dependent fields agree with the ones just set (in place on ``new``)."""

    def _check(self, new: dict, old: dict) -> None:
        """Raise :class:`StateError` when the fields of ``new`` do not fit together."""
