"""Issue 39 item 7: a model's safetensors truncated while the model is cached (a
``save_pretrained`` into the same folder does it) killed the process with SIGBUS on the next
sentence: the weights were still the file's memory-mapped pages. Now a loaded model owns
its weights, and the cache sees the folder's files change (device, inode, size, mtime)
before each use: it loads the model again, or refuses in one line when the folder is now
damaged. A failure here would kill pytest itself, so the cases run in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]

_PRELUDE = """
import json, sys
from pathlib import Path
from tests.core.test_hf_capture import make_tiny_decoder
from attnviz.core.hf_capture import ModelError, load_model
from attnviz.model.real_model import STORE
folder = Path(sys.argv[1])
path = make_tiny_decoder(folder, seed=0)
weights = folder / "model.safetensors"
text = "the cat sat on the bank"
first = STORE.capture(path, text)
before = first.layers[1].weights.copy()
report = {}
"""


def _run(tmp_path, body: str) -> dict:
    script = _PRELUDE + body + "\nprint('REPORT ' + json.dumps(report))\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRANSFORMERS_VERBOSITY": "error"}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])  # -7: SIGBUS
    line = next(x for x in proc.stdout.splitlines() if x.startswith("REPORT "))
    return json.loads(line[len("REPORT ") :])


@pytest.mark.slow
def test_a_truncated_weights_file_is_refused_in_one_line_and_the_process_lives(tmp_path):
    report = _run(
        tmp_path,
        """
with open(weights, "r+b") as fh:  # what a save_pretrained in place does first
    fh.truncate(1000)
try:
    STORE.capture(path, "the dog ran")
except ModelError as exc:
    report["refused"] = str(exc)
report["cached"] = STORE.cached(path, text) is not None
""",
    )
    assert report["refused"] == "model.safetensors has a damaged safetensors header"
    assert not report["cached"]  # the old sentence's weights are no longer the folder's


@pytest.mark.slow
def test_weights_rewritten_in_place_are_loaded_again(tmp_path):
    """A save_pretrained of other weights into the same folder: the next sentence (and
    the same sentence again) runs through the new weights, not the cached ones."""
    report = _run(
        tmp_path,
        """
make_tiny_decoder(folder, seed=1)  # save_pretrained into the same folder
again = STORE.capture(path, text)
report["same_capture"] = again is first
report["difference"] = float(abs(again.layers[1].weights - before).max())
fresh = load_model(path).capture(text)
report["equals_a_fresh_load"] = float(abs(again.layers[1].weights - fresh.layers[1].weights).max())
""",
    )
    assert not report["same_capture"]
    assert report["difference"] > 1e-3  # other weights, other attention
    assert report["equals_a_fresh_load"] < 1e-6


@pytest.mark.slow
def test_a_loaded_model_owns_its_weights_and_refuses_a_changed_folder(tmp_path):
    """A script holding a LoadedModel (no cache in between): its forward pass after the
    file is truncated reads no freed page, and its capture refuses in one line."""
    report = _run(
        tmp_path,
        """
import torch
loaded = load_model(path)
with open(weights, "r+b") as fh:
    fh.truncate(1000)
with torch.no_grad():  # every weight read: a mapped page would be a SIGBUS here
    out = loaded.model(torch.tensor([[1, 2, 3]])).last_hidden_state
report["finite"] = bool(torch.isfinite(out).all())
try:
    loaded.capture("the dog ran")
except ModelError as exc:
    report["refused"] = str(exc)
""",
    )
    assert report["finite"]
    assert report["refused"] == (
        f"{tmp_path.name}: model.safetensors changed on disk since the model was loaded; "
        "open the model again"
    )
