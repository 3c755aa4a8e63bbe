"""``attnviz export --window --width W --height H --out FILE.png``: the main window.

The window as it opens for the first time on a ``W × H`` screen (maximized there), showing
the state the options describe (``--preset``, ``--session``, ``--set``, …), in ``--theme``
and ``--lang``, with ``--large-fonts`` as View → Large Fonts gives them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from attnviz.commands._args import SIZE_RANGE, print_output, unwritable
from attnviz.commands._workspace import build_workspace
from attnviz.model.safe_io import shown_path

#: Options that describe one panel's figure, meaningless for the whole window.
_FIGURE_OPTIONS = ("matrix", "title")


def run_window(args, parser) -> int:
    """Write the window's picture to ``--out``; 0, or 1 when it cannot be written."""

    given = [f"--{name}" for name in _FIGURE_OPTIONS if getattr(args, name, None) is not None]
    given += ["--transparent"] if args.transparent else []
    given += ["--panel"] if args.panel_given else []
    if given:
        parser.error(f"--window draws the whole window; drop {', '.join(given)}")
    if not args.out or Path(args.out).suffix.lower() != ".png":
        parser.error("give --out FILE.png: the window is written as a PNG")
    lo, hi = SIZE_RANGE
    for name in ("width", "height"):
        value = getattr(args, name)
        if not lo <= value <= hi:
            parser.error(f"--{name} {value} is out of range ({lo}..{hi} pixels)")
    problem = unwritable(Path(args.out))
    if problem:
        print(f"attnviz export: cannot write {shown_path(args.out)}: {problem}", file=sys.stderr)
        return 1
    workspace = build_workspace(args, parser)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    require_working_binding()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from attnviz.ui import language
    from attnviz.ui.window_export import render_window

    lang = language.export_language(args.lang)
    if lang != "en" and not language.install_translations(app, lang):
        print(f"attnviz export: no translation for {lang}; using English", file=sys.stderr)
    image = render_window(
        workspace, args.width, args.height, large_fonts=args.large_fonts, theme=args.theme
    )
    if not image.save(str(args.out), "PNG"):
        print(f"attnviz export: could not write {shown_path(args.out)}", file=sys.stderr)
        return 1
    fonts = ", large fonts" if args.large_fonts else ""
    return print_output(
        f"wrote {shown_path(args.out)} (the window, {args.width}×"
        f"{args.height}{fonts}, {args.theme}, {lang})",
        "attnviz export",
    )
