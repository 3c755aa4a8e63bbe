"""safe_io: hostile files are refused quickly with one clear line; saves are atomic."""

import errno
import os
import signal
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.model import safe_io
from attnviz.model.safe_io import (
    FileRefused,
    atomic_write_text,
    clean_stale_temps,
    read_text_limited,
)

LIMIT = 1 << 20
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file types")


@pytest.fixture
def deadline():
    """Fail (instead of hanging the suite) when the test blocks for more than 10 s."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _timeout(signum, frame):
        raise TimeoutError("blocked: the call did not return within 10 s")

    old = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _refused(path, match, *, limit=LIMIT) -> FileRefused:
    with pytest.raises(FileRefused, match=match) as info:
        read_text_limited(path, limit)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message
    return info.value


def _temps(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".attnviz-"))


# ----------------------------------------------------------------------------- reading


def test_valid_file_round_trips(tmp_path):
    path = tmp_path / "s.attnviz"
    path.write_bytes('{"tokens": ["gato", "ação", "注意"]}\n'.encode())
    assert read_text_limited(path, LIMIT) == '{"tokens": ["gato", "ação", "注意"]}\n'
    assert read_text_limited(str(path), LIMIT).startswith("{")


def test_missing_file(tmp_path):
    exc = _refused(tmp_path / "gone.attnviz", "does not exist")
    assert "gone.attnviz" in str(exc) and str(tmp_path) not in str(exc)


def test_directory(tmp_path):
    _refused(tmp_path, "is a directory")


@posix_only
def test_fifo_does_not_block(tmp_path, monkeypatch, deadline):
    fifo = tmp_path / "pipe.attnviz"
    os.mkfifo(fifo)
    real_open, opened = os.open, []
    monkeypatch.setattr(safe_io.os, "open", lambda p, *a: opened.append(p) or real_open(p, *a))
    # No timing: the ``deadline`` watchdog ends a hang, and ``opened`` proves no open.
    exc = _refused(fifo, r"is not a regular file \(a named pipe\)")
    assert "pipe.attnviz" in str(exc)
    assert opened == []  # refused from stat alone, never opened


@posix_only
def test_fifo_swapped_in_after_stat_is_caught_by_fstat(tmp_path, monkeypatch, deadline):
    """The race: stat saw a regular file, open gets a FIFO; O_NONBLOCK + fstat refuse it."""
    fifo = tmp_path / "pipe.attnviz"
    os.mkfifo(fifo)
    real_stat = os.stat
    fake = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 3, 0, 0, 0))
    monkeypatch.setattr(
        safe_io.os, "stat", lambda p, *a, **k: fake if str(p) == str(fifo) else real_stat(p)
    )
    _refused(fifo, r"a named pipe")


@posix_only
def test_char_device_and_symlink_to_dev_zero(tmp_path, deadline):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    _refused("/dev/null", r"a character device")
    link = tmp_path / "zero.attnviz"
    link.symlink_to("/dev/zero")
    _refused(link, r"is not a regular file \(a character device\)")


@posix_only
def test_socket(tmp_path):
    path = tmp_path / "sock"
    if len(os.fsencode(str(path))) > 100:
        pytest.skip("temporary folder too deep for an AF_UNIX name")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
        _refused(path, r"a socket")


def test_proc_self_mem(deadline):
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc/self/mem")
    _refused("/proc/self/mem", "input/output error|permission denied")


def test_proc_file_with_size_zero_is_read_in_full():
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc")
    assert "Name:" in read_text_limited("/proc/self/status", LIMIT)
    _refused("/proc/self/status", "larger than a session can be", limit=16)


@pytest.mark.skipif(IS_ROOT or not hasattr(os, "geteuid"), reason="root reads anything")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.attnviz"
    path.write_text("{}")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("this user can read a mode-000 file")
        _refused(path, "permission denied")
    finally:
        path.chmod(0o600)


def test_permission_error_is_reported(tmp_path, monkeypatch):
    """Runs as root too: the open itself is made to fail with EACCES."""
    path = tmp_path / "secret.attnviz"
    path.write_text("{}")
    real_open = os.open

    def fake_open(p, *args, **kwargs):
        if str(p) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(safe_io.os, "open", fake_open)
    _refused(path, "permission denied")


def test_name_too_long(tmp_path):
    exc = _refused(tmp_path / ("a" * 300 + ".attnviz"), "name too long")
    assert len(str(exc)) < 200
    deep = tmp_path.joinpath(*["d" * 200] * 30, "s.attnviz")  # > PATH_MAX, short parts
    _refused(deep, "name too long|does not exist")


def test_nul_byte_in_path(tmp_path):
    exc = _refused(str(tmp_path / "a\0b.attnviz"), "NUL")
    assert "\0" not in str(exc)


def test_newline_in_name_stays_one_line(tmp_path):
    _refused(tmp_path / "two\nlines.attnviz", "does not exist")


def test_oversize_file(tmp_path, monkeypatch):
    path = tmp_path / "big.attnviz"
    path.write_bytes(b"x" * 101)
    _refused(path, r"larger than a session can be \(limit 100 bytes\)", limit=100)
    assert read_text_limited(path, 101) == "x" * 101
    big = tmp_path / "huge.attnviz"
    with open(big, "wb") as fh:
        fh.truncate(3 * LIMIT)  # sparse: st_size says 3 MiB
    real_read, reads = os.read, []
    monkeypatch.setattr(safe_io.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    _refused(big, r"\(limit 1 MiB\)")
    assert reads == []  # st_size already too large: not read at all


def test_file_growing_past_limit_is_cut_off(tmp_path, monkeypatch):
    """st_size is not trusted: a file reporting size 0 is still read at most limit+1 bytes."""
    path = tmp_path / "grows.attnviz"
    path.write_bytes(b"y" * 5000)
    real_fstat, reads = os.fstat, []
    monkeypatch.setattr(
        safe_io.os,
        "fstat",
        lambda fd: os.stat_result(
            (stat.S_IFREG | 0o644, *real_fstat(fd)[1:6], 0, *real_fstat(fd)[7:10])
        ),
    )
    real_read = os.read
    monkeypatch.setattr(safe_io.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    _refused(path, "larger than a session can be", limit=1000)
    assert sum(reads) <= 1001


def test_not_utf8(tmp_path):
    path = tmp_path / "bin.attnviz"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    _refused(path, "not a text file")


# ----------------------------------------------------------------------------- writing


def test_write_new_file_respects_umask(tmp_path):
    old = os.umask(0o027)
    try:
        written = atomic_write_text(tmp_path / "new.attnviz", "olá")
    finally:
        os.umask(old)
    assert written == tmp_path / "new.attnviz"
    assert written.read_text(encoding="utf-8") == "olá"
    if os.name == "posix":
        assert stat.S_IMODE(written.stat().st_mode) == 0o640
    assert _temps(tmp_path) == []


@posix_only
def test_existing_mode_is_kept(tmp_path):
    path = tmp_path / "s.attnviz"
    path.write_text("old")
    path.chmod(0o640)
    atomic_write_text(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@posix_only
def test_write_through_relative_symlink(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "data" / "real.attnviz"
    target.write_text("old")
    link = tmp_path / "links" / "s.attnviz"
    link.symlink_to(Path("..") / "data" / "real.attnviz")  # relative to the link's folder
    chain = tmp_path / "chain.attnviz"
    chain.symlink_to(Path("links") / "s.attnviz")
    monkeypatch.chdir(tmp_path / "data")  # a cwd-relative resolution would go wrong
    written = atomic_write_text(chain, "new")
    assert written == target.resolve()
    assert link.is_symlink() and chain.is_symlink()
    assert target.read_text() == "new"
    assert _temps(tmp_path / "data") == [] and _temps(tmp_path) == []


@posix_only
def test_symlink_loop_refused(tmp_path, deadline):
    a, b = tmp_path / "a.attnviz", tmp_path / "b.attnviz"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(FileRefused, match="symbolic links"):
        atomic_write_text(a, "x")


@posix_only
def test_write_refuses_fifo_and_directory(tmp_path, deadline):
    fifo = tmp_path / "pipe.attnviz"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="named pipe"):
        atomic_write_text(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(FileRefused, match="is a directory"):
        atomic_write_text(tmp_path, "x")
    if os.path.exists("/dev/null"):
        null = tmp_path / "null.attnviz"
        null.symlink_to("/dev/null")
        with pytest.raises(FileRefused, match="character device"):
            atomic_write_text(null, "x")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert _temps(tmp_path) == []


def test_lone_surrogate_refused_before_touching_anything(tmp_path):
    path = tmp_path / "s.attnviz"
    path.write_text("old")
    with pytest.raises(FileRefused, match="s.attnviz") as info:
        atomic_write_text(path, "ok \udc80 bad")
    assert "\n" not in str(info.value)
    assert path.read_text() == "old" and _temps(tmp_path) == []


def test_write_nul_and_missing_folder(tmp_path):
    with pytest.raises(FileRefused, match="NUL"):
        atomic_write_text(str(tmp_path / "a\0b"), "x")
    with pytest.raises(FileRefused, match="folder does not exist"):
        atomic_write_text(tmp_path / "no" / "s.attnviz", "x")


@pytest.mark.parametrize("stage", ["replace", "fsync", "write"])
def test_failure_mid_write_keeps_old_file(tmp_path, monkeypatch, stage):
    path = tmp_path / "s.attnviz"
    path.write_text("old content")

    def boom(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if stage == "write":
        real_fdopen = os.fdopen

        class Full:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def fileno(self):
                return self.fh.fileno()

            write = flush = boom

        monkeypatch.setattr(safe_io.os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    else:
        monkeypatch.setattr(safe_io.os, stage, boom)
    with pytest.raises(FileRefused, match="no space left on device") as info:
        atomic_write_text(path, "new content")
    monkeypatch.undo()
    assert "s.attnviz" in str(info.value)
    assert path.read_text() == "old content"
    assert _temps(tmp_path) == []


def test_interrupt_removes_temp_and_propagates(tmp_path, monkeypatch):
    path = tmp_path / "s.attnviz"
    path.write_text("old")

    def interrupt(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(safe_io.os, "replace", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old" and _temps(tmp_path) == []


def test_directory_fsync_errors_are_ignored(tmp_path, monkeypatch):
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) > 1:  # the file's fsync works, the folder's fails
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    monkeypatch.setattr(safe_io.os, "fsync", fsync)
    atomic_write_text(tmp_path / "s.attnviz", "ok")
    assert (tmp_path / "s.attnviz").read_text() == "ok"


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_round_trip_any_text(tmp_path_factory, text):
    folder = tmp_path_factory.getbasetemp() / "round-trip"
    folder.mkdir(exist_ok=True)
    path = atomic_write_text(folder / "s.attnviz", text)
    assert read_text_limited(path, 4 * len(text) + 1) == text
    assert _temps(folder) == []


# ----------------------------------------------------------------------------- cleanup


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


@posix_only
def test_clean_stale_temps(tmp_path):
    old = tmp_path / ".attnviz-x.tmp"
    recent = tmp_path / ".attnviz-y.tmp"
    other = tmp_path / "notes.tmp"
    similar = tmp_path / ".attnviz-z.txt"
    keep_target = tmp_path / "precious.attnviz"
    link = tmp_path / ".attnviz-link.tmp"
    folder = tmp_path / ".attnviz-dir.tmp"
    sub = tmp_path / "sub"
    for p in (old, recent, other, similar, keep_target):
        p.write_text("x")
    link.symlink_to(keep_target)
    folder.mkdir()
    sub.mkdir()
    nested = sub / ".attnviz-n.tmp"
    nested.write_text("x")
    for p in (old, other, similar, keep_target, link, folder, nested):
        _age(p, 7200)
    _age(recent, 60)
    assert clean_stale_temps(tmp_path) == 1
    assert not old.exists()
    for p in (recent, other, similar, keep_target, folder, nested):
        assert p.exists(), p
    assert link.is_symlink()
    assert clean_stale_temps(tmp_path, older_than_s=30) == 1  # now "recent" is stale too
    assert not recent.exists()


@pytest.mark.skipif(not IS_ROOT, reason="needs root to give a file to another user")
def test_clean_stale_temps_keeps_other_users_files(tmp_path):
    theirs = tmp_path / ".attnviz-theirs.tmp"
    theirs.write_text("x")
    os.chown(theirs, 54321, 54321)
    _age(theirs, 7200)
    assert clean_stale_temps(tmp_path) == 0
    assert theirs.exists()


def test_clean_stale_temps_never_raises(tmp_path):
    assert clean_stale_temps(tmp_path / "missing") == 0
    assert clean_stale_temps(str(tmp_path) + "\0") == 0
    (tmp_path / "file").write_text("x")
    assert clean_stale_temps(tmp_path / "file") == 0
