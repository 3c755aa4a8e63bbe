"""A workspace: the document, its always-on attention resolver and the lazy resolvers.

Panels, exports and the command line all start from one: ``workspace.document`` holds the
fields, ``workspace.resolver`` the attention results, :meth:`Workspace.resolver_for` the
results of any other topic (created on first use; computed only when looked at).
"""

from __future__ import annotations

import importlib

from attnviz.model.document import Document
from attnviz.model.resolve import Resolver, Runner
from attnviz.model.resolve.lazy import LazyResolver


class Workspace:
    """Everything a window (or a headless export) works on.

    Parameters
    ----------
    document : Document, optional
        A fresh one when omitted.
    runner : Runner, optional
        Runs large recomputes elsewhere: the attention resolver's and those of the lazy
        resolvers that compute in the background (the UI passes its thread pool).
    """

    def __init__(self, document: Document | None = None, *, runner: Runner | None = None):
        self.document = document if document is not None else Document()
        self.runner = runner
        self.resolver = Resolver(self.document.attention, self.document.positions, runner=runner)
        self._lazy: dict[str, LazyResolver] = {}

    @property
    def state(self):
        """The attention topic (the first window's state)."""
        return self.document.attention

    def resolver_for(self, topic: str) -> LazyResolver:
        """The lazy resolver of ``topic`` (``attnviz.model.resolve.<topic>.RESOLVER``)."""
        if topic not in self._lazy:
            module = importlib.import_module(f"attnviz.model.resolve.{topic}")
            self._lazy[topic] = module.RESOLVER(self.document, self.runner)
        return self._lazy[topic]
