"""The ``prediction`` topic: what a real model predicts, sampled and intervened on.

The model and its sentence are the attention topic's (``head`` = ``model``,
``model_path``, ``model_text``); these fields say where it predicts (``position``: −1 the
last token, or the [MASK] of a masked-LM encoder), how the distribution is sampled
(``temperature``, then ``top_k``, then ``top_p``, renormalised), which token is followed
(``target``: empty, the clean run's top-1) and what is switched off inside the forward pass:
heads (``ablate``, by zeros or by their clean mean over the sentence: ``ablation``) and
links (``knockout``: that score at −inf before the softmax). See
:mod:`attnviz.core.hf_predict`. Generate appends ``count`` tokens to the sentence, greedy
(``seed`` −1) or sampled with ``seed`` (:mod:`attnviz.core.hf_generate`). ``view`` says
which of the panel's pictures show (all; the bars; the ablation map; the heads' direct
effects), ``map_value`` what the ablation map's cells say (Δ log p(target) or Δ copy
accuracy).
"""

from __future__ import annotations

from attnviz.model.fields import Field
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

ABLATIONS = ("zero", "mean")
#: What the panel shows under its controls: everything, or one of its three pictures
#: (a lesson's slide shows one at a time).
VIEWS = ("all", "bars", "map", "heads")
#: What the ablation map's cells say: Δ log p(target), or Δ copy accuracy on the
#: sentence's repeats (:mod:`attnviz.core.copying`), each with one head off.
MAP_VALUES = ("logp", "copying")
#: Largest temperature offered (the distribution is flat long before).
MAX_TEMPERATURE = 100.0
MIN_TEMPERATURE = 1e-3
#: Largest index of a position, a layer, a head, a query or a key (a sentence's tokens are
#: fewer: attnviz.model.topics._attention_limits.MAX_SENTENCE characters).
MAX_INDEX = 1 << 16
MAX_TOP_K = 1 << 20
#: The most heads ablated and links knocked out at once.
MAX_ABLATE = 64
MAX_KNOCKOUT = 256
#: The most tokens one Generate appends (attnviz.core.hf_generate.MAX_COUNT).
MAX_COUNT = 256
MAX_SEED = (1 << 31) - 1

FIELDS = (
    Field("temperature", "float", 1.0, MIN_TEMPERATURE, MAX_TEMPERATURE,
          doc="the logits are divided by it before the softmax (1: the model's own)",
          label=QT_TRANSLATE_NOOP("UndoController", "Sampling temperature")),
    Field("top_k", "int", 0, 0, MAX_TOP_K,
          doc="keep only the k most likely tokens, renormalised (0: off)",
          label=QT_TRANSLATE_NOOP("UndoController", "Top-k")),
    Field("top_p", "float", 1.0, 1e-6, 1.0,
          doc="keep the fewest most likely tokens whose mass reaches p, renormalised (1: off)",
          label=QT_TRANSLATE_NOOP("UndoController", "Top-p")),
    Field("position", "int", -1, -1, MAX_INDEX,
          doc="the token whose next token is predicted (-1: the last; an encoder: its [MASK])",
          label=QT_TRANSLATE_NOOP("UndoController", "Predicted position")),
    Field("target", "text", "",
          doc="the token whose probability is followed (empty: the clean run's most likely)",
          label=QT_TRANSLATE_NOOP("UndoController", "Target token")),
    Field("ablate", "int_rows", (), 0, MAX_INDEX, max_len=MAX_ABLATE, width=2,
          doc="heads switched off: [[layer, head], …]",
          label=QT_TRANSLATE_NOOP("UndoController", "Ablated heads")),
    Field("ablation", "choice", "zero", choices=ABLATIONS,
          doc="what replaces an ablated head's output: zeros, or its clean mean over positions",
          label=QT_TRANSLATE_NOOP("UndoController", "Ablation")),
    Field("knockout", "int_rows", (), -1, MAX_INDEX, max_len=MAX_KNOCKOUT, width=4,
          doc="links cut before the softmax: [[layer, head (-1: all), query, key], …]",
          label=QT_TRANSLATE_NOOP("UndoController", "Knocked-out links")),
    Field("seed", "int", -1, -1, MAX_SEED,
          doc="how Generate chooses: -1 greedy (the most likely), else sampled with this seed "
              "(numpy's Generator over the sampling distribution)",
          label=QT_TRANSLATE_NOOP("UndoController", "Generation seed")),
    Field("view", "choice", "all", choices=VIEWS,
          doc="what the panel shows: all, the bars (top tokens), the ablation map, or the "
              "heads' direct effects (an attribution)",
          label=QT_TRANSLATE_NOOP("UndoController", "Prediction view")),
    Field("map_value", "choice", "logp", choices=MAP_VALUES,
          doc="the ablation map's cells, each with one head off: logp, the change of log "
              "p(target); copying, the change of copy accuracy on the sentence's repeats",
          label=QT_TRANSLATE_NOOP("UndoController", "Ablation map values")),
    Field("count", "int", 1, 1, MAX_COUNT,
          doc="tokens one Generate appends to the model's sentence (it stops early at the "
              "model's end of sequence)",
          label=QT_TRANSLATE_NOOP("UndoController", "Tokens to generate")),
)  # fmt: skip


class PredictionState(Topic):
    """Sampling settings and interventions of a real model's prediction."""

    NAME = "prediction"
    ORDER = 45
    FIELDS = FIELDS
