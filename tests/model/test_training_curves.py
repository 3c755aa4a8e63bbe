"""The training curves of a model's folder: the shipped builtin:induction's, what the
panel's arrays say, and every file that is not such a table refused in one line."""

from __future__ import annotations

import csv
import math
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.core.builtin_models import builtin_folder
from attnviz.core.induction import CSV_COLUMNS, parse_curves
from attnviz.model.training_curves import (
    CurvesMissingError,
    curves_array,
    milestones_array,
    model_curves,
)

SHIPPED = os.path.join(builtin_folder("induction"), "training.csv")


def _rows():
    with open(SHIPPED, encoding="utf-8") as f:
        return list(csv.reader(f))


def test_the_shipped_curves_are_the_file():
    rows = _rows()
    curves = model_curves("model", "builtin:induction")
    assert tuple(rows[0]) == CSV_COLUMNS and len(curves) == len(rows) - 1
    data = curves_array(curves)
    assert data.rows == tuple(r[0] for r in rows[1:])
    np.testing.assert_array_equal(
        data.values, np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    )


def test_the_milestones_are_the_first_row_the_phase_change_and_the_last():
    curves = model_curves("model", "builtin:induction")
    values = milestones_array(curves).values
    rows = [[float(v) for v in r] for r in _rows()[1:]]
    first_past = next(r for r in rows if r[3] > 0.5)  # induction, the 4th column
    np.testing.assert_array_equal(values, np.array([rows[0], first_past, rows[-1]]))
    # The phase change comes after a plateau: the loss fell less than 0.3 before it.
    plateau = [r[1] for r in rows if r[0] < first_past[0] - 75]
    assert max(plateau) - min(plateau) < 0.3 and first_past[1] < plateau[-1] - 1.0
    # A run whose score never passes 0.5: the phase row is NaN.
    never = parse_curves("step,loss,previous_token,induction,copy_accuracy\n5,4.6,0.1,0.2,0.0\n")
    assert np.isnan(milestones_array(never).values[1]).all()


def test_without_a_trained_model_there_are_no_curves(tmp_path):
    with pytest.raises(CurvesMissingError, match="open a model attnviz trained"):
        model_curves("content", "")
    with pytest.raises(CurvesMissingError, match="has no training.csv"):
        model_curves("model", str(tmp_path))
    with pytest.raises(CurvesMissingError, match="no such shipped model"):
        model_curves("model", "builtin:nothing")
    (tmp_path / "training.csv").mkdir()
    with pytest.raises(CurvesMissingError) as info:
        model_curves("model", str(tmp_path))
    assert "\n" not in str(info.value)
    os.rmdir(tmp_path / "training.csv")
    os.mkfifo(tmp_path / "training.csv")  # never opened: refused by its kind
    with pytest.raises(CurvesMissingError):
        model_curves("model", str(tmp_path))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "header"),
        ("step,loss\n1,2\n", "header"),
        ("step,loss,previous_token,induction,copy_accuracy\n", "no row"),
        ("step,loss,previous_token,induction,copy_accuracy\n1,2,0.1\n", "3 values"),
        ("step,loss,previous_token,induction,copy_accuracy\n1,nan,0.1,0.1,0.1\n", "finite"),
        ("step,loss,previous_token,induction,copy_accuracy\n1,1e400,0.1,0.1,0.1\n", "finite"),
        ("step,loss,previous_token,induction,copy_accuracy\n1,2,0.1,1.5,0.1\n", "outside"),
        ("step,loss,previous_token,induction,copy_accuracy\n2,2,0,0,0\n2,2,0,0,0\n", "rise"),
        ("step,loss,previous_token,induction,copy_accuracy\nx,2,0,0,0\n", "not a number"),
    ],
)
def test_a_file_that_is_not_curves_says_why(text, why):
    with pytest.raises(ValueError, match=why):
        parse_curves(text)


@given(st.text(max_size=300))
def test_any_text_gives_curves_or_a_one_line_refusal(text):
    header = ",".join(CSV_COLUMNS) + "\n"
    for candidate in (text, header + text):
        try:
            curves = parse_curves(candidate)
        except ValueError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 200
        else:
            assert all(math.isfinite(c.loss) and 0 <= c.induction <= 1 for c in curves)
            assert [c.step for c in curves] == sorted({c.step for c in curves})
