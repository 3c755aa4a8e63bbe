"""``attnviz bench [--quick] [--json]``: the performance figures of DESIGN.md.

The figures themselves live in :mod:`attnviz.benchmarks` (one module per area, found
automatically; see its docstring to add one). This module only picks, runs and prints them:
a readable table, or with ``--json`` one JSON object with one member per figure. A figure
that cannot run here says why (``{"skipped": ...}``); one that fails reports
``{"error": ...}`` and the command exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from attnviz.commands._args import print_output

EXAMPLES = """examples:
  attnviz bench --quick
  attnviz bench --only heatmap_update --only startup
  attnviz bench --json"""


def register(subparsers) -> None:
    """Add the ``bench`` subcommand."""
    p = subparsers.add_parser(
        "bench",
        help="measure the performance figures (overview map, tiled attention, UI, ...)",
        description="Measure attnviz's performance figures against the targets of DESIGN.md. "
        "Heavy figures run in child processes so that each peak memory is its own.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--quick", action="store_true", help="smaller sizes (n = 8192 overview): about a minute"
    )
    p.add_argument("--json", action="store_true", help="print JSON, one member per figure")
    p.add_argument(
        "--only",
        metavar="FIGURE",
        action="append",
        help="run only this figure (repeatable); default: all",
    )


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "-"
    return str(value)


def _rows(result: dict, prefix: str = ""):
    for key, value in result.items():
        if isinstance(value, dict):
            yield from _rows(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", _fmt(value)


def format_table(results: dict[str, dict]) -> str:
    """The figures as an indented key/value table, one block per figure."""
    lines = []
    for name, result in results.items():
        lines.append(name)
        rows = list(_rows(result))
        width = max((len(k) for k, _v in rows), default=0)
        lines.extend(f"  {k.ljust(width)}  {v}" for k, v in rows)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run the chosen figures in order; print them; 1 if any failed, 2 for an unknown name."""
    from attnviz.benchmarks import figures, run_figure

    available = figures()
    chosen = args.only or list(available)
    unknown = [n for n in chosen if n not in available]
    if unknown:
        print(
            f"attnviz bench: unknown figure {', '.join(unknown)}; known: {', '.join(available)}",
            file=sys.stderr,
        )
        return 2
    results: dict[str, dict] = {}
    for name in chosen:
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        results[name] = run_figure(available[name], quick=args.quick)
        print(f"bench: {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    text = json.dumps(results, indent=2) if args.json else format_table(results)
    if print_output(text, "attnviz bench"):
        return 1
    return 1 if any("error" in r for r in results.values()) else 0
