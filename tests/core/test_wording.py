"""Numbers meeting words: the singular for exactly one, a unit said once."""

import pytest

from attnviz.core.wording import byte_count, counted, english_plural


@pytest.mark.parametrize(
    ("n", "text", "said"),
    [
        (1, "%n KV head(s)", "%n KV head"),
        (2, "%n KV head(s)", "%n KV heads"),
        (0, "%n KV head(s)", "%n KV heads"),
        (1, "%n entr(y|ies)", "%n entry"),
        (4, "%n entr(y|ies)", "%n entries"),
        (1, "%n box(es) of %1 layer(s)", "%n box of %1 layer"),
        (1.5, "%n byte(s)", "%n bytes"),
    ],
)
def test_english_plural_marks(n, text, said):
    assert english_plural(text, n) == said


def test_counted_groups_and_agrees():
    assert counted(1, "layer") == "1 layer"
    assert counted(131072, "token") == "131,072 tokens"
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(262144, "entry", "entries") == "262,144 entries"
    assert byte_count(1) == "1 byte"
    assert byte_count(256) == "256 bytes"
    assert byte_count(17179869184) == "17,179,869,184 bytes"
