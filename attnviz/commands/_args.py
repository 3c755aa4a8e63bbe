"""Argument helpers shared by the subcommands: one-line errors and bounded numbers.

DESIGN.md's contract for every command: bad arguments exit 2 with a one-line message. argparse
prints its usage block before the error; :class:`OneLineParser` (or :func:`one_line_error` on a
parser made elsewhere) prints only ``<prog>: error: <message>``. ``--help`` is untouched.

Numbers typed on a command line can be of any length: :func:`bounded_int` and
:func:`bounded_float` refuse out-of-range values with the allowed range in the message, and
refuse a string of hundreds of digits before ``int()`` ever sees it (Python ≥ 3.11 raises for
more than 4300 digits, and a huge int overflows the float arithmetic further on).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

# Work estimated past SAY_WORK_S is said before it starts; past LONG_WORK_S it needs --yes.
# Defined in the model: File → Export Animation… asks at the same threshold.
from attnviz.model.sweep_work import LONG_WORK_S, SAY_WORK_S

#: Digits a bounded number may have before it is refused unread (far above any maximum here).
MAX_DIGITS = 30
#: Pixel sizes an image export (a panel, the window, a slide) may have.
SIZE_RANGE = (16, 8192)


def about(seconds: float) -> str:
    """``about 12 s`` or ``about 3 min``: a duration as a command says it."""
    return f"about {seconds:.0f} s" if seconds < 120 else f"about {seconds / 60:.0f} min"


def announce_work(what: str, seconds: float, *, yes: bool, verb: str = "takes") -> bool:
    """Say on stderr how long ``what`` will take past :data:`SAY_WORK_S`; past
    :data:`LONG_WORK_S` refuse (False) unless ``yes``. ``verb`` agrees with ``what``."""
    if seconds <= SAY_WORK_S:
        return True
    if seconds > LONG_WORK_S and not yes:
        print(
            f"attnviz export: {what} would take {about(seconds)} on this machine's CPU; "
            "pass --yes to go on, or lower long.n",
            file=sys.stderr,
        )
        return False
    print(f"attnviz export: {what} {verb} {about(seconds)} on this machine's CPU…", file=sys.stderr)
    return True


def shorten(text: str, limit: int = 24) -> str:
    """``text`` as ``repr`` for a message, its middle elided when longer than ``limit``.

    ``'10000000000…00000000000' (401 characters)`` keeps a pasted number of hundreds of digits
    from turning the one-line message into a screenful.
    """
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    half = max(limit // 2 - 1, 1)
    return f"{text[:half] + '…' + text[-half:]!r} ({len(text)} characters)"


def one_line(message: str) -> str:
    """``message`` with every run of whitespace (newlines included) collapsed to one space."""
    return " ".join(str(message).split())


def one_line_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """Print ``<prog>: error: <message>`` as one line on stderr and exit 2 (no usage block).

    Usable as a bound method on a parser made elsewhere::

        parser.error = one_line_error.__get__(parser)
    """
    print(f"{parser.prog}: error: {one_line(message)}", file=sys.stderr)
    sys.exit(2)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line; subparsers it makes inherit the class."""

    def error(self, message: str) -> NoReturn:
        one_line_error(self, message)


def _grouped(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:g}"


def bounded_int(low: int, high: int, *, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse ``type=`` reading an int in ``low..high``; the message gives the range.

    argparse prefixes the flag (``argument --layers: must be a whole number from 1 to
    100,000, got '10…00' (401 characters)``).
    """

    def parse(text: str) -> int:
        stripped = str(text).strip().replace("_", "")
        if len(stripped) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(
                f"must be {what} from {_grouped(low)} to {_grouped(high)}, got {shorten(text)}"
            )
        try:
            value = int(stripped)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {what} from {_grouped(low)} to {_grouped(high)}, got {shorten(text)}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be {what} from {_grouped(low)} to {_grouped(high)}, got {shorten(text)}"
            )
        return value

    parse.__name__ = "int"  # argparse names the type in its "invalid int value" fallback
    return parse


def bounded_float(
    above: float, high: float, *, what: str = "a number", example: str = ""
) -> Callable[[str], float]:
    """An argparse ``type=`` reading a finite float with ``above < value ≤ high``."""
    hint = f" (e.g. {example})" if example else ""
    allowed = f"{what} > {_grouped(above)} and ≤ {high:g}{hint}"

    def parse(text: str) -> float:
        if len(str(text).strip()) > 2 * MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {shorten(text)}")
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}, got {shorten(text)}") from None
        if not (math.isfinite(value) and above < value <= high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {shorten(text)}")
        return value

    parse.__name__ = "float"
    return parse


def utf8_text(text: str) -> str:
    """An argparse ``type=`` for a sentence: bytes that are not UTF-8 (a terminal in Latin-1
    typing "café"; Python hands them over as lone surrogates) are refused in one line, before
    a tokenizer raises a ``TypeError`` on them."""
    for i, c in enumerate(str(text)):
        if "\udc80" <= c <= "\udcff":  # the surrogate escape of one byte
            raise argparse.ArgumentTypeError(
                f"not UTF-8 text: byte 0x{ord(c) - 0xDC00:02x} at character {i + 1} "
                "(is the terminal's encoding UTF-8?)"
            )
        if "\ud800" <= c <= "\udfff":
            raise argparse.ArgumentTypeError(f"a lone surrogate at character {i + 1}")
    return text


def print_output(text: str, prog: str) -> int:
    """Print a command's result on stdout; 0, or 1 with a one-line reason when it cannot.

    A reader that closed the pipe early (``attnviz kv ... | head``) is not an error; a full
    disk or a closed stdout is (``attnviz kv: cannot write the output: [Errno 28] No space
    left on device``). Either way stdout is pointed at the null device afterwards, so that
    Python's own flush at exit adds no second message (the recipe of Python's signal docs).
    """
    try:
        try:
            print(text, flush=True)
        except UnicodeEncodeError:
            # A lone surrogate from a hand-edited file, or a terminal that is not UTF-8:
            # written escaped (\ud800), as Python writes such text to stderr.
            encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
            print(text.encode(encoding, "backslashreplace").decode(encoding), flush=True)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:
        _silence_stdout()
        reason = f"[Errno {exc.errno}] {exc.strerror}" if exc.strerror else str(exc)
        print(f"{prog}: cannot write the output: {one_line(reason)}", file=sys.stderr)
        return 1
    return 0


def _silence_stdout() -> None:
    # When stdout is not a real file (a test's capture), nothing will flush it at exit.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


IMAGE_SUFFIXES = (".png", ".svg")


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unwritable(out: Path) -> str | None:
    """Why ``out`` cannot be written (before any work is done), or None: a missing or
    closed folder, a name the file system refuses (too long), a folder, or a special file
    (a FIFO would block the export forever, a device would take the bytes)."""
    folder = out.parent if str(out.parent) else Path(".")
    if out.suffix.lower() in IMAGE_SUFFIXES and not _utf8(str(out)):
        # Qt names files in UTF-8: a byte that is not (argv's surrogate escape) would become
        # U+FFFD, and the picture would land beside the file asked for, under another name.
        return "its name is not UTF-8, and the image writer would save it under another name"
    try:
        if not folder.is_dir():
            return f"the folder {folder} does not exist"
        if not os.access(folder, os.W_OK):
            return f"no permission to write in {folder}"
        if out.is_dir():
            return "it is a folder"
        mode = out.lstat().st_mode if out.exists() or out.is_symlink() else None
    except OSError as exc:  # a name over NAME_MAX, a link loop
        return exc.strerror or type(exc).__name__
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
        return "it is not a regular file (a FIFO, a socket or a device)"
    if mode is not None and stat.S_ISLNK(mode) and out.exists() and not out.is_file():
        return "it links to something that is not a regular file"
    return None


def refused(workspace, panel: str) -> bool:
    """Print why ``panel`` cannot be exported with these settings (one line) and return
    True, before any file is written (:func:`attnviz.model.panel_data.picture_refusal`:
    the overview of ``long.head=model`` with no model); False when it can."""
    from attnviz.model.panel_data import picture_refusal

    reason = picture_refusal(workspace, panel)
    if reason:
        print(f"attnviz export: {one_line(reason)}", file=sys.stderr)
    return bool(reason)


class TerminalProgress:
    """``"\\r  <what> i of N"`` on stderr while work runs, when stderr is a terminal (a pipe
    or a log file gets nothing); :meth:`done` ends the line."""

    def __init__(self, what: str, total: int) -> None:
        self.what, self.total = what, total
        self.shown = sys.stderr.isatty() and total > 1

    def step(self, index: int) -> None:
        """Item ``index`` (from 0) starts."""
        if self.shown:
            print(
                f"\r  {self.what} {index + 1} of {self.total}", end="", file=sys.stderr, flush=True
            )

    def done(self) -> None:
        """Clear the line (the result follows on stdout)."""
        if self.shown:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


@contextlib.contextmanager
def stop_on_interrupt(stop: threading.Event):
    """Ctrl-C sets ``stop`` (long work ends at its next step, keeping what it made)
    instead of raising anywhere; off the main thread, where no signal arrives, nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
