"""The slide check: it reads what a step's panels drew, and it fails when it should.

The whole-deck test runs ``attnviz lessons --check`` as CI and a lecturer do: every step
of every lesson at 1280×720 and 1920×1080, Large Fonts, in English and in Portuguese, and
fails on any finding.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from attnviz.model.lessons import lesson_by_id
from attnviz.model.workspace import Workspace
from attnviz.ui.panels import panel_ids
from attnviz.ui.slides import check_step, drawn_texts, quote_drawn, staged_step
from attnviz.ui.stage import STAGE_LARGE_FONTS

SIZES = tuple((w, h, lang) for w, h in ((1280, 720), (1920, 1080)) for lang in ("en", "pt_BR"))


def test_a_quote_must_stand_as_a_number_of_its_own():
    assert quote_drawn("0.9817", ["0.9817"])
    assert quote_drawn("0.9817", ["v1 = 0.9817."])
    assert not quote_drawn("0.9817", ["0.98170"]) and not quote_drawn("0.9817", ["10.9817"])
    assert not quote_drawn("0.98", ["0.9817"])
    assert quote_drawn("0,85", ["[0,85; 0,15]"])
    assert quote_drawn("128 KiB", ["128\u00a0KiB (131,07 kB)"])
    assert quote_drawn("-0.5", ["\u22120.5"])
    assert not quote_drawn("68,719,476,736", ["68,719,476"])


def test_the_heatmap_draws_its_cell_values_on_a_slide(qtbot):
    lesson = lesson_by_id("backward", panel_ids())
    with staged_step(Workspace(), lesson, 0, 1280, 720, font_scale=STAGE_LARGE_FONTS) as stage:
        texts = drawn_texts(stage.panels["heatmap"])
    for row in ("0.226 0.475 0.298", "0.144 0.598 0.259", "0.668 0.235 0.097"):
        assert set(row.split()) <= set(texts), texts  # the chapter's A, drawn


def test_the_check_passes_a_good_step_and_fails_it_when_the_numbers_change(qtbot):
    lesson = lesson_by_id("hand-worked", panel_ids())
    ok = check_step(Workspace(), lesson, 2, 1280, 720, lang="en")
    assert ok == []
    # Three decimals: 0.707, 2.121, 2.828 are drawn, not the caption's 0.71, 2.12, 2.83.
    wrong = check_step(
        Workspace(), lesson, 2, 1280, 720, lang="en", overrides={"display.decimals": 3}
    )
    assert {"quoted '0.71' is not drawn", "quoted '2.83' is not drawn"} <= set(wrong)


def test_decimals_forced_below_the_captions_fail_the_check(qtbot):
    lesson = lesson_by_id("sqrt-dk", panel_ids())
    base = set(check_step(Workspace(), lesson, 2, 1280, 720, lang="en"))
    forced = set(
        check_step(Workspace(), lesson, 2, 1280, 720, lang="en", overrides={"display.decimals": 2})
    )
    assert "quoted '0.419' is not drawn" not in base
    assert {"quoted '0.419' is not drawn", "quoted '0.326' is not drawn"} <= forced - base


def test_the_editing_widgets_leave_the_slide(qtbot):
    from PySide6.QtWidgets import QComboBox

    lesson = lesson_by_id("backward", panel_ids())
    with staged_step(Workspace(), lesson, 0, 1280, 720) as stage:
        gradient = stage.panels["gradient"]
        boxes = gradient.findChildren(QComboBox)
        assert boxes and not any(b.isVisibleTo(gradient) for b in boxes)
        gradient.source.show()  # a panel showing one again after an edit
        assert not gradient.source.isVisibleTo(gradient)
    with staged_step(Workspace(), lesson_by_id("masks", panel_ids()), 0, 1280, 720) as stage:
        controls = stage.panels["controls"]  # an editing panel keeps its widgets
        assert controls.masks.isVisibleTo(controls) and controls.masks.causal.isVisibleTo(controls)
        # …of the group the lesson is about: the masks, not the scores or the colours.
        assert not controls.scores_box.isVisibleTo(controls)
        assert not controls.view_box.isVisibleTo(controls)


def findings() -> list[str]:
    """The check's findings over every lesson, as ``attnviz lessons --check`` gives them
    (each size in a process of its own, as CI and a lecturer run it; the four at once, since
    each is one core's work)."""
    runs = {
        size: subprocess.Popen(
            [
                sys.executable,
                "-m",
                "attnviz",
                "lessons",
                "--check",
                "--json",
                "--large-fonts",
                "--width",
                str(size[0]),
                "--height",
                str(size[1]),
                "--lang",
                size[2],
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for size in SIZES
    }
    out = []
    for (width, height, lang), run in runs.items():
        stdout, stderr = run.communicate(timeout=600)
        assert run.returncode in (0, 1) and "Traceback" not in stderr, stderr
        for line in stdout.splitlines():
            record = json.loads(line)
            for problem in record["problems"]:
                out.append(
                    f"{width}x{height} {lang} {record['lesson']} {record['step']}: {problem}"
                )
    return out


@pytest.mark.slow
def test_every_slide_draws_what_it_quotes_and_nothing_is_cut():
    found = findings()
    assert not found, "slide problems:\n" + "\n".join(found)


def test_a_small_matrix_without_its_numbers_fails_the_check(qtbot):
    lesson = lesson_by_id("positions", panel_ids())
    ok = check_step(Workspace(), lesson, 0, 1024, 720, lang="en", font_scale=STAGE_LARGE_FONTS)
    assert ok == []
    # Six decimals asked for on a 4:3-ish screen: eight columns of "−1.599000" beside the
    # editor cannot hold them even in the smallest type, so the 3 × 8 map prints none.
    forced = check_step(
        Workspace(),
        lesson,
        0,
        1024,
        720,
        lang="en",
        font_scale=STAGE_LARGE_FONTS,
        overrides={"display.decimals": 6},
    )
    assert "heatmap: a 3×8 matrix without its numbers" in forced


def test_a_quoted_number_no_panel_draws_fails_the_check(qtbot):
    import copy

    from attnviz.model.lessons import lesson_from_dict

    lesson = lesson_by_id("matrix", panel_ids())
    assert check_step(Workspace(), lesson, 0, 1280, 720, lang="en") == []
    # The same step without the figure line's label for 0.14: one cell of a 28 × 28 map,
    # which prints no numbers, so nothing on the slide says it.
    with open(lesson.path, encoding="utf-8") as f:
        data = json.load(f)
    bare = copy.deepcopy(data)
    for quote in bare["steps"][0]["quotes"]:
        if quote["text"] == "0.14":
            del quote["label"]
    stripped = lesson_from_dict(bare, "matrix.json", panels=panel_ids())
    problems = check_step(Workspace(), stripped, 0, 1280, 720, lang="en")
    assert problems == ["quoted '0.14' is not drawn"]


def test_overlapping_or_clipped_texts_fail_the_check(qtbot, monkeypatch):
    """The text check reads every drawn text's box on the slide: the axis title pyqtgraph
    would set on RoPE's tick labels, the legend it would cut in the embeddings' plot."""
    import pyqtgraph as pg

    from attnviz.ui.widgets import plot_style
    from attnviz.ui.widgets.axis_room import RoomyAxis

    positions = lesson_by_id("positions", panel_ids())
    embeddings = lesson_by_id("embeddings", panel_ids())
    args = (1280, 720)
    kw = {"lang": "en", "font_scale": STAGE_LARGE_FONTS}
    assert check_step(Workspace(), positions, 6, *args, **kw) == []
    assert check_step(Workspace(), embeddings, 0, *args, **kw) == []
    # pyqtgraph's own room for an axis title: 0.8 of its height, and every tick label.
    monkeypatch.setattr(RoomyAxis, "_title_room", lambda self: 0.0)
    monkeypatch.setattr(RoomyAxis, "generateDrawSpecs", pg.AxisItem.generateDrawSpecs)
    monkeypatch.setattr(RoomyAxis, "_updateHeight", pg.AxisItem._updateHeight)
    found = check_step(Workspace(), positions, 6, *args, **kw)
    assert any(p.startswith("text: overlap: “q_m · k_n”") for p in found), found
    monkeypatch.undo()
    monkeypatch.setattr(plot_style, "fit_legend", lambda *a: True)  # a legend left as is
    found = check_step(Workspace(), embeddings, 0, *args, **kw)
    assert any(p.startswith("text: cut: clipped: “Zipf law") for p in found), found
