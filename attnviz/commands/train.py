"""``attnviz train induction``: grow induction heads in a small decoder on this CPU.

Trains the 2-layer Llama-style model of :mod:`attnviz.core.induction` on random word
sequences repeated twice and writes a folder attnviz and transformers both open (with
``training.csv``, the curves, and ``TRAINED_WITH.json``, which torch made it). The time is
said before it starts; a terminal sees the curves as they are measured; Ctrl-C stops with
nothing written (the folder is written beside ``--out`` and renamed when whole).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from attnviz.commands._args import about, bounded_int, print_output, stop_on_interrupt

# The check lives in core: the Train window (attnviz.ui.train_dialog) asks it too.
from attnviz.core.induction import MAX_SEED, out_problem

PROG = "attnviz train"
EXAMPLES = """examples:
  attnviz train induction --out induction-model
  attnviz train induction --out seed7 --seed 7 --steps 1500
  attnviz train induction --out plateau --steps 300

Open the folder with attnviz --model DIR; builtin:induction is the shipped seed 0."""

#: What can be trained.
WHAT = ("induction",)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``train`` subcommand to the ``attnviz`` parser."""
    from attnviz.core.induction import DEFAULT_STEPS, MAX_STEPS

    p = subparsers.add_parser(
        "train",
        help="train a small decoder until induction heads form (torch, CPU)",
        description="Train a 2-layer Llama-style decoder (hidden size 64, 2 heads, a "
        "vocabulary of about a hundred words) on random word sequences repeated twice, until "
        "a previous-token head and an induction head copy the repeat; write it as a model "
        "folder attnviz and transformers open, with DIR/training.csv (step, loss, the best "
        "previous-token and induction scores, copy accuracy). The same seed gives the same "
        "weights on the same machine and torch.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("what", choices=WHAT, help="what to train (induction)")
    p.add_argument("--out", metavar="DIR", required=True, help="the model folder to write (new)")
    p.add_argument(
        "--seed", type=bounded_int(0, MAX_SEED), default=0, metavar="S", help="default 0"
    )
    p.add_argument(
        "--steps",
        type=bounded_int(1, MAX_STEPS),
        default=DEFAULT_STEPS,
        metavar="N",
        help=f"training steps (default {DEFAULT_STEPS:,})",
    )
    return p


def run(args) -> int:
    """Train and write the folder; 0, 2 with one line on a refusal, 130 when interrupted."""
    from attnviz.model.safe_io import shown_path

    parser = args._command_parser
    out = Path(args.out).expanduser()
    problem = out_problem(out)
    if problem:
        parser.error(f"--out {shown_path(str(args.out))}: {problem}")
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401

        from attnviz.core import induction
    except ImportError as exc:
        print(
            f"{PROG}: training needs torch and transformers ({exc.name} is missing): "
            'pip install "attnviz[models]"',
            file=sys.stderr,
        )
        return 1
    from attnviz.core.work import Cancelled

    steps = args.steps
    terminal = sys.stderr.isatty()

    def progress(curve, seconds: float) -> None:
        if terminal:
            left = seconds / curve.step * (steps - curve.step)
            print(
                f"\r  step {curve.step:,} of {steps:,}  loss {curve.loss:.3f}  "
                f"previous-token {curve.previous_token:.2f}  induction {curve.induction:.2f}  "
                f"copy {100 * curve.copy_accuracy:3.0f} %  ({left:.0f} s left) ",
                end="",
                file=sys.stderr,
                flush=True,
            )

    stop = threading.Event()
    try:  # the estimate inside: a Ctrl-C from its line on is an interrupt, not a traceback
        print(
            f"{PROG}: {steps:,} steps take {about(induction.estimate_seconds(steps))} "
            "on one CPU thread…",
            file=sys.stderr,
            flush=True,
        )
        with stop_on_interrupt(stop):
            result = induction.train(args.seed, steps, progress=progress, cancel=stop.is_set)
            written = induction.write_folder(result, out)
    except (Cancelled, KeyboardInterrupt):
        if terminal:
            print(file=sys.stderr)
        print(f"{PROG}: interrupted; nothing written", file=sys.stderr)
        return 130
    except OSError as exc:
        print(
            f"{PROG}: cannot write {shown_path(str(out))}: {exc.strerror or exc}", file=sys.stderr
        )
        return 1
    if terminal:
        print(file=sys.stderr)
    last = result.curves[-1]
    change = induction.phase_change_step(result.curves)
    lines = [
        f"wrote {written} in {result.seconds:.0f} s",
        f"  loss {last.loss:.3f}  previous-token {last.previous_token:.2f}  "
        f"induction {last.induction:.2f}  copy accuracy {100 * last.copy_accuracy:.0f} %",
        f"  induction passed 0.5 at step {change:,}"
        if change
        else "  induction never passed 0.5: train longer (--steps) or another --seed",
        f"  open it: attnviz --model {written}",
    ]
    return print_output("\n".join(lines), PROG)
