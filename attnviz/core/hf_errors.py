"""The one-line errors of opening a model folder and capturing a sentence (no imports)."""

from __future__ import annotations


class ModelError(ValueError):
    """A model folder cannot be opened or a sentence cannot be captured; one line says why
    (a library's message of several lines is joined into one)."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class LoadCancelled(ModelError):  # noqa: N818 (as attnviz.core.tiled.Cancelled)
    """A load or capture stopped because its ``progress`` callback raised it (the user
    cancelled): between stages, after the weights are read and before every layer of the
    forward pass. Nothing is kept."""
