"""Write a panel's data array as CSV (with its labels) or NPY — no Qt.

Numbers go to CSV with ``repr``, which reads back to the identical float; a 3-D array
(the heads panel's weights) is written only as NPY, unless its rows name each pair of its
first two axes (the layers panel's head types: a row per layer and head). Text labels are
written as they are, so every token a topic accepts (no lone surrogates) can be saved.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.safe_io import FileRefused, atomic_write_text, shown_path


class DataFileError(ValueError):
    """A data file could not be written; the message says why."""


def csv_text(data: DataArray, *, corner: str = "") -> str:
    """The CSV text of ``data``: a header of column labels, one labelled row per row."""
    values = np.asarray(data.values)
    if (
        values.ndim == 3
        and data.rows is not None
        and len(data.rows) == len(values) * values.shape[1]
    ):
        # One labelled row per pair of the first two axes (a layer's head): the CSV reads
        # as the NPY's (a, b, c) array with its first two axes side by side.
        values = values.reshape(-1, values.shape[2])
    if values.ndim > 2:
        raise DataFileError(
            f"a {values.ndim}-D array ({values.shape}) has no CSV form; write it as .npy"
        )
    if values.ndim == 1:
        values = values[:, None]
    rows = data.rows or tuple(str(i) for i in range(values.shape[0]))
    cols = data.columns or tuple(str(j) for j in range(values.shape[1]))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([corner, *cols])
    for label, row in zip(rows, values, strict=True):
        writer.writerow([label, *(repr(float(x)) for x in row)])
    return out.getvalue()


def write_data(data: DataArray, path, *, corner: str = "") -> Path:
    """Write ``data`` to ``path`` as CSV or NPY, by the extension."""
    path = Path(path)
    ext = path.suffix.lower()
    try:
        if ext == ".csv":
            return atomic_write_text(path, csv_text(data, corner=corner))
        if ext == ".npy":
            with path.open("wb") as fh:
                np.save(fh, np.asarray(data.values))
            return path
    except FileRefused as exc:
        raise DataFileError(str(exc)) from None
    except OSError as exc:
        why = exc.strerror or exc
        raise DataFileError(f"could not write {shown_path(path.name)}: {why}") from None
    raise DataFileError(f"cannot write {shown_path(path.name)!r} as data: use .csv or .npy")
