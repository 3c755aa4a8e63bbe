"""Figures measured by ``attnviz bench``, one module per area."""
