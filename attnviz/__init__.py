"""attnviz: live, touchable panels for the attention mechanism of transformers.

Three layers, one direction: :mod:`attnviz.core` (numbers), :mod:`attnviz.model`
(Qt-free application state) and :mod:`attnviz.ui` (Qt). :func:`attnviz.figure` draws any
panel for a notebook or a script (:mod:`attnviz.notebook`); it is imported on first use,
so ``import attnviz.core`` stays free of Qt and of the application.
"""

from attnviz.version import __version__

__all__ = ["__version__", "figure", "Figure", "FigureError", "generate"]

#: Names read from :mod:`attnviz.notebook` on first use (PEP 562).
_LAZY = ("figure", "Figure", "FigureError", "generate")


def __getattr__(name: str):
    if name in _LAZY:
        from attnviz import notebook

        value = getattr(notebook, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attnviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
