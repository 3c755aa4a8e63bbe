"""Export for slides: exact PNG sizes, SVG, CSV/NPY equal to the matrix, the headless command."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtGui import QColor, QGuiApplication, QImage

from attnviz.model.presets import load_preset, preset_ids, preset_state_values
from attnviz.model.resolve import Resolver
from attnviz.model.session import save_session
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.export import ExportError, ExportSpec, export, render_image, write_csv
from attnviz.ui.export_dialog import ExportDialog


def _cli(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "attnviz", "export", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def _distinct_colors(img: QImage, step: int = 5) -> int:
    img = img.convertToFormat(QImage.Format.Format_ARGB32)
    return len(
        {img.pixel(x, y) for x in range(0, img.width(), step) for y in range(0, img.height(), step)}
    )


def test_cli_png_has_exactly_the_requested_size_and_is_not_blank(tmp_path):
    out = tmp_path / "banco.png"
    # No display and no platform chosen: the command must manage on its own.
    r = _cli(
        "--preset",
        "banco",
        "--panel",
        "heatmap",
        "--out",
        str(out),
        "--width",
        "1280",
        "--height",
        "720",
    )
    assert r.returncode == 0, r.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (1280, 720)
    assert _distinct_colors(img) > 30


def test_cli_png_size_ignores_the_screen_scale(tmp_path):
    out = tmp_path / "scaled.png"
    r = _cli(
        "--preset",
        "gato",
        "--out",
        str(out),
        "--width",
        "999",
        "--height",
        "333",
        "--theme",
        "dark",
        "--transparent",
        env_extra={"QT_SCALE_FACTOR": "2"},
    )
    assert r.returncode == 0, r.stderr
    img = QImage(str(out))
    assert (img.width(), img.height()) == (999, 333)
    assert img.hasAlphaChannel() and img.pixelColor(0, 0).alpha() == 0  # transparent corner
    assert _distinct_colors(img) > 30


def test_cli_svg_parses(tmp_path):
    out = tmp_path / "banco.svg"
    r = _cli("--preset", "banco", "--matrix", "scores", "--out", str(out))
    assert r.returncode == 0, r.stderr
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    assert root.get("viewBox") == "0 0 1920 1080" and root.get("width") == "508mm"  # 96 dpi
    text = " ".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    assert "sentei" in text and "praça" in text and "2.83" in text


def test_cli_csv_equals_the_weights(tmp_path):
    out = tmp_path / "gato.csv"
    r = _cli("--preset", "gato", "--out", str(out))
    assert r.returncode == 0, r.stderr
    with out.open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    state = AttentionState(**preset_state_values(load_preset("gato")))
    weights = Resolver(state).results.attention.weights
    assert rows[0][1:] == list(state.tokens)
    assert [r[0] for r in rows[1:]] == list(state.tokens)
    values = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    assert np.array_equal(values, weights)  # exact: repr round-trips
    assert values[0, 1] == 0.0  # causal: masked weights are 0 in the numbers


def test_cli_npy_equals_the_matrix(tmp_path):
    out = tmp_path / "o.npy"
    r = _cli("--preset", "banco", "--matrix", "output", "--out", str(out))
    assert r.returncode == 0, r.stderr
    expected = Resolver(AttentionState()).results.attention.output
    assert np.array_equal(np.load(out), expected)
    np.testing.assert_allclose(np.load(out)[1], [0.85, 0.15], atol=0.005)


def test_cli_applies_a_session(tmp_path):
    session = tmp_path / "s.attnviz"
    save_session(AttentionState(causal=True), session)
    out = tmp_path / "s.npy"
    r = _cli("--preset", "banco", "--session", str(session), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert np.load(out)[0, 1] == 0.0 and np.load(out)[0, 0] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "nope", "--out", "x.png"], "known: " + ", ".join(preset_ids())),
        (["--preset", "banco", "--panel", "nope", "--out", "x.png"], "unknown panel"),
        (["--preset", "banco", "--out", "x.jpg"], "unsupported extension"),
        (["--preset", "banco", "--out", "x.png", "--width", "9000"], "out of range"),
        (["--preset", "banco", "--out", "x.png", "--height", "15"], "out of range"),
        (["--preset", "banco", "--out", "x.png", "--matrix", "keys"], "unknown --matrix 'keys'"),
        (["--preset", "banco"], "--out"),
        (["--set", "attention.nope=1", "--out", "x.png"], "no field 'nope'"),
        (["--set", "nowhere.d_k=1", "--out", "x.png"], "unknown topic 'nowhere'"),
        (["--set", "attention.d_k=0", "--out", "x.png"], "attention.d_k: d_k must be between"),
        (["--set", "attention.scale=no", "--out", "x.png"], "attention.scale"),
        (["--set", "attention.temperature=1e400", "--out", "x.png"], "not a finite number"),
        (["--set", "attention.d_k", "--out", "x.png"], "TOPIC.FIELD=VALUE"),
        (["--set", "positions.head_dim=7", "--out", "x.csv"], "head_dim must be even"),
        (["--preset", "banco", "--session", "missing.attnviz", "--out", "x.csv"], "--session"),
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(tmp_path, args, message):
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "export", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160), (333, 217), (16, 16)])
def test_render_is_exactly_the_spec_size(qapp, state, resolver, size):
    img = render_image(state, resolver.results, ExportSpec(*size))
    assert (img.width(), img.height()) == size
    if size[0] >= 333:
        assert _distinct_colors(img) > 30


def test_export_rejects_bad_specs(qapp, state, resolver, tmp_path):
    with pytest.raises(ExportError, match="width"):
        export(state, resolver.results, tmp_path / "a.png", ExportSpec(width=10))
    with pytest.raises(ExportError, match="extension"):
        export(state, resolver.results, tmp_path / "a.gif", ExportSpec())
    with pytest.raises(ExportError, match="theme"):
        export(state, resolver.results, tmp_path / "a.png", ExportSpec(theme="sepia"))


def test_csv_of_the_output_uses_value_labels(state, resolver, tmp_path):
    path = write_csv(state, resolver.results, tmp_path / "o.csv", "output")
    header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[1:] == ["seat", "money"]


def test_copy_to_the_clipboard(qapp, state, resolver):
    dialog = ExportDialog(state, resolver)
    dialog.size.setCurrentIndex(dialog.size.count() - 1)  # custom
    dialog.width_spin.setValue(640)
    dialog.height_spin.setValue(480)
    dialog.copy_button.click()
    img = QGuiApplication.clipboard().image()
    assert (img.width(), img.height()) == (640, 480)


def test_export_dialog_writes_the_chosen_file(qtbot, state, resolver, tmp_path, monkeypatch):
    from attnviz.ui import export_dialog

    dialog = ExportDialog(state, resolver, "dark")
    qtbot.addWidget(dialog)
    target = tmp_path / "slide"
    monkeypatch.setattr(
        export_dialog.QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "")
    )
    dialog.size.setCurrentIndex(1)  # 3840 × 2160
    dialog.save_button.click()
    img = QImage(str(target) + ".png")
    assert (img.width(), img.height()) == (3840, 2160)
    dialog = ExportDialog(state, resolver)
    qtbot.addWidget(dialog)
    dialog.format.setCurrentIndex(dialog.format.findData("npy"))
    assert not dialog.size.isEnabled()
    dialog.save_button.click()
    assert np.array_equal(np.load(str(target) + ".npy"), resolver.results.attention.weights)


def test_the_4k_export_benchmark_reports_its_numbers(qapp):
    from attnviz.benchmarks.ui import export_4k

    result = export_4k(quick=True)
    assert (result["width"], result["height"]) == (3840, 2160)
    assert result["seconds"] > 0 and result["seconds_n512"] > 0 and result["bytes"] > 10_000


# --- issue 8, item 15: slides at any size ------------------------------------------------
def _long_state():
    state = AttentionState()
    state.update(**preset_state_values(load_preset("long-sentence")))
    return state, Resolver(state)


def _axis_thickness(image: QImage, view, ratio: float) -> int:
    """Pixels of the bottom axis line, counted down a column through the matrix's middle."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    box = view.plot.vb.sceneBoundingRect()
    x = round(box.center().x() * ratio)
    y = round(box.bottom() * ratio) - 2
    dark = 0
    # The line is the grey run just below the last row of cells.
    for yy in range(y, min(y + round(12 * ratio), image.height())):
        c = QColor(image.pixel(x, yy))
        grey = max(c.red(), c.green(), c.blue()) - min(c.red(), c.green(), c.blue()) < 16
        if grey and c.lightness() < 200:
            dark += 1
    return dark


def test_line_widths_grow_with_the_export_size(qapp):
    from attnviz.ui.export import build_figure, line_scale

    state, resolver = _long_state()
    widths, thickness = {}, {}
    for w, h in ((1920, 1080), (3840, 2160)):
        spec = ExportSpec(width=w, height=h)
        view = build_figure(state, resolver.results, spec)
        try:
            widths[w] = view.plot.getAxis("bottom").pen().widthF()
            assert widths[w] == line_scale(spec) == 2.0 * w / 1920
        finally:
            view.close()
        image = render_image(state, resolver.results, spec)
        view = build_figure(state, resolver.results, spec)
        try:
            thickness[w] = _axis_thickness(image, view, w / view.width())
        finally:
            view.close()
    assert widths[3840] == 2 * widths[1920]
    # Drawn, not only set: the 4K line is about twice as many pixels thick.
    assert thickness[1920] >= 2 and thickness[3840] >= 2 * thickness[1920] - 1


def test_row_labels_are_all_kept_when_there_is_room(qapp):
    from attnviz.ui.export import build_figure

    state, resolver = _long_state()
    view = build_figure(state, resolver.results, ExportSpec(width=1920, height=1080))
    try:
        tokens = list(state.tokens)
        assert len(tokens) == 28
        # Every word of the sentence, in slightly smaller type rather than every other one.
        assert view.tick_labels("left") == tokens
        assert view.tick_labels("bottom") == tokens
        assert 0.7 <= view.rows_axis.font_scale() < 1.0
    finally:
        view.close()
    many = AttentionState(tokens=tuple(f"w{i}" for i in range(200)), head="content", d_k=4)
    view = build_figure(many, Resolver(many).results, ExportSpec(width=640, height=360))
    try:  # 200 rows have no room even for small type: every step-th, at full size
        shown = view.tick_labels("left")
        step = 200 // len(shown) + (200 % len(shown) > 0)
        assert 1 < len(shown) < 200 and shown == list(many.tokens[::step])
        assert view.rows_axis.font_scale() == 1.0
    finally:
        view.close()


@pytest.mark.parametrize("tokens", [("a",), ("a", "b"), tuple("abcdefgh")])
def test_the_entropy_axis_writes_its_ticks_in_full(qapp, tokens):
    from attnviz.ui.export import build_figure

    state = AttentionState(tokens=tokens, head="content", d_k=4)
    view = build_figure(state, Resolver(state).results, ExportSpec())
    try:
        axis = view.entropy_plot.getAxis("bottom")
        assert axis.autoSIPrefixScale == 1.0 and "×" not in axis.labelString()
        assert "x1e" not in axis.labelString() and "(x" not in axis.labelString()
        ticks = [label for _pos, label in axis._tickLevels[0]]
        n = len(tokens)
        assert ticks == (["0"] if n == 1 else ["0", f"{np.log(n):.2g}"])
        assert view.max_entropy == pytest.approx(np.log(n), abs=0)
    finally:
        view.close()


def test_the_title_names_the_preset_only_while_the_sentence_is_its_own(state, resolver):
    from attnviz.ui.export import default_title

    assert default_title(state).endswith(load_preset("banco").title)
    state.update(tokens=("x", "y", "z"))
    assert default_title(state) == "A = softmax(S)"


def test_the_title_names_the_preset_only_while_its_scenario_holds(state, resolver):
    """A title that quotes the preset's d_k (or its scale, its vectors) is not drawn over
    other values: a slide series with --set would quote a number it does not show."""
    from attnviz.model.topic_presets import document_preset_values
    from attnviz.ui.export import default_title

    title = load_preset("lesson-sqrt-dk").title
    state.update(**document_preset_values("lesson-sqrt-dk")["attention"])
    assert default_title(state).endswith(title)
    state.update(matrix="scores", selected_query=1)  # what is shown, not the scenario
    assert default_title(state).endswith(title)
    for change in ({"d_k": 2}, {"scale": not state.scale}, {"temperature": 2.0}):
        state.update(**document_preset_values("lesson-sqrt-dk")["attention"])
        state.update(**change)
        assert title not in default_title(state), change


def test_csv_keeps_the_decimal_point_in_portuguese(state, resolver, tmp_path):
    from attnviz.ui.widgets import numbers

    numbers.set_decimal_separator(",")
    try:
        path = write_csv(state, resolver.results, tmp_path / "a.csv", "weights")
        rows = list(csv.reader(path.open(encoding="utf-8")))
        assert float(rows[2][3]) == resolver.results.attention.weights[1, 2]
        assert "," not in rows[2][3]
    finally:
        numbers.set_decimal_separator(".")


def test_cli_an_unwritable_out_says_why(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "attnviz", "export", "--out", str(tmp_path / "no" / "x.png")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"attnviz export: cannot write {tmp_path / 'no' / 'x.png'}: "
        f"the folder {tmp_path / 'no'} does not exist"
    ]
