"""Every argument of :func:`attnviz.figure` and :class:`~attnviz.notebook.Figure`'s methods, of
a wrong type or value, is a one-line ``ValueError`` naming it (issue 39, item 7).

Before: ``session=5`` or ``set=5`` raised ``TypeError`` tracebacks, ``width=np.int64(640)``
was "not a whole number", and ``transparent="no"`` drew a transparent picture.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attnviz
from attnviz.notebook import FigureError, checks


def _refused(call, message: str) -> FigureError:
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        call()
    assert isinstance(info.value, FigureError) and "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"panel": 3}, "unknown panel 3 (int)"),
        ({"panel": ["heatmap"]}, "unknown panel ['heatmap'] (list)"),
        ({"preset": 3}, "preset must be a string or None, got 3 (int)"),
        ({"session": 5}, "session must be a path (a string or pathlib.Path) or None, got 5"),
        ({"session": b"x.attnviz"}, "session must be a path"),
        ({"session": "a\0b"}, "session: a path cannot hold a NUL character"),
        ({"model": 1.5}, "model must be a path (a string or pathlib.Path) or None, got 1.5"),
        ({"text": 7}, "text must be a string or None, got 7 (int)"),
        ({"set": 5}, "set must be a dict {'topic.field': value} or a list"),
        ({"set": {3: 1}}, "set: a field is named 'topic.field', got 3 (int)"),
        ({"set": [8]}, "set: 8 (int): write 'topic.field=value'"),
        ({"set": {"attention.d_k": object()}}, "set: attention.d_k: object is not a field value"),
        ({"width": "640"}, "width must be a whole number of pixels from 16 to 8192, got '640'"),
        ({"width": 640.5}, "width must be a whole number of pixels from 16 to 8192, got 640.5"),
        ({"height": True}, "height must be a whole number of pixels from 16 to 8192, got True"),
        ({"height": np.int64(9000)}, "height must be a whole number of pixels"),
        ({"width": float("nan")}, "width must be a whole number of pixels"),
        ({"theme": None}, "unknown theme None; expected light or dark"),
        ({"theme": ["light"]}, "unknown theme ['light'] (list)"),
        ({"lang": b"en"}, "unknown lang b'en' (bytes)"),
        ({"max_seconds": 0}, "max_seconds must be a number of seconds above 0, or None"),
        ({"max_seconds": "60"}, "max_seconds must be a number of seconds above 0, or None"),
        ({"max_seconds": float("nan")}, "max_seconds must be a number of seconds above 0"),
        ({"max_seconds": True}, "max_seconds must be a number of seconds above 0"),
    ],
)
def test_a_wrong_type_is_named_in_one_line(kwargs, message):
    kwargs = {"panel": "heatmap", **kwargs}
    _refused(lambda: attnviz.figure(kwargs.pop("panel"), **kwargs), message)


def test_numpy_numbers_are_numbers():
    fig = attnviz.figure("steps", width=np.int64(640), height=np.int32(360))
    assert (fig.width, fig.height) == (640, 360) and type(fig.width) is int
    assert attnviz.figure("steps", width=np.float64(640.0), height=Fraction(360)).width == 640
    assert attnviz.figure("steps", max_seconds=np.float32(5)).max_seconds == 5.0
    assert attnviz.figure("steps", max_seconds=None).max_seconds is None
    same = attnviz.figure("heatmap", set={"attention.d_k": np.int64(8)}).data("scores")
    assert np.array_equal(same, attnviz.figure("heatmap", set={"attention.d_k": 8}).data("scores"))


@pytest.fixture(scope="module")
def banco():
    return attnviz.figure("heatmap", preset="banco", width=320, height=180)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda f, d: f.save(d / "x.png", transparent="no"), "transparent must be True or False"),
        (
            lambda f, d: f.save(d / "x.png", transparent=1),
            "transparent must be True or False, got 1",
        ),
        (lambda f, d: f.save(d / "x.png", transparent=None), "got None"),
        (lambda f, d: f.save(5), "path must be a path (a string or pathlib.Path), got 5"),
        (lambda f, d: f.save(None), "path must be a path"),
        (lambda f, d: f.save(d / "x.png", name=3), "name must be a string or None, got 3"),
        (lambda f, d: f.save(d / "x.csv", name=["weights"]), "name must be a string or None"),
        (lambda f, d: f.data(3), "name must be a string or None, got 3"),
        (lambda f, d: f.save(d / "x.gif", animate=5), "animate must be 'topic.field=start:stop"),
        (lambda f, d: f.save(d / "x.gif", animate=[5]), "animate: each sweep is a string"),
        (
            lambda f, d: f.save(d / "x.gif", animate="attention.d_k=2:8", frames=2.5),
            "frames must be a whole number from 2 to 600, got 2.5",
        ),
        (
            lambda f, d: f.save(d / "x.gif", animate="attention.d_k=2:8", frames="8"),
            "frames must be a whole number from 2 to 600, got '8' (str)",
        ),
        (
            lambda f, d: f.save(d / "x.gif", animate="attention.d_k=2:8", fps="10"),
            "fps must be a finite number, got '10' (str)",
        ),
        (
            lambda f, d: f.save(d / "x.gif", animate="attention.d_k=2:8", fps=float("inf")),
            "fps must be a finite number, got inf",
        ),
    ],
)
def test_a_wrong_save_argument_is_named_before_anything_is_drawn(
    banco, tmp_path, monkeypatch, call, message
):
    from attnviz.notebook import animate, render

    def no_drawing():
        raise AssertionError("drawn before the arguments were checked")

    monkeypatch.setattr(render, "application", no_drawing)
    monkeypatch.setattr(animate, "application", no_drawing)
    _refused(lambda: call(banco, tmp_path), message)
    assert not list(tmp_path.iterdir())


def test_transparent_takes_numpy_bools(banco, tmp_path):
    from PySide6.QtGui import QImage

    clear = QImage(str(banco.save(tmp_path / "clear.png", transparent=np.bool_(True))))
    solid = QImage(str(banco.save(tmp_path / "solid.png", transparent=False)))
    assert clear.pixelColor(0, 0).alpha() == 0 and solid.pixelColor(0, 0).alpha() == 255


def test_whole_numbers_of_every_kind():
    for value in (640, np.int16(640), np.uint64(640), 640.0, np.float32(640), Fraction(640)):
        assert checks.whole_number("width", value, 16, 8192) == 640
    for value in (True, np.bool_(True), 640.5, math.inf, math.nan, "640", None, [640], 1e300):
        with pytest.raises(FigureError, match="^width must be a whole number from 16 to 8192"):
            checks.whole_number("width", value, 16, 8192)


# --- hypothesis: any value of any type, for every argument ----------------------------------
_ANY = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.binary(max_size=10),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.sampled_from([np.int64(7), np.float64(0.5), np.bool_(False), object(), Path("x"), ()]),
)
_FIGURE_ARGS = ("panel", "preset", "session", "model", "text", "set", "width", "height", "theme")
_FIGURE_ARGS += ("lang", "max_seconds")


def _one_line_or_nothing(call):
    try:
        call()
    except FigureError as exc:
        message = str(exc)
        assert message and "\n" not in message and "Traceback" not in message
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(_FIGURE_ARGS), value=_ANY)
def test_any_value_of_any_figure_argument(tmp_path_factory, name, value):
    folder = tmp_path_factory.mktemp("hostile")
    if name in ("session", "model") and isinstance(value, (str, Path)):
        value = folder / str(value).replace("\0", "")[:20]  # never a real file of the user's
    kwargs = {"panel": "steps", name: value}
    _one_line_or_nothing(lambda: attnviz.figure(kwargs.pop("panel"), **kwargs))


_SAVE_ARGS = st.fixed_dictionaries(
    {},
    optional={
        "name": _ANY,
        "animate": _ANY,
        "frames": _ANY,
        "fps": _ANY,
        "transparent": _ANY,
    },
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ext=st.sampled_from(["png", "svg", "csv", "npy", "gif", "bmp", ""]), kwargs=_SAVE_ARGS)
def test_any_value_of_any_save_argument(tmp_path_factory, monkeypatch_module, ext, kwargs):
    fig = attnviz.figure("steps", preset="banco", width=64, height=36)
    folder = tmp_path_factory.mktemp("save")
    drawn = _one_line_or_nothing(lambda: fig.save(folder / f"x.{ext}", **kwargs))
    if drawn:
        assert (folder / f"x.{ext}").is_file()


@pytest.fixture(scope="module")
def monkeypatch_module():
    # A valid animation would draw up to 600 frames: two is enough to prove it was drawn.
    from attnviz.notebook import animate

    with pytest.MonkeyPatch.context() as patch:
        real = animate.frame_values
        patch.setattr(animate, "frame_values", lambda doc, sweep, _frames: real(doc, sweep, 2))
        yield patch
