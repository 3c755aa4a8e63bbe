"""attnviz: live, touchable panels for the attention mechanism of transformers.

Three layers, one direction: :mod:`attnviz.core` (numbers), :mod:`attnviz.model`
(Qt-free application state) and :mod:`attnviz.ui` (Qt).
"""

__version__ = "0.1.0"
