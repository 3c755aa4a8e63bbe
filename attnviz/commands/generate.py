"""``attnviz generate``: a local decoder's next tokens, as the prediction panel's Generate.

The document is built as ``attnviz export`` builds it (defaults, ``--preset``,
``--session``, ``--model``/``--text``, each ``--set``); the prediction topic's sampling
(temperature, top-k, top-p) and interventions (ablated heads, cut links) apply, and
``--count``/``--seed`` stand for ``prediction.count``/``prediction.seed`` (a seed < 0, the
default, is greedy). Work past ten seconds is said before it starts; Ctrl-C stops after the
token being made and prints the ones made so far.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading

from attnviz.commands._args import (
    about,
    bounded_int,
    print_output,
    stop_on_interrupt,
    utf8_text,
)

EXAMPLES = """examples:
  attnviz generate --model path/to/Qwen3-0.6B --text "The capital of France is" --count 8
  attnviz generate --model DIR --text "…" --count 20 --seed 7 --set prediction.temperature=0.7
  attnviz generate --model DIR --text "…" --set 'prediction.ablate=[[1, 2]]' --json"""
PROG = "attnviz generate"


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``generate`` subcommand to the ``attnviz`` parser."""
    from attnviz.model.topics.prediction import MAX_COUNT, MAX_SEED

    p = subparsers.add_parser(
        "generate",
        help="a local decoder's next tokens, greedy or sampled, with heads or links off",
        description="Append tokens to --text as the prediction panel's Generate does: greedy "
        "or sampled with a seed from the distribution the prediction topic sets (temperature, "
        "top-k, top-p), with its ablated heads and cut links applied inside the model's "
        "forward pass. The sentence is run whole for each token (no cache), as attnviz proves it.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", metavar="DIR",
                   help="a local Hugging Face decoder folder, or builtin:induction")  # fmt: skip
    p.add_argument("--text", metavar="TEXT", type=utf8_text, help="the sentence to continue")
    p.add_argument("--count", type=bounded_int(1, MAX_COUNT), metavar="N",
                   help=f"tokens to append (1…{MAX_COUNT}; default prediction.count)")  # fmt: skip
    p.add_argument("--seed", type=bounded_int(-1, MAX_SEED), metavar="S",
                   help="sample with this seed; -1 greedy (default prediction.seed)")  # fmt: skip
    p.add_argument("--preset", metavar="NAME", help="a preset id applied first")
    p.add_argument("--session", metavar="FILE", help="an .attnviz session applied on top")
    p.add_argument("--set", action="append", default=[], metavar="TOPIC.FIELD=VALUE",
                   help="set a field (repeatable), e.g. prediction.top_k=5")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(_generate_parser=p)
    return p


def run(args) -> int:
    """Generate and print the tokens; 0, or 2 with one line on a refusal."""
    from attnviz.commands._args import SAY_WORK_S
    from attnviz.commands._workspace import build_workspace
    from attnviz.model.generation import (
        PredictionError,
        generate_in,
        generation_settings,
        token_seconds,
    )

    parser = args._generate_parser
    workspace = build_workspace(args, parser)
    settings = generation_settings(workspace, count=args.count, seed=args.seed)
    count = settings["count"]
    try:
        seconds = token_seconds(workspace) * count
    except PredictionError as exc:
        parser.error(str(exc))
    terminal = sys.stderr.isatty()
    if seconds > SAY_WORK_S:
        print(f"{PROG}: {count} tokens take {about(seconds)} on this machine's CPU…",
              file=sys.stderr)  # fmt: skip

    def progress(fraction: float) -> None:
        if terminal:
            done = round(fraction * count)
            print(f"\r  token {done} of {count}", end="", file=sys.stderr, flush=True)

    stop = threading.Event()
    try:
        with stop_on_interrupt(stop):
            found = generate_in(
                workspace, count=args.count, seed=args.seed, stop=stop.is_set, progress=progress
            )
    except PredictionError as exc:
        parser.error(str(exc))
    finally:
        if terminal:
            print(file=sys.stderr)
    prompt = workspace.document.attention.model_text
    if args.json:
        out = {
            "model": workspace.document.attention.model_path,
            "prompt": prompt,
            "text": found.text,
            "tokens": list(found.tokens),
            "ids": list(found.ids),
            "probs": list(found.probs),
            "stopped": found.stopped,
            "ended": found.ended,
            **{k: (list(map(list, v)) if k in ("ablate", "knockout") else v)
               for k, v in settings.items()},
        }  # fmt: skip
        return print_output(json.dumps(out, ensure_ascii=False, indent=1), PROG)
    lines = [found.text]
    for token, p in zip(found.tokens, found.probs, strict=True):
        lines.append(f"  {token!r}  p = {p:.4f}")
    if found.ended:
        lines.append("the model ended the sequence")
    elif found.stopped:
        lines.append(f"stopped after {len(found.ids)} of {count} tokens")
    return print_output("\n".join(lines), PROG)
