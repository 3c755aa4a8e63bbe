"""The training curves of the real model open: its folder's ``training.csv``.

``attnviz train induction`` and the Train window write, beside a model they trained, its
curves (:func:`attnviz.core.induction.save_folder`); the shipped ``builtin:induction``
carries the seed-0 run's. The training panel draws them and exports them as ``curves``.
Every way of not having them (no real model, a folder without the file, a file that is not
such a table) is a one-line :class:`CurvesMissingError`.
"""

from __future__ import annotations

import os

import numpy as np

from attnviz.core.builtin_models import resolve_model_path
from attnviz.core.hf_errors import ModelError
from attnviz.core.induction import CSV_COLUMNS, Curve, parse_curves, phase_change_step
from attnviz.model.data_array import DataArray
from attnviz.model.safe_io import FileRefused, read_text_limited

#: The file a trained model's folder keeps its curves in.
CURVES_FILE = "training.csv"
#: The largest ``training.csv`` read (a million rows of five numbers is about 40 MB).
MAX_BYTES = 64 * 1024 * 1024


class CurvesMissingError(ValueError):
    """The open model has no training curves to draw (why, in one line)."""


def model_curves(head: str, model_path: str) -> list[Curve]:
    """The curves of the attention topic's model (``head`` = ``model``), or CurvesMissingError."""
    if head != "model" or not model_path:
        raise CurvesMissingError(
            "open a model attnviz trained (File → Train Induction Heads…, or builtin:induction)"
        )
    try:
        folder = os.fspath(resolve_model_path(model_path))
    except ModelError as exc:
        raise CurvesMissingError(str(exc)) from None
    path = os.path.join(folder, CURVES_FILE)
    if not os.path.lexists(path):
        raise CurvesMissingError(
            f"this model's folder has no {CURVES_FILE}: only a model attnviz trained keeps "
            "its curves"
        )
    try:
        return parse_curves(read_text_limited(path, MAX_BYTES, f"a {CURVES_FILE}"))
    except FileRefused as exc:
        raise CurvesMissingError(str(exc)) from None
    except ValueError as exc:
        raise CurvesMissingError(f"{CURVES_FILE} cannot be read: {exc}") from None


def curves_array(curves: list[Curve]) -> DataArray:
    """``curves`` as the ``curves`` array: a row per measured step, its columns the loss,
    the best previous-token and induction scores and copy accuracy."""
    values = np.array([[getattr(c, name) for name in CSV_COLUMNS[1:]] for c in curves], float)
    return DataArray(values, tuple(str(c.step) for c in curves), CSV_COLUMNS[1:], corner="step")


#: The induction score whose first crossing marks the phase change.
PHASE_THRESHOLD = 0.5
#: The rows of ``milestones``: the first measured step, the phase change, the last step.
MILESTONES = ("start", "phase", "end")


def milestones_array(curves: list[Curve], threshold: float = PHASE_THRESHOLD) -> DataArray:
    """The ``milestones`` array: the first measured row, the row where the induction
    score first passes ``threshold`` (:func:`~attnviz.core.induction.phase_change_step`;
    NaN when it never does) and the last, each with its step and :data:`CSV_COLUMNS`."""
    step = phase_change_step(curves, threshold)
    phase = next((c for c in curves if c.step == step), None)
    rows = []
    for c in (curves[0], phase, curves[-1]):
        rows.append(
            [np.nan] * len(CSV_COLUMNS) if c is None else [getattr(c, n) for n in CSV_COLUMNS]
        )
    return DataArray(np.array(rows, float), MILESTONES, CSV_COLUMNS, corner="milestone")


def training_data(workspace, name: str) -> DataArray:
    """The training panel's array ``name``: ``curves`` (steps × loss, previous_token,
    induction, copy_accuracy) of the open model's ``training.csv``, or ``milestones``
    (start, phase, end × step and those columns: the phase change is where the
    induction score first passes 0.5)."""
    readers = {"curves": curves_array, "milestones": milestones_array}
    state = workspace.state
    return readers[name](model_curves(state.head, state.model_path))
