"""Defensive reading and atomic writing of session files (no Qt).

A hostile or unlucky file must never hang, exhaust memory or crash the app: named pipes,
devices, sockets, directories, ``/proc`` files, over-long names and files that grow while
being read are all refused with :class:`FileRefused`, whose message is one line naming the
file. Writing goes to a temporary file in the target's folder, is fsynced and renamed over
the target, so a failed or interrupted save leaves the old file as it was;
:func:`clean_stale_temps` removes what a killed save may leave behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from pathlib import Path

from attnviz.core.wording import byte_count

TEMP_PREFIX = ".attnviz-"
TEMP_SUFFIX = ".tmp"
_CHUNK = 1 << 20
_MAX_LINKS = 40
_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is not a regular file (a named pipe)"),
    (stat.S_ISCHR, "is not a regular file (a character device)"),
    (stat.S_ISBLK, "is not a regular file (a block device)"),
    (stat.S_ISSOCK, "is not a regular file (a socket)"),
)
_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOENT: "does not exist",
    errno.ENAMETOOLONG: "name too long",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "a part of the path is not a folder",
    errno.ELOOP: "too many levels of symbolic links",
    errno.ENOSPC: "no space left on device",
    errno.EROFS: "read-only file system",
    errno.EIO: "input/output error",
    errno.EFBIG: "file too large",
    getattr(errno, "EDQUOT", -1): "disk quota exceeded",
}


class FileRefused(ValueError):  # noqa: N818 (the name is the public API)
    """A file could not be read or written; ``str()`` is one line naming the file and why.

    ``path`` is the path as given, ``reason`` the why in a few words ("is a directory", ...).
    """

    def __init__(self, path, reason: str, *, action: str = "read"):
        self.path = path
        self.reason = reason
        super().__init__(f"cannot {action} {_display_name(path)}: {reason}")


def shown_path(path) -> str:
    """``path`` whole, for a message of one line: a character that is not printable (a
    newline or a record separator in a file name, a byte that is not UTF-8) is written as its
    escape, so a name can neither break the line nor reach a strict terminal as a surrogate."""
    try:
        text = os.fsdecode(path)
    except (TypeError, ValueError):
        text = str(path)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _display_name(path) -> str:
    """The file name, printable on one line whatever bytes it holds."""
    try:
        raw = os.fsdecode(path)
    except (TypeError, ValueError):
        raw = repr(path)
    name = raw.replace("\0", "\\0").rstrip("/\\").rsplit("/", 1)[-1] or raw
    name = name.encode("utf-8", "backslashreplace").decode("utf-8")
    if not name.isprintable():
        name = repr(name)[1:-1]
    return name if len(name) <= 80 else name[:77] + "..."


def _reason(exc: BaseException) -> str:
    """A few words for ``exc``; errno texts are fixed English whatever the C locale says."""
    if isinstance(exc, MemoryError):
        return "not enough memory"
    if isinstance(exc, OSError) and (exc.errno in _REASONS or exc.strerror):
        return _REASONS.get(exc.errno) or exc.strerror.lower()
    return (str(exc).splitlines() or [type(exc).__name__])[0]


def _check_name(path, action: str) -> str:
    """``path`` as a str; refuse NUL bytes and components longer than NAME_MAX."""
    try:
        text = os.fsdecode(os.fspath(path))
    except (TypeError, ValueError) as exc:
        raise FileRefused(path, f"not a usable path ({exc})", action=action) from None
    if "\0" in text:
        raise FileRefused(path, "the name holds a NUL byte", action=action)
    name_max = 255
    with contextlib.suppress(OSError, ValueError, AttributeError):
        name_max = os.pathconf(os.path.dirname(text) or ".", "PC_NAME_MAX") or name_max
    for part in text.replace("\\", "/").split("/"):
        if len(os.fsencode(part)) > name_max:
            raise FileRefused(path, "name too long", action=action)
    return text


def kind_problem(mode: int) -> str | None:
    """None for a regular file, else what it is ("is not a regular file (a named pipe)")."""
    if stat.S_ISREG(mode):
        return None
    return next((why for test, why in _KINDS if test(mode)), "is not a regular file")


def _check_kind(path, mode: int, action: str) -> None:
    """Refuse anything but a regular file, saying what it is."""
    why = kind_problem(mode)
    if why is not None:
        raise FileRefused(path, why, action=action)


def _size_text(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / 2**20:.4g} MiB"
    return f"{n / 2**10:.4g} KiB" if n >= 1 << 10 else byte_count(n)


def read_text_limited(path, max_bytes: int, what: str = "a session") -> str:
    """Read a UTF-8 text file of at most ``max_bytes`` bytes, refusing anything else.

    Parameters
    ----------
    path : str or os.PathLike
        The file; a symlink is followed to its target.
    what : what the file should be, for the message of one too large ("a session")
    max_bytes : int
        Largest size accepted. At most ``max_bytes + 1`` bytes are ever read, whatever
        ``st_size`` says (``/proc`` files report 0, and a file may grow while read).

    Returns
    -------
    str
        The decoded text.

    Raises
    ------
    FileRefused
        When the file is missing, not a regular file, unreadable, too large or not UTF-8.
    """
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 0:
        raise TypeError(f"max_bytes must be a non-negative int, got {max_bytes!r}")
    text_path = _check_name(path, "read")
    too_large = f"larger than {what} can be (limit {_size_text(max_bytes)})"
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        # stat first: a FIFO or device is refused without ever being opened.
        _check_kind(path, os.stat(text_path).st_mode, "read")
        fd = os.open(text_path, flags)
        try:
            st = os.fstat(fd)  # the file may have been swapped since the stat
            _check_kind(path, st.st_mode, "read")
            if st.st_size > max_bytes:
                raise FileRefused(path, too_large)
            chunks, total = [], 0
            while chunk := os.read(fd, min(_CHUNK, max_bytes + 1 - total)):  # 0 once over
                chunks.append(chunk)
                total += len(chunk)
        finally:
            os.close(fd)
    except FileRefused:
        raise
    except (OSError, MemoryError, OverflowError, ValueError) as exc:
        raise FileRefused(path, _reason(exc)) from None
    if total > max_bytes:
        raise FileRefused(path, too_large)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise FileRefused(path, "not a text file (not UTF-8)") from None
    except MemoryError:
        raise FileRefused(path, "not enough memory") from None


def _final_target(text_path: str) -> str:
    """Follow a chain of symlinks; relative links resolve against their own folder."""
    target = text_path
    for _ in range(_MAX_LINKS):
        if not os.path.islink(target):
            return target
        link = os.readlink(target)
        target = os.path.join(os.path.dirname(target), link)
    raise OSError(errno.ELOOP, "too many levels of symbolic links", text_path)


def _current_umask() -> int:
    """The process umask, read without a window where files get created too open."""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o077)  # a racing thread meanwhile gets a stricter mode, never a looser one
    os.umask(old)
    return old


def _fsync_dir(directory: str) -> None:
    """Make the rename durable where the platform allows it; errors are ignored."""
    with contextlib.suppress(OSError, AttributeError):  # no O_DIRECTORY on Windows
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_text(path, text: str) -> Path:
    """Replace the content of ``path`` with ``text`` (UTF-8) in one rename.

    The text goes to ``.attnviz-*.tmp`` in the target's folder, is fsynced and renamed
    over the target. A symlink is written through: its final target gets the content and
    the link stays a link. An existing file keeps its permission bits; a new one gets
    ``0o666 & ~umask``. On failure the temporary file is removed and the old file is intact.

    Parameters
    ----------
    path : str or os.PathLike
        Where to write.
    text : str
        The content; it must be encodable as UTF-8 (no lone surrogates).

    Returns
    -------
    Path
        The path actually written (the link's target when ``path`` is a symlink).

    Raises
    ------
    FileRefused
        When the text cannot be encoded or the file cannot be written; the reason is in
        the message ("permission denied", "no space left on device", ...).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        reason = f"the text holds a character that UTF-8 cannot store at index {exc.start}"
        raise FileRefused(path, reason, action="save") from None
    text_path = _check_name(path, "save")
    tmp = None
    try:
        target = _final_target(text_path)
        if target != text_path:
            target = os.path.realpath(target)
        try:
            st = os.stat(target)
        except FileNotFoundError:
            mode = 0o666 & ~_current_umask()
        else:
            _check_kind(path, st.st_mode, "save")
            mode = stat.S_IMODE(st.st_mode)
        directory = os.path.dirname(target) or "."
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=directory)
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            else:
                os.chmod(tmp, mode)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(directory)
    except FileRefused:
        raise
    except (OSError, MemoryError, OverflowError, ValueError) as exc:
        reason = _reason(exc)
        if isinstance(exc, FileNotFoundError):
            reason = "the folder does not exist"
        raise FileRefused(path, reason, action="save") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return Path(target)


def clean_stale_temps(directory, *, older_than_s: float = 3600.0) -> int:
    """Remove ``.attnviz-*.tmp`` files a killed save left in ``directory``; never raises.

    Only regular files (symlinks are not followed) owned by this user and last modified
    more than ``older_than_s`` seconds ago are removed; the folder is not searched
    recursively. Returns how many files were removed.
    """
    removed = 0
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    now = time.time()
    with contextlib.suppress(OSError, ValueError, TypeError), os.scandir(directory) as entries:
        for entry in entries:
            if not (entry.name.startswith(TEMP_PREFIX) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                mine = uid is None or st.st_uid == uid
                if stat.S_ISREG(st.st_mode) and mine and now - st.st_mtime > older_than_s:
                    os.unlink(entry.path)
                    removed += 1
    return removed
