"""The ``mixers`` topic: one synthetic head through every token mixer of the chapter's last
section (softmax, sliding window, top-k, strided, linear, decayed, DeltaNet, Gated DeltaNet).

q, k and v are drawn from ``seed`` (n tokens, width d); ``kind`` is the mixer whose mixing
matrix the panel draws; the other fields are the kinds' settings
(:class:`attnviz.core.mixers.MixerParams`), the largest number of pairs of the recall
experiment, the page shown (``view``), the token the decode stepper generates
(``decode_step``, at most n) and the layers a window's reach is drawn through
(``depth``). Every field is a plain value: sessions, undo and ``--set mixers.FIELD=…``
carry them all.
"""

from __future__ import annotations

from attnviz.core.mixers import FEATURE_MAPS, KINDS
from attnviz.model.fields import Field
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: Longest synthetic sequence (the delta rule's matrix costs n² d).
MAX_TOKENS = 256
#: Widest synthetic head.
MAX_WIDTH = 64
#: Most pairs the recall experiment writes (its sequence is twice as long).
MAX_PAIRS = 256
#: Longest window, k or stride accepted (beyond MAX_TOKENS they all mean "every key").
MAX_REACH = 4096
MAX_SEED = 2**31 - 1
#: Most layers the receptive-field picture stacks.
MAX_DEPTH = 64
#: The panel's pages: the mixing matrices, the decode stepper, a window's reach with depth.
VIEWS = ("matrix", "decode", "depth")

FIELDS = (
    Field("kind", "choice", "softmax", choices=KINDS,
          doc="the mixer drawn: " + ", ".join(KINDS),
          label=QT_TRANSLATE_NOOP("UndoController", "Mixer")),
    Field("n", "int", 24, 2, MAX_TOKENS, doc="tokens of the synthetic head",
          label=QT_TRANSLATE_NOOP("UndoController", "Tokens")),
    Field("d", "int", 16, 1, MAX_WIDTH, doc="width of q, k and v (the state is d × d)",
          label=QT_TRANSLATE_NOOP("UndoController", "Head width")),
    Field("seed", "int", 0, 0, MAX_SEED, doc="seed of q, k, v and of the recall draws",
          label=QT_TRANSLATE_NOOP("UndoController", "Seed")),
    Field("window", "int", 8, 1, MAX_REACH, doc="sliding window: keys a row sees, itself included",
          label=QT_TRANSLATE_NOOP("UndoController", "Window")),
    Field("top_k", "int", 4, 1, MAX_REACH, doc="top-k: the largest scores a row keeps",
          label=QT_TRANSLATE_NOOP("UndoController", "Top k")),
    Field("stride", "int", 4, 1, MAX_REACH,
          doc="strided: the l nearest keys and every l-th one before them",
          label=QT_TRANSLATE_NOOP("UndoController", "Stride")),
    Field("feature_map", "choice", "elu1", choices=FEATURE_MAPS,
          doc="linear attention's feature map φ: elu1 (elu + 1), relu, identity",
          label=QT_TRANSLATE_NOOP("UndoController", "Feature map")),
    Field("normalised", "bool", True,
          doc="linear attention divides each row by Σ φ(q)·φ(k)",
          label=QT_TRANSLATE_NOOP("UndoController", "Normalised")),
    Field("decay", "float", 0.9, 0.0, 1.0, doc="decayed linear: γ per step (RetNet, Mamba-2)",
          label=QT_TRANSLATE_NOOP("UndoController", "Decay γ")),
    Field("beta", "float", 0.5, 0.0, 1.0, doc="DeltaNet: β, the writing strength",
          label=QT_TRANSLATE_NOOP("UndoController", "β")),
    Field("alpha", "float", 0.95, 0.0, 1.0, doc="Gated DeltaNet: α, the forgetting gate",
          label=QT_TRANSLATE_NOOP("UndoController", "α")),
    Field("recall_pairs", "int", 64, 1, MAX_PAIRS,
          doc="recall: the most key-value pairs written (1, 2, 4, … up to it)",
          label=QT_TRANSLATE_NOOP("UndoController", "Recall pairs")),
    Field("view", "choice", "matrix", choices=VIEWS,
          doc="the page shown: matrix (M and costs), decode (one step), depth (a window's reach)",
          label=QT_TRANSLATE_NOOP("UndoController", "Mixers page")),
    Field("decode_step", "int", 12, 1, MAX_TOKENS,
          doc="decode stepper: the token t generated (1 … n; a larger value shows n)",
          label=QT_TRANSLATE_NOOP("UndoController", "Decoding step")),
    Field("depth", "int", 3, 1, MAX_DEPTH,
          doc="receptive field: layers of the sliding window stacked",
          label=QT_TRANSLATE_NOOP("UndoController", "Depth")),
)  # fmt: skip


class MixersState(Topic):
    """Settings of the token-mixer comparison."""

    NAME = "mixers"
    ORDER = 36
    FIELDS = FIELDS
