"""A loaded model and the files it came from: its own copy of the weights, and a
fingerprint of each file that tells when the folder changed under it.

transformers maps safetensors files into memory and leaves the weights there. When such a
file is truncated while the model is loaded (``save_pretrained`` into the same folder
rewrites it in place), the next read of a page past the new end is a SIGBUS that kills the
process, whatever Python does. :func:`own_weights` copies every weight into the
process's own memory right after loading, so no page of a file is read later;
:func:`fingerprint` and :func:`changed_files` let the model cache see that the folder
now holds other weights, and load it again (or refuse in one line) instead of showing the
old ones. Only the standard library and torch (already imported by the loader) are used.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

#: Files besides the weights whose change changes what the model computes.
_ALSO = ("config.json",)

#: What is compared of a file: device, inode, size and modification time (ns).
Fingerprint = tuple[tuple[str, tuple[int, int, int, int] | None], ...]


def _stat(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None  # gone (or unreadable): a change as any other
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def fingerprint(folder, weight_files) -> Fingerprint:
    """Device, inode, size and mtime of each weight file and of ``config.json``."""
    folder = Path(folder)
    names = tuple(weight_files) + tuple(n for n in _ALSO if n not in weight_files)
    return tuple((name, _stat(folder / name)) for name in names)


def changed_files(folder, before: Fingerprint) -> tuple[str, ...]:
    """The files of ``before`` that differ now (rewritten, truncated, replaced or gone)."""
    folder = Path(folder)
    return tuple(name for name, seen in before if _stat(folder / name) != seen)


def own_weights(model) -> None:
    """Copy every parameter and buffer of ``model`` into memory of its own.

    A weight left in a memory-mapped file is read from the file's pages at each forward
    pass; once the file is truncated those pages are gone and reading one is a SIGBUS.
    The copy costs one read of the weights (which the first pass makes anyway); the
    file-backed pages are the page cache's to drop. Tied weights stay tied (the same
    parameter is visited once).
    """
    import torch

    with torch.no_grad():
        for tensor in itertools.chain(model.parameters(), model.buffers()):
            tensor.data = tensor.data.clone()
