"""``attnviz kv``: KV-cache, weights and score-matrix memory of a model, as a table or JSON.

Either a shipped card (``--model llama-3-8b``), a Hugging Face ``config.json`` (``--config
FILE`` or the model's folder, read by :mod:`attnviz.core.hf_config`) or a card given by
flags (``--layers 32 --kv-heads 8 --head-dim 128 --heads 32``). The figures come from
:func:`attnviz.core.kvcache.kv_report`; this module only parses and prints. An encoder's
config (BERT) gets no cache priced: one line says an encoder keeps none, then its weights
and score matrix.
"""

from __future__ import annotations

import argparse
import json
import textwrap

from attnviz.commands._args import bounded_float, bounded_int, print_output
from attnviz.core.decode import MAX_BANDWIDTH_GBS, decode_report
from attnviz.core.hf_config import card_from_hf_config, is_encoder_config, read_hf_config
from attnviz.core.kvcache import (
    CARD_LIMITS,
    DTYPE_BYTES,
    MAX_BATCH,
    MAX_PARAMS,
    ModelCard,
    kv_report,
    model_card,
    model_cards,
)
from attnviz.core.kvcache import parse_tokens as _parse_tokens
from attnviz.core.wording import byte_count, counted

#: Card flags (dest names), which cannot be mixed with --model.
_CARD_FLAGS = (
    "layers",
    "heads",
    "kv_heads",
    "head_dim",
    "kv_lora_rank",
    "rope_head_dim",
    "attention_layers",
    "sliding_window",
    "sliding_layers",
    "params",
)


def _tokens(text: str) -> int:
    try:
        return _parse_tokens(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_LAYERS = bounded_int(1, CARD_LIMITS["layers"])
_HEADS = bounded_int(1, CARD_LIMITS["n_heads"])
_WIDTH = bounded_int(1, CARD_LIMITS["head_dim"])
_WINDOW = bounded_int(1, CARD_LIMITS["sliding_window"])
_BATCH = bounded_int(1, MAX_BATCH)
_PARAMS = bounded_float(0, MAX_PARAMS, what="a parameter count", example="8.03e9")
_BANDWIDTH = bounded_float(
    0, MAX_BANDWIDTH_GBS, what="a memory bandwidth in GB/s", example="3350 for an H100 SXM"
)


EXAMPLES = """examples:
  attnviz kv --list-models
  attnviz kv --model llama-3-8b --context 131072
  attnviz kv --model deepseek-v3 --context 32768 --batch 4 --dtype fp8
  attnviz kv --model llama-3-8b --context 128k --bandwidth 3350 --json
  attnviz kv --layers 32 --heads 32 --kv-heads 8 --head-dim 128 --context 8192 --json"""


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``kv`` subcommand to the ``attnviz`` parser."""
    p = subparsers.add_parser(
        "kv",
        help="KV-cache and score-matrix memory of a model",
        description="KV-cache bytes per token and at a context, weights and the n×n score "
        "matrix of a model, compared with the same model as MHA, GQA, MQA and MLA. "
        "Give --model NAME, a Hugging Face config.json (or the model's folder) with --config, "
        "or the card's shape with --layers, --kv-heads and --head-dim. An encoder (BERT) keeps "
        "no generation KV cache: its weights and score matrix are printed instead.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--model", metavar="NAME", help="a shipped model card (see --list-models)")
    p.add_argument(
        "--config",
        metavar="FILE",
        help="a Hugging Face config.json, or the model folder that holds it (instead of "
        "--model or the card flags)",
    )
    p.add_argument("--list-models", action="store_true", help="list the shipped cards and exit")
    card = p.add_argument_group("a card given by its shape (instead of --model)")
    card.add_argument("--layers", type=_LAYERS, metavar="L", help="every layer")
    card.add_argument("--heads", type=_HEADS, metavar="N", help="query heads (default: --kv-heads)")
    card.add_argument("--kv-heads", type=_HEADS, metavar="H", help="key/value heads")
    card.add_argument("--head-dim", type=_WIDTH, metavar="D", help="width of one head")
    card.add_argument("--kv-lora-rank", type=_WIDTH, metavar="R", help="MLA latent rank")
    card.add_argument(
        "--rope-head-dim", type=_WIDTH, metavar="P", help="MLA decoupled RoPE key width"
    )
    card.add_argument(
        "--attention-layers",
        type=_LAYERS,
        metavar="A",
        help="layers with a KV cache, for hybrids (default: all)",
    )
    card.add_argument(
        "--sliding-window",
        type=_WINDOW,
        metavar="W",
        help="tokens a sliding-window layer keeps",
    )
    card.add_argument(
        "--sliding-layers",
        type=_LAYERS,
        metavar="S",
        help="attention layers that use the window (default: all of them)",
    )
    card.add_argument(
        "--params", type=_PARAMS, metavar="COUNT", help="parameter count, e.g. 8.03e9"
    )
    p.add_argument(
        "--context",
        type=_tokens,
        metavar="N",
        help="tokens per sequence: 131072, 128k, 1M (default: the card's context)",
    )
    p.add_argument(
        "--batch",
        type=_BATCH,
        default=1,
        metavar="B",
        help="sequences held at once (default 1)",
    )
    p.add_argument(
        "--dtype",
        choices=tuple(DTYPE_BYTES),
        default="bf16",
        help="element type of the cache and weights (default bf16)",
    )
    p.add_argument(
        "--bandwidth",
        type=_BANDWIDTH,
        metavar="GBPS",
        help="GPU memory bandwidth in GB/s (3350 for an H100 SXM): adds the decode ceiling, "
        "tokens/s at batch 1 = bandwidth / (weights + KV cache + recurrent state)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(_kv_parser=p)
    return p


#: The line for an encoder's config, in place of a cache it does not keep.
NO_ENCODER_CACHE = (
    "an encoder keeps no generation KV cache: it reads the whole sequence at once and "
    "generates no token (its weights and score matrix follow)"
)


def _config_card(args, parser: argparse.ArgumentParser) -> tuple[ModelCard, bool]:
    """The card of ``--config`` (a file or a model folder) and whether it is an encoder."""
    try:
        data, origin, name = read_hf_config(args.config)
        return card_from_hf_config(data, name, origin=origin), is_encoder_config(data)
    except ValueError as exc:
        parser.error(f"--config: {exc}")


def _card(args, parser: argparse.ArgumentParser) -> tuple[ModelCard, bool]:
    """The card the arguments describe, and whether it is an encoder's (a config's only)."""
    given = [f"--{name.replace('_', '-')}" for name in _CARD_FLAGS if getattr(args, name)]
    if args.config is not None:
        if args.model:
            parser.error("--config cannot be combined with --model")
        if given:
            parser.error(f"--config cannot be combined with {', '.join(given)}")
        return _config_card(args, parser)
    if args.model:
        if given:
            parser.error(f"--model cannot be combined with {', '.join(given)}")
        try:
            return model_card(args.model), False
        except ValueError as exc:
            parser.error(str(exc))
    missing = [
        f"--{n.replace('_', '-')}"
        for n in ("layers", "kv_heads", "head_dim")
        if getattr(args, n) is None
    ]
    if missing:
        parser.error(
            "give --model NAME, --config FILE, or a card with --layers, --kv-heads and --head-dim "
            f"(missing: {', '.join(missing)})"
        )
    attention = args.attention_layers or args.layers
    sliding = args.sliding_layers
    if args.sliding_window and sliding is None:
        sliding = attention  # a window with no layer count most often means every layer
    try:
        card = ModelCard(
            name="custom",
            layers=args.layers,
            n_heads=args.heads or args.kv_heads,
            n_kv_heads=args.kv_heads,
            head_dim=args.head_dim,
            kv_lora_rank=args.kv_lora_rank,
            rope_head_dim=args.rope_head_dim,
            attention_layers=attention,
            sliding_window=args.sliding_window,
            sliding_layers=sliding or 0,
            params=args.params,
        )
    except ValueError as exc:
        parser.error(str(exc))
    return card, False


def format_binary(n: float) -> str:
    """``131072`` → ``"128 KiB"``, ``17179869184`` → ``"16 GiB"`` (powers of 1024)."""
    return _scaled(n, 1024, ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"))


def format_decimal(n: float) -> str:
    """``34359738368`` → ``"34.36 GB"`` (powers of 1000, as disk and GPU makers count)."""
    return _scaled(n, 1000, ("bytes", "kB", "MB", "GB", "TB", "PB"))


def _scaled(n: float, base: int, units) -> str:
    value, unit = float(n), units[0]
    for unit in units:
        if abs(value) < base or unit == units[-1]:
            break
        value /= base
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    if unit == "bytes" and text == "1":
        unit = "byte"
    return f"{text} {unit}"


def _sizes(*texts: str) -> str:
    """``texts`` joined by `` = ``, each said once: 256 bytes are not "256 bytes = 256
    bytes" (a text equal to one before it but for its thousands commas is left out)."""
    shown: list[str] = []
    for text in texts:
        if text.replace(",", "") not in (t.replace(",", "") for t in shown):
            shown.append(text)
    return " = ".join(shown)


def _both(n: float) -> str:
    return _sizes(format_binary(n), format_decimal(n))


def _exact_and_both(n: float) -> str:
    """``17,179,869,184 bytes = 16 GiB = 17.18 GB``; ``256 bytes`` alone."""
    return _sizes(byte_count(n), format_binary(n), format_decimal(n))


def _count(params: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if params >= scale:
            return f"{params / scale:.3g}{suffix}"
    return f"{params:,.0f}"


def _shape(card: dict, kind: str | None) -> list[str]:
    """The card's layers and heads in words; ``kind`` None for an encoder (no KV heads to
    speak of: its keys and values are not kept)."""
    layers = counted(card["layers"], "layer")
    if card["attention_layers"] == card["layers"]:
        layers += ", all with attention" if card["layers"] > 1 else ", with attention"
    else:
        rest = card["layers"] - card["attention_layers"]
        layers += f", {card['attention_layers']:,} with attention ({rest:,} linear/state-space)"
    if card["sliding_layers"]:
        window = counted(card["sliding_window"], "token")
        layers += f", {card['sliding_layers']:,} of them sliding-window ({window})"
    if kind is None:
        heads = f"{counted(card['n_heads'], 'head')} · head_dim {card['head_dim']}"
    elif kind == "MLA":
        heads = (
            f"{counted(card['n_heads'], 'query head')} · MLA latent {card['kv_lora_rank']} + "
            f"{card['rope_head_dim'] or 0} per layer"
        )
    else:
        heads = (
            f"{counted(card['n_heads'], 'query head')}, "
            f"{counted(card['n_kv_heads'], 'KV head')} ({kind}) · head_dim {card['head_dim']}"
        )
    return [layers, heads]


def _setting(r: dict) -> str:
    bpe = r["bytes_per_element"]
    return (
        f"  {r['dtype']} ({bpe:g} byte{'' if bpe == 1 else 's'} per element) · context "
        f"{counted(r['context'], 'token')} · batch {r['batch']}"
    )


def _title(card: dict) -> str:
    return card["name"] + (f"  [{card['id']}]" if card.get("id") else "")


def _weights_and_scores(r: dict) -> list[tuple[str, str]]:
    """The rows of the weights and of one head's score matrix."""
    card, n = r["model"], r["context"]
    if r["weights_bytes"] is not None:
        rows = [(f"weights ({_count(card['params'])} params)", _exact_and_both(r["weights_bytes"]))]
    else:
        rows = [("weights", "unknown (no parameter count)")]
    s = r["score_matrix"]
    rows.append(("score matrix S", f"{n:,}² = {counted(s['entries'], 'entry', 'entries')}"))
    rows.append(
        ("", f"one head of one layer in {8 * s['bytes_per_element']}-bit: {_both(s['bytes'])}")
    )
    layers = s["full_layers"] + s["sliding_layers"]
    if s["heads"] > 1 or layers > 1:
        where = f"{s['full_layers']:,} full-attention"
        if s["sliding_layers"]:
            where += f" + {s['sliding_layers']:,} sliding-window"
        rows.append(
            (
                "",
                f"× {counted(s['heads'], 'head')} × {where} "
                f"{'layer' if layers == 1 else 'layers'} = "
                f"{counted(s['total_entries'], 'entry', 'entries')}",
            )
        )
    return rows


#: How each decode ceiling differs from the card, in the table.
_CEILING_NAMES = {
    "card": "this card",
    "MHA": "as MHA",
    "GQA": "as GQA",
    "MQA": "as MQA",
    "MLA": "as MLA",
    "fp8": "fp8 weights, cache and state",
    "dense": "every layer with attention",
}


def _decode_lines(r: dict) -> list[str]:
    """The decode ceiling and what each design makes of it (only with --bandwidth)."""
    if "bandwidth_gbs" not in r:
        return []
    bw = r["bandwidth_gbs"]
    if r["decode_tokens_per_s"] is None:
        return ["", f"  decode at {bw:,g} GB/s: unknown (no parameter count for the weights)"]
    lines = [
        "",
        f"  Decode ceiling at {bw:,g} GB/s, batch {r['batch']}: each token reads the weights,",
        "  the KV cache and the recurrent state once (a bandwidth-bound ceiling):",
    ]
    table = [("", "reads per token", "tokens/s")]
    for c in r["decode_ceilings"]:
        table.append(
            (
                _CEILING_NAMES[c["kind"]],
                format_decimal(c["bytes_per_step"]),
                f"{c['tokens_per_s']:,.1f}",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        lines.append(
            "  "
            + f"{row[0].ljust(widths[0])}  {row[1].rjust(widths[1])}  {row[2].rjust(widths[2])}"
        )
    return lines


def _table(rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(label) for label, _ in rows) + 3
    return [f"  {label.ljust(width)}{value}" for label, value in rows]


def _source(card: dict) -> list[str]:
    if not card.get("source"):
        return []
    return [
        "",
        *textwrap.wrap(
            "source: " + card["source"], 96, initial_indent="  ", subsequent_indent="    "
        ),
    ]


def format_report(r: dict) -> str:
    """The readable table of ``attnviz kv`` for one :func:`kv_report` result."""
    card, dtype, n = r["model"], r["dtype"], r["context"]
    per_token = r["kv_bytes_per_token"]
    lines = [_title(card), *("  " + s for s in _shape(card, r["attention"])), _setting(r)]
    rows = [
        ("KV cache per token", _sizes(byte_count(per_token), format_binary(per_token))),
        ("KV cache at context", _exact_and_both(r["kv_cache_bytes"])),
    ]
    sliding = r["cached_tokens_per_layer"]["sliding"]
    if sliding is not None:
        rows.append(("", f"(sliding layers hold {counted(sliding, 'token')}, the others {n:,})"))
    if r["recurrent_state_bytes"]:
        c = r["model"]
        rows.append(("recurrent state", f"{_exact_and_both(r['recurrent_state_bytes'])}"))
        rows.append(
            (
                "",
                f"at any context: {c['layers'] - c['attention_layers']:,} layers × "
                f"({c['state_elements']:,} + {c['conv_elements']:,} elements)",
            )
        )
    rows += _weights_and_scores(r)
    lines += ["", *_table(rows)]
    lines += _decode_lines(r)
    lines += [
        "",
        f"  The same model with other attention designs ({dtype}, {counted(n, 'token')}):",
    ]
    table = [("design", "cached per layer and token", "per token", "at context", "vs card")]
    for v in r["variants"]:
        if v["latent"]:
            what = f"latent {v['latent'][0]} + {v['latent'][1]}"
        else:
            what = counted(v["n_kv_heads"], "KV head")
        table.append(
            (
                v["design"] + (" *" if v["is_card"] else ""),
                what,
                format_binary(v["kv_bytes_per_token"]),
                _both(v["kv_cache_bytes"]),
                f"{v['ratio']:.3g}×",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        lines.append(
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        )
    lines.append("  (* = this card)")
    lines += _source(card)
    return "\n".join(lines)


def encoder_report(r: dict) -> dict:
    """``r`` for an encoder: no cache priced (``encoder`` true, the cache figures None and
    no variants), the weights and the score matrix kept."""
    return {
        **r,
        "encoder": True,
        "kv_cache": NO_ENCODER_CACHE,
        "attention": None,
        "kv_bytes_per_token": None,
        "kv_cache_bytes": None,
        "cached_tokens_per_layer": None,
        "variants": [],
    }


def format_encoder_report(r: dict) -> str:
    """The readable report of an encoder: what it keeps instead of a cache."""
    card = r["model"]
    lines = [_title(card), f"  {NO_ENCODER_CACHE}"]
    lines += [*("  " + s for s in _shape(card, None)), _setting(r), ""]
    lines += _table(_weights_and_scores(r))
    lines += _source(card)
    return "\n".join(lines)


def _list_models() -> str:
    cards = model_cards()
    width = max(map(len, cards))
    return "\n".join(
        f"{cid.ljust(width)}  {c.name} ({c.attention_kind}, {counted(c.layers, 'layer')})"
        for cid, c in sorted(cards.items())
    )


def run(args) -> int:
    """Print the report for the card the arguments describe; 0 on success."""
    parser = args._kv_parser
    if args.list_models:
        return print_output(_list_models(), "attnviz kv")
    card, encoder = _card(args, parser)
    context = args.context or card.context
    if context is None:
        parser.error("--context is required (this card has no context of its own)")
    report = kv_report(card, context, batch=args.batch, dtype=args.dtype)
    if args.bandwidth is not None and not encoder:
        report |= decode_report(report, card, args.bandwidth)
    if encoder:
        report = encoder_report(report)
        text = json.dumps(report, indent=2) if args.json else format_encoder_report(report)
        return print_output(text, parser.prog)
    report["encoder"] = False
    text = json.dumps(report, indent=2) if args.json else format_report(report)
    return print_output(text, parser.prog)
