"""A slide's figure lines: the quoted numbers no panel draws, read live from the workspace."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from attnviz.model.lessons import lesson_by_id
from attnviz.model.quotes import quote_value
from attnviz.model.workspace import Workspace
from attnviz.ui import language
from attnviz.ui.panels import panel_ids
from attnviz.ui.slides import drawn_texts, staged_step
from attnviz.ui.stage_figures import figure_quotes


def _figures(stage, pid: str) -> str:
    return stage.slots[pid].figures.text().replace("\u00a0", " ")


def test_a_step_says_under_its_heatmap_the_numbers_its_cells_do_not_print(qtbot):
    lesson = lesson_by_id("matrix", panel_ids())
    workspace = Workspace()
    with staged_step(workspace, lesson, 0, 1280, 720) as stage:
        line = _figures(stage, "heatmap")
        # Read from the workspace, in the caption's form: 28 × 28 cells print no numbers.
        entropy = quote_value(workspace, lesson.steps[0].quotes[3].source)
        assert f"mean entropy, nats: {entropy:.2f}" in line and "1.88" in line
        assert "second “the” on each “the”: 0.14" in line and "tokens: 28" in line
        assert {"0.14", "1.88", "28"} <= {
            t for text in drawn_texts(stage.slots["heatmap"]) for t in text.split()
        }
        # The lecturer drags d_k up without the divisor: the line follows, the quote's
        # number goes, and no "≈" pretends the caption still holds.
        workspace.document.set_field("attention.scale", False)
        workspace.document.set_field("attention.d_k", 256)
        QApplication.processEvents()
        after = _figures(stage, "heatmap")
        now = quote_value(workspace, lesson.steps[0].quotes[3].source)
        assert f"mean entropy, nats: {now:.2f}" in after and "1.88" not in after
        assert "≈" not in after


def test_figures_go_under_the_panel_they_come_from_and_only_labelled_ones(qtbot):
    step = lesson_by_id("sqrt-dk", panel_ids()).steps[1]  # gradient and heatmap
    by_panel = figure_quotes(step)
    assert [q.text["en"] for q in by_panel["gradient"]] == ["0.018"]
    assert [q.text["en"] for q in by_panel["heatmap"]] == ["98"]  # the steps' A: not shown
    assert all(q.label is not None for qs in by_panel.values() for q in qs)
    worked = lesson_by_id("hand-worked", panel_ids()).steps[5]
    # A's cells print their numbers; only the outputs O, which the map does not, are said.
    said = [q.text["en"] for q in figure_quotes(worked)["heatmap"]]
    assert said == ["0.78", "0.22", "0.86"] and len(worked.quotes) == 8


def test_a_fit_close_to_the_documents_figure_says_both(qtbot):
    lesson = lesson_by_id("reach", panel_ids())
    with staged_step(Workspace(), lesson, 0, 1280, 720) as stage:
        line = _figures(stage, "reach")
    # The chapter's 0.885 and 0.95 are quoted within ±0.005: the fit says its own digits.
    assert "RNN factor per step: " in line
    assert "≈ 0.885" in line or "step: 0.885" in line


@pytest.fixture
def portuguese():
    app = QApplication.instance()
    language.install_translations(app, "pt_BR")
    yield
    language.install_translations(app, "en")


def test_the_figures_speak_portuguese_with_decimal_commas(qtbot, portuguese):
    lesson = lesson_by_id("matrix", panel_ids())
    with staged_step(Workspace(), lesson, 0, 1280, 720) as stage:
        line = _figures(stage, "heatmap")
    assert "entropia média, nats: 1,88" in line and "0,14" in line and "1.88" not in line
