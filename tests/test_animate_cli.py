"""Animated exports: the sweeps (model), the frames (ui) and ``attnviz export --animate``.

Files are read back with Pillow (GIF, WebP, APNG) and PyAV (MP4). Every frame drawn is a
frame of the file in every format, identical neighbours included, timed as the format
stores it (:mod:`attnviz.model.frame_timing`).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.cli import main
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.sweep import Sweep, check_frames, parse_sweep, sweep_values

SIZE = ["--width", "320", "--height", "180"]
SMALL = ["--width", "160", "--height", "90"]
D_K = "attention.d_k=1:16"
SQRT_DK = ["--preset", "lesson-sqrt-dk", "--set", "attention.scale=false"]


def _frames(path) -> list[np.ndarray]:
    """Every frame an animation stores, as RGBA arrays."""
    from PIL import Image, ImageSequence

    with Image.open(path) as im:
        return [np.asarray(frame.convert("RGBA")) for frame in ImageSequence.Iterator(im)]


def _durations(path) -> list[float]:
    """The milliseconds each stored frame is shown (Pillow's reading of the file)."""
    from PIL import Image

    out = []
    with Image.open(path) as im:
        for i in range(im.n_frames):
            im.seek(i)
            im.load()
            out.append(im.info["duration"])
    return out


def _mp4_frames(path) -> list[np.ndarray]:
    av = pytest.importorskip("av")
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


def _exit_line(capsys, argv, code=2) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == code
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if "propagateSizeHints" not in x]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# --- the sweeps ----------------------------------------------------------------------------
def test_a_float_field_moves_evenly_or_geometrically_with_exact_ends():
    doc = Document()
    linear = parse_sweep("attention.temperature=1:3", doc)
    assert linear == Sweep("attention", "temperature", 1.0, 3.0, False, "float")
    assert linear.values(5) == [1.0, 1.5, 2.0, 2.5, 3.0]
    log = parse_sweep("attention.temperature=0.25:4:log", doc)
    assert log.log and log.values(5) == pytest.approx([0.25, 0.5, 1.0, 2.0, 4.0], rel=1e-12)
    assert log.values(5)[0] == 0.25 and log.values(5)[-1] == 4.0


def test_an_integer_field_steps_through_whole_values_rounded():
    doc = Document()
    assert parse_sweep("attention.d_k=2:5", doc).values(7) == [2, 3, 3, 4, 4, 5, 5]
    assert parse_sweep("attention.d_k=8:2", doc).values(4) == [8, 6, 4, 2]
    values = parse_sweep("attention.d_k=2:256:log", doc).values(8)
    assert values == [2, 4, 8, 16, 32, 64, 128, 256]
    assert all(type(v) is int for v in values)


def test_two_sweeps_move_together_frame_by_frame():
    doc = Document()
    sweeps = [parse_sweep("attention.d_k=2:8", doc), parse_sweep("attention.temperature=1:4", doc)]
    assert sweep_values(sweeps, 3) == [
        {"attention.d_k": 2, "attention.temperature": 1.0},
        {"attention.d_k": 5, "attention.temperature": 2.5},
        {"attention.d_k": 8, "attention.temperature": 4.0},
    ]
    with pytest.raises(StateError, match="animated twice"):
        sweep_values([sweeps[0], sweeps[0]], 3)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("attention.nope=1:2", "no field 'nope'"),
        ("nowhere.d_k=1:2", "unknown topic 'nowhere'"),
        ("attention.scale=0:1", "attention.scale is a bool field"),
        ("attention.matrix=0:1", "attention.matrix is a choice field"),
        ("attention.preset_id=0:1", "attention.preset_id is a text field"),
        ("attention.d_k=0:8", "d_k must be between 1 and 1024"),
        ("attention.d_k=2:4096", "d_k must be between 1 and 1024"),
        ("attention.d_k=2.5:8", "whole number"),
        ("attention.temperature=1:1", "nothing would move"),
        ("attention.softcap=0:10:log", "above 0"),
        ("attention.d_k=2:8:lin", "START:STOP or START:STOP:log"),
        ("attention.d_k", "TOPIC.FIELD=START:STOP"),
        ("attention.d_k=nan:3", "finite"),
    ],
)
def test_a_bad_sweep_is_one_line_naming_what_is_wrong(text, says):
    with pytest.raises(StateError) as exc:
        parse_sweep(text, Document())
    assert says in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("frames", [0, 1, 601, 2.5, True])
def test_frames_out_of_range_are_refused(frames):
    with pytest.raises(StateError, match="2 to 600 frames"):
        sweep_values([parse_sweep("attention.d_k=2:8", Document())], frames)


def test_a_frame_the_topic_refuses_is_named_before_drawing():
    doc = Document()
    values = sweep_values([parse_sweep("positions.head_dim=2:8", doc)], 7)
    with pytest.raises(StateError, match=r"frame 2 \(positions.head_dim = 3\).*even"):
        check_frames(doc, values)


_FIELDS = [
    "attention.d_k",
    "attention.temperature",
    "attention.scale",
    "memory.context",
    "positions.base",
    "long.n",
    "attention.tokens",
    "x.y",
    "attention.",
    ".d_k",
]
_NUMBERS = st.one_of(
    st.integers(-(10**6), 10**30).map(str), st.floats().map(repr), st.text(max_size=12)
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=80),
        st.builds(
            lambda f, a, b, tail: f"{f}={a}:{b}{tail}",
            st.sampled_from(_FIELDS),
            _NUMBERS,
            _NUMBERS,
            st.sampled_from(["", ":log", ":LOG", ":", ":log:x", "::"]),
        ),
    )
)
def test_any_text_is_a_sweep_or_one_line_refusal(text):
    doc = Document()
    try:
        sweep = parse_sweep(text, doc)
    except StateError as exc:
        message = str(exc)
        assert message and "\n" not in message and len(message) < 600
        return
    values = sweep.values(4)
    field = doc[sweep.topic].field(sweep.field)
    assert all(field.coerce(v) == v for v in values)
    assert values[0] == sweep.start and values[-1] == sweep.stop


# --- the frames ------------------------------------------------------------------------------
def test_each_frame_is_the_png_export_of_its_values_and_the_state_comes_back(qapp):
    from PySide6.QtGui import QImage

    from attnviz.model.topic_presets import document_preset_values
    from attnviz.model.workspace import Workspace
    from attnviz.ui.animation import render_frames
    from attnviz.ui.export import ExportSpec, render_image

    def workspace():
        ws = Workspace()
        ws.document.restore(document_preset_values("lesson-sqrt-dk"))
        ws.document.set_fields({"attention.scale": False})
        return ws

    ws = workspace()
    before = ws.document.snapshot()["attention"]
    values = sweep_values([parse_sweep("attention.d_k=2:256:log", ws.document)], 4)
    spec = ExportSpec(240, 135)
    images = render_frames(ws, "heatmap", values, spec)
    assert [(i.width(), i.height()) for i in images] == [(240, 135)] * 4
    for image, frame in zip(images, values, strict=True):
        plain = workspace()
        plain.document.set_fields(frame)  # what `--set attention.d_k=v --out x.png` draws
        expected = render_image(plain.state, plain.resolver.results, spec)
        fmt = QImage.Format.Format_ARGB32
        assert image.convertToFormat(fmt) == expected.convertToFormat(fmt), frame
    assert images[0].convertToFormat(QImage.Format.Format_ARGB32) != images[-1].convertToFormat(
        QImage.Format.Format_ARGB32
    )
    after = ws.document.snapshot()["attention"]
    assert after["d_k"] == 256 and np.array_equal(after["q"], before["q"])


def test_a_frame_title_shows_the_swept_value():
    from attnviz.ui.animation import frame_title

    assert frame_title("d_k = {attention.d_k}, {x}", {"attention.d_k": 64}) == "d_k = 64, {x}"
    assert frame_title("T = {attention.temperature}", {"attention.temperature": 0.5}) == "T = 0.5"
    assert frame_title(None, {"attention.d_k": 64}) is None


# --- the command -----------------------------------------------------------------------------
def test_cli_gif_has_every_frame_at_the_exact_size(tmp_path, qapp, capsys):
    out = tmp_path / "sqrt-dk.gif"
    argv = [
        "export",
        *SQRT_DK,
        "--animate",
        "attention.d_k=2:256:log",
        "--frames",
        "8",
        *SIZE,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    assert "8 frames, 320×180" in capsys.readouterr().out
    frames = _frames(out)
    assert len(frames) == 8
    assert all(f.shape == (180, 320, 4) for f in frames)
    assert not np.array_equal(frames[0], frames[-1])


def test_cli_apng_frames_equal_the_png_exports_of_the_sweep(tmp_path, qapp):
    out = tmp_path / "t.apng"
    argv = [
        "export",
        "--animate",
        "attention.temperature=0.25:4:log",
        "--frames",
        "5",
        *SIZE,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    frames = _frames(out)
    assert len(frames) == 5
    for frame, value in zip(frames, [0.25, 0.5, 1.0, 2.0, 4.0], strict=True):
        png = tmp_path / f"t-{value}.png"
        assert (
            main(["export", "--set", f"attention.temperature={value!r}", *SIZE, "--out", str(png)])
            == 0
        )
        from PIL import Image

        with Image.open(png) as im:
            assert np.array_equal(frame, np.asarray(im.convert("RGBA"))), value


def test_cli_two_sweeps_webp(tmp_path, qapp):
    out = tmp_path / "two.webp"
    argv = [
        "export",
        "--animate",
        "attention.d_k=2:8",
        "--animate",
        "attention.temperature=1:4",
        "--frames",
        "3",
        *SIZE,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    frames = _frames(out)
    assert len(frames) == 3 and frames[0].shape == (180, 320, 4)


def test_cli_transparent_apng_keeps_alpha(tmp_path, qapp):
    out = tmp_path / "clear.apng"
    argv = [
        "export",
        "--animate",
        "attention.d_k=2:4",
        "--frames",
        "2",
        "--transparent",
        *SIZE,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    alpha = _frames(out)[0][..., 3]
    assert alpha.min() == 0 and alpha.max() == 255


def test_cli_mp4_has_every_frame_at_the_exact_size(tmp_path, qapp):
    pytest.importorskip("av")
    out = tmp_path / "d_k.mp4"
    argv = [
        "export",
        *SQRT_DK,
        "--animate",
        "attention.d_k=2:256:log",
        "--frames",
        "6",
        "--fps",
        "12",
        *SIZE,
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    frames = _mp4_frames(out)
    assert len(frames) == 6 and all(f.shape == (180, 320, 3) for f in frames)
    assert np.abs(frames[0].astype(int) - frames[-1].astype(int)).mean() > 1


def test_cli_mp4_without_pyav_is_one_line_and_exit_1(tmp_path, qapp, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "av", None)  # `import av` now raises ImportError
    out = tmp_path / "x.mp4"
    line = _exit_line(
        capsys,
        ["export", "--animate", "attention.d_k=2:8", "--frames", "3", *SIZE, "--out", str(out)],
        code=1,
    )
    assert "attnviz[video]" in line
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--animate", "attention.nope=1:2", "--frames", "3"], "no field 'nope'"),
        (["--animate", "attention.causal=0:1", "--frames", "3"], "attention.causal is a bool"),
        (["--animate", "attention.d_k=0:8", "--frames", "3"], "d_k must be between 1 and"),
        (["--animate", "attention.d_k=2:8", "--frames", "1"], "--frames"),
        (["--animate", "attention.d_k=2:8"], "needs --frames"),
        (["--animate", "attention.d_k=2:8", "--frames", "3", "--fps", "61"], "--fps"),
        (["--frames", "3"], "an animated --out needs --animate"),
        (["--animate", "attention.d_k=2:8", "--frames", "3", "--transparent"], "transparent"),
        (
            ["--panel", "positions", "--animate", "positions.head_dim=2:8", "--frames", "7"],
            "frame 2",
        ),
    ],
)
def test_cli_refusals_are_one_line_exit_2_and_write_nothing(tmp_path, capsys, args, says):
    out = tmp_path / "x.gif"
    line = _exit_line(capsys, ["export", *args, *SIZE, "--out", str(out)])
    assert line.startswith("attnviz export: error: ") and says in line, line
    assert list(tmp_path.iterdir()) == []


def test_cli_mp4_of_an_odd_size_is_refused(tmp_path, capsys):
    out = tmp_path / "x.mp4"
    line = _exit_line(
        capsys,
        [
            "export",
            "--animate",
            "attention.d_k=2:8",
            "--frames",
            "3",
            "--width",
            "321",
            "--height",
            "180",
            "--out",
            str(out),
        ],
    )
    assert "even width and height" in line


# --- every frame, timed as the format stores it -------------------------------------------
def test_frames_n_is_n_frames_in_every_format_equal_neighbours_included(tmp_path, qapp, capsys):
    """24 frames of d_k = 1 … 16 draw 16 pictures, 8 of them again beside themselves:
    Pillow (GIF, APNG) and libwebp stored such a frame as a longer showing of the one
    before (16 frames); every frame is now a frame of the file."""
    values = [v["attention.d_k"] for v in sweep_values([parse_sweep(D_K, Document())], 24)]
    again = [i for i in range(1, 24) if values[i] == values[i - 1]]
    assert len(set(values)) == 16 and len(again) == 8
    for ext in ("gif", "webp", "apng", "mp4"):
        if ext == "mp4" and not _video():
            continue
        out = tmp_path / f"d_k.{ext}"
        argv = ["export", "--animate", D_K, "--frames", "24", *SMALL, "--out", str(out)]
        assert main(argv) == 0
        assert "24 frames" in capsys.readouterr().out
        frames = _mp4_frames(out) if ext == "mp4" else _frames(out)
        assert len(frames) == 24, ext
        if ext == "mp4":
            continue
        assert _durations(out) == [100] * 24, ext
        for i in range(1, 24):  # a frame drawn again is the same picture, another is not
            assert np.array_equal(frames[i], frames[i - 1]) == (i in again), (ext, i)


@pytest.mark.parametrize("ext", ["gif", "webp"])
def test_a_rate_the_unit_does_not_divide_keeps_its_pace_over_the_file(tmp_path, ext):
    """24 frames a second are 4 1/6 hundredths each: a GIF waits 4, 4, 5, 4, … hundredths
    (WebP 42, 41, 42, … ms) so that the 24th frame ends at 1 s exactly, not at 0.96 s."""
    from attnviz.ui.animation import write_animation

    out = write_animation(_pictures(48), tmp_path / f"p.{ext}", 24)
    durations = _durations(out)
    assert len(durations) == 48
    assert sum(durations[:24]) == 1000 and sum(durations) == 2000
    assert set(durations) == ({40, 50} if ext == "gif" else {41, 42})


def _video() -> bool:
    from attnviz.ui.animation import video_available

    return video_available()


SWEEP = ["--animate", "attention.d_k=2:8", "--frames", "3"]
LESSON = ["--lesson", "sqrt-dk"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        # Pillow's OverflowError: a GIF frame of more than 655.35 s.
        (
            [*SWEEP, "--fps", "0.001", "--out", "x.gif"],
            "--fps 0.001 is out of range for a GIF: 0.00153 to 50",
        ),
        # Browsers play a GIF delay under 0.02 s as 0.1 s.
        (
            [*SWEEP, "--fps", "60", "--out", "x.gif"],
            "--fps 60 is out of range for a GIF: 0.00153 to 50",
        ),
        # Written at 24 frames per second without a word.
        (
            [*SWEEP, "--fps", "0.0004", "--out", "x.mp4"],
            "--fps 0.0004 is out of range for an MP4: 0.001 to 60",
        ),
        (
            [*SWEEP, "--fps", "1e-5", "--out", "x.webp"],
            "out of range for an animated WebP: 5.97e-05 to 60",
        ),
        # Printed "6 steps of 3 s" and wrote 6,000 s (a frame of 1,000 s for each step).
        (
            [*LESSON, "--fps", "0.001", "--out", "x.mp4"],
            "--hold 3 s is shorter than one frame of an MP4",
        ),
        # A GIF without delays.
        (
            [*LESSON, "--hold", "1e-9", "--out", "x.gif"],
            "--hold 1e-09 s is out of range for a GIF: 0.02 to",
        ),
        (
            [*LESSON, "--hold", "0.001", "--out", "x.apng"],
            "out of range for an APNG: 0.0167 to 65,535 s",
        ),
        # The steps of a GIF are held --hold seconds: a frame rate would be ignored.
        (
            [*LESSON, "--fps", "5", "--out", "x.gif"],
            "--fps sets the frame rate of a lesson's .mp4",
        ),
    ],
)
def test_a_timing_the_format_cannot_store_is_refused_before_any_frame(tmp_path, capsys, args, says):
    if args[-1].endswith(".mp4") and not _video():
        pytest.skip("MP4 needs PyAV")
    line = _exit_line(capsys, ["export", *args[:-1], str(tmp_path / args[-1])])
    assert says in line, line
    assert list(tmp_path.iterdir()) == []


def test_a_lesson_prints_the_plan_the_file_keeps(tmp_path, capsys):
    """A hold is rounded to what the format stores, and the line printed says that."""
    gif = tmp_path / "l.gif"
    argv = ["export", "--lesson", "sqrt-dk", "--hold", "0.255", *SMALL, "--out", str(gif)]
    assert main(argv) == 0
    assert "7 steps of 0.26 s" in capsys.readouterr().out
    assert _durations(gif) == [260] * 7
    if not _video():
        return
    mp4 = tmp_path / "l.mp4"
    argv = ["export", "--lesson", "sqrt-dk", "--hold", "0.5", "--fps", "4", *SMALL]
    assert main([*argv, "--out", str(mp4)]) == 0
    assert "7 steps of 0.5 s (2 frames each at 4 fps)" in capsys.readouterr().out
    import av

    with av.open(str(mp4)) as container:
        stream = container.streams.video[0]
        times = [float(f.time) for f in container.decode(video=0)]
        assert stream.average_rate == 4
    assert len(times) == 14 and times[-1] == pytest.approx(3.25)  # 14 frames of 0.25 s: 3.5 s


def test_cli_says_long_work_and_refuses_past_a_minute_without_yes(
    tmp_path, qapp, capsys, monkeypatch
):
    from attnviz.commands import _animate_export

    argv = ["export", "--animate", "attention.d_k=2:5", "--frames", "4", *SIZE]
    monkeypatch.setattr(_animate_export, "ENCODE_S_PER_PIXEL", 20 / (4 * 320 * 180))
    assert main([*argv, "--out", str(tmp_path / "said.gif")]) == 0
    assert "take about 2" in capsys.readouterr().err
    monkeypatch.setattr(_animate_export, "ENCODE_S_PER_PIXEL", 100 / (4 * 320 * 180))
    assert main([*argv, "--out", str(tmp_path / "refused.gif")]) == 1
    err = capsys.readouterr().err
    assert "would take about" in err and "--yes" in err
    assert not (tmp_path / "refused.gif").exists()
    assert not list(tmp_path.glob(".attnviz-*"))
    assert main([*argv, "--yes", "--out", str(tmp_path / "yes.gif")]) == 0


def test_cli_says_the_overview_maps_of_a_sweep_before_computing_them(tmp_path, capsys, monkeypatch):
    from attnviz.model.resolve import long as long_resolver

    # A thousand times slower: 512, 768 and 1,024 tokens take 13 + 29 + 52 s.
    monkeypatch.setattr(long_resolver, "_cell_seconds", lambda d, dtype: 1e-4)
    out = tmp_path / "maps.gif"
    argv = ["export", "--panel", "overview", "--animate", "long.n=512:1024", "--frames", "3"]
    assert main([*argv, *SIZE, "--out", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "attnviz export: the 3 overview maps of this sweep would take about 95 s on this "
        "machine's CPU; pass --yes to go on, or lower long.n"
    ]
    assert not out.exists()
    # A sweep of a field no map depends on computes one map, and says so in the singular.
    one = ["export", "--panel", "overview", "--set", "long.n=1024"]
    one += ["--animate", "attention.d_k=2:4", "--frames", "3", *SIZE, "--out", str(out)]
    assert main(one) == 0
    assert capsys.readouterr().err.strip().splitlines()[0] == (
        "attnviz export: the overview map of this sweep takes about 52 s on this machine's CPU…"
    )


def test_cli_lesson_plays_as_one_animation_each_step_held(tmp_path):
    out = tmp_path / "sqrt-dk.gif"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnviz",
            "export",
            "--lesson",
            "sqrt-dk",
            "--hold",
            "0.5",
            *SIZE,
            "--lang",
            "pt_BR",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "propagateSizeHints" not in r.stderr
    from PIL import Image, ImageSequence

    with Image.open(out) as im:
        durations = [f.info["duration"] for f in ImageSequence.Iterator(im)]
        assert im.size == (320, 180)
    assert durations == [500] * 7  # the seven steps of sqrt-dk


def test_cli_lesson_animation_refuses_state_options(tmp_path, capsys):
    line = _exit_line(
        capsys,
        [
            "export",
            "--lesson",
            "sqrt-dk",
            "--set",
            "attention.d_k=3",
            "--out",
            str(tmp_path / "x.gif"),
        ],
    )
    assert "drop --set" in line


# --- the writer ------------------------------------------------------------------------------
def _pictures(n: int, shape=(18, 32, 3)) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(n)]


def test_arrays_round_trip_exactly_through_apng_and_webp(tmp_path):
    from attnviz.ui.animation import write_animation

    pictures = _pictures(4)
    for ext in ("apng", "webp"):
        out = write_animation(pictures, tmp_path / f"a.{ext}", 10)
        frames = _frames(out)
        assert len(frames) == 4
        for got, want in zip(frames, pictures, strict=True):
            assert np.array_equal(got[..., :3], want) and (got[..., 3] == 255).all()


def test_frames_of_two_sizes_or_a_cancel_leave_no_file(tmp_path):
    from attnviz.core.work import Cancelled
    from attnviz.ui.animation import write_animation
    from attnviz.ui.export import ExportError

    mixed = _pictures(2) + _pictures(1, (20, 32, 3))
    with pytest.raises(ExportError, match="one size"):
        write_animation(mixed, tmp_path / "m.gif", 10)
    calls = iter([False, False, True])
    with pytest.raises(Cancelled):
        write_animation(_pictures(5), tmp_path / "c.webp", 10, cancel=lambda: next(calls))
    with pytest.raises(ExportError, match="transparent"):
        write_animation(_pictures(2), tmp_path / "t.gif", 10, transparent=True)
    with pytest.raises(ExportError, match="fps"):
        write_animation(_pictures(2), tmp_path / "f.gif", 0)
    assert list(tmp_path.iterdir()) == []


def test_held_frames_last_their_durations(tmp_path):
    from attnviz.ui.animation import write_animation

    out = write_animation(_pictures(3), tmp_path / "h.gif", 10, durations=[0.5, 1.0, 2.5])
    from PIL import Image, ImageSequence

    with Image.open(out) as im:
        assert [f.info["duration"] for f in ImageSequence.Iterator(im)] == [500, 1000, 2500]
    mp4 = pytest.importorskip("av") and write_animation(
        _pictures(2, (18, 32, 3)), tmp_path / "h.mp4", 4, durations=[0.5, 1.0]
    )
    assert len(_mp4_frames(mp4)) == 2 + 4  # each held frame repeated at 4 per second
