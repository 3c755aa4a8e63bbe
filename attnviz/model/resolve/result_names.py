"""The names a resolver's ``resolved(results, names)`` carries: what is new in ``results``.

A panel's one "results arrived" hook (:meth:`attnviz.ui.panel_base.Panel._on_results`)
receives them and redraws only those parts. The lazy resolvers say :data:`RESULTS`: their
results are one piece, new as a whole. The attention resolver says which of its parts it
recomputed, and passes on the restyle fields that changed (``colormap``, ``levels``, …)
under their own names.
"""

from __future__ import annotations

#: A lazy resolver's results, new as a whole.
RESULTS = "results"
#: The attention resolver's matrices (scores, weights, output) and what they came from.
ATTENTION = "attention"
#: The attention resolver's combined mask changed.
MASK = "mask"
#: The four steps of the selected query.
STEPS = "steps"
#: A quick picture of a long sentence's matrix while the exact one is computed.
PREVIEW = "preview"
