"""Issue 39 item 7, the sweep: every session and settings loader and the ``--set`` parser,
fed what the hostile rounds found (arrays of NaN, ±inf and ±1e300 where a number goes,
huge lists and texts, wrong types, junk names). Each input is taken, or refused with one
short line naming what is wrong; never a traceback, never an array's repr.

The settings are swept in ``tests/ui/test_settings_hostile.py`` (isolated QSettings);
``packaging``'s hostile paths and the core's magnitudes have their own batteries
(``tests/packaging/test_install_desktop_paths.py``, ``tests/core/test_overflow.py``).
"""

from __future__ import annotations

import argparse
import base64
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnviz.commands._args import OneLineParser
from attnviz.commands._workspace import build_workspace
from attnviz.model.document import Document
from attnviz.model.session import SessionError, read_session
from attnviz.model.topics import topic_classes

#: A message of one refusal: one line, at most this long (a file name or a flag in front).
LIMIT = 300
FIELDS = [f"{cls.NAME}.{f.name}" for cls in topic_classes() for f in cls.FIELDS]
_FILLS = [np.nan, np.inf, -np.inf, 1e300, -1e300, 5e-324, 1e7]


def _b64(arr: np.ndarray) -> dict:
    data = np.ascontiguousarray(arr, dtype="<f8").tobytes()
    return {"dtype": "float64", "shape": list(arr.shape), "base64": base64.b64encode(data).decode()}


_shape = st.tuples(st.integers(1, 70), st.integers(1, 70))
_json_bad = st.one_of(
    st.builds(lambda s, f: _b64(np.full(s, f)), _shape, st.sampled_from(_FILLS)),
    st.builds(lambda s, f: np.full(s, f).tolist(), _shape, st.sampled_from(_FILLS[3:])),
    st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=100, max_size=2000),
    st.lists(st.integers(-(2**70), 2**70), min_size=100, max_size=2000),
    st.integers(2**64, 10**300),
    st.text(min_size=200, max_size=3000),
    st.dictionaries(st.text(max_size=20), st.integers(), min_size=1, max_size=30),
    st.recursive(st.integers(0, 3), lambda inner: st.lists(inner, max_size=3), max_leaves=30),
    st.sampled_from([None, True, "NaN", "", "\n", [], {}, [[]], [[1e300]]]),
)


def _one_line(message: str) -> None:
    assert "\n" not in message.rstrip("\n"), message
    assert len(message) <= LIMIT, message
    assert "array(" not in message and "nan, nan" not in message, message


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(FIELDS), _json_bad)
def test_a_session_file_with_any_bad_value_in_any_field_opens_or_is_one_line(tmp_path, path, value):
    topic, field = path.split(".")
    file = tmp_path / "hostile.attnviz"
    file.write_text(json.dumps({"format_version": 2, "topics": {topic: {field: value}}}))
    try:
        snapshot, _layout = read_session(file)
    except SessionError as exc:
        _one_line(str(exc))
        assert field in str(exc) or "hostile.attnviz" in str(exc), str(exc)
        return
    Document().restore(snapshot)


def _set(item: str, capsys) -> str | None:
    """``--set item`` as ``attnviz export`` reads it: None when taken, else its one line."""
    args = argparse.Namespace(preset=None, session=None, model=None, text=None, set=[item])
    try:
        build_workspace(args, OneLineParser(prog="attnviz export"))
    except SystemExit as exc:
        assert exc.code == 2
        return capsys.readouterr().err
    return None


_set_text = st.one_of(
    _json_bad.map(json.dumps),
    st.text(max_size=300),
    st.sampled_from(["NaN", "1e400", "-Infinity", "[" * 5000, "{" * 3000, "0x10", "1_000"]),
)
_set_path = st.one_of(
    st.sampled_from(FIELDS),
    st.text(max_size=200),
    st.sampled_from(["attention.", ".d_k", "x" * 5000 + ".d_k", "attention." + "y" * 5000]),
)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(_set_path, _set_text)
def test_any_set_is_taken_or_one_line(capsys, path, text):
    if path == "attention.model_path":
        text = "/nonexistent/" + text[:50]  # a folder that is not a model: refused quickly
    err = _set(f"{path}={text}", capsys)
    if err is not None:
        assert err.startswith("attnviz export: error: --set "), err
        _one_line(err.rstrip("\n"))


@pytest.mark.parametrize(
    "item",
    [
        "attention.d_k=" + json.dumps(np.full((30, 30), 1e300).tolist()),
        "attention.tokens=" + json.dumps(["x"] * 100000),
        "x" * 10000 + "=1",
        "attention." + "y" * 10000 + "=1",
        "attention.q=" + json.dumps(np.full((3, 2), 1e300).tolist()),
    ],
    ids=["matrix-for-int", "huge-list", "long-topic", "long-field", "q-1e300"],
)
def test_the_set_cases_the_rounds_found_are_one_line(capsys, item):
    err = _set(item, capsys)
    assert err is not None
    _one_line(err.rstrip("\n"))
