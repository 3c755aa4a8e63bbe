"""``attnviz models``: what opens, and whether a model folder does.

``attnviz models --families`` lists the families the tests prove open, with what the
heatmap shows of each (a table in :mod:`attnviz.core.hf_families`); any other family opens
too when its proof holds. ``attnviz models DIR`` opens a local Hugging Face folder as the
app does — checked, loaded, one sentence captured, every layer proven — and prints each
layer's kind and how long each stage took, or the one line that refuses it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from attnviz.commands._args import print_output, utf8_text
from attnviz.core.wording import counted

EXAMPLES = """examples:
  attnviz models --families
  attnviz models path/to/Qwen3-Next-80B-A3B --text "the bank of the river"
  attnviz models path/to/model --json"""
#: The sentence a folder is opened with when none is given.
DEFAULT_TEXT = "I sat on the bank of the river"


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``models`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "models",
        help="the model families known to open, or open one folder and prove it",
        description="With --families: the families the tests prove open, and what the "
        "heatmap shows of each (others open too when their proof holds). With a folder: open "
        "it as the app does, capture one sentence, prove every layer, and say each layer's "
        "kind and the time of each stage.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("folder", nargs="?", metavar="DIR", help="a local Hugging Face model folder")
    p.add_argument("--families", action="store_true", help="list the families known to open")
    p.add_argument("--text", default=DEFAULT_TEXT, type=utf8_text, help="the sentence to capture")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(_models_parser=p)
    return p


def _families(args) -> int:
    from attnviz.core.hf_families import TABLE

    if args.json:
        rows = [{"model_type": t, "kind": k, "shows": s} for t, (k, s) in sorted(TABLE.items())]
        return print_output(json.dumps(rows, ensure_ascii=False, indent=1), "attnviz models")
    width = max(len(t) for t in TABLE)
    lines = [f"{t.ljust(width)}  {k}  {s}" for t, (k, s) in sorted(TABLE.items())]
    lines.append(f"{len(TABLE)} families known to open; any other opens when its proof holds.")
    return print_output("\n".join(lines), "attnviz models")


def _open(args) -> int:
    from attnviz.core.hf_capture import ModelError, load_model
    from attnviz.model.model_proof import prove_capture
    from attnviz.model.real_model import prove_layer

    times = {}
    try:
        start = time.perf_counter()
        loaded = load_model(args.folder)
        times["load"] = time.perf_counter() - start
        start = time.perf_counter()
        # As the app does: a long sentence's layers are proven during the pass, while
        # their weights exist; that time is the proof's, not the capture's.
        during = [0.0]

        def check(lc, weights_of):
            t0 = time.perf_counter()
            try:
                return prove_layer(lc, weights_of)
            finally:
                during[0] += time.perf_counter() - t0

        cap = loaded.capture(args.text, check=check)
        times["capture"] = time.perf_counter() - start - during[0]
        start = time.perf_counter()
        prove_capture(cap)
        times["proof"] = time.perf_counter() - start + during[0]
    except ModelError as exc:
        print(f"attnviz models: {exc}", file=sys.stderr)
        return 1
    kinds = [cap.layer_kind(i) for i in range(cap.layer_count)]
    if args.json:
        out = {
            "name": cap.name,
            "model_type": loaded.info.model_type,
            "wrapper": cap.wrapper,
            "kind": cap.kind,
            "tokens": len(cap.tokens),
            "layers": kinds,
            "heads": cap.n_heads,
            "kv_heads": cap.n_kv_heads,
            "seconds": {k: round(v, 4) for k, v in times.items()},
        }
        return print_output(json.dumps(out, ensure_ascii=False, indent=1), "attnviz models")
    lines = [
        f"{cap.name}: {loaded.info.model_type} {cap.kind}"
        + (f", the language model of a {cap.wrapper} folder" if cap.wrapper else "")
        + f"; {counted(len(cap.tokens), 'token')}, {counted(cap.n_heads, 'head')} "
        + f"({cap.n_kv_heads} KV)",
    ]
    lines += [f"  layer {i}: {kind}" for i, kind in enumerate(kinds)]
    lines.append(
        "proven: every softmax layer is the model's own within 1e-4 · "
        + " · ".join(f"{k} {v:.3f} s" for k, v in times.items())
    )
    return print_output("\n".join(lines), "attnviz models")


def run(args) -> int:
    """List the families, or open and prove one folder; 0, or 1 when it is refused."""
    if args.families == (args.folder is not None):
        args._models_parser.error("give --families or a model folder (one of them)")
    return _families(args) if args.families else _open(args)
