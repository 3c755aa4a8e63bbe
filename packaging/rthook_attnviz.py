"""PyInstaller runtime hook: runs inside the frozen app before ``attnviz_main``.

- Pins the Qt binding for pyqtgraph and qtpy/superqt: only PySide6 is bundled, and their own
  detection would first try bindings that are not there.
- In a windowed build ``sys.stdout``/``sys.stderr`` are None: the crash handler is installed
  at once, so that nothing written before the GUI starts can crash the app.
- ``ATTNVIZ_IMPORT_PROBE=mod1,mod2,...`` imports those modules and exits (0 when all import).
  The smoke test uses it to prove that modules imported only lazily (pyqtgraph's export
  dialog, our subcommands) are in the bundle: a module missing there would otherwise
  surface as a crash inside a Qt event handler, long after start-up.
"""

import os
import sys

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
os.environ.setdefault("QT_API", "pyside6")


def _import_probe(names: str) -> int:
    import importlib
    import traceback

    failed = 0
    for name in filter(None, (n.strip() for n in names.split(","))):
        try:
            importlib.import_module(name)
        except Exception:  # report every missing module, not only the first
            failed += 1
            print(f"import-probe: FAILED {name}", file=sys.stderr)
            traceback.print_exc()
    print(f"import-probe: {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if os.environ.get("ATTNVIZ_IMPORT_PROBE"):
    sys.exit(_import_probe(os.environ["ATTNVIZ_IMPORT_PROBE"]))

if sys.stdout is None or sys.stderr is None:
    from attnviz.ui.crash import install_crash_handler

    install_crash_handler()
