"""PySide6's per-import source probe, answered from the file's bytes.

Once PySide6 is imported, its import hook asks of every module imported afterwards whether
it uses PySide (for the opt-in ``from __feature__ import snake_case``): it reads the module's
whole source with ``inspect.getsource`` (linecache, encoding detection, splitting into
lines, and keeping every file in memory) and looks for the word ``PySide6``. attnviz
imports some 260 modules after PySide6 (pyqtgraph's and its own) before its first paint;
at 0.10–0.15 ms each the probe cost about 30 ms of a 0.49 s start-up here, and 10 MiB of
memory for the sources it kept (issue 24).

:func:`quicken_feature_probe` gives the hook the same answer from the file's raw bytes.
It is the same answer because Python source files are in an ASCII-compatible encoding
(PEP 263), so the word is in the bytes exactly when it is in the decoded text, and the file
read is the module's own ``.py``, the one ``inspect.getsource`` reads. A module with no
``.py`` file, or one whose file cannot be read, goes to PySide6's own probe as before.
Nothing here changes what any module may do: no attnviz module uses ``__feature__``, and
the table PySide6 keeps holds the same values.

The hook's names are PySide6 internals (``shibokensupport.feature``, as in PySide6 6.7 to 6.11).
When they are missing or look different, nothing is changed and imports just keep their
old cost.
"""

from __future__ import annotations

import sys

#: The attribute our quick probe carries, so that a second call does not wrap it again.
_MARK = "_attnviz_quick"


def quicken_feature_probe() -> bool:
    """Make PySide6's import hook read files as bytes; True when it now does.

    Call it right after ``import PySide6``: modules imported before it keep the slow probe.
    """
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    table = getattr(feature, "pyside_feature_dict", None)
    if not callable(original) or not isinstance(table, dict):
        return False
    if getattr(original, _MARK, False):
        return True

    def uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass  # PySide6's own probe decides (a module from a zip file, say)
        return original(module)

    setattr(uses_pyside, _MARK, True)
    uses_pyside.original = original  # type: ignore[attr-defined]  # the tests compare the two
    feature._mod_uses_pyside = uses_pyside
    return True
