"""The first window as a lecturer opens it, read by the text check: every preset at
1280×720, 1366×768 and 1920×1080 with Large Fonts, in English and Portuguese; then each
panel brought forward in turn at 1280×720, and the KV-cache chart focused.

One window per size and language (building it is the slow part); the presets are applied
to it one after the other, as the toolbar's picker does.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication, QTabBar

from attnviz.model.topic_presets import all_preset_ids
from attnviz.model.workspace import Workspace
from attnviz.ui import language
from attnviz.ui.text_overlap import check_texts, report
from attnviz.ui.window_export import _settle, open_window, settle_painted
from attnviz.ui.window_layout import COMPACT_LEFT

SIZES = ((1280, 720), (1366, 768), (1920, 1080))
LANGS = ("en", "pt_BR")


@pytest.fixture
def hall_window(qapp, tmp_path):
    """``make(width, height, lang)``: the window as it opens there with Large Fonts."""
    made = []

    def make(width: int, height: int, lang: str):
        language.install_translations(qapp, lang)
        w = open_window(Workspace(), width, height, large_fonts=True, folder=str(tmp_path))
        made.append(w)
        return w

    yield make
    for w in made:
        w.themes.set_large_fonts(False)
        w.close()
        w.deleteLater()
    language.install_translations(qapp, "en")
    QApplication.processEvents()


def _problems(w, root=None) -> list:
    """The text check's findings on what the window shows, less what is meant to scroll:
    the dock tab bars (a group of many tabs scrolls them; the tab half behind the scroll
    buttons is the bar's own), the steps' table when the sentence has more keys than the
    widest left column shows (a long sentence), the editor's table likewise, and the lesson
    list past its LIST_ROWS lessons."""
    scrolls = {"lesson_list"}
    for pid, name in (("steps", "steps_table"), ("steps", "mix_table"), ("editor", "vectors")):
        panel = w.panels.get(pid) if dict.__contains__(w.panels, pid) else None
        if panel is not None and panel.needed_width() > COMPACT_LEFT[1] * w.width():
            scrolls.add(name)
    bars = [QRectF(b.geometry()) for b in w.findChildren(QTabBar) if b.parent() is w]
    return [
        f
        for f in check_texts(root or w, scrolls=scrolls)
        if not (
            f.kind == "cut"
            and f.items[0].where.endswith("QTabBar tab")
            and any(bar.intersects(f.items[0].box) for bar in bars)
        )
    ]


def _show(w, preset: str) -> None:
    w.apply_preset(preset)
    _settle(0.15)
    settle_painted(w)


def _presets(size) -> list[str]:
    """Every preset, the RoPE ones included: they bring the positions panel forward, whose
    relative-position chart had no height left at 1280×720 until its settings learnt to
    start hidden in a short dock."""
    return list(all_preset_ids())


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_preset_opens_whole_with_large_fonts(hall_window, size, lang):
    w = hall_window(*size, lang)
    failures = []
    for preset in _presets(size):
        _show(w, preset)
        problems = _problems(w)
        if problems:
            failures.append(f"{preset} at {size[0]}×{size[1]} {lang}:\n{report(problems)}")
    assert not failures, "\n".join(failures)


#: The panels that show whole in their tab at 1280×720 with Large Fonts. Still short of
#: room there: the controls (a long form that scrolls), the gradient's seven matrices, the
#: memory panel's lower half (whole when focused, below) and the editor's table (it
#: scrolls beside the arrows).
WHOLE_IN_A_TAB = (
    "heatmap",
    "steps",
    "layers",
    "entropy",
    "spread",
    "heads",
    "overview",
    "positions",
    "reach",
    "embedding",
    "tiles",
    "lessons",
    "prediction",
    "mixers",
    "attribution",
    "training",
)


@pytest.mark.parametrize("lang", LANGS)
def test_each_panel_brought_forward_shows_whole_at_1280x720(hall_window, lang):
    w = hall_window(1280, 720, lang)
    failures = []
    for preset in ("banco", "gato", "cachorro", "lesson-sqrt-dk"):
        w.apply_preset(preset)
        for pid in WHOLE_IN_A_TAB:
            w.docks[pid].raise_()
            _settle(0.1)
            settle_painted(w)
            problems = _problems(w)
            if problems:
                failures.append(f"{pid} ({preset}, {lang}):\n{report(problems)}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("lang", LANGS)
def test_the_kv_cache_chart_focused_has_no_text_over_another_or_cut(hall_window, lang):
    w = hall_window(1280, 720, lang)
    w.docks["memory"].raise_()
    _settle(0.2)
    w.set_focus_mode(True)
    _settle(0.2)
    settle_painted(w)
    assert check_texts(w.docks["memory"]) == [], report(check_texts(w.docks["memory"]))
    fig = w.panels["memory"].figure
    assert fig.score_text.isVisible() and fig.tile_text.isVisible()
    # Docked beside the steps: nothing over anything, whatever scrolls.
    w.set_focus_mode(False)
    _settle(0.2)
    settle_painted(w)
    docked = check_texts(w.docks["memory"], kinds=("overlap", "curve"))
    assert docked == [], report(docked)


def test_a_short_dock_hides_the_rope_settings_until_asked(hall_window):
    w = hall_window(1280, 720, "en")
    _show(w, "rope-yarn-qwen2.5")
    panel = w.panels["positions"]
    assert not panel.settings_toggle.isChecked() and panel.settings_fields.isHidden()
    assert panel.preset.isVisible()  # the preset sets them all, and stays
    plot = panel.relative_plot
    assert plot.height() > 8 * plot.fontMetrics().height()  # a chart, not a strip
    panel.settings_toggle.click()  # the lecturer opens them: they stay open
    _show(w, "rope-llama3.1")
    assert panel.settings_toggle.isChecked() and panel.settings_fields.isVisibleTo(panel)
    assert panel.base.isVisibleTo(panel)


def test_a_tall_dock_shows_the_rope_settings(hall_window):
    w = hall_window(1920, 1080, "en")
    _show(w, "rope-yarn-qwen2.5")
    panel = w.panels["positions"]
    assert panel.settings_toggle.isChecked() and panel.base.isVisibleTo(panel)


def test_docked_the_mixers_and_prediction_parts_are_pages_and_focused_one_figure(hall_window):
    """In a tab at 1280×720 the parts of the mixers and prediction panels are pages (and
    the prediction's interventions a closed section); focused, they stand together again;
    a random walk over the pages, the focus and the section keeps every part reachable
    and the user's choice of the section."""
    import random

    w = hall_window(1280, 720, "en")
    mixers, pred = w.panels["mixers"], w.panels["prediction"]
    w.docks["mixers"].raise_()
    _settle(0.1)
    assert mixers.parts.isVisibleTo(mixers) and not mixers.wide.isVisibleTo(mixers)
    pages = [mixers.parts.widget(i) for i in range(3)]
    assert mixers.matrix.parentWidget() is pages[0] and mixers.table.parentWidget() is pages[1]
    assert mixers.recall_page.parentWidget() is pages[2]
    w.set_focus_mode(True)
    _settle(0.1)
    assert mixers.wide.isVisibleTo(mixers) and not mixers.parts.isVisibleTo(mixers)
    assert mixers.table.isVisibleTo(mixers) and mixers.recall.isVisibleTo(mixers)
    w.set_focus_mode(False)
    w.docks["prediction"].raise_()
    _settle(0.1)
    assert pred.picture_pages.isVisibleTo(pred) and not pred.interventions.isVisibleTo(pred)
    assert pred.interventions_toggle.isVisibleTo(pred)
    rng = random.Random("pages")
    opened = False
    for _ in range(30):
        step = rng.choice(("page", "focus", "toggle", "mixers_page"))
        if step == "page":
            pred.picture_pages.setCurrentIndex(rng.randrange(3))
        elif step == "mixers_page":
            mixers.parts.setCurrentIndex(rng.randrange(3))
        elif step == "toggle":
            pred.interventions_toggle.click()
            opened = pred.interventions_toggle.isChecked()
        else:
            w.set_focus_mode(not w.focused_panel)
        _settle(0.02)
        focused = w.focused_panel
        assert pred.picture_pages.isVisibleTo(pred) != focused
        shown = [pred.figure, pred.map_box, pred.head_logits]
        if focused:  # all three in one column
            assert all(part.isVisibleTo(pred) for part in shown)
        else:  # the one page in front
            assert [p.isVisibleTo(pred) for p in shown].count(True) == 1
        assert pred.interventions.isVisibleTo(pred) == pred.interventions_toggle.isChecked()
    w.set_focus_mode(False)
    _settle(0.05)
    if pred._interventions_chosen:
        # The user chose: the dock no longer decides.
        assert pred.interventions.isVisibleTo(pred) == opened
