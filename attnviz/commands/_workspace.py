"""The workspace an ``attnviz export`` describes: defaults, preset, session, model, --set.

Shared by the panel, window and lesson exports. A real model's sentence is captured first
(saying how long it takes), so that the fields then find it done.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attnviz.commands._args import SAY_WORK_S, shorten


def _option(args) -> str:
    """The option that named the model folder, for its refusal."""
    return "--model" if getattr(args, "model", None) else "--set attention.model_path"


def _capture_first(args, parser, document) -> None:
    """Run the sentence through the model the options name before any field is set, so
    that a long capture says how long it takes (past ten seconds) and, on a terminal, the
    layer it is at; the fields then find it done. A refusal is the option's one line."""
    from attnviz.model import real_model
    from attnviz.model.document import parse_value
    from attnviz.model.fields import StateError

    sets = {}
    for item in args.set:
        name, sep, text = item.partition("=")
        if sep and name.strip() in (
            "attention.head",
            "attention.model_path",
            "attention.model_text",
        ):
            try:
                sets[name.strip()] = parse_value(text)
            except StateError:
                return  # the --set is refused in its own words below
    path = getattr(args, "model", None)
    if path is None and sets.get("attention.head", document.attention.head) == "model":
        path = sets.get("attention.model_path", document.attention.model_path)
    if not isinstance(path, str) or not path.strip():
        return
    try:
        path = real_model.normalize_path(path)  # a loop, a NUL, a name past NAME_MAX
    except real_model.ModelError as exc:
        parser.error(f"{_option(args)}: {exc}")
    text = getattr(args, "text", None)
    text = (
        text
        if text is not None
        else sets.get("attention.model_text", document.attention.model_text)
    )
    if not isinstance(text, str):
        return
    terminal, shown = sys.stderr.isatty(), []

    def progress(stage: str, done: int = 0, total: int = 0, estimate=None) -> None:
        if estimate is not None and estimate > SAY_WORK_S:
            print(
                f"attnviz export: the sentence through {Path(path).name} takes about "
                f"{estimate:.0f} s on this machine's CPU…",
                file=sys.stderr,
            )
        if terminal and total:
            shown.append(1)
            print(
                f"\r  layer {min(done + 1, total)} of {total}", end="", file=sys.stderr, flush=True
            )

    try:
        real_model.STORE.capture(path, text, progress)
    except real_model.ModelError as exc:
        parser.error(f"{_option(args)}: {exc}")
    finally:
        if shown:
            print(file=sys.stderr)


def build_workspace(args, parser: argparse.ArgumentParser):
    """The workspace the options describe: defaults, preset, session, then each --set."""
    from attnviz.model.document import parse_value
    from attnviz.model.fields import StateError
    from attnviz.model.session import SessionError, read_session
    from attnviz.model.topic_presets import document_preset_values
    from attnviz.model.workspace import Workspace

    workspace = Workspace()
    document = workspace.document
    if args.preset is not None:
        document.restore(document_preset_values(args.preset))
    if args.session is not None:
        try:
            snapshot, _layout = read_session(args.session)
            document.restore(snapshot)
        except (SessionError, StateError) as exc:
            parser.error(f"--session: {exc}")
    model = getattr(args, "model", None)
    text = getattr(args, "text", None)
    _capture_first(args, parser, document)
    if model is not None or text is not None:
        values = {} if text is None else {"model_text": text}
        if model is not None:
            from attnviz.core.builtin_models import resolve_model_path
            from attnviz.core.hf_errors import ModelError

            try:  # builtin:NAME is a shipped folder
                folder = resolve_model_path(model)
            except ModelError as exc:
                parser.error(f"--model: {exc}")
            values |= {"head": "model", "model_path": str(Path(folder).expanduser().resolve())}
        try:
            document.attention.update(**values)  # loads the model and runs the sentence
        except StateError as exc:
            parser.error(f"--model: {exc}" if model is not None else f"--text: {exc}")
    values = {}
    for item in args.set:
        path, sep, text = item.partition("=")
        if not sep or not path.strip():
            parser.error(f"--set {shorten(item)}: write TOPIC.FIELD=VALUE, e.g. attention.d_k=8")
        try:
            values[path.strip()] = parse_value(text)
        except StateError as exc:
            name = path.strip()
            parser.error(f"--set {name if len(name) <= 60 else shorten(name, 40)}: {exc}")
    try:
        document.set_fields(values)  # a topic's fields together, as a lesson step sets them
    except StateError as exc:
        parser.error(f"--set {exc}")
    return workspace
