"""Headless subcommands of the ``attnviz`` command line, one module each."""
