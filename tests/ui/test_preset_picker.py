"""The toolbar's preset picker: every preset, grouped, in a reading order; never blank."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from attnviz.model.topic_presets import all_preset_ids, load_topic_preset
from attnviz.ui.preset_picker import SENTENCE_ORDER, titles
from attnviz.ui.window_export import _settle

README_ROPE = ("rope-clock", "rope-llama3.1", "rope-yarn-qwen2.5", "alibi-vs-rope")


@pytest.fixture(scope="module")
def shared(make_module_window):
    return make_module_window()


@pytest.fixture
def window(shared):
    shared.apply_preset("banco")
    shared.undo.stack.clear()
    return shared


def test_every_preset_is_listed_once_sentences_first_then_rope(window):
    ids = [pid for pid, _title in titles(window.preset_picker)]
    assert sorted(ids) == sorted(all_preset_ids())
    assert len(ids) == len(set(ids))
    assert all(pid in ids for pid in README_ROPE)
    assert ids[: len(SENTENCE_ORDER)] == list(SENTENCE_ORDER)  # the hand-worked example first
    assert ids[len(SENTENCE_ORDER) :] == list(README_ROPE)


def test_group_headings_cannot_be_picked(window):
    picker = window.preset_picker
    model = picker.model()
    headings = [
        model.item(i).text()
        for i in range(1, picker.count())
        if not model.item(i).flags() & Qt.ItemFlag.ItemIsSelectable
    ]
    assert headings == ["Sentences", "RoPE settings of real models"]
    # Choosing a heading (as the keyboard could) changes nothing and shows the preset again.
    picker.setCurrentIndex(picker.findText("Sentences"))
    picker.activated.emit(picker.currentIndex())
    assert picker.currentData() == "banco" and window.state.preset_id == "banco"


def test_a_rope_preset_sets_the_positions_and_brings_them_forward(window):
    picker = window.preset_picker
    picker.setCurrentIndex(picker.findData("rope-llama3.1"))
    picker.activated.emit(picker.currentIndex())
    _settle(0.1)
    positions = window.document["positions"]
    expected = load_topic_preset("positions", "rope-llama3.1").fields
    assert (positions.base, positions.rope_type, positions.factor) == (
        expected["base"],
        expected["rope_type"],
        expected["factor"],
    )
    assert (
        window.docks["positions"].isVisible()
        and not window.docks["positions"].visibleRegion().isEmpty()
    )
    assert picker.currentData() == "rope-llama3.1"
    assert picker.currentText() == "Llama 3.1: base 500,000, Llama 3 scaling ×8 from 8,192 tokens"
    # The sentence is still the hand-worked example; picking a sentence shows it again.
    assert window.state.preset_id == "banco"
    picker.setCurrentIndex(picker.findData("gato"))
    picker.activated.emit(picker.currentIndex())
    assert picker.currentData() == "gato" and window.state.preset_id == "gato"


def test_an_edited_sentence_leaves_a_dash_not_a_blank(window):
    window.apply_preset("rope-clock")
    assert window.preset_picker.currentData() == "rope-clock"
    window.state.update(preset_id="")  # the sentence edited after the RoPE preset
    picker = window.preset_picker
    assert picker.currentIndex() == 0 and picker.currentText() == "—"
    assert picker.view().isRowHidden(0)  # not offered in the list
