"""``attnviz export``: a heatmap for slides (PNG, SVG) or its matrix (CSV, NPY), headless.

The figure is the one the app draws for the same preset (and session); no display is
needed: Qt runs on its offscreen platform unless one is chosen. Bad arguments exit 2 with
a one-line message: unknown preset (the known ones are listed), unknown panel,
unsupported extension, size out of range.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

EXTENSIONS = ("png", "svg", "csv", "npy")
PANELS = ("heatmap",)
SIZE_RANGE = (16, 8192)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "export",
        help="write a heatmap as PNG/SVG or its matrix as CSV/NPY, without a display",
        description="Export the heatmap of a preset (optionally with a saved session "
        "applied) as a PNG of an exact pixel size or an SVG, or its matrix as CSV (with "
        "token headers) or NPY. The format follows the extension of --out.",
    )
    p.add_argument("--preset", metavar="NAME", help="a preset id, e.g. banco")
    p.add_argument("--session", metavar="FILE", help="an .attnviz session applied on top")
    p.add_argument(
        "--panel", default="heatmap", metavar="PANEL", help="the panel to export (heatmap)"
    )
    p.add_argument(
        "--matrix",
        choices=("scores", "weights", "output"),
        help="S, A or O (default: what the preset or session shows)",
    )
    p.add_argument("--out", required=True, metavar="FILE", help="FILE.png, .svg, .csv or .npy")
    p.add_argument("--width", type=int, default=1920, metavar="W", help="pixels (default 1920)")
    p.add_argument("--height", type=int, default=1080, metavar="H", help="pixels (default 1080)")
    p.add_argument("--theme", choices=("light", "dark"), default="light", help="default light")
    p.add_argument("--transparent", action="store_true", help="no background (PNG, SVG)")
    p.add_argument("--title", metavar="TEXT", help="figure title (default: formula and preset)")
    p.error = _one_line_error.__get__(p)  # DESIGN: bad arguments get a one-line message
    p.set_defaults(_export_parser=p)
    return p


def _one_line_error(parser: argparse.ArgumentParser, message: str):
    """Exit 2 with ``attnviz export: error: <message>`` and nothing more."""
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    sys.exit(2)


def _check(args, parser: argparse.ArgumentParser) -> str:
    """Validate what argparse cannot; return the output format."""
    from attnviz.model.presets import preset_ids

    if args.preset is None and args.session is None:
        parser.error("give --preset NAME (and optionally --session FILE)")
    if args.preset is not None and args.preset not in preset_ids():
        parser.error(f"unknown preset {args.preset!r}; known: {', '.join(preset_ids())}")
    if args.panel not in PANELS:
        parser.error(f"unknown panel {args.panel!r}; exportable: {', '.join(PANELS)}")
    ext = Path(args.out).suffix.lower().lstrip(".")
    if ext not in EXTENSIONS:
        known = ", ".join(f".{e}" for e in EXTENSIONS)
        parser.error(f"unsupported extension of --out {args.out!r}; use {known}")
    lo, hi = SIZE_RANGE
    for name in ("width", "height"):
        value = getattr(args, name)
        if not lo <= value <= hi:
            parser.error(f"--{name} {value} is out of range ({lo}..{hi} pixels)")
    return ext


def _state(args, parser: argparse.ArgumentParser):
    from attnviz.model.presets import load_preset, preset_state_values
    from attnviz.model.session import SessionError, read_session
    from attnviz.model.state import AttentionState, StateError

    state = AttentionState()
    if args.preset is not None:
        state.update(**preset_state_values(load_preset(args.preset)))
    if args.session is not None:
        try:
            values, _layout = read_session(args.session)
            state.update(**values)
        except (SessionError, StateError) as exc:
            parser.error(f"--session: {exc}")
    if args.matrix is not None:
        state.update(matrix=args.matrix)
    return state


def run(args) -> int:
    """Write the file ``--out`` names; 0 on success, 1 when it cannot be written."""
    parser = args._export_parser
    ext = _check(args, parser)
    state = _state(args, parser)
    from attnviz.model.resolve import Resolver
    from attnviz.ui.app import require_working_binding
    from attnviz.ui.export import ExportError

    results = Resolver(state, auto=False).results
    out = Path(args.out)
    try:
        if ext in ("csv", "npy"):
            # A matrix file needs no QApplication and no platform plugin.
            from attnviz.ui.export import write_csv, write_npy

            (write_csv if ext == "csv" else write_npy)(state, results, out)
            print(f"wrote {out} ({state.matrix}, {results.matrix(state.matrix).shape})")
            return 0
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
        require_working_binding()
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841
        from attnviz.ui.export import ExportSpec, export

        spec = ExportSpec(args.width, args.height, args.theme, args.transparent, None, args.title)
        export(state, results, out, spec)
    except (ExportError, RuntimeError) as exc:
        print(f"attnviz export: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({args.width}×{args.height}, {args.theme})")
    return 0
