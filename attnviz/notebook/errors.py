""":class:`FigureError`: how :func:`attnviz.figure` refuses, in one line."""

from __future__ import annotations

from attnviz.commands._args import one_line

#: The command line's option names that start a message built for it.
_FLAGS = ("--set", "--model", "--session", "--text", "--preset")


class FigureError(ValueError):
    """A figure that cannot be made or saved as asked; the message is one line."""

    def __init__(self, message: str) -> None:
        super().__init__(_without_dashes(one_line(message)))


def _without_dashes(message: str) -> str:
    # The command line's "--set attention.d_k: ..." names a keyword argument here:
    # "set: attention.d_k: ...".
    for flag in _FLAGS:
        if message.startswith(flag):
            rest = message[len(flag) :].removeprefix(":")
            return f"{flag[2:]}: {rest.strip()}"
    return message
