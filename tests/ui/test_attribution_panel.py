"""The attribution panel: the drawn split is the export's (and sums to the scores), the dial
turns the head's pairs, the map draws the projection, hover texts carry exact values, no
text overlaps at 1280×720, and a soak in the window."""

from __future__ import annotations

import random

import numpy as np
import pytest

from attnviz.model.panel_data import panel_data
from attnviz.model.presets import load_preset, preset_state_values
from attnviz.ui.panels.attribution import MAP, MAX_KEYS, AttributionPanel
from attnviz.ui.theme import theme_named
from attnviz.ui.workers import run_in_pool
from tests.ui.soak import Action, Soak, redo, resize, send_mouse_move, switch_theme, undo


@pytest.fixture
def panel(qtbot, workspace):
    p = AttributionPanel(workspace)
    qtbot.addWidget(p)
    p.apply_theme(theme_named("light"))
    p.resize(900, 600)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_the_split_drawn_is_the_export_and_sums_to_the_scores(panel, state, resolver):
    state.update(**preset_state_values(load_preset("previous-token-head")))
    data = panel_data(panel.workspace, "attribution", "terms")
    np.testing.assert_array_equal(panel.matrix.values(), data.values)
    steps = resolver.results.steps
    seen = steps.allowed
    np.testing.assert_allclose(data.values.sum(axis=1)[seen], steps.scaled[seen], atol=1e-10)
    # The dial turns the head's eight pairs, the query's hand at its position and the
    # key's at the key it reads most (its previous token).
    assert panel.dial.isVisibleTo(panel) and not panel.no_rope.isVisibleTo(panel)
    assert panel.dial.frequencies().size == 8
    assert panel.dial.positions() == (7.0, 6.0)
    assert "“estava” reads “ele” most" in panel.summary.text()
    state.update(selected_query=3)
    assert panel.dial.positions() == (3.0, 2.0)
    np.testing.assert_array_equal(
        panel.matrix.values(), panel_data(panel.workspace, "attribution", "terms").values
    )


def test_a_head_without_rope_says_so_instead_of_a_dial(panel, state):
    assert not state.rope
    assert panel.no_rope.isVisibleTo(panel) and not panel.dial.isVisibleTo(panel)
    state.update(rope=True)
    assert panel.dial.isVisibleTo(panel)


def test_the_hover_texts_carry_the_exact_terms(panel, state):
    state.update(**preset_state_values(load_preset("content-head")))
    said = []
    panel.sigHoverText.connect(said.append)
    att = panel.att
    panel._on_cell(1, 6)  # gato, pair 6 (dimensions 12, 13)
    assert said[-1] == (
        f"key “gato”, dimensions (12,13) (period {2 * np.pi / att.inv_freq[6]:.1f} tokens): "
        f"term {att.terms[1, 6]:.4f} of score {att.scores[1]:.4f}"
    )
    assert panel.dial.positions() == (6.0, 1.0)
    panel._on_cell(1, att.terms.shape[1])  # the Σ column
    assert said[-1] == f"key “gato”: score {att.scores[1]:.4f}, the sum of its 8 terms"
    panel._on_cell(-1, -1)
    assert said[-1] == ""


def test_the_map_draws_the_projection_and_names_the_point_under_the_mouse(panel, qtbot):
    panel.tabs.setCurrentIndex(MAP)
    assert panel.figure.currentIndex() == MAP and panel.colour.isVisibleTo(panel)
    data = panel_data(panel.workspace, "attribution", "qk_map").values
    # Drawn last row first (the text shown on top of other sentences' points).
    x, y = panel.map.queries.getData()
    np.testing.assert_array_equal(np.column_stack([x, y])[::-1], data[:3, 2:])
    x, y = panel.map.keys.getData()
    np.testing.assert_array_equal(np.column_stack([x, y])[::-1], data[3:, 2:])
    # banco's query: praça's key reaches furthest along its arrow, with q·k = 4.
    assert "It reaches furthest to “praça”: q·k = 4.000 in the plane, 4.000 in the head" in (
        panel.map_summary.text()
    )
    said = []
    panel.sigHoverText.connect(said.append)
    kx, ky = data[5, 2:]  # praça's key
    vb = panel.map.getPlotItem().vb
    from PySide6.QtCore import QPointF

    panel._on_q_map_mouse(vb.mapViewToScene(QPointF(kx, ky)))
    assert said[-1] == (
        f"key of “praça” (position 2): ({kx:.4f}, {ky:.4f}); q·k with the selected query 4.0000"
    ).replace("-", "−")  # the UI writes a true minus sign
    panel.colour.setCurrentIndex(1)
    assert panel.map.colour_by == "token"


def test_many_keys_draw_the_largest_scores(panel, state):
    n = MAX_KEYS + 10
    state.update(tokens=tuple(f"t{i}" for i in range(n)), head="content", d_k=6)
    att = panel.att
    assert panel.matrix.values().shape == (MAX_KEYS, att.terms.shape[1])
    drawn = set(panel.shown_keys.tolist())
    left_out = [j for j in range(n) if j not in drawn]
    assert att.scores[left_out].max() <= att.scores[panel.shown_keys].min()
    assert f"the {MAX_KEYS} keys of largest score of {n}" in panel.summary.text()


def test_no_text_overlaps_in_the_window_at_1280_by_720(qtbot, make_window):
    from attnviz.ui.text_overlap import check_texts, report

    window = make_window()
    window.docks["attribution"].show()
    window.docks["attribution"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "attribution"))
    panel = window.panels["attribution"]
    window.workspace.state.update(**preset_state_values(load_preset("previous-token-head")))
    for tab in (0, MAP):
        panel.tabs.setCurrentIndex(tab)
        qtbot.wait(5)
        overlaps = [f for f in check_texts(panel) if f.kind == "overlap"]
        assert not overlaps, report(overlaps)


def test_soak_of_the_attribution_panel_in_the_window(qtbot, make_window):
    rng = random.Random("attribution-soak")
    window = make_window()
    window.docks["attribution"].show()
    window.docks["attribution"].raise_()
    qtbot.waitUntil(lambda: dict.__contains__(window.panels, "attribution"))
    panel = window.panels["attribution"]
    state = window.workspace.state

    def head():
        n = rng.choice((1, 2, 3, 9, 30))
        state.update(
            tokens=tuple(rng.choice("abcdef") * rng.randint(1, 3) for _ in range(n)),
            head=rng.choice(("content", "positional", "random")),
            d_k=rng.choice((1, 2, 5, 8, 16)),
        )

    def settings():
        state.update(
            rope=rng.random() < 0.6,
            rope_dims=rng.choice((0, 0, 2, 3, 6)),
            causal=rng.random() < 0.5,
            scale=rng.random() < 0.8,
            selected_query=rng.randrange(state.n),
        )

    def preset():
        pid = rng.choice(("previous-token-head", "content-head", "banco"))
        state.update(**preset_state_values(load_preset(pid)))

    def sentences():
        # A synthetic head draws its own text whatever the sentences; the note says so.
        picked = tuple(rng.choice(("a b", "the cat sat", "x")) for _ in range(rng.randrange(3)))
        panel.sentences.setPlainText("\n".join(picked))
        panel.project.click()

    def rest():
        view = panel.matrix if panel.figure.currentIndex() == 0 else panel.map.viewport()
        send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

    Soak(
        rng,
        [
            Action("head", head, 0.2),
            Action("settings", settings, 0.2),
            Action("preset", preset, 0.1),
            Action("tab", lambda: panel.tabs.setCurrentIndex(rng.randrange(2)), 0.1),
            Action("colour", lambda: panel.colour.setCurrentIndex(rng.randrange(3)), 0.05),
            Action("sentences", sentences, 0.05),
            Action("rest", rest, 0.15),
            undo(window, 0.08),
            redo(window, 0.05),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.04),
            switch_theme(window, rng, 0.03),
        ],
        after=lambda _step: rest(),
        settle=lambda _step: qtbot.wait(2),
    ).run(60)
    # Whatever happened, the split drawn is the current one's, and sums to the scores.
    data = panel_data(window.workspace, "attribution", "terms")
    if data.values.shape[0] <= MAX_KEYS:
        np.testing.assert_array_equal(panel.matrix.values(), data.values)
    steps = window.workspace.resolver.results.steps
    np.testing.assert_allclose(data.values.sum(axis=1), steps.raw * panel.att.scale, atol=1e-9)


# --- the map of many sentences, UMAP, colours ---------------------------------------------
def test_the_colour_choice_is_the_field_and_sentences_colour_by_text(panel, state):
    panel.tabs.setCurrentIndex(MAP)
    panel.colour.setCurrentIndex(2)
    assert state.qk_colour == "sentence"
    state.update(qk_colour="token")
    assert panel.colour.currentData() == "token" and panel.map.colour_by == "token"
    # banco's tokens differ: three colours, each a query's and its key's.
    colours = [b.color().name() for b in panel.map.queries.data["brush"]]
    assert len(set(colours)) == 3


def test_umap_is_offered_disabled_with_how_to_install_it_where_absent(
    qtbot, workspace, monkeypatch
):
    from attnviz.ui.panels import attribution as module

    monkeypatch.setattr(module, "umap_installed", lambda: False)
    p = AttributionPanel(workspace)
    qtbot.addWidget(p)
    item = p.projection.model().item(1)
    assert p.projection.itemData(1) == "umap" and not item.isEnabled()
    assert item.toolTip() == "UMAP is not installed: pip install 'attnviz[umap]'"


def test_a_map_that_cannot_be_drawn_says_why_in_one_line(panel, state, qtbot, monkeypatch):
    from attnviz.model.topics import _attention_qk_fields

    monkeypatch.setattr(_attention_qk_fields, "umap_installed", lambda: True)
    panel.tabs.setCurrentIndex(MAP)
    state.update(qk_projection="umap")  # the hand-worked example: 6 rows
    qtbot.waitUntil(lambda: not panel.map_work.pending, timeout=60_000)
    assert panel.map_summary.text() == (
        "UMAP needs at least 8 queries and keys, got 6; PCA draws a few"
    )
    assert panel.proj is None and panel.map.queries.getData()[0].size == 0
    state.update(qk_projection="pca")
    assert panel.proj is not None and "It reaches furthest to “praça”" in panel.map_summary.text()


def test_the_why_of_the_hand_worked_example(panel):
    panel.tabs.setCurrentIndex(MAP)
    # banco's query (1, 2) and praça's key (0, 2): |q| = √5, |k| = 2, cos = 2/√5.
    assert "Why: q·k = |q| |k| cos = 2.236 × 2.000 × 0.894 (the angle between them 26.6°)." in (
        panel.map_summary.text()
    )


transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    from tests.tiny_models import make_model

    return make_model(tmp_path_factory.mktemp("llama"), "llama", layers=2)


def test_many_sentences_are_drawn_from_a_worker_and_hovered_by_sentence(panel, state, qtbot, llama):
    panel.map_work.runner = run_in_pool  # as in the window (an export runs in place)
    from PySide6.QtCore import QPointF

    from tests.tiny_models import SENTENCE

    panel.tabs.setCurrentIndex(MAP)
    state.update(head="model", model_path=llama, model_text=SENTENCE, layer=1)
    assert panel.sentences_row.isVisibleTo(panel)
    panel.sentences.setPlainText("a dog ran on the bank\n\n  the river of the cat  ")
    panel.project.click()
    assert state.qk_sentences == ("a dog ran on the bank", "the river of the cat")
    # Said before the work starts, the answer drawn when it comes.
    assert panel.map_summary.text().startswith("Running 2 more sentences through the model")
    qtbot.waitUntil(lambda: panel.proj is not None and panel.proj.many, timeout=60_000)
    data = panel_data(panel.workspace, "attribution", "qk_map").values
    n = panel.proj.queries.shape[0]
    x, y = panel.map.queries.getData()
    np.testing.assert_array_equal(np.column_stack([x, y])[::-1], data[:n, 2:4])
    assert panel.map_summary.text().startswith(
        f"The text shown and 2 more sentences: {n} queries and {n} keys."
    )
    state.update(qk_colour="sentence")
    from attnviz.ui.widgets.plot_style import series_color

    drawn = [b.color().name() for b in panel.map.queries.data["brush"]][::-1]
    want = [series_color(panel.map.theme, int(t)).name() for t in data[:n, 4]]
    assert drawn == want
    said = []
    panel.sigHoverText.connect(said.append)
    row = int(np.flatnonzero(data[:n, 4] == 2)[1])  # the second token of sentence 2
    # Hover where no other point lies closer (points of several sentences may coincide).
    vb = panel.map.getPlotItem().vb
    qx, qy = data[row, 2:4]
    found = panel.map.point_at(qx, qy)
    panel._on_q_map_mouse(vb.mapViewToScene(QPointF(qx, qy)))
    kind, at = found
    where = "the text shown" if data[at, 4] == 0 else f"sentence {int(data[at, 4])}"
    assert where in said[-1] and f"position {int(data[at, 1])} of" in said[-1]
    assert panel.proj.tokens[at] in said[-1]


def test_another_query_moves_the_arrow_over_the_same_points(panel, state):
    panel.tabs.setCurrentIndex(MAP)
    drawn = panel.proj
    state.update(selected_query=2)  # praça's query (0, 1): its keys score 0, 1, 2
    assert panel.proj is drawn  # the same inputs: not projected again
    x, y = panel.map.arrow.getData()
    np.testing.assert_allclose([x[1], y[1]], drawn.queries[2], atol=1e-12)
    assert "It reaches furthest to “praça”: q·k = 2.000 in the plane, 2.000 in the head" in (
        panel.map_summary.text()
    )


def test_a_lesson_quoting_the_map_shows_its_tab(panel):
    panel.focus_data(frozenset({"qk_map"}))
    assert panel.tabs.currentIndex() == MAP and panel.map_controls.isVisibleTo(panel)
    panel.focus_data(frozenset({"terms", "qk_map"}))
    assert panel.tabs.currentIndex() == 0


def test_a_long_text_is_projected_on_a_worker_and_says_so_first(panel, state, qtbot):
    panel.map_work.runner = run_in_pool  # as in the window (an export runs in place)
    from attnviz.model.resolve.qk_map import WORKER_ROWS

    panel.tabs.setCurrentIndex(MAP)
    said = []
    write = panel.map_summary.setText
    panel.map_summary.setText = lambda text: (said.append(text), write(text))
    n = WORKER_ROWS // 2 + 50
    state.update(tokens=tuple(f"t{i % 30}" for i in range(n)), head="content", d_k=8)
    qtbot.waitUntil(
        lambda: panel.proj is not None and panel.proj.queries.shape[0] == n, timeout=60_000
    )
    data = panel_data(panel.workspace, "attribution", "qk_map").values
    x, _y = panel.map.queries.getData()
    np.testing.assert_array_equal(x[::-1], data[:n, 2])
    assert panel.map_summary.text().startswith("The plane holds")
    # Said before the work, and not overwritten by the old map's caption while it ran.
    working = [i for i, t in enumerate(said) if t.startswith(f"Projecting {2 * n} queries")]
    assert working and all(not t.startswith("The plane") for t in said[working[0] : -1])


def test_a_hidden_map_is_computed_when_it_is_seen(panel, state):
    panel.tabs.setCurrentIndex(MAP)
    panel.hide()
    state.update(tokens=("a", "b", "c", "d"), head="content", d_k=4)
    assert panel.proj.queries.shape[0] == 3  # hidden: the old map, nothing computed
    panel.show()
    data = panel_data(panel.workspace, "attribution", "qk_map").values
    assert panel.proj.queries.shape[0] == 4
    np.testing.assert_array_equal(panel.map.queries.getData()[0][::-1], data[:4, 2])
