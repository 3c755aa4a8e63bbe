"""Every loader of a path, fed every kind of thing a path can name, from the command line:
one line on stderr and exit 1 or 2, before anything is read whole, never a hang.

The loaders: a session (``export --session``), a Hugging Face config (``kv --config``), a
model folder (``export --model``, the folder itself and its ``config.json``); the outputs
are ``tests/test_output_paths_fuzz.py``'s. The kinds: a folder,
a FIFO (a blocking read), a socket, links to /dev/zero (endless) and /dev/null (empty), a
link in a loop, a dangling link, a sparse file of 3 GB, an empty file, binary bytes, a name
past NAME_MAX, a NUL byte, a name that is not UTF-8. A watchdog fails a hang in 30 s.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from attnviz.cli import main
from tests.special_files import plant, watchdog

pytestmark = pytest.mark.skipif(os.name != "posix", reason="special files are POSIX's")

KINDS = [
    "folder",
    "fifo",
    "socket",
    "dev-zero",
    "dev-null",
    "loop",
    "dangling",
    "sparse-3gb",
    "empty",
    "binary",
    "too-long",
    "nul",
    "not-utf8",
]


def _make(kind: str, folder: Path, suffix: str, stem: str = "thing") -> str:
    """A path of ``kind`` in ``folder``, as the command line would pass it."""
    path = folder / f"{stem}{suffix}"
    if kind == "too-long":
        return str(folder / ("x" * 300 + suffix))
    if kind == "nul":
        return str(folder / f"nul\0{suffix}")
    if kind == "not-utf8":
        raw = os.fsencode(folder) + b"/caf\xe9" + suffix.encode()
        with open(raw, "wb") as fh:
            fh.write(b"\xff\xfe not text")
        return os.fsdecode(raw)
    plant(kind, path)
    return str(path)


LOADERS = {
    "session": lambda kind, tmp: [
        "export",
        "--session",
        _make(kind, tmp, ".attnviz"),
        "--panel",
        "heatmap",
        "--matrix",
        "weights",
        "--out",
        str(tmp / "w.csv"),
    ],
    "kv-config": lambda kind, tmp: ["kv", "--config", _make(kind, tmp, ".json")],
    "model-folder": lambda kind, tmp: [
        "export",
        "--model",
        _make(kind, tmp, ""),
        "--panel",
        "heatmap",
        "--out",
        str(tmp / "h.png"),
    ],
}


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        with watchdog(30):
            status = main(argv)
    except SystemExit as exc:
        status = exc.code
    captured = capsys.readouterr()
    return status, captured.err


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loader", sorted(LOADERS))
def test_every_loader_refuses_every_kind_in_one_line(loader, kind, tmp_path, capsys, qapp):
    status, err = _run(LOADERS[loader](kind, tmp_path), capsys)
    lines = err.splitlines()
    assert status in (1, 2), (status, err)
    assert len(lines) == 1 and lines[0].startswith("attnviz"), err
    assert "Traceback" not in err
    assert not (tmp_path / "w.csv").exists() and not (tmp_path / "h.png").exists()


@pytest.mark.parametrize("kind", ["folder", "fifo", "dev-zero", "sparse-3gb", "binary", "loop"])
def test_a_model_folders_config_of_any_kind_is_one_line(kind, tmp_path, capsys, qapp):
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"\0" * 16)
    _make(kind, model, ".json", stem="config")
    status, err = _run(
        ["export", "--model", str(model), "--panel", "heatmap", "--out", str(tmp_path / "h.png")],
        capsys,
    )
    assert status in (1, 2) and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert not (tmp_path / "h.png").exists()
