"""Workspaces for the UI tests around an attention state a test made itself."""

from __future__ import annotations

from attnviz.model.document import Document
from attnviz.model.workspace import Workspace


def workspace_of(state) -> Workspace:
    """A workspace around the attention topic ``state`` (its resolver is the workspace's:
    ``workspace.resolver``)."""
    return Workspace(Document(attention=state))
