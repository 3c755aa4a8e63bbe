"""Real models in the document: loaded models and captured sentences, shared and bounded.

The attention topic's ``model`` head source reads the heads of one layer of a captured
sentence from here; the heads resolver and the layers panel read every layer. Everything
is keyed by the model folder (resolved) and the text, so an undo step, a session file or an
export names a head by ``(model_path, model_text, layer, model_head)`` and its arrays come
back from the cache — or, when the cache no longer holds them, from running the sentence
again (the model stays loaded). A model whose folder changed on disk (its weight files or
config rewritten, truncated or replaced) is dropped with its captures at the next ask and
loaded again. Loading happens on whichever thread asks first: the UI asks
from a worker (:mod:`attnviz.ui.model_loader`), scripts and sessions ask directly.

Tokens are shown as the model sees them; special tokens are marked (``[CLS]`` and ``<s>``
already are, others get ⟨ ⟩), a token that is only white space is shown as ␣.
No Qt here.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from attnviz.core.builtin_models import resolve_model_path
from attnviz.core.hf_capture import Capture, LoadedModel, ModelError, load_model
from attnviz.model.fields import MAX_TEXT
from attnviz.model.model_proof import (
    block_difference,
    chunk_of,
    head_terms,
    mask_settings,
    prove_capture,
    shown_weights,
    temperature_for,
)
from attnviz.model.safe_io import shown_path

__all__ = [
    "STORE",
    "Capture",
    "ModelError",
    "chunk_of",
    "ModelStore",
    "display_tokens",
    "head_arrays",
    "head_terms",
    "hybrid_summary",
    "layer_choices",
    "layer_kinds",
    "mask_settings",
    "temperature_for",
]

#: Captured sentences kept at once (each holds every layer's weights).
MAX_CAPTURES = 8
#: Their total size: beyond it the oldest go (they come back by running the text again).
MAX_CACHED_BYTES = 1 << 30


def normalize_path(path: str) -> str:
    """The folder as the cache keys it: user and links expanded, absolute; ``builtin:NAME``
    is the shipped folder of that name (:mod:`attnviz.core.builtin_models`).

    :class:`ModelError` (one line) for a path the system cannot follow: links in a loop,
    a name that cannot be encoded (a lone surrogate from a hand-edited session), a NUL.
    """
    path = resolve_model_path(path)  # a ModelError (one line) for an unknown name
    try:
        resolved = str(Path(path).expanduser().resolve())
        resolved.encode("utf-8")
        os.fsencode(resolved)
    except RuntimeError:  # Python 3.11's resolve() on a symlink loop
        raise ModelError(f"{_shown(path)}: its links go round in a loop") from None
    except (OSError, ValueError, UnicodeError) as exc:
        raise ModelError(
            f"{_shown(path)}: not a folder path this system can open ({type(exc).__name__})"
        ) from None
    return resolved


def _shown(path) -> str:
    """``path`` printable on any terminal: lone surrogates and controls escaped."""
    return shown_path(str(path)[:200])


class ModelStore:
    """Loaded models (the last few folders) and captured sentences, thread-safe."""

    def __init__(self, max_models: int = 2) -> None:
        self.max_models = max_models
        self._lock = threading.RLock()
        self._models: OrderedDict[str, LoadedModel] = OrderedDict()
        self._captures: OrderedDict[tuple[str, str], Capture] = OrderedDict()
        self._gates: dict[tuple, threading.Lock] = {}  # one per folder or sentence at work

    # --- models ------------------------------------------------------------------------
    def model(self, path: str, progress=None) -> LoadedModel:
        """The model of folder ``path``, loaded now when it is not yet (can take seconds).

        The store's own lock is held only to look things up: a load runs under a lock of
        its folder alone, so the GUI thread asking what is cached never waits for it.
        """
        key = normalize_path(path)
        with self._lock:
            self._forget_if_changed(key)
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            gate = self._gates.setdefault(("model", key), threading.Lock())
        with gate:  # one load of a folder at a time; a second asker gets its result
            with self._lock:
                if key in self._models:
                    return self._models[key]
            loaded = load_model(key, progress)
            with self._lock:
                self._models[key] = loaded
                while len(self._models) > self.max_models:
                    old, _ = self._models.popitem(last=False)
                    self._drop_captures(old)
                self._gates.pop(("model", key), None)
            return loaded

    def loaded(self, path: str) -> LoadedModel | None:
        """The model of ``path`` when it is loaded, else None (nothing is loaded here; a
        path the system cannot follow holds nothing)."""
        try:
            key = normalize_path(path)
        except ModelError:
            return None
        with self._lock:
            self._forget_if_changed(key)
            return self._models.get(key)

    # --- captures ----------------------------------------------------------------------
    def cached(self, path: str, text: str) -> Capture | None:
        """The capture of ``text`` through ``path`` when it is held, else None."""
        try:
            key = (normalize_path(path), text)
        except ModelError:
            return None
        with self._lock:
            self._forget_if_changed(key[0])
            return self._captures.get(key)

    def capture(self, path: str, text: str, progress=None) -> Capture:
        """``text`` through the model of ``path``: from the cache, or run now (under a lock
        of that sentence alone, as :meth:`model`)."""
        key = (normalize_path(path), text)
        with self._lock:
            self._forget_if_changed(key[0])
            if key in self._captures:
                self._captures.move_to_end(key)
                return self._captures[key]
            gate = self._gates.setdefault(("capture", key), threading.Lock())
        with gate:
            with self._lock:
                if key in self._captures:
                    return self._captures[key]
            loaded = self.model(key[0], progress)
            if progress is not None:
                progress("forward")
            # A long sentence keeps no n × n weights: it is proven while they exist.
            cap = loaded.capture(text, check=prove_layer, progress=progress)
            if progress is not None:
                progress("proof")
            # Nothing is shown unproven: every head's weights as attnviz draws them must
            # be the model's own (attnviz.model.model_proof).
            prove_capture(cap)
            with self._lock:
                self._captures[key] = cap
                self._bound()
                self._gates.pop(("capture", key), None)
            return cap

    def _forget_if_changed(self, key: str) -> None:
        """Drop the model of folder ``key`` and its captures when the folder's weights
        changed on disk since it was loaded (a ``save_pretrained`` into it, a copy over
        it): the next ask loads it again, or refuses in one line if it is now damaged.
        A few ``stat`` calls; the caller holds the lock."""
        loaded = self._models.get(key)
        if loaded is not None and loaded.changed_files():
            del self._models[key]
            self._drop_captures(key)

    def _bound(self) -> None:
        while len(self._captures) > 1 and (
            len(self._captures) > MAX_CAPTURES
            or sum(c.nbytes for c in self._captures.values()) > MAX_CACHED_BYTES
        ):
            self._captures.popitem(last=False)

    def _drop_captures(self, path: str) -> None:
        for key in [k for k in self._captures if k[0] == path]:
            del self._captures[key]

    def clear(self) -> None:
        """Forget every model and capture (tests; a model folder that changed on disk)."""
        with self._lock:
            self._models.clear()
            self._captures.clear()


#: The store every topic, resolver and window of the process shares.
STORE = ModelStore()


# --- reading a capture -----------------------------------------------------------------
def display_tokens(capture: Capture) -> tuple[str, ...]:
    """The tokens as the model sees them, special ones marked, each a valid token text."""
    out = []
    for token, special in zip(capture.tokens, capture.special, strict=True):
        text = token if token.strip() else "␣" * max(1, len(token))
        if special and not (text.startswith(("[", "<")) and text.endswith(("]", ">"))):
            text = f"⟨{text}⟩"
        out.append(text[:MAX_TEXT])
    return tuple(out)


def kv_head(capture: Capture, head: int, layer: int | None = None) -> int:
    """The KV head query head ``head`` reads: head // (h / h_kv), of model layer
    ``layer`` when given (a model may give its layers different KV heads: Gemma 4)."""
    if layer is not None and capture.captured(layer) is not None:
        lc = capture.layer(layer)
        return head // (lc.q.shape[0] // lc.k.shape[0])
    return head // (capture.n_heads // capture.n_kv_heads)


def head_arrays(capture: Capture, layer: int, head: int) -> dict[str, np.ndarray]:
    """q, k, v of query head ``head`` of model layer ``layer`` as read-only float64
    (n × d_head of that layer)."""
    lc = capture.layer(layer)
    g = kv_head(capture, head, layer)
    out = {}
    for name, arr in (("q", lc.q[head]), ("k", lc.k[g]), ("v", lc.v[g])):
        a = np.array(arr, dtype=np.float64)
        a.flags.writeable = False
        out[name] = a
    return out


def prove_layer(lc, weights_of):
    """The block-wise proof of one layer of a long sentence, run during its capture; None
    when its score terms cannot be shown (:func:`prove_capture` then says which)."""
    try:
        return block_difference(lc, weights_of)
    except (ValueError, IndexError, TypeError):
        return None


def link_strength(capture: Capture, query: int, key: int) -> np.ndarray:
    """A[query → key] of every model layer and head, ``(layers, heads)``: where a link
    lives. A layer without softmax attention (a hybrid's) is a row of NaN."""
    rows = np.full((capture.layer_count, capture.n_heads), np.nan)
    for lc, layer in zip(capture.layers, _model_layers(capture), strict=True):
        if lc.weights is not None:
            row = lc.weights[:, query, key].astype(np.float64)
        else:  # a long sentence: the row as attnviz draws it, proven equal to the model's
            heads = lc.q.shape[0]
            row = np.array([weight_at(capture, layer, h, query, key) for h in range(heads)])
        rows[layer, : row.shape[0]] = row
    return rows


def _model_layers(capture: Capture) -> tuple[int, ...]:
    """The model layer of each captured softmax layer."""
    return capture.attention_at or tuple(range(len(capture.layers)))


def weight_at(capture: Capture, layer: int, head: int, query: int, key: int) -> float:
    """A[query → key] of one head of model layer ``layer``: the model's own, or past
    LONG_TOKENS (no n × n weights kept) the row recomputed from q and k under the model's
    mask, as proven equal."""
    lc = capture.layer(layer)
    if lc.weights is not None:
        return float(lc.weights[head, query, key])
    one = slice(query, query + 1)
    group = lc.q.shape[0] // lc.k.shape[0]
    return float(shown_weights(lc, head, head // group, one, lc.allowed)[0, key])


def layer_maps(capture: Capture) -> tuple[list[np.ndarray | None], object]:
    """What the layers grid draws, one entry per model layer: its (h, n, n) weights, or a
    long sentence's pooled maps with :func:`weight_at` for its exact values; None for a
    layer without softmax attention (:func:`layer_kinds` says what it is)."""
    maps: list[np.ndarray | None] = [None] * capture.layer_count
    long = any(lc.weights is None for lc in capture.layers)
    for lc, layer in zip(capture.layers, _model_layers(capture), strict=True):
        maps[layer] = lc.pooled if long else lc.weights
    if not long:
        return maps, None
    return maps, lambda layer, head, q, k: weight_at(capture, layer, head, q, k)


def layer_choices(capture: Capture) -> list[np.ndarray | None]:
    """Per model layer, the keys a sparse-attention indexer lets each query read, within
    the model's mask (n × n bool, DeepSeek-V3.2), or None (a layer without an indexer, or
    of another kind)."""
    out: list[np.ndarray | None] = [None] * capture.layer_count
    for lc, layer in zip(capture.layers, _model_layers(capture), strict=True):
        out[layer] = None if lc.selected is None else lc.allowed
    return out


def layer_kinds(capture: Capture) -> tuple[str, ...]:
    """What each model layer does: ``"softmax"``, or a hybrid's other mixer."""
    return tuple(capture.layer_kind(i) for i in range(capture.layer_count))


def hybrid_summary(capture: Capture) -> str:
    """How many layers of each kind a hybrid has ("2 softmax, 2 Gated DeltaNet"), in the
    order they first appear; "" for a model whose every layer is softmax attention."""
    kinds = layer_kinds(capture)
    if all(k == "softmax" or k.startswith("softmax (") for k in kinds):
        return ""  # softmax everywhere (some layers NoPE or gated: not a hybrid)
    counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
    return ", ".join(f"{c} {k}" for k, c in counts.items())
