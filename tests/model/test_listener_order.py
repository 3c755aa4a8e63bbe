"""Model listeners (the document's forwarding, the history, the resolvers) run before any
view, whatever order they connected in: a view that reads results while it handles a
change reads results that already follow it."""

from __future__ import annotations

import pytest

from attnviz.model import events
from attnviz.model.document import Document
from attnviz.model.history import History
from attnviz.model.workspace import Workspace


def test_phases_run_model_listeners_first_in_connection_order_within_each():
    class Source:
        fired = events.Signal(int)

    src, seen = Source(), []
    src.fired.connect(lambda x: seen.append(("view-1", x)))
    src.fired.connect(lambda x: seen.append(("model-1", x)), phase=events.MODEL)
    src.fired.connect(lambda x: seen.append(("view-2", x)))
    src.fired.connect(lambda x: seen.append(("model-2", x)), phase=events.MODEL)
    src.fired.emit(7)
    assert seen == [("model-1", 7), ("model-2", 7), ("view-1", 7), ("view-2", 7)]
    seen.clear()
    src.fired.emit(8, phase=events.VIEW)
    assert seen == [("view-1", 8), ("view-2", 8)]
    with pytest.raises(ValueError, match="phase"):
        src.fired.connect(print, phase=5)


def test_a_view_connected_before_the_resolvers_reads_results_that_follow_the_change():
    document = Document()
    read = {}

    def attention_view(_names):
        read["weights"] = workspace.resolver.results.q.shape

    def long_view(topic, _names):
        if topic == "long":
            read["n"] = workspace.resolver_for("long").results.values["n"]

    def history_view(_topic, _names):
        read["undo"] = history.can_undo

    # Connected first, as a panel made before its resolver would be.
    document.attention.changed.connect(attention_view)
    document.changed.connect(long_view)
    document.changed.connect(history_view)
    workspace = Workspace(document)
    history = History(document)
    assert workspace.resolver_for("long").results.values["n"] == 4096  # read: not stale
    document.long.update(n=1024, bins=64)
    assert read["n"] == 1024 and read["undo"]
    tokens = [*document.attention.tokens, "mais"]
    document.attention.update(tokens=tokens)
    assert read["weights"][0] == len(tokens)
