"""The sample notebook ``examples/attention-by-hand.ipynb`` runs headless, without an error.

It is executed by nbclient in a fresh ``python3`` kernel of this interpreter, with no
``QT_QPA_PLATFORM`` set: ``attnviz.figure()`` must set Qt up offscreen by itself. Its cells
assert the documents' numbers, so an error anywhere fails the test; nothing may be written
on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "attention-by-hand.ipynb"
#: Seconds a cell may take (the real-model cell loads torch and the model).
CELL_TIMEOUT = 600


@pytest.fixture
def kernel_of_this_python(tmp_path, monkeypatch):
    """A ``python3`` kernel spec running this interpreter, found before any other."""
    folder = tmp_path / "jupyter" / "kernels" / "python3"
    folder.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (attnviz tests)",
        "language": "python",
    }
    (folder / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    )
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)  # the figure's own offscreen Qt
    monkeypatch.delenv("ATTNVIZ_LANG", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)  # whatever a cell writes lands here, not in the checkout


@pytest.mark.slow
def test_sample_notebook_runs_headless(kernel_of_this_python):
    nbformat = pytest.importorskip("nbformat", reason="the test extra has nbformat")
    nbclient = pytest.importorskip("nbclient", reason="the test extra has nbclient")
    pytest.importorskip("ipykernel", reason="the test extra has ipykernel")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": os.getcwd()}},
    )
    client.execute()  # CellExecutionError (with the cell's traceback) on any error
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # Nothing from Qt either (the offscreen platform once said "This plugin does not
    # support propagateSizeHints()" under every figure).
    said = [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]
    assert not said, said
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pictures) >= 4, "the figures are shown inline"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "[0.9817 0.018  0.0003]" in text  # softmax([8, 4, 0]), the √d_k lesson
    assert "[0.07 0.31 0.62]" in text and "[0.85 0.15]" in text  # the hand-worked example
