"""The release of attnviz (a leaf: the model's session files and the About box read it
without importing the package's lazy :func:`attnviz.figure`)."""

__version__ = "0.1.0"
