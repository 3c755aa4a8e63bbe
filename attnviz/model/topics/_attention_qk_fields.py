"""The attention topic's fields of the query–key map (the attribution panel): how it
projects, how it colours, and the extra sentences it runs through a real model. Spliced
into :data:`attnviz.model.topics.attention.FIELDS` after the view's fields.

None of them changes the heatmap (``recompute=False``): the panel computes its map.
"""

from __future__ import annotations

from attnviz.core.qk_embed import PROJECTIONS, UMAP_INSTALL, umap_installed
from attnviz.model.fields import Field, StateError, check_text
from attnviz.model.i18n import QT_TRANSLATE_NOOP

#: How the map's points are coloured.
QK_COLOURS = ("position", "token", "sentence")
#: The most extra sentences, and the longest (each runs through the model once).
MAX_QK_SENTENCES = 32
MAX_QK_SENTENCE = 4000


class _Projection(Field):
    """A projection, UMAP only where its extra is installed (one line saying how)."""

    def _choice(self, value):
        value = super()._choice(value)
        if value == "umap" and not umap_installed():
            raise StateError(f"{self.name}: UMAP is not installed ({UMAP_INSTALL})")
        return value


class _Sentences(Field):
    """Sentences: texts of up to :data:`MAX_QK_SENTENCE` characters, none empty."""

    def _texts(self, value):
        seq = self._sequence(value)
        out = []
        for i, text in enumerate(seq):
            text = check_text(f"{self.name}[{i}]", text, limit=MAX_QK_SENTENCE)
            if not text.strip():
                raise StateError(f"{self.name}[{i}] is empty")
            out.append(text)
        return tuple(out)


QK_MAP_FIELDS = (
    _Projection(
        "qk_projection",
        "choice",
        "pca",
        choices=PROJECTIONS,
        recompute=False,
        doc="the query–key map: pca (a plane through the origin, dot products kept as far as "
        f"two directions can) or umap (cosine neighbours, seeded; {UMAP_INSTALL})",
        label=QT_TRANSLATE_NOOP("UndoController", "Map projection"),
    ),
    Field(
        "qk_colour",
        "choice",
        "position",
        choices=QK_COLOURS,
        recompute=False,
        doc="the query–key map's colours: by position in its text, by token, or by sentence",
        label=QT_TRANSLATE_NOOP("UndoController", "Map colours"),
    ),
    _Sentences(
        "qk_sentences",
        "texts",
        (),
        max_len=MAX_QK_SENTENCES,
        recompute=False,
        doc="the query–key map: more sentences run through the real model shown, their "
        "queries and keys of the same layer and head projected with the text's",
        label=QT_TRANSLATE_NOOP("UndoController", "Map sentences"),
    ),
)
