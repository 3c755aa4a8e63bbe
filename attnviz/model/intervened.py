"""Before and after: a real model's attention with the prediction topic's interventions.

``display.compare`` says what the heatmap and the layers grid show of a real model:
``clean`` (the captured sentence, as always), ``intervened`` (the same sentence with
``prediction.ablate`` / ``ablation`` / ``knockout`` applied inside the model's forward
pass: :mod:`attnviz.core.hf_intervened`) or ``difference`` (intervened − clean, drawn in
diverging colours centred on 0).

Nothing is shown unproven (:func:`prove_run`): a layer after the first intervened one
passes the clean capture's proof (:mod:`attnviz.model.model_proof`) with each head's
cut links hidden, as a sparse indexer's unchosen keys are; a layer before it must be
the clean one, and is then the clean capture's own arrays, so its difference is exactly
0. Results are kept for the last few interventions (a forward pass each). No Qt.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import numpy as np

from attnviz.core.hf_capture import Capture, LayerCapture, ModelError
from attnviz.core.hf_intervened import InterventionRun, intervened_run
from attnviz.model.data_array import DataArray
from attnviz.model.model_proof import TOLERANCE, layer_difference
from attnviz.model.real_model import STORE
from attnviz.model.topics.display import COMPARE as DISPLAY_COMPARE

__all__ = [
    "COMPARE",
    "Compared",
    "compared",
    "compare_args",
    "compared_for",
    "kept_compared",
    "heatmap_compare_data",
    "layers_compare_data",
    "prove_run",
]

#: The values of ``display.compare`` (a contract: sessions, ``--set``).
COMPARE = DISPLAY_COMPARE
#: Interventions whose runs are kept (a run holds every layer's weights).
MAX_KEPT = 4


@dataclass(frozen=True)
class Compared:
    """A captured sentence clean and intervened, both proven; ``first`` is the first
    model layer an intervention can change (those before it are the clean arrays)."""

    clean: Capture
    run: Capture
    first: int
    #: model layer → (h, n, n) bool, False where a knockout cut the link
    keep: dict = field(default_factory=dict, compare=False)

    def kept(self, layer: int, head: int) -> np.ndarray | None:
        """(n, n) bool: the links head ``head`` of model layer ``layer`` still reads
        after the knockouts (None: none was cut there)."""
        keep = self.keep.get(layer)
        return None if keep is None else keep[head]

    def layer(self, mode: str, layer: int) -> np.ndarray | None:
        """Model layer ``layer``'s (h, n, n) float64 weights as ``mode`` shows them
        (``clean``, ``intervened`` or ``difference``: intervened − clean); None for a
        layer without softmax attention."""
        at = self.clean.captured(layer)
        if at is None:
            return None
        clean = self.clean.layers[at].weights.astype(np.float64)
        if mode == "clean":
            return clean
        run = self.run.layers[at].weights.astype(np.float64)
        return run if mode == "intervened" else run - clean

    def layer_maps(self, mode: str) -> list[np.ndarray | None]:
        """:meth:`layer` of every model layer."""
        return [self.layer(mode, layer) for layer in range(self.clean.layer_count)]

    def head(self, mode: str, layer: int, head: int) -> np.ndarray:
        """One head's (n, n) map of ``mode``; ValueError for a layer without weights."""
        maps = self.layer(mode, layer) if 0 <= layer < self.clean.layer_count else None
        if maps is None:
            raise ValueError(f"layer {layer} has no softmax attention weights to compare")
        if not 0 <= head < maps.shape[0]:
            raise ValueError(f"head {head} is outside 0…{maps.shape[0] - 1}")
        return maps[head]


def _per_head(lc: LayerCapture, keep: np.ndarray):
    """The layer as proofs of its own: whole, its cut links hidden as a selection of
    keys when every head lost the same ones, else one query head at a time."""

    def hidden(sel):
        return sel if lc.selected is None else sel & lc.selected

    layout = lc.index_layout or "knockout"
    if all(np.array_equal(keep[0], k) for k in keep[1:]):
        yield 0, replace(lc, selected=hidden(keep[0]), index_layout=layout)
        return
    group = lc.q.shape[0] // lc.k.shape[0]
    for h in range(lc.q.shape[0]):
        g = h // group
        one = slice(h, h + 1)
        yield h, replace(
            lc, q=lc.q[one], k=lc.k[g : g + 1], v=lc.v[g : g + 1], weights=lc.weights[one],
            alibi=None if lc.alibi is None else lc.alibi[one],
            sinks=None if lc.sinks is None else lc.sinks[one],
            selected=hidden(keep[h]), index_layout=layout,
        )  # fmt: skip


def prove_run(clean: Capture, run: InterventionRun) -> Capture:
    """``run``'s capture, proven as a capture is (:func:`~attnviz.model.model_proof.
    prove_capture`), with each head's knocked-out links hidden; the layers before
    ``run.first`` are the clean capture's arrays once found equal to them within
    :data:`~attnviz.model.model_proof.TOLERANCE`. :class:`ModelError` in one line."""
    name, work, layers = clean.name, {}, []
    at = clean.attention_at or tuple(range(len(clean.layers)))
    for a, b, layer in zip(clean.layers, run.capture.layers, at, strict=True):
        if layer < run.first:
            diff = float(np.max(np.abs(a.weights - b.weights), initial=0.0))
            if not diff <= TOLERANCE:
                raise ModelError(
                    f"{name}: layer {layer} changed by {diff:.1e} before the first "
                    "intervention; not shown"
                )
            layers.append(a)  # the same weights: the difference is exactly 0 there
            continue
        if b.selected is not None and not np.array_equal(a.selected, b.selected):
            raise ModelError(
                f"{name}: layer {layer}: its sparse-attention indexer chose other keys in the "
                "intervened run, which attnviz does not recompute; not shown"
            )
        b = replace(b, index_layout=a.index_layout)
        keep = run.keep.get(layer)
        parts = [(0, b)] if keep is None else _per_head(b, keep)
        for offset, part in parts:
            diff, head = layer_difference(replace(clean, layers=(part,)), 0, work)
            if not diff <= TOLERANCE:
                raise ModelError(
                    f"{name}: layer {layer}, head {head + offset}: in the intervened run "
                    f"attnviz's weights differ from the model's by {diff:.1e}; not shown"
                )
        layers.append(b)
    return replace(run.capture, layers=tuple(layers))


_KEPT: OrderedDict = OrderedDict()
_LOCK = threading.Lock()


def compared(path: str, text: str, ablate, ablation: str, knockout) -> Compared:
    """The sentence ``text`` through the model of ``path``, clean and intervened, proven
    (kept for the last :data:`MAX_KEPT` interventions)."""
    key = (path, text, tuple(map(tuple, ablate)), ablation, tuple(map(tuple, knockout)))
    # The store's capture (cached, or run again when the folder changed on disk): a kept
    # run of another capture of the sentence is not this one's.
    clean = STORE.capture(path, text)
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is not None and kept.clean is clean:
            _KEPT.move_to_end(key)
            return kept
    loaded = STORE.model(path)
    run = intervened_run(loaded, clean, ablate=ablate, ablation=ablation, knockout=knockout)
    out = Compared(clean, prove_run(clean, run), run.first, run.keep)
    with _LOCK:
        _KEPT[key] = out
        while len(_KEPT) > MAX_KEPT:
            _KEPT.popitem(last=False)
    return out


def compare_args(document) -> tuple:
    """The arguments of :func:`compared` for a document's attention and prediction topics
    (hashable: a worker runs them while the topics go on changing); ValueError in one
    line without a real model's head."""
    a, p = document["attention"], document["prediction"]
    if a.head != "model" or not a.model_path:
        raise ValueError(
            "before / after needs a real model: set attention.head=model (--model DIR)"
        )
    return (
        a.model_path,
        a.model_text,
        tuple(map(tuple, p.ablate)),
        p.ablation,
        tuple(map(tuple, p.knockout)),
    )


def compared_for(document) -> Compared:
    """:func:`compared` for a document's attention and prediction topics; ValueError in
    one line without a real model's head."""
    return compared(*compare_args(document))


def kept_compared(args: tuple) -> Compared | None:
    """The run of :func:`compared` for ``args`` when it is kept for the sentence's current
    capture, else None: nothing is run here (the GUI thread asks it)."""
    path, text, ablate, ablation, knockout = args
    clean = STORE.cached(path, text)
    if clean is None:
        return None
    key = (path, text, tuple(map(tuple, ablate)), ablation, tuple(map(tuple, knockout)))
    with _LOCK:
        kept = _KEPT.get(key)
    return kept if kept is not None and kept.clean is clean else None


def _mode(name: str) -> str:
    return name.rpartition("_")[2]


def heatmap_compare_data(workspace, name: str) -> DataArray:
    """The heatmap's ``weights_intervened`` and ``weights_difference`` (intervened −
    clean): the head shown, n × n, as the heatmap draws it in that ``display.compare``."""
    s = workspace.document["attention"]
    w = compared_for(workspace.document).head(_mode(name), s.layer, s.model_head)
    tokens = tuple(s.tokens)
    return DataArray(w, tokens, tokens, corner="query \\ key")


def layers_compare_data(workspace, name: str) -> DataArray:
    """The layers panel's ``layer_weights_intervened`` and ``layer_weights_difference``:
    every head of the layer shown, (h, n, n)."""
    s = workspace.document["attention"]
    c = compared_for(workspace.document)
    maps = c.layer(_mode(name), s.layer) if 0 <= s.layer < c.clean.layer_count else None
    if maps is None:
        raise ValueError(f"layer {s.layer} has no softmax attention weights to compare")
    return DataArray(maps)
