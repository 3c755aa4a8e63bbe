"""A workspace: the document, its always-on attention resolver and the lazy resolvers.

Panels, exports and the command line all start from one: ``workspace.document`` holds the
fields, ``workspace.resolver`` the attention results, :meth:`Workspace.resolver_for` any lazy
resolver by its name (created on first use; computed only when looked at).
"""

from __future__ import annotations

import importlib

from attnviz.model.document import Document
from attnviz.model.events import Signal
from attnviz.model.panels import resolver_names
from attnviz.model.resolve import Resolver, Runner
from attnviz.model.resolve.lazy import LazyResolver

#: The resolvers, as the table of panels names them: ``attention`` (always on) and the lazy
#: ones (modules of :mod:`attnviz.model.resolve` with a ``RESOLVER``).
RESOLVER_NAMES = resolver_names()


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

    #: ``resolver_created(name, resolver)``: a lazy resolver was made (its first use).
    resolver_created = Signal(str, object)

    def __init__(self, document: Document | None = None, *, runner: Runner | None = None):
        self.document = document if document is not None else Document()
        self.runner = runner
        self.resolver = Resolver(self.document.attention, self.document.positions, runner=runner)
        self._lazy: dict[str, LazyResolver] = {}

    @property
    def state(self):
        """The attention topic (the first window's state)."""
        return self.document.attention

    def resolver_for(self, name: str) -> LazyResolver | Resolver:
        """The resolver ``name``, as a panel's row of :data:`attnviz.model.panels.PANELS`
        names it: ``attention``, the always-on :attr:`resolver`, or a lazy one,
        ``attnviz.model.resolve.<name>.RESOLVER``, made on first use. A resolver is named
        after what it resolves, which is not always a whole topic: ``gradient`` and
        ``heads`` read the attention topic, ``reach`` the reach topic (its ``TOPIC``)."""
        if name == "attention":
            return self.resolver
        if name not in RESOLVER_NAMES:
            raise ValueError(f"no resolver {name!r}; known: {', '.join(RESOLVER_NAMES)}")
        if name not in self._lazy:
            module = importlib.import_module(f"attnviz.model.resolve.{name}")
            self._lazy[name] = module.RESOLVER(self.document, self.runner)
            self.resolver_created.emit(name, self._lazy[name])
        return self._lazy[name]

    def existing_resolver(self, name: str) -> LazyResolver | Resolver | None:
        """The resolver ``name`` if something has asked for it (``attention`` always has
        been), else None (and its module stays unimported: the gradient's costs a start-up
        8 ms)."""
        if name == "attention":
            return self.resolver
        return self._lazy.get(name)
