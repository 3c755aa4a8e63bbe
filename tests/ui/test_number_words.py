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
