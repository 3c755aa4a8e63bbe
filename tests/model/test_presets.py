"""Presets load from resources, and bad ids are refused."""

import numpy as np
import pytest

from attnviz.model.presets import load_preset, preset_ids, tokenize


def test_required_presets_exist():
    for pid in (
        "banco",
        "lesson-sqrt-dk",
        "blog-2d",
        "backward-reference",
        "gato",
        "long-sentence",
        "heads",
        "heads-2d",
        "qwen-heads",
        "previous-token-head",
        "content-head",
    ):
        assert pid in preset_ids()


@pytest.mark.parametrize("pid", preset_ids())
def test_every_preset_loads_consistently(pid):
    p = load_preset(pid)
    n = len(p.tokens)
    assert p.q.shape[0] == p.k.shape[0] == p.v.shape[0] == n
    assert p.q.shape[1] == p.k.shape[1]
    assert 0 <= p.selected_query < n
    assert np.all(np.isfinite(p.q)) and np.all(np.isfinite(p.v))
    assert p.title and p.source


def test_unknown_preset_lists_known_ids():
    with pytest.raises(ValueError, match="banco"):
        load_preset("nope")


def test_unknown_experiment():
    with pytest.raises(ValueError, match="praca-money"):
        load_preset("banco").with_experiment("x")


def test_tokenize_keeps_words_splits_punctuation():
    assert tokenize("o gato, subiu no telhado.") == [
        "o",
        "gato",
        ",",
        "subiu",
        "no",
        "telhado",
        ".",
    ]
    assert tokenize("praça") == ["praça"]


def test_long_sentence_is_long():
    assert len(load_preset("long-sentence").tokens) >= 20
