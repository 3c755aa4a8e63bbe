"""The prediction topic's resolver: what the open real model predicts, and what moves it.

The model and its sentence are the attention topic's (``head`` = ``model``); the loaded
model comes from :data:`attnviz.model.real_model.STORE` and
:func:`attnviz.core.hf_predict.predict` runs it clean and with the topic's interventions
(ablated heads, knocked-out links) in one batch. Both distributions are sampled as the
topic says: temperature, then top-k, then top-p, renormalised
(:func:`attnviz.core.sampling.probabilities`). A forward pass of a real model takes from
milliseconds to seconds, so the resolver computes in the background.

Without a real model, or with one that predicts no token (the packaged MiniLM is an
encoder without a language-model head), the results are a one-line refusal (a
``ValueError``) that the panel shows and the export prints.

The ablation map (one forward pass per layer, all its heads batched) and the logit lens are
computed only when asked for (:meth:`PredictionResolver.ablation_map`,
:meth:`PredictionResolver.lens`: the ``ablation`` and ``lens`` arrays of an export), for the
current inputs, and kept until they change. The panel asks for the map on the workspace's
runner (:meth:`PredictionResolver.request_map`: progress, cancel, latest wins), after
:func:`map_seconds` has said what it will cost; the export and the panel read the one
kept map, so the picture is the ``ablation`` array.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from attnviz.core.cell_timing import flop_seconds
from attnviz.core.work import Cancelled
from attnviz.model.data_array import DataArray
from attnviz.model.events import Signal
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.resolve.work import LatestWork

#: What the prediction refuses without a real model (the panel's one line).
NO_MODEL = (
    "the prediction needs a real model: open a decoder or a masked-LM folder "
    "(File → Open Model…, or --model DIR)"
)
#: The attention topic's fields naming the model and its sentence.
MODEL_FIELDS = ("head", "model_path", "model_text")
#: The prediction topic's fields, in the order of the key after the model's.
INPUTS = (
    "temperature", "top_k", "top_p", "position", "target", "ablate", "ablation", "knockout",
)  # fmt: skip
#: Top tokens the results name (the panel's bars come from them).
TOP_NAMED = 32
PROBABILITY_COLUMNS = ("clean", "intervened")
LENS_COLUMNS = ("p_target", "top_id", "p_top")


class PredictionError(ValueError):
    """The prediction cannot be made: no real model, or one that predicts no token."""


@dataclass(frozen=True)
class PredictionResults:
    """One prediction: the sampling distributions over the vocabulary, clean and with the
    interventions (read-only float64, each summing to 1), the target, and what names the
    most likely tokens."""

    model: str  # the model's name
    tokens: tuple[str, ...]  # the sentence's tokens
    position: int  # 0 … n − 1
    masked: bool  # a masked-LM encoder (it predicts the token at the position)
    clean: np.ndarray  # (vocab,)
    probs: np.ndarray  # (vocab,)
    target: int
    target_token: str
    names: dict  # token id → token text, for the most likely tokens and the target
    heads: tuple[int, ...]  # query heads per layer (0: not softmax attention)
    ablate: tuple
    knockout: tuple
    ablation: str
    #: Seconds one sentence's forward pass took here (the prediction's batch over its rows):
    #: the base of :func:`map_seconds`.
    row_seconds: float = 0.0
    row_flops: float = 0.0  # multiply-adds of a row of that pass
    #: The model's card (:class:`attnviz.core.kvcache.ModelCard`, from its config): the KV
    #: cache it keeps per token; None where its config does not say.
    kv_card: object = None

    @property
    def intervened(self) -> bool:
        """True when something is switched off."""
        return bool(self.ablate or self.knockout)

    def top(self, k: int, *, clean: bool = False) -> np.ndarray:
        """The ids of the ``k`` most likely tokens (ties by id), of the intervened run or
        the clean one."""
        p = self.clean if clean else self.probs
        return np.argsort(-p, kind="stable")[: max(0, k)]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.flags.writeable = False
    return a


def _loaded(model: tuple):
    """The loaded model of the key's model part, or PredictionError."""
    head, path, _text = model
    if head != "model" or not path:
        raise PredictionError(NO_MODEL)
    from attnviz.model import real_model

    try:
        return real_model.STORE.model(path)
    except real_model.ModelError as exc:
        raise PredictionError(str(exc)) from None
    except OSError as exc:  # a name too long, a loop of links
        raise PredictionError(f"model_path cannot be opened: {exc}") from None


def _refusing(call, *args, **kwargs):
    """``call(...)``, its ModelError and the sampling's ValueError as PredictionError."""
    try:
        return call(*args, **kwargs)
    except ValueError as exc:
        raise PredictionError(str(exc)) from None


def compute_prediction(model: tuple, settings: tuple) -> PredictionResults:
    """The results of the attention topic's ``model`` fields and the prediction topic's
    ``settings`` (:data:`INPUTS`); pure but for the model store."""
    from attnviz.core import hf_predict
    from attnviz.core.hf_lm_head import lm_head

    temperature, top_k, top_p, position, target, ablate, ablation, knockout = settings
    loaded = _loaded(model)
    pred = _refusing(
        hf_predict.predict,
        loaded,
        model[2],
        position=None if position == -1 else position,
        ablate=ablate,
        ablation=ablation,
        knockout=knockout,
    )
    clean = _refusing(pred.probabilities, temperature, top_k, top_p, clean=True)
    probs = _refusing(pred.probabilities, temperature, top_k, top_p)
    goal = _refusing(hf_predict.target_id, loaded, target or None, pred.clean)
    head = lm_head(loaded)
    layers = len(head.layers)
    heads = tuple(int(head.heads.get(layer, 0)) for layer in range(layers))
    named = {int(i) for i in np.argsort(-probs, kind="stable")[:TOP_NAMED]}
    named |= {int(i) for i in np.argsort(-clean, kind="stable")[:TOP_NAMED]}
    named.add(goal)
    names = {i: hf_predict.token_text(loaded, i) for i in sorted(named)}
    return PredictionResults(
        loaded.info.name,
        pred.tokens,
        pred.position,
        bool(head.masked),
        _frozen(clean),
        _frozen(probs),
        goal,
        names[goal],
        names,
        heads,
        pred.ablate,
        pred.knockout,
        ablation,
        pred.row_seconds,
        pred.row_flops,
        _card(loaded),
    )


def _card(loaded):
    """The model's card from its config (kept on the loaded model), or None."""
    card = getattr(loaded, "_kv_card", False)
    if card is False:
        from attnviz.core.hf_config import card_from_hf_config

        try:
            card = card_from_hf_config(loaded.info.config, loaded.info.name)
        except (ValueError, TypeError, KeyError):  # a config the card reader cannot read
            card = None
        loaded._kv_card = card
    return card


def map_seconds(res: PredictionResults, row_seconds: float | None = None) -> float:
    """About how long the ablation map of ``res``' inputs takes here: the clean run, then
    a batch of heads + 1 rows per softmax layer through the layers from it on (those
    before are replayed), each row costing what a row of the prediction's pass cost, and
    a batch at least what one pass costs. A row costs the least of what the prediction's
    took (``row_seconds``, default its own: a cold first pass or a busy machine stalls)
    and its multiply-adds at this machine's price (:func:`flop_seconds`)."""
    layers = len(res.heads)
    if not layers:
        return 0.0
    rows = sum(
        max(1.0, (h + 1) * (layers - layer) / layers) for layer, h in enumerate(res.heads) if h
    )
    row = res.row_seconds if row_seconds is None else row_seconds
    if res.row_flops > 0:
        row = min(row, res.row_flops * flop_seconds())
    return row * (1.0 + rows)


class PredictionResolver(LazyResolver):
    """Lazy resolver of the ``prediction`` topic (see the module docstring)."""

    TOPIC = "prediction"
    READS = {"attention": frozenset(MODEL_FIELDS)}
    BACKGROUND = True
    CACHE_SIZE = 8
    #: Generate's settings change no prediction.
    IGNORES = frozenset({"preset_id", "seed", "count", "view"})

    #: ``map_ready(key, AblationMap)``: the map asked for by :meth:`request_map` is ready.
    map_ready = Signal(object, object)
    #: ``map_failed(key, exception)``: it stopped (``Cancelled`` when told to) or failed.
    map_failed = Signal(object, object)
    #: ``generated(key, Generated)``: the tokens a :meth:`request_generation` made.
    generated = Signal(object, object)
    #: ``generation_failed(key, exception)``.
    generation_failed = Signal(object, object)

    def __init__(self, document, runner=None) -> None:
        super().__init__(document, runner)
        self._lock = threading.Lock()
        self._extra: dict = {}  # (what, key) → the lens of key
        self._fastest: dict = {}  # model key → the fastest row of its forward passes seen
        # The maps of the last inputs, by map_key(); a new request cancels the running one.
        self.map_work = LatestWork(self._on_map_answer, runner, cache_size=4, replace="cancel")
        # Generation: one run at a time; Stop ends it between two tokens (what was made is
        # answered), a new request replaces it.
        self.gen_work = LatestWork(self._on_gen_answer, runner, replace="cancel")
        self._init_head_logits(runner)
        self._stop = threading.Event()
        self._runs = 0

    def key(self) -> tuple:
        attention = self.document["attention"]
        model = tuple(attention.get(name) for name in MODEL_FIELDS)
        if model[0] != "model":
            model = ("", "", "")  # without a model the other heads' sentences change nothing
        values = self.topic.snapshot()
        return (model, tuple(values[name] for name in INPUTS))

    def compute_key(self, key: tuple) -> PredictionResults:
        res = compute_prediction(*key)
        with self._lock:  # the fastest row seen: a busy machine's stall is not the model's
            seen = self._fastest.get(key[0], res.row_seconds)
            self._fastest[key[0]] = min(seen, res.row_seconds)
        return res

    def map_seconds(self, res: PredictionResults) -> float:
        """About how long the ablation map of the current model takes here
        (:func:`map_seconds` with the fastest row of its predictions seen so far)."""
        with self._lock:
            fastest = self._fastest.get(self.key()[0], res.row_seconds)
        return map_seconds(res, min(fastest, res.row_seconds))

    # --- on demand ---------------------------------------------------------------------
    def _kept(self, what: str, make):
        key = self.key()
        with self._lock:
            if (what, key) in self._extra:
                return self._extra[(what, key)]
        value = make(key)
        with self._lock:
            self._extra = {k: v for k, v in self._extra.items() if k[0] != what}
            self._extra[(what, key)] = value
        return value

    def map_key(self) -> tuple:
        """What the ablation map depends on: the model and its sentence, the position and
        the target (not the sampling, nor what is switched off)."""
        model, settings = self.key()
        return (model, settings[3], settings[4])

    @staticmethod
    def _map_job(key: tuple):
        from attnviz.core import hf_predict

        model, position, target = key

        def job(progress, cancel):
            return _refusing(
                hf_predict.ablation_map,
                _loaded(model),
                model[2],
                position=None if position == -1 else position,
                target=target or None,
                cancel=cancel,
                progress=progress,
            )

        return job

    def ablation_map(self, cancel=None, progress=None):
        """The :class:`~attnviz.core.hf_predict.AblationMap` of the current inputs: each
        head zero-ablated alone, log p(target) minus clean, computed here unless it is kept
        (``cancel`` and ``progress`` as :func:`~attnviz.core.hf_predict.ablation_map`)."""
        key = self.map_key()
        found = self.map_work.cached(key)
        if found is None:
            found = self._map_job(key)(progress, cancel)
            self.map_work.keep(key, found)
        return found

    def cached_map(self, key: tuple | None = None):
        """The kept map of ``key`` (default: the current inputs), or None."""
        return self.map_work.cached(self.map_key() if key is None else key)

    def request_map(self, *, now: bool = False):
        """The map of the current inputs when it is kept; else start it (on the runner, or
        here with ``now``) unless it is on its way, and return None: ``map_ready`` or
        ``map_failed`` follows."""
        key = self.map_key()
        kept = self.map_work.cached(key)
        if kept is not None:
            return kept
        if self.map_work.wanted_key != key:
            self.map_work.request(key, self._map_job(key), now=now)
        return None

    def cancel_map(self) -> bool:
        """Stop the map on its way (``map_failed(key, Cancelled)`` at once); False when
        none was."""
        key = self.map_work.wanted_key
        if not self.map_work.cancel():
            return False
        self.map_failed.emit(key, Cancelled("the ablation map was cancelled"))
        return True

    @property
    def map_running(self) -> bool:
        """True while a map is being computed for the panel."""
        return self.map_work.pending

    @property
    def map_progress(self) -> float:
        """How far the map being computed has come (0…1)."""
        return self.map_work.progress

    # --- generation ------------------------------------------------------------------
    def request_generation(self, *, now: bool = False) -> tuple:
        """Generate ``count`` tokens after the model's sentence with the current settings
        and interventions (on the runner, or here with ``now``); ``generated(key,
        Generated)`` or ``generation_failed(key, exception)`` follows. Returns the key,
        whose first part is the model's fields the tokens follow."""
        from attnviz.core import hf_generate

        model, settings = self.key()
        temperature, top_k, top_p, _position, _target, ablate, ablation, knockout = settings
        seed, count = self.topic.seed, self.topic.count
        self._runs += 1
        key = (model, settings, seed, count, self._runs)
        self._stop.set()  # a run on its way ends at its next token
        stop = self._stop = threading.Event()

        def job(progress, cancel):
            def stopped():
                return stop.is_set() or cancel.is_set()

            return _refusing(
                hf_generate.generate,
                _loaded(model),
                model[2],
                count=count,
                temperature=temperature,
                top_k=top_k,
                top_p=top_p,
                seed=None if seed < 0 else seed,
                ablate=ablate,
                ablation=ablation,
                knockout=knockout,
                stop=stopped,
                progress=progress,
            )

        self.gen_work.request(key, job, now=now)
        return key

    def stop_generation(self) -> bool:
        """End the run on its way after its current token (the tokens made so far are
        answered); False when none runs."""
        if not self.gen_work.pending:
            return False
        self._stop.set()
        return True

    @property
    def generation_running(self) -> bool:
        """True while a generation runs."""
        return self.gen_work.pending

    @property
    def generation_progress(self) -> float:
        """How far the generation on its way has come (0…1)."""
        return self.gen_work.progress

    def _on_gen_answer(self, key, result) -> None:
        if isinstance(result, BaseException):
            self.generation_failed.emit(key, result)
        else:
            self.generated.emit(key, result)

    def _on_map_answer(self, key, result) -> None:
        if isinstance(result, BaseException):
            self.map_failed.emit(key, result)
        else:
            self.map_ready.emit(key, result)

    # --- heads through W^O: direct effects on the target's logit -------------------------
    #: ``head_logits_ready(key, HeadLogits)`` / ``head_logits_failed(key, exception)``.
    head_logits_ready = Signal(object, object)
    head_logits_failed = Signal(object, object)

    def _init_head_logits(self, runner) -> None:
        # One forward pass, keyed as the map is (model, sentence, position, target).
        self.attr_work = LatestWork(self._on_attr_answer, runner, cache_size=4, replace="cancel")

    @staticmethod
    def _attr_job(key: tuple):
        from attnviz.core import hf_head_logits

        model, position, target = key

        def job(_progress, _cancel):
            return _refusing(
                hf_head_logits.head_logits,
                _loaded(model),
                model[2],
                position=None if position == -1 else position,
                target=target or None,
            )

        return job

    def head_logits(self):
        """The :class:`~attnviz.core.hf_head_logits.HeadLogits` of the current inputs
        (each head's direct effect on the target's logit), computed here unless kept."""
        key = self.map_key()
        found = self.attr_work.cached(key)
        if found is None:
            found = self._attr_job(key)(None, None)
            self.attr_work.keep(key, found)
        return found

    def request_head_logits(self, *, now: bool = False):
        """The kept attribution of the current inputs, else start it (on the runner, or here
        with ``now``) unless it is on its way, and return None: ``head_logits_ready`` or
        ``head_logits_failed`` follows."""
        key = self.map_key()
        kept = self.attr_work.cached(key)
        if kept is not None:
            return kept
        if self.attr_work.wanted_key != key:
            self.attr_work.request(key, self._attr_job(key), now=now)
        return None

    def _on_attr_answer(self, key, result) -> None:
        if isinstance(result, BaseException):
            self.head_logits_failed.emit(key, result)
        else:
            self.head_logits_ready.emit(key, result)

    def lens(self, top: int = 5):
        """The :class:`~attnviz.core.hf_predict.Lens` of the clean run at the position."""
        from attnviz.core import hf_predict

        def make(key):
            model, settings = key
            position, target = settings[3], settings[4]
            return _refusing(
                hf_predict.logit_lens,
                _loaded(model),
                model[2],
                position=None if position == -1 else position,
                target=target or None,
                top=top,
            )

        return self._kept(f"lens{top}", make)


RESOLVER = PredictionResolver


def vocabulary(workspace, size: int) -> tuple[str, ...]:
    """The tokens of ids 0 … size − 1 of the open model (``<id>`` where the tokenizer
    has none: a head padded past the vocabulary)."""
    key = workspace.resolver_for("prediction").key()
    loaded = _loaded(key[0])
    found = loaded.tokenizer.convert_ids_to_tokens(list(range(size)))
    return tuple(f"<{i}>" if t is None else str(t) for i, t in enumerate(found))


def _probabilities(workspace) -> DataArray:
    res = workspace.resolver_for("prediction").results
    values = np.column_stack([res.clean, res.probs])
    rows = vocabulary(workspace, values.shape[0])
    return DataArray(values, rows, PROBABILITY_COLUMNS, corner=f"p at position {res.position}")


def _ablation(workspace) -> DataArray:
    found = workspace.resolver_for("prediction").ablation_map()
    layers, heads = found.values.shape
    return DataArray(
        found.values,
        tuple(str(i) for i in range(layers)),
        tuple(str(h) for h in range(heads)),
        corner=f"layer \\ head: Δ log p({found.target_token})",
    )


def _copying(workspace) -> DataArray:
    found = workspace.resolver_for("prediction").ablation_map()
    layers, heads = found.copying.shape
    # The last row: nothing switched off (the clean run), in every column.
    values = np.vstack([found.copying, np.full((1, heads), found.copy_clean)])
    return DataArray(
        values,
        (*(str(i) for i in range(layers)), "clean"),
        tuple(str(h) for h in range(heads)),
        corner=f"layer \\ head: copy accuracy with the head off, over {found.copy_count} "
        "copyable tokens",
    )


def _lens(workspace) -> DataArray:
    resolver = workspace.resolver_for("prediction")
    found = resolver.lens(1)
    loaded = _loaded(resolver.key()[0])
    from attnviz.core.hf_predict import token_text

    top = found.top_ids[:, 0]
    rows = tuple(f"{i}: {token_text(loaded, t)}" for i, t in enumerate(top))
    values = np.column_stack([found.target_probs, top.astype(np.float64), found.top_probs[:, 0]])
    corner = f"layer: top token; target {found.target_token}"
    return DataArray(values, rows, LENS_COLUMNS, corner=corner)


def _head_logits(workspace) -> DataArray:
    found = workspace.resolver_for("prediction").head_logits()
    layers, heads = found.values.shape
    return DataArray(
        found.values,
        tuple(str(i) for i in range(layers)),
        tuple(str(h) for h in range(heads)),
        corner=f"layer \\ head: direct logit attribution, logit({found.target_token}) - mean"
        + (" before the softcap" if found.softcap else ""),
    )


def prediction_data(workspace, name: str) -> DataArray:
    """The prediction panel's array ``name``: ``probabilities`` (the vocabulary × clean,
    intervened), ``ablation`` (layers × heads), ``lens`` (layers × p_target, top_id,
    p_top), ``head_logits`` (layers × heads: each head's direct effect on the target's
    logit, an attribution; NaN where a layer is not softmax attention) or ``copying``
    (layers × heads: copy accuracy on the sentence with that head zero-ablated, from the
    ablation map's passes, then a row ``clean`` with nothing off; NaN where nothing
    repeats)."""
    readers = {"probabilities": _probabilities, "ablation": _ablation, "lens": _lens}
    readers |= {"head_logits": _head_logits, "copying": _copying}
    return readers[name](workspace)
