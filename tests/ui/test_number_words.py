"""Counts and units follow the UI's decimal mark (4,096 and 16.06 GB; 4.096 and 16,06 GB)."""

import pytest

from attnviz.ui.widgets import numbers
from attnviz.ui.widgets.units import decimal_bytes, sci, short_tokens, tokens


@pytest.fixture
def comma():
    previous = numbers.decimal_separator()
    numbers.set_decimal_separator(",")
    yield
    numbers.set_decimal_separator(previous)


def test_english_grouping_and_units():
    assert numbers.grouped(68719476736) == "68,719,476,736"
    assert numbers.grouped(1234.5, 1) == "1,234.5"
    assert decimal_bytes(16.06e9) == "16.06 GB"
    assert tokens(131072) == "131,072 (128k)"


def test_portuguese_grouping_and_units(comma):
    assert numbers.grouped(68719476736) == "68.719.476.736"
    assert numbers.grouped(1234.5, 1) == "1.234,5"
    assert decimal_bytes(16.06e9) == "16,06 GB"
    assert tokens(131072) == "131.072 (128k)"
    assert short_tokens(1.5 * 1024) == "1,5k"
    assert sci(0.0234) == "0,0234"
    assert sci(1.4e-14) == "1,4 × 10⁻¹⁴"


def test_counts_in_words_are_singular_for_one_and_grouped(qapp):
    """Qt's plural forms without a translation (English, the source) leave the marks."""
    from PySide6.QtCore import QCoreApplication

    def say(n):
        return numbers.counted(QCoreApplication.translate("Test", "%n KV head(s)", None, n), n)

    assert [say(n) for n in (0, 1, 2)] == ["0 KV heads", "1 KV head", "2 KV heads"]
    text = QCoreApplication.translate("Test", "%n entr(y|ies), d_k 4096", None, 131072)
    assert numbers.counted(text, 131072) == "131,072 entries, d_k 4096"


def test_counts_follow_the_decimal_comma(comma, qapp):
    from PySide6.QtCore import QCoreApplication

    text = QCoreApplication.translate("Test", "%n token(s)", None, 131072)
    assert numbers.counted(text, 131072) == "131.072 tokens"


def test_the_rope_note_says_one_pair_in_the_singular(qapp):
    from attnviz.ui.heatmap_look import rope_note

    assert rope_note(2).endswith("turned by token position, one pair of dimensions")
    assert rope_note(3).startswith("RoPE: Q and K turned by token position, one pair of")
    assert rope_note(64).endswith("turned by token position, 32 pairs of dimensions")
