"""``attnviz export``: any panel as PNG/SVG for slides, or its data arrays as CSV/NPY, headless.

The document starts from the defaults, then ``--preset`` and ``--session`` apply, then every
``--set TOPIC.FIELD=VALUE`` in order (VALUE is JSON when it parses, else text), so a slide
series is a shell loop::

    for d in 2 8 32 128; do
        attnviz export --preset banco --set attention.d_k=$d --out banco-$d.png
    done

``--animate TOPIC.FIELD=START:STOP[:log] --frames N --out FILE.gif`` (or .webp, .apng,
.mp4) draws the panel while the field moves, and ``--lesson ID --out FILE.gif`` plays a
lesson's steps as one animation (:mod:`attnviz.commands._animate_export`).

``--list-fields`` prints every topic's fields. The figure is the one the app draws; no
display is needed (Qt runs offscreen unless a platform is chosen), and ``.csv``/``.npy``
need no Qt at all. Bad arguments exit 2 with a one-line message naming what is wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from attnviz.commands._animate_export import (
    add_options,
    check_animation_options,
    is_animation,
    run_animation,
    run_lesson_animation,
)
from attnviz.commands._args import (
    SAY_WORK_S,
    SIZE_RANGE,
    announce_work,
    one_line_error,
    print_output,
    refused,
    unwritable,
    utf8_text,
)
from attnviz.commands._lesson_export import run_lesson
from attnviz.commands._window_export import run_window
from attnviz.commands._workspace import build_workspace
from attnviz.model.panels import panel_ids
from attnviz.model.safe_io import shown_path

EXTENSIONS = ("png", "svg", "csv", "npy")
#: What ``attnviz export`` draws without ``--panel``.
DEFAULT_PANEL = "heatmap"


EXAMPLES = """examples:
  attnviz export --preset banco --out banco.png
  attnviz export --preset lesson-sqrt-dk --set attention.scale=false --panel steps --out s.svg
  attnviz export --panel heatmap --matrix weights --out weights.csv
  attnviz export --panel positions --set positions.rope_type=yarn --out yarn.png
  attnviz export --lesson sqrt-dk --out slides/ --width 1280 --height 720 --large-fonts
  attnviz export --window --width 1280 --height 720 --large-fonts --out window.png
  attnviz export --animate attention.temperature=4:0.25:log --frames 12 --out temperature.gif
  attnviz export --panel positions --animate positions.position=0:16 --frames 17 --out rope.webp
  attnviz export --animate attention.d_k=1:32 --frames 32 --fps 16 --out d_k.mp4
  attnviz export --lesson sqrt-dk --hold 2.5 --width 1280 --height 720 --out sqrt-dk.gif
  attnviz export --list-fields"""


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "export",
        help="write a panel as PNG/SVG or its data as CSV/NPY, without a display",
        description="Export a panel as a PNG of an exact pixel size or an SVG, or one of its "
        "data arrays as CSV (with labels) or NPY, or an animation of it while fields sweep "
        "(GIF, WebP, APNG, MP4). The document starts from the defaults; --preset, --session "
        "and each --set apply in that order. The format follows the extension of --out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--preset", metavar="NAME", help="a preset id, e.g. banco or rope-clock")
    p.add_argument("--session", metavar="FILE", help="an .attnviz session applied on top")
    p.add_argument(
        "--model",
        metavar="DIR",
        help="a local Hugging Face model folder (safetensors), or builtin:induction; the "
        "heatmap shows its head "
        "attention.layer / attention.model_head (needs attnviz[models])",
    )
    p.add_argument(
        "--text", metavar="TEXT", type=utf8_text, help="the sentence run through --model"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TOPIC.FIELD=VALUE",
        help="set a field (repeatable); VALUE is JSON when it parses: 8, false, [0, 64]",
    )
    p.add_argument("--list-fields", action="store_true", help="print every topic's fields and exit")
    p.add_argument(
        "--json", action="store_true", help="with --list-fields: the fields as a JSON array"
    )
    p.add_argument(
        "--panel",
        metavar="PANEL",
        help=f"the panel: {', '.join(p for p in panel_ids() if p != 'lessons')} "
        f"(default {DEFAULT_PANEL})",
    )
    p.add_argument(
        "--matrix",
        metavar="NAME",
        help="the data array to write (heatmap: scores, weights, output, q, k, v)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="FILE.png, .svg, .csv or .npy; with --animate .gif, .webp, .apng, .mp4",
    )
    p.add_argument("--width", type=int, default=1920, metavar="W", help="pixels (default 1920)")
    p.add_argument("--height", type=int, default=1080, metavar="H", help="pixels (default 1080)")
    p.add_argument("--theme", choices=("light", "dark"), default="light", help="default light")
    p.add_argument(
        "--transparent",
        action="store_true",
        help="no background (PNG, SVG; animated WebP and APNG)",
    )
    p.add_argument(
        "--title",
        metavar="TEXT",
        help="figure title (default: formula and preset); with --animate, "
        "{TOPIC.FIELD} of a swept field shows each frame's value",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help="go on with work estimated at over a minute on this machine",
    )
    p.add_argument(
        "--lesson",
        metavar="ID",
        help="write every step of a lesson (attnviz lessons) as slides: --out is then a "
        "folder that receives 01.png, 02.png, …, as presentation mode shows them, or "
        "FILE.gif, .webp, .apng or .mp4: the steps as one animation, each held --hold seconds",
    )
    p.add_argument(
        "--lang",
        choices=("en", "pt_BR"),
        help="language of the slides and labels (default: ATTNVIZ_LANG, else en)",
    )
    p.add_argument(
        "--window",
        action="store_true",
        help="the whole main window as it opens on a --width × --height screen (a PNG)",
    )
    p.add_argument(
        "--large-fonts",
        action="store_true",
        help="with --window or --lesson: View → Large Fonts (Projector) on",
    )
    add_options(p)
    p.error = one_line_error.__get__(p)  # DESIGN: bad arguments get a one-line message
    p.set_defaults(_export_parser=p)
    return p


def _check(args, parser: argparse.ArgumentParser) -> str:
    """Validate what argparse cannot; return the output format."""
    from attnviz.model.topic_presets import all_preset_ids

    if args.preset is not None and args.preset not in all_preset_ids():
        parser.error(f"unknown preset {args.preset!r}; known: {', '.join(all_preset_ids())}")
    if args.panel not in panel_ids():
        parser.error(f"unknown panel {args.panel!r}; panels: {', '.join(panel_ids())}")
    if not args.out:
        parser.error("give --out FILE.png, .svg, .csv or .npy")
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


def _long_work(workspace, yes: bool) -> bool:
    """Say how long the overview will take before starting it (over ten seconds), refuse
    it past a minute unless ``yes``; then compute it with its progress on stderr when that
    is a terminal. False when refused (the one line is printed)."""
    from attnviz.model.resolve.long import overview_seconds

    resolver = workspace.resolver_for("long")
    if resolver.cached_overview() is not None:
        return True
    values = resolver.results.values  # as a real model's head makes them (its n, its M)
    seconds = overview_seconds(values)
    if seconds is None or seconds <= SAY_WORK_S:
        return True
    what = f"the overview of long.n = {values['n']:,} (d_k {values['d_k']})"
    if not announce_work(what, seconds, yes=yes):
        return False
    terminal = sys.stderr.isatty()

    def progress(fraction: float) -> None:
        if terminal:
            print(f"\r  {100 * fraction:5.1f} %", end="", file=sys.stderr, flush=True)

    resolver.overview_now(progress)
    if terminal:
        print(file=sys.stderr)
    return True


def _matrix_name(args, parser, workspace) -> str | None:
    from attnviz.model.panel_data import data_names, shown_data_name

    names = data_names(args.panel)
    if args.matrix is None:
        return shown_data_name(workspace, args.panel)
    if args.matrix not in names:
        known = ", ".join(names) or "none: this panel exports pictures only"
        parser.error(f"unknown --matrix {args.matrix!r} for panel {args.panel}; known: {known}")
    return args.matrix


def _list_fields(args) -> int:
    from attnviz.model.document import field_listing, field_records

    if args.json:
        text = json.dumps(field_records(), ensure_ascii=False, indent=1, allow_nan=False)
        return print_output(text, "attnviz export")
    return print_output(field_listing(), "attnviz export")


def _write_data_file(args, parser, workspace, matrix: str | None, out: Path) -> int:
    """A panel's data array as CSV or NPY (no QApplication, no platform plugin)."""
    from attnviz.model.panel_data import write_panel_data

    if matrix is None:
        parser.error(f"panel {args.panel} has no data arrays; export it as .png or .svg")
    try:
        # The data may not exist for these settings (X of a head typed by hand).
        data = write_panel_data(workspace, args.panel, matrix, out)[1]
    except (ValueError, MemoryError) as exc:
        print(f"attnviz export: {exc}", file=sys.stderr)
        return 1
    return print_output(
        f"wrote {shown_path(out)} ({args.panel} {matrix}, {data.values.shape})",
        "attnviz export",
    )


def _draw_picture(args, workspace, out: Path) -> int:
    """The panel as the app draws it, PNG or SVG, offscreen unless a platform is chosen."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
    from attnviz.ui.app import require_working_binding

    require_working_binding()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from attnviz.ui import language

    lang = language.export_language(args.lang)
    if lang != "en" and not language.install_translations(app, lang):  # and the decimal comma
        print(f"attnviz export: no translation for {lang}; using English", file=sys.stderr)
    from attnviz.model.fields import StateError
    from attnviz.model.panel_data import show_in_picture
    from attnviz.ui.export import ExportError, ExportSpec
    from attnviz.ui.panel_export import export_panel

    try:
        show_in_picture(workspace, args.panel, args.matrix)
    except StateError as exc:  # weights asked of a hybrid's Gated DeltaNet layer, …
        print(f"attnviz export: {exc}", file=sys.stderr)
        return 1
    spec = ExportSpec(args.width, args.height, args.theme, args.transparent, None, args.title)
    try:
        export_panel(workspace, args.panel, out, spec)
    except (ExportError, RuntimeError) as exc:
        print(f"attnviz export: {exc}", file=sys.stderr)
        return 1
    return print_output(
        f"wrote {shown_path(out)} ({args.panel}, {args.width}×{args.height}, {args.theme})",
        "attnviz export",
    )


def run(args) -> int:
    """Write the file ``--out`` names; 0 on success, 1 when it cannot be written."""
    parser = args._export_parser
    # Whether --panel was given: a lesson or the whole window refuses it.
    args.panel_given = args.panel is not None
    args.panel = args.panel or DEFAULT_PANEL
    if args.list_fields:
        return _list_fields(args)
    check_animation_options(args, parser)
    if getattr(args, "lesson", None) is not None:
        if args.window:
            parser.error("give --lesson or --window, not both")
        if is_animation(args.out):
            return run_lesson_animation(args, parser)
        return run_lesson(args, parser)
    if args.window:
        return run_window(args, parser)
    if args.large_fonts:
        parser.error("--large-fonts goes with --window or --lesson")
    if args.animate or is_animation(args.out):
        return run_animation(args, parser)
    ext = _check(args, parser)
    problem = unwritable(Path(args.out))
    if problem:
        print(f"attnviz export: cannot write {shown_path(args.out)}: {problem}", file=sys.stderr)
        return 1
    workspace = build_workspace(args, parser)
    matrix = _matrix_name(args, parser, workspace)
    out = Path(args.out)
    if refused(workspace, args.panel):
        return 1
    if args.panel == "overview" and not _long_work(workspace, args.yes):
        return 1
    if ext in ("csv", "npy"):
        return _write_data_file(args, parser, workspace, matrix, out)
    return _draw_picture(args, workspace, out)
