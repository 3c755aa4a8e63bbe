"""Field declarations are checked when they are made: a field that could never hold a value
fails at import, not at the first value a user sets."""

from __future__ import annotations

import pytest

from attnviz.model.document import Document
from attnviz.model.fields import KINDS, Field


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "integer", "default": 1}, "unknown kind 'integer'"),
        ({"kind": "choice", "default": "a"}, "a choice needs its choices"),
        ({"kind": "int", "default": 3, "lo": 5, "hi": 1}, "lo 5 is above hi 1"),
        ({"kind": "int", "default": 9, "lo": 0, "hi": 4}, "default is not valid: x must be"),
        ({"kind": "choice", "default": "c", "choices": ("a", "b")}, "default is not valid"),
        ({"kind": "float", "default": float("nan")}, "default is not valid"),
    ],
)
def test_a_declaration_that_cannot_hold_is_refused(kwargs, match):
    with pytest.raises(TypeError, match=match):
        Field("x", **kwargs)


def test_every_kind_has_its_checker_and_every_declared_field_a_known_kind():
    assert all(callable(getattr(Field, f"_{kind}", None)) for kind in KINDS)
    document = Document()
    declared = [f for topic in document.topics for f in type(document[topic]).FIELDS]
    assert len(declared) > 100 and all(f.kind in KINDS for f in declared)
