"""Command line: the GUI by default, plus headless subcommands.

Each subcommand is a module ``attnviz.commands.<name>`` with ``register(subparsers)`` and
``run(args) -> int``, found by listing that package; a module is imported only when its
command is asked for (or for ``--help``), so starting the GUI stays fast.
Bad arguments exit with status 2 and a one-line message (``attnviz kv: error: ...``), without
argparse's usage block; ``--help`` prints the full help.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys

from attnviz import commands
from attnviz.commands._args import OneLineParser, shorten
from attnviz.version import __version__

SESSION_SUFFIX = ".attnviz"

#: Subcommand name → module under attnviz.commands (modules starting with "_" are helpers).
COMMANDS: dict[str, str] = {
    m.name: m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")
}


def _asks_help(argv: list[str]) -> bool:
    """True when ``argv`` asks for the full help (``-h``, ``--help`` or a prefix of it)."""
    return any(a == "-h" or (len(a) > 2 and "--help".startswith(a)) for a in argv)


def _parser(command: str | None, *, full: bool = True) -> argparse.ArgumentParser:
    """The parser of ``attnviz``; the options of ``command`` only (of every command when
    ``command`` is None and ``full``: the help lists them all). Without ``full``, the GUI's
    start imports no command module."""
    # OneLineParser: bad arguments print one line, not argparse's usage block; the
    # subcommands' parsers inherit the class through add_subparsers.
    parser = OneLineParser(
        prog="attnviz",
        description="Live, touchable panels for transformer attention. "
        "With no command, opens the desktop application; `attnviz FILE.attnviz` opens it "
        "on a saved session.",
    )
    parser.add_argument("--version", action="version", version=f"attnviz {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="build every panel offscreen, export one PNG, check it and exit",
    )
    parser.add_argument(
        "--model",
        metavar="DIR",
        help="open a local Hugging Face model folder at start, or builtin:induction (the "
        "shipped induction-head model; needs attnviz[models])",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        if command == name or (command is None and full):
            importlib.import_module(f"attnviz.commands.{module}").register(sub)
        else:
            sub.add_parser(name)
    for subparser in sub.choices.values():
        subparser.set_defaults(_command_parser=subparser)
    return parser


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parse_args``, but arguments nobody knows are reported by the subcommand's parser.

    (argparse leaves them to the top-level parser: ``attnviz: error: unrecognized arguments``
    even for ``attnviz kv --bogus``.)
    """
    args, extras = parser.parse_known_args(argv)
    if extras:
        owner = getattr(args, "_command_parser", None) or parser
        shown = " ".join(a if len(a) <= 40 else shorten(a) for a in extras)
        owner.error(f"unrecognized arguments: {shown}")
    return args


def _session_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="attnviz", description="Open a session in attnviz.")
    parser.add_argument("session", metavar="FILE.attnviz")
    parser.add_argument("--self-test", action="store_true", help=argparse.SUPPRESS)
    return parser


def _display_problem() -> str | None:
    """A message when no display is reachable on Linux, instead of Qt's abort."""
    if not sys.platform.startswith("linux"):
        return None
    if (
        os.environ.get("QT_QPA_PLATFORM")
        or os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
    ):
        return None
    cmds = ", ".join(f"attnviz {c}" for c in COMMANDS) or "attnviz --self-test"
    return (
        "attnviz: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
        "  Run it in a desktop session, or on a server under a virtual display:\n"
        "      xvfb-run attnviz\n"
        f"  Headless commands need no display: {cmds}, attnviz --self-test."
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``attnviz`` command; returns the process exit status."""
    from attnviz.paths import ResourceError

    # Python's own stderr escapes what it cannot encode, but PYTHONIOENCODING=…:strict or a
    # replaced stream may not: a message naming a file whose bytes are not UTF-8 must still
    # be printed, not end in a UnicodeEncodeError.
    with contextlib.suppress(AttributeError, ValueError, OSError):
        sys.stderr.reconfigure(errors="backslashreplace")
    try:
        return _main(argv)
    except ResourceError as exc:  # a broken installation: one line, not a traceback
        print(f"attnviz: a resource file cannot be read: {exc}", file=sys.stderr)
        return 1


def _first_positional(argv: list[str]) -> str | None:
    """The command or session file of ``argv``: its first argument that is not an option,
    or the one after ``--`` (``attnviz -- -notes.attnviz`` opens a file whose name starts
    with a dash)."""
    for i, a in enumerate(argv):
        if a == "--":
            return argv[i + 1] if i + 1 < len(argv) else None
        if not a.startswith("-"):
            return a
    return None


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[-1:] == ["--"]:
        argv.pop()  # "the end of the options" with nothing after it: nothing to read
    command = _first_positional(argv)
    if command is not None and command.lower().endswith(SESSION_SUFFIX):  # TALK.ATTNVIZ too
        # A file manager's "open with attnviz": the GUI with that session.
        args = _parse(_session_parser(), argv)
        args.command, args.open_session = None, args.session
    else:
        if command is not None and command not in COMMANDS:
            command = None  # let argparse report the unknown command
        args = _parse(_parser(command, full=command is not None or _asks_help(argv)), argv)
        args.open_session = None  # (a subcommand's own --session stays untouched)
    if args.command:
        module = importlib.import_module(f"attnviz.commands.{COMMANDS[args.command]}")
        try:
            return int(module.run(args))
        except KeyboardInterrupt:  # Ctrl+C: stop cleanly, as a shell expects
            print(f"attnviz {args.command}: interrupted", file=sys.stderr)
            return 130
    if args.self_test:
        from attnviz.ui.self_test import run_self_test

        return run_self_test()
    problem = _display_problem()
    if problem is None:
        from attnviz.platform_check import platform_problem

        problem = platform_problem()  # a missing xcb library would make Qt abort
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from attnviz.ui.app import hold_garbage_collection

    hold_garbage_collection()  # the window comes back to it once it is painted
    from attnviz.model.presets import check_resources

    check_resources()  # a broken resources folder: one line (main), before any window
    from attnviz.ui.app import run_app

    if getattr(args, "model", None):
        from attnviz.ui.model_loader import open_at_start

        open_at_start(args.model)  # the window loads it on a worker once it is up
    return run_app(session=args.open_session)
