"""Figures for notebooks and scripts: :func:`attnviz.figure` (see :mod:`.figures`), and a
decoder's next tokens: :func:`attnviz.generate` (see :mod:`.generation`).

Importing this package imports no Qt; the first picture does, and makes an offscreen
``QApplication`` when none runs.
"""

from attnviz.notebook.figures import Figure, figure
from attnviz.notebook.generation import generate
from attnviz.notebook.options import FigureError

__all__ = ["Figure", "FigureError", "figure", "generate"]
