"""A quoted number written as the caption writes it, from the value a source gives now."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.model.quotes import figure_panel, figure_text, number_like, parse_number


@pytest.mark.parametrize(
    "text, value, shown",
    [
        ("0.9817", 0.981723, "0.9817"),
        ("0.40", 0.4, "0.40"),
        ("68,719,476,736", 68719476736.0, "68,719,476,736"),
        ("4096", 4096.0, "4096"),
        ("5·10⁻⁴", 4.6e-4, "5·10⁻⁴"),
        ("1.7·10¹⁰", 1.718e10, "1.7·10¹⁰"),
        ("2·10⁻⁹", 2.06e-9, "2·10⁻⁹"),
        ("10⁻¹⁵", 2.2e-17, "2·10⁻¹⁷"),  # an order of magnitude: one significant digit
        ("10⁻¹⁰", 0.97e-10, "10⁻¹⁰"),  # 9.7·10⁻¹¹ rounds up to a bare power
        ("1/3", 1 / 3, "0.333"),
        ("128 KiB", 128.0, "128 KiB"),
        ("-0.5", -0.5, "\u22120.5"),
        ("-0.5", -0.0001, "0.0"),  # no minus on a zero
        ("98", 98.17, "98"),
    ],
)
def test_a_value_takes_the_quotes_form(text, value, shown):
    assert number_like(text, value) == shown


def test_not_a_number_or_not_finite_gives_none():
    assert number_like("about", 1.0) is None
    assert number_like("0.5", math.nan) is None and number_like("0.5", math.inf) is None


@given(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(min_value=0, max_value=5)
)
def test_the_written_value_reads_back_within_half_a_unit(value, decimals):
    text = f"{1.0:.{decimals}f}"
    shown = number_like(text, value).replace("\u2212", "-")
    back, half = parse_number(shown)
    assert abs(back - value) <= half * (1 + 1e-9) + 1e-9


def test_figure_text_says_what_the_value_stands_for_only_when_the_quote_holds():
    texts = {"en": "0.885", "pt_BR": "0,885"}
    assert figure_text(texts, "en", 0.8821, True) == "0.882 ≈ 0.885"
    assert figure_text(texts, "pt_BR", 0.8821, True) == "0,882 ≈ 0,885"
    assert figure_text(texts, "en", 0.8851, True) == "0.885"
    assert figure_text(texts, "en", 0.7, False) == "0.700"  # a changed scene: the value alone
    power = {"en": "10⁻¹⁵", "pt_BR": "10⁻¹⁵"}
    assert figure_text(power, "en", 2.2e-17, True, "below") == "2·10⁻¹⁷ ≤ 10⁻¹⁵"
    assert figure_text(power, "en", 3e-15, False, "below") == "3·10⁻¹⁵"
    assert figure_text({"en": "1,024", "pt_BR": "1.024"}, "pt_BR", 1024.0, True) == "1.024"
    assert figure_text(texts, "en", math.nan, False) == "—"


def test_a_figure_is_said_under_the_panel_its_number_comes_from():
    shown = ("heatmap", "gradient", "memory")
    assert figure_panel({"panel": "gradient", "data": "jacobian"}, shown) == "gradient"
    assert figure_panel({"panel": "steps", "data": "weights"}, shown) == "heatmap"
    assert figure_panel({"resolver": "attention", "path": "x"}, shown) == "heatmap"
    assert figure_panel({"resolver": "memory", "path": "x"}, shown) == "memory"
    assert figure_panel({"field": "attention.d_k"}, ("controls", "memory")) == "controls"
    assert figure_panel({"derived": "finite_difference_error"}, shown) == "gradient"
    parts = {"product": [{"resolver": "memory", "path": "a"}, {"field": "attention.d_k"}]}
    assert figure_panel(parts, shown) == "memory"
    assert figure_panel({"field": "reach.length"}, shown) == "heatmap"  # the first panel
    assert figure_panel({"field": "attention.d_k"}, shown, on="memory") == "memory"
