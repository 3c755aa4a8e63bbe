"""What the model chain's callers need without loading it: the one-line errors of opening a
model folder and capturing a sentence, whether transformers is there, and how to install it.

(The window asks these at start-up; :mod:`attnviz.core.hf_capture` and what it imports
load only when a model is opened.)
"""

from __future__ import annotations

import importlib.util

#: The CPU build of torch (a plain "pip install torch" fetches a CUDA build of several GB).
TORCH_CPU = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
INSTALL_HINT = f'install the models extra: pip install "attnviz[models]", and torch: {TORCH_CPU}'


def transformers_available() -> bool:
    """True when transformers and torch can be imported (nothing is imported here)."""
    return all(importlib.util.find_spec(m) is not None for m in ("transformers", "torch"))


class ModelError(ValueError):
    """A model folder cannot be opened or a sentence cannot be captured; one line says why
    (a library's message of several lines is joined into one)."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class LoadCancelled(ModelError):  # noqa: N818 (as attnviz.core.tiled.Cancelled)
    """A load or capture stopped because its ``progress`` callback raised it (the user
    cancelled): between stages, after the weights are read and before every layer of the
    forward pass. Nothing is kept."""
