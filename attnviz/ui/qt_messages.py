"""Qt's start-up under any locale, and its messages: the harmless ones to the log.

``LC_ALL=C attnviz export …`` must print nothing on stderr but real problems. Two things
Qt says on its own are not problems:

- under a locale whose character set is not UTF-8 (``C``, ``POSIX``, ``de_DE@euro``), the
  ``QCoreApplication`` constructor switches ``LC_CTYPE`` to the UTF-8 variant itself and
  warns in four lines. :func:`use_utf8_locale` makes the same choice before Qt starts, in
  the environment Qt reads, so that Qt finds a UTF-8 locale and has nothing to say; the
  ``C`` locale's UTF-8 variant writes numbers, dates and messages as ``C`` does;
- the offscreen platform (every export and test) says "This plugin does not support
  propagateSizeHints()" for every top-level widget shown.

:func:`install_message_handler` sends those (and the locale notice, where no UTF-8
variant exists) to the ``attnviz.qt`` log at debug level; every other message goes on to
the handler installed before (the crash handler's log when there is no console) or to
stderr, as Qt's own handler would print it.
"""

from __future__ import annotations

import contextlib
import locale
import logging
import os
import sys

#: Parts of messages Qt prints about its own set-up, never about attnviz's work.
HARMLESS = (
    "does not support propagateSizeHints()",
    "Qt depends on a UTF-8 locale",
)

_installed = False


def _utf8(codeset: str) -> bool:
    return codeset.replace("-", "").lower() == "utf8"


def utf8_variant(name: str) -> str:
    """The UTF-8 locale Qt would switch ``name`` to: ``de_DE@euro`` → ``de_DE.UTF-8``;
    ``C`` and ``POSIX`` → ``C.UTF-8``."""
    base = name.split(".", 1)[0].split("@", 1)[0]
    return "C.UTF-8" if base in ("", "C", "POSIX") else f"{base}.UTF-8"


def use_utf8_locale() -> str | None:
    """Before Qt starts: when the locale in effect is not UTF-8, point the environment at
    its UTF-8 variant (``LC_ALL`` when set, else ``LC_CTYPE``), as Qt would switch it;
    return the locale chosen, or None when nothing needed changing or no variant exists
    (then Qt switches itself and :func:`install_message_handler` logs its notice)."""
    try:
        current = locale.setlocale(locale.LC_CTYPE)
        if _utf8(locale.nl_langinfo(locale.CODESET)):
            return None
    except (locale.Error, AttributeError, ValueError):  # no nl_langinfo (Windows)
        return None
    candidates = (utf8_variant(current), "C.UTF-8", "C.utf8")
    for candidate in dict.fromkeys(candidates):
        try:
            locale.setlocale(locale.LC_CTYPE, candidate)
        except locale.Error:
            continue
        finally:
            with contextlib.suppress(locale.Error):
                locale.setlocale(locale.LC_CTYPE, current)
        os.environ["LC_ALL" if os.environ.get("LC_ALL") else "LC_CTYPE"] = candidate
        return candidate
    return None


def harmless(message: str) -> bool:
    """True for a message Qt prints about its own set-up (:data:`HARMLESS`)."""
    return any(part in message for part in HARMLESS)


def install_message_handler() -> None:
    """Route Qt's harmless messages to the log and the others on (once per process)."""
    global _installed
    if _installed:
        return
    from PySide6.QtCore import qInstallMessageHandler

    log = logging.getLogger("attnviz.qt")
    previous = None

    def handler(mode, context, message: str) -> None:
        if harmless(message):
            log.debug("%s", message)
        elif previous is not None:
            previous(mode, context, message)
        else:
            category = getattr(context, "category", None)
            prefix = f"{category}: " if category and category != "default" else ""
            with contextlib.suppress(OSError, ValueError, AttributeError):
                print(prefix + message, file=sys.stderr, flush=True)

    previous = qInstallMessageHandler(handler)
    _installed = True


def prepare_qt() -> None:
    """What every entry point does before its ``QApplication``: a UTF-8 locale for Qt and
    the message handler (:mod:`attnviz.ui.qt_messages`)."""
    use_utf8_locale()
    install_message_handler()
