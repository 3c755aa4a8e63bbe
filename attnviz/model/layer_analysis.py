"""Head types and attention rollout of a real model's captured sentence (no Qt).

Both read the weights of the proven capture (:mod:`attnviz.model.real_model`): what the
layers grid draws is what they score.

- :func:`model_head_types`: ``(layers, heads, types)`` scores in the order of
  :data:`~attnviz.model.head_type_table.TYPES`. Every type but induction is scored on the
  sentence shown; induction needs a repeat, so it is scored on a second capture through
  the same store: :data:`SEGMENT` distinct tokens of the model's own vocabulary, drawn with
  seed :data:`SEED`, written twice (:func:`induction_text`). A hybrid's other heads (a
  Gated DeltaNet's, a Mamba-2 block's, the first :data:`~attnviz.model.layer_mixing.
  MOST_HEADS`) are scored on ``rownorm(|M|)``, their proven mixing matrices read as shares,
  after any attention heads of their layer; one whose matrix is not proven stays NaN.
- :func:`model_rollout`: the rollout after each layer
  (:func:`attnviz.core.rollout.rollout_of_means`); a hybrid's other layers enter by
  their proven mixing matrices, ``rownorm(|M|)`` averaged over their heads
  (:mod:`attnviz.model.layer_mixing`), which the panel says.
- :func:`synthetic_head_types`: the same scores, ``(1, 1, types)``, of the synthetic head the
  heatmap shows (induction on its own tokens: NaN unless one repeats).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core import head_types as ht
from attnviz.core.rollout import rollout_of_means
from attnviz.model.head_type_table import TYPES
from attnviz.model.kept import Kept

#: Distinct random tokens in the induction sequence (written twice), at most.
SEGMENT = 24
#: The seed of the induction sequence: the same tokens every time for a model.
SEED = 0
#: Results kept (a head-types table per model and sentence).
_KEPT = 8


@dataclass(frozen=True)
class HeadTypes:
    """The scores of every head of a model for one sentence, and how induction was read."""

    scores: np.ndarray  # (layers, heads, types), NaN where a head has no scores
    induction_text: str  # the repeated random sequence the induction score ran on
    induction_pairs: int  # (query, key) pairs it averaged
    #: The layers whose non-softmax heads were scored on rownorm(|M|), their proven
    #: mixing matrices (a hybrid's Gated DeltaNet, Mamba-2, …), after any attention heads.
    mixing_layers: tuple[int, ...] = ()


def _scores(weights, tokens, cls, sep) -> np.ndarray:
    """The types but induction (NaN there) of ``(h, n, n)`` weights: ``(h, types)``."""
    cols = {
        "previous": ht.previous_token_score(weights),
        "sink": ht.sink_score(weights),
        "local": ht.local_score(weights),
        "self": ht.self_score(weights),
        "next": ht.next_token_score(weights),
        "cls": ht.mass_on(weights, cls),
        "sep": ht.mass_on(weights, sep),
    }
    heads = np.asarray(weights).shape[:-2]
    return np.stack([cols.get(t, np.full(heads, np.nan)) for t in TYPES], axis=-1)


def type_scores(layers, ids, induction_layers, induction_ids, cls_id=None, sep_id=None):
    """``(L, H, types)`` scores of per-layer ``(h, n, n)`` weights (None: a layer of another
    kind, NaN) of a sentence of token ``ids``; induction from ``induction_layers`` (the same
    layers' weights on the repeated sequence ``induction_ids``). ``cls_id`` and ``sep_id``
    are the tokenizer's classifier and separator ids (None: the model has none)."""
    ids = list(ids)
    cls = [i for i, t in enumerate(ids) if cls_id is not None and t == cls_id]
    sep = [i for i, t in enumerate(ids) if sep_id is not None and t == sep_id]
    heads = max(w.shape[0] for w in layers if w is not None)
    out = np.full((len(layers), heads, len(TYPES)), np.nan)
    col = TYPES.index("induction")
    for layer, weights in enumerate(layers):
        if weights is None:
            continue
        h = weights.shape[0]
        out[layer, :h] = _scores(weights, ids, cls, sep)
        other = induction_layers[layer]
        if other is not None:
            out[layer, :h, col] = ht.induction_score(other, list(induction_ids))
    return out


def induction_text(tokenizer, positions: int | None, seed: int = SEED) -> str:
    """The repeated random sequence of the induction score, as text: up to :data:`SEGMENT`
    distinct tokens of ``tokenizer``'s vocabulary (no special tokens; each one that the
    tokenizer gives back alone as itself), seeded, written twice — within the model's
    ``positions`` with the special tokens the tokenizer adds."""
    specials = len(tokenizer("", add_special_tokens=True)["input_ids"])
    length = SEGMENT if positions is None else min(SEGMENT, (positions - specials) // 2)
    skip = set(tokenizer.all_special_ids)
    rng = np.random.default_rng(seed)
    chosen: list[str] = []
    seen: set[str] = set()
    # A bounded look: a vocabulary of sub-words may need a few tries per whole word.
    for token_id in rng.permutation(len(tokenizer))[: 50 * SEGMENT]:
        if len(chosen) >= length:
            break
        token_id = int(token_id)
        if token_id in skip:
            continue
        word = tokenizer.decode([token_id]).strip()
        if not word or word in seen or not word.isprintable() or " " in word:
            continue
        if tokenizer(word, add_special_tokens=False)["input_ids"] != [token_id]:
            continue
        chosen.append(word)
        seen.add(word)
    if len(chosen) < 2:
        raise ValueError("the model's vocabulary gives no two whole tokens to repeat")
    segment = " ".join(chosen)
    return f"{segment} {segment}"


_TYPES = Kept(_KEPT)


def _layer_weights(cap) -> list:
    """Per model layer the captured ``(h, n, n)`` weights, None for another kind; a
    ``ValueError`` past the sentence length whose n × n weights are kept."""
    if any(lc.weights is None for lc in cap.layers):
        from attnviz.core.hf_capture import LONG_TOKENS

        raise ValueError(
            f"past {LONG_TOKENS} tokens the capture keeps no n × n weights to score; "
            "shorten the sentence"
        )
    out: list = [None] * cap.layer_count
    placed = cap.attention_at or tuple(range(len(cap.layers)))  # the model layer of each
    for lc, layer in zip(cap.layers, placed, strict=True):
        out[layer] = np.asarray(lc.weights, dtype=np.float64)
    return out


def model_head_types(path: str, text: str) -> HeadTypes:
    """Every head's type scores for ``text`` through the model of folder ``path`` (both
    captures through the store: cached, proven). ``ValueError`` / ``ModelError`` (one
    line) when the model cannot run them."""
    from attnviz.model.real_model import STORE, normalize_path

    key = (normalize_path(path), text)
    found = _TYPES.get(key)
    if found is not None:
        return found
    cap = STORE.capture(path, text)
    loaded = STORE.model(path)
    tok = loaded.tokenizer
    repeat = induction_text(tok, loaded.positions)
    other = STORE.capture(path, repeat)
    pairs = ht.induction_pairs(list(other.ids))[0].size
    shown, repeated = _layer_weights(cap), _layer_weights(other)
    scored = []
    for layer in _mixing_layers(cap):  # a hybrid's other heads: rownorm(|M|), said so
        a, b = _with_mixing(shown, path, text, layer), _with_mixing(repeated, path, repeat, layer)
        if a and b:
            scored.append(layer)
    scores = type_scores(
        shown,
        cap.ids,
        repeated,
        other.ids,
        getattr(tok, "cls_token_id", None),
        getattr(tok, "sep_token_id", None),
    )
    result = HeadTypes(scores, repeat, int(pairs), tuple(scored))
    _TYPES.put(key, result)
    return result


def _mixing_layers(cap) -> list[int]:
    from attnviz.model.layer_mixing import mixing_layers

    return mixing_layers(cap)


def _with_mixing(layers: list, path: str, text: str, layer: int) -> bool:
    """Put the first heads of ``layer``'s proven mixing matrices, as ``rownorm(|M|)``,
    after its attention heads' weights in ``layers`` (in place); False when they are not
    proven (the heads stay without scores)."""
    from attnviz.model.layer_mixing import abs_rows, model_mixing

    found = model_mixing(path, text)[layer]
    if found is None or found.matrices is None or found.pooled:
        return False
    shares = np.stack([abs_rows(m) for m in found.matrices])
    own = layers[layer]
    layers[layer] = shares if own is None else np.concatenate([own, shares])
    return True


def synthetic_head_types(weights, tokens) -> np.ndarray:
    """The type scores ``(1, 1, types)`` of one synthetic head's ``(n, n)`` weights over
    ``tokens``: induction on the sentence itself (NaN unless a token repeats); no [CLS]
    or [SEP] (NaN)."""
    w = np.asarray(weights, dtype=np.float64)[None]
    out = np.full((1, 1, len(TYPES)), np.nan)
    out[0] = _scores(w, list(tokens), [], [])
    out[0, :, TYPES.index("induction")] = ht.induction_score(w, list(tokens))
    return out


def model_rollout(cap, path: str = "", text: str = "", progress=None, cancel=None) -> np.ndarray:
    """The rollout after each model layer, ``(L, n, n)``, of capture ``cap`` (of ``text``
    through the model of folder ``path``). A softmax layer enters with its heads' mean
    weights; a hybrid's other layer with the mean over its heads of ``rownorm(|M|)``, its
    proven mixing matrices (:func:`~attnviz.model.layer_mixing.mixing_layer_mean`; beside
    attention heads, the mean over both); a layer that mixes no tokens as the identity.
    ``ValueError`` / ``ModelError`` in one line for a long sentence or a matrix not proven."""
    from attnviz.model.layer_mixing import mixing_layer_mean, mixing_layers

    weights = _layer_weights(cap)
    others = set(mixing_layers(cap))
    if others and not path:
        raise ValueError("rollout through a hybrid's other layers needs the model's folder")
    n = len(cap.ids)
    means = []
    for layer in range(cap.layer_count):
        total, heads = np.zeros((n, n)), 0
        if weights[layer] is not None:
            total, heads = weights[layer].sum(axis=0), weights[layer].shape[0]
        if layer in others:
            part = None
            if progress is not None:  # this layer's share of the whole bar
                part = lambda f, at=layer: progress((at + f) / cap.layer_count)  # noqa: E731
            _kind, count, shares = mixing_layer_mean(path, text, layer, part, cancel)
            total, heads = total + shares, heads + count
        means.append(total / heads if heads else total)
    return rollout_of_means(means)


def rollout_through(cap) -> tuple[tuple[int, str], ...]:
    """The layers of ``cap`` rollout reads through their mixing matrices (not softmax
    weights), with their kinds: ``((layer, kind), …)``."""
    from attnviz.model.layer_mixing import mixing_layers
    from attnviz.model.real_mixing import head_kind, softmax_heads

    return tuple(
        (layer, head_kind(cap, layer, softmax_heads(cap, layer))) for layer in mixing_layers(cap)
    )
