"""Which backends can map a long sequence here, and the one a field's choice runs on.

Probing imports torch when it is installed (slow the first time), so the UI asks from a
worker thread; the answer is kept until asked to refresh.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass

import numpy as np

from attnviz.core.backends import get_backend


@dataclass(frozen=True)
class BackendStatus:
    """Whether a backend can run here; ``reason`` ("no-torch", "no-cuda", "") and a
    ``detail`` (torch's version, the GPU's name) for the selector's explanation."""

    name: str
    available: bool
    reason: str = ""
    detail: str = ""


_STATUS: dict[str, BackendStatus] = {}


def backend_status(*, refresh: bool = False) -> dict[str, BackendStatus]:
    """What each backend needs and whether it is here (imports torch when installed: slow
    the first time, so the UI asks from a worker thread)."""
    if _STATUS and not refresh:
        return dict(_STATUS)
    found = {"numpy": BackendStatus("numpy", True), "auto": BackendStatus("auto", True)}
    if importlib.util.find_spec("torch") is None:
        for name in ("torch", "cuda"):
            found[name] = BackendStatus(name, False, "no-torch")
    else:
        torch = importlib.import_module("torch")
        found["torch"] = BackendStatus("torch", True, "", torch.__version__)
        if torch.cuda.is_available():
            found["cuda"] = BackendStatus("cuda", True, "", torch.cuda.get_device_name(0))
        else:
            built = torch.version.cuda or "none"
            found["cuda"] = BackendStatus("cuda", False, "no-cuda", f"{torch.__version__}/{built}")
    _STATUS.clear()
    _STATUS.update(found)
    return dict(found)


def choose_backend(name: str, dtype: str):
    """The backend object that runs ``name`` with ``dtype`` ("auto": CUDA when present and
    the dtype runs there, else NumPy). Raises ``BackendUnavailableError`` with the fix."""
    if name == "auto":
        cuda = dtype != "float64" and backend_status()["cuda"].available
        name = "cuda" if cuda else "numpy"
    return get_backend(name, dtype=dtype)


def host_dtype(dtype: str):
    """The numpy dtype q and k are generated in (half precision is cast on the GPU)."""
    return np.float64 if dtype == "float64" else np.float32
