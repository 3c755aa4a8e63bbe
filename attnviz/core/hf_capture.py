"""Open a local Hugging Face model folder and capture every head's q, k, v and weights.

The folder is checked first, before anything is imported or loaded
(:func:`~attnviz.core.hf_folder.inspect_folder`, named here too). transformers and torch
are imported only by :func:`load_model`, always with ``trust_remote_code=False``,
``use_safetensors=True`` and ``local_files_only=True``.

Capture: the model is loaded with an attention implementation of our own,
``"attnviz_capture"``, registered in transformers' ``AttentionInterface``; it calls the
model's own eager attention (same numbers, same weights) and keeps, per layer, exactly what
the attention product receives — q after the projections, the q/k norms and RoPE where
the architecture has them, k and v of the KV heads before grouped-query repetition (query
head i reads KV head i // (h / h_kv)), the additive mask, the scale — and the softmax
weights the model computes. Every refusal is a :class:`ModelError` of one line.

Once a model's first whole pass has made exactly one attention call per layer, a capture
stops right after the last layer's attention (:class:`LastLayer`): the last MLP, the
final norm and a pooler change no attention weight.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from attnviz.core.cell_timing import cell_seconds, flop_seconds
from attnviz.core.hf_errors import INSTALL_HINT as INSTALL_HINT
from attnviz.core.hf_errors import TORCH_CPU as TORCH_CPU
from attnviz.core.hf_errors import LoadCancelled, ModelError
from attnviz.core.hf_errors import transformers_available as transformers_available
from attnviz.core.hf_files import Fingerprint, changed_files, fingerprint, own_weights
from attnviz.core.hf_folder import ENCODER_DECODER, FAMILIES, ModelInfo, inspect_folder

# The folder's other public names, importable from here as before.
from attnviz.core.hf_folder import LOAD_FACTOR as LOAD_FACTOR
from attnviz.core.hf_folder import MAX_HEADER_BYTES as MAX_HEADER_BYTES
from attnviz.core.hf_folder import PICKLE_SUFFIXES as PICKLE_SUFFIXES
from attnviz.core.hf_folder import VOCAB_FILES as VOCAB_FILES
from attnviz.core.hf_folder import safetensors_header as safetensors_header
from attnviz.core.hf_layers import (
    MLP_ONLY,
    SOFTMAX,
    decoder_layers,
    layer_kinds,
    place_calls,
    softmax_notes,
)
from attnviz.core.hf_record import (
    _LOCAL,
    HOOKED,
    LONG_TOKENS,
    POOL_CELLS,
    Capture,
    LastLayer,
    LayerCapture,
    _capture_attention,
    _held_bytes,
    _hook,
    _indexer_call,
    runs_outside_interface,
)
from attnviz.core.memory_guard import available_bytes

__all__ = [
    "CAPTURE_IMPL",
    "FAMILIES",
    "FAMILY_SINCE",
    "HOOKED",
    "LONG_TOKENS",
    "MAX_MODEL_TOKENS",
    "POOL_CELLS",
    "Capture",
    "LayerCapture",
    "LoadCancelled",
    "LoadedModel",
    "ModelError",
    "ModelInfo",
    "inspect_folder",
    "load_model",
]

#: The attention implementation registered with transformers.
CAPTURE_IMPL = "attnviz_capture"
#: model_type → the oldest transformers where the family runs its attention through the
#: AttentionInterface (or builds from its own config), where that is later than the floor.
FAMILY_SINCE = {"gptj": (5, 24), "phi": (5, 5), "stablelm": (5, 5), "modernbert": (5, 5)}
#: Longest sentence captured (tokens), and at most the model's positions; the attention
#: topic shows up to as many.
MAX_MODEL_TOKENS = 8192
#: Most bytes one capture may hold (weights, q, k, v of every layer and head).
MAX_CAPTURE_BYTES = 1 << 30
#: Below this many FLOPs (2 · parameters · tokens) a forward pass runs on one thread: the
#: products are too small to share, and on a busy two-core laptop OpenMP's threads wait on
#: each other (MiniLM, 10 tokens: 13 ms on one thread, 120–600 ms on two under load).
SINGLE_THREAD_FLOPS = 4e9


#: The oldest transformers whose every family's attention goes through AttentionInterface
#: (the floor of the `models` extra, tested in CI with the newest).
MIN_TRANSFORMERS = (5, 0)


# --- capture ---------------------------------------------------------------------------
_REGISTERED = False  # the capture implementation is registered with transformers


def _line(exc: BaseException, limit: int) -> str:
    """An exception's text on one line (transformers' own may span several), shortened."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _register() -> None:
    global _REGISTERED
    if _REGISTERED:
        return
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(CAPTURE_IMPL, _capture_attention)
    AttentionMaskInterface.register(CAPTURE_IMPL, eager_mask)
    _REGISTERED = True


def _version(text: str) -> tuple[int, ...]:
    """``(5, 0)`` of ``"5.0.0"``, ``"5.1.0.dev0"`` (the leading numbers)."""
    parts = []
    for part in text.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit()) if part[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _import_stack():
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise ModelError(
            f"opening a model needs transformers and torch ({exc.name} is missing): {INSTALL_HINT}"
        ) from None
    if _version(transformers.__version__) < MIN_TRANSFORMERS:
        # Older releases run BERT-family attention outside the AttentionInterface
        # (KeyError: 'attnviz_capture'); CI tests the floor and the newest.
        floor = ".".join(map(str, MIN_TRANSFORMERS))
        raise ModelError(
            f"opening a model needs transformers {floor} or newer (this is "
            f'{transformers.__version__}): pip install "transformers>={floor}"'
        )
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    return torch, transformers


def language_model(model):
    """The module a sentence runs through: a multimodal model's language model (its
    ``language_model``), else the model itself."""
    for owner in (model, getattr(model, "model", None)):
        inner = getattr(owner, "language_model", None) if owner is not None else None
        if inner is not None:
            return inner
    return model


def _config_int(cfg, *names) -> int | None:
    """The first of ``names`` the config gives as a positive integer (a config whose value
    varies by layer, as Gemma 4's head_dim, raises on reading: None then)."""
    for name in names:
        try:
            value = getattr(cfg, name, None)
        except Exception:  # a per-layer attribute read globally
            value = None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _text_config(cfg):
    """The language model's config of a loaded model's config."""
    inner = getattr(cfg, "text_config", None)
    return inner if inner is not None else cfg


class LoadedModel:
    """A model and its tokenizer, loaded from a checked folder (see :func:`load_model`);
    ``text_model`` is what a sentence runs through (a multimodal folder's language model)."""

    def __init__(
        self, info: ModelInfo, model, tokenizer, seconds: float, files: Fingerprint = ()
    ) -> None:
        self.info = info
        #: The folder's files as they were when it was read (:mod:`attnviz.core.hf_files`).
        self.files = files
        self.model = model
        self.text_model = language_model(model)
        self.config = _text_config(model.config)
        self.tokenizer = tokenizer
        self.load_seconds = seconds
        self._lock = threading.Lock()  # one forward pass at a time: hooks record per thread
        #: Attention calls of this model's last whole forward pass (None: none yet). Once
        #: a whole pass has made exactly one per layer, a capture stops at the last one
        #: (:class:`LastLayer`): the number of calls is the architecture's, not the
        #: sentence's, so the check that it is one per layer still holds.
        self._calls: int | None = None
        #: The calls of a whole pass whose every layer was accounted for (one softmax call
        #: per softmax layer, the others of a known kind): later passes stop after them.
        self._stop_after: int | None = None

    def changed_files(self) -> tuple[str, ...]:
        """The folder's weight files (and config) that changed since it was loaded."""
        return changed_files(self.info.path, self.files)

    def check_files(self) -> None:
        """:class:`ModelError` (one line) when the folder changed since the model was
        loaded: its weights are no longer the folder's (the store loads it again)."""
        changed = self.changed_files()
        if changed:
            more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
            raise ModelError(
                f"{self.info.name}: {changed[0]}{more} changed on disk since the model was "
                "loaded; open the model again"
            )

    def tokenize(self, text: str) -> tuple[list[int], list[str], list[bool]]:
        """Token ids, the tokens as the model sees them and which are special."""
        bad = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:  # bytes that were not UTF-8 (argv's surrogate escapes)
            raise ModelError(f"the sentence is not UTF-8 text (at character {bad + 1})")
        try:
            ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        except Exception as exc:  # a tokenizer of no vocabulary, or a broken one
            raise ModelError(
                f"{self.info.name}: its tokenizer fails on this sentence "
                f"({type(exc).__name__}: {_line(exc, 160)})"
            ) from None
        if not ids:
            raise ModelError("the sentence gives no tokens: type a few words")
        if len(ids) > MAX_MODEL_TOKENS:
            raise ModelError(
                f"the sentence is {len(ids)} tokens long; at most {MAX_MODEL_TOKENS} are captured"
            )
        positions = self.positions
        if positions is not None and len(ids) > positions:
            raise ModelError(
                f"the sentence is {len(ids)} tokens long and "
                f"{self.info.name} has {positions} positions"
            )
        special = set(self.tokenizer.all_special_ids)
        tokens = self.tokenizer.convert_ids_to_tokens(ids)
        return list(ids), [str(t) for t in tokens], [i in special for i in ids]

    @property
    def positions(self) -> int | None:
        """The positions the model was trained on (None: no bound, as ALiBi's BLOOM)."""
        return _config_int(self.config, "max_position_embeddings", "n_positions")

    def _shape(self) -> tuple[int, int, int, int]:
        """``(layers, heads, kv heads, head width)`` as the config gives them, for the
        memory and time estimates before the pass (the widest where layers differ)."""
        cfg = self.config
        layers = _config_int(cfg, "num_hidden_layers", "num_layers", "n_layer") or 1
        heads = _config_int(cfg, "num_attention_heads", "n_head") or 1
        kv = _config_int(cfg, "num_key_value_heads") or heads
        hidden = _config_int(cfg, "hidden_size", "n_embd", "d_model") or heads
        dim = _config_int(cfg, "head_dim", "global_head_dim") or max(hidden // heads, 1)
        wider = _config_int(cfg, "global_head_dim")
        return layers, heads, kv, max(dim, wider or 0)

    def capture(self, text: str, check=None, progress=None) -> Capture:
        """Run ``text`` once and keep every layer's q, k, v and weights (past
        :data:`LONG_TOKENS` q, k, v and the pooled weights; ``check(layer, weights_of)``
        then proves each layer while its weights exist, ``weights_of(head)`` giving the
        model's (n, n) weights of one query head). ``progress("forward", done, total)`` is
        called before each layer (``done`` layers of ``total`` finished); it may raise
        :class:`LoadCancelled` to stop the pass."""
        import torch  # imported and checked when the model was loaded

        self.check_files()
        ids, tokens, special = self.tokenize(text)
        n = len(ids)
        layers, heads, kv, dim = self._shape()
        kept = heads * n * n if n <= LONG_TOKENS else heads * min(n, POOL_CELLS) ** 2
        # q, k, v in float32, and the masks (bool; layers of one mask share it, and a model
        # has one or two kinds: full or causal, and a sliding window).
        need = layers * 4 * (kept + (heads + 2 * kv) * n * dim) + 2 * n * n
        if need > MAX_CAPTURE_BYTES:
            raise ModelError(
                f"{n} tokens through {layers} layers × {heads} heads would keep "
                f"{need / 2**30:.1f} GiB; shorten the sentence"
            )
        # Eager attention holds one layer's scores and weights (and a float copy) at once.
        working = 3 * 4 * heads * n * n
        free = available_bytes("numpy")
        if free is not None and working > free:
            raise ModelError(
                f"{n} tokens need about {working / 2**30:.1f} GiB for one "
                f"layer's attention and {free / 2**30:.1f} GiB are free; "
                "shorten the sentence"
            )
        if progress is not None:  # before the pass: how long it is likely to take
            progress("forward", 0, layers, capture_seconds(n, layers, heads, dim, self.info.params))
        record: list[LayerCapture] = []
        calls: list = []  # (module, layer_idx) of each attention call
        threads = torch.get_num_threads()
        single = 2.0 * self.info.params * n < SINGLE_THREAD_FLOPS
        with self._lock:
            # A whole pass, its layers accounted for, has counted the attention calls:
            # stop after the last one.
            stop = self._stop_after is not None
            _LOCAL.layers = record
            _LOCAL.calls = calls
            _LOCAL.selections = selections = []  # DSA indexers' choices, recomputed
            _LOCAL.check = check
            _LOCAL.progress = progress
            _LOCAL.total = self._stop_after if stop else layers
            _LOCAL.stop = stop
            if single:
                torch.set_num_threads(1)
            start = time.perf_counter()
            try:
                with torch.no_grad():
                    self.text_model(
                        input_ids=torch.tensor([ids]),
                        attention_mask=torch.ones(1, n, dtype=torch.long),
                    )
            except LastLayer:
                pass  # every layer's attention is recorded; the rest is not needed
            except LoadCancelled:
                raise
            except Exception as exc:  # a model that cannot run this sentence
                raise ModelError(
                    f"the model failed on this sentence: {type(exc).__name__}: {_line(exc, 200)}"
                ) from None
            finally:
                _LOCAL.layers = _LOCAL.calls = _LOCAL.check = _LOCAL.progress = None
                _LOCAL.selections = None
                _LOCAL.total = 0
                _LOCAL.stop = False
                if single:
                    torch.set_num_threads(threads)
            seconds = time.perf_counter() - start
            if not stop:
                self._calls = len(record)
            kinds, placed = self._layer_kinds(calls, record, layers)
            record = _with_selections(record, selections)
            if not stop:
                self._stop_after = len(record)
        heads, kv_heads, head_dim = _shape(record, self.config)
        return Capture(
            self.info.name,
            self.info.path,
            text,
            _kind_of(record),
            tuple(tokens),
            tuple(special),
            tuple(ids),
            tuple(record),
            heads,
            kv_heads,
            head_dim,
            _config_int(self.config, "hidden_size", "n_embd", "d_model") or 0,
            seconds,
            _held_bytes(record),
            kinds,
            tuple(placed),
            self.info.wrapper,
        )

    def _layer_kinds(
        self, calls: list, records: list, layers: int
    ) -> tuple[tuple[str, ...], list[int]]:
        """What each of the model's ``layers`` does, and the layer of each captured call
        (:mod:`attnviz.core.hf_layers`); :class:`ModelError` when no call was captured or a
        layer without one mixes its tokens in a way attnviz does not know."""
        blocks = decoder_layers(self.text_model, layers)
        if not calls:
            # A state-space model (Mamba-2, Falcon-Mamba): no softmax at all. It opens when
            # every layer's mixer is one whose matrix attnviz captures and proves when drawn.
            try:
                kinds = layer_kinds(blocks, [], layers, self.info.name) if blocks else ()
            except ModelError:  # a layer of a kind attnviz does not know: the line below
                kinds = ()
            if not kinds or not all(_captured_kind(k) for k in kinds):
                raise ModelError(
                    f"{self.info.name}: no layer ran its attention through the interface "
                    "attnviz captures (a module of its own, or relative position scores); "
                    "not shown"
                )
            return kinds, []
        if not blocks and len(calls) != layers:  # no list of that many layers to look in
            raise ModelError(
                f"captured {len(calls)} attention layers of {layers}: this "
                "architecture does not run its attention where attnviz looks"
            )
        placed = place_calls(blocks, calls, layers)
        called = frozenset(id(module) for module, _idx in calls)
        rope = getattr(self.config, "no_rope_layers", None)  # 0: a NoPE layer (Llama 4)
        notes = {
            layer: softmax_notes(
                module,
                lc.q.shape[0],
                lc.q.shape[2],
                None if not isinstance(rope, list) or layer >= len(rope) else bool(rope[layer]),
            )
            for (module, _idx), layer, lc in zip(calls, placed, records, strict=True)
        }
        kinds = layer_kinds(blocks, placed, layers, self.info.name, called, notes)
        if kinds.count(SOFTMAX) + sum(k.startswith(SOFTMAX + " ") for k in kinds) != len(calls):
            raise ModelError(
                f"{self.info.name}: {len(calls)} attention calls in {layers} layers; attnviz "
                "shows one softmax attention per layer"
            )
        return kinds, placed


def _captured_kind(kind: str) -> bool:
    """True for a mixer kind whose matrix attnviz captures (or a layer mixing nothing)."""
    from attnviz.core.hf_mixing import KERNELS

    return kind in KERNELS or kind == MLP_ONLY


def _shape(record: list, config) -> tuple[int, int, int]:
    """Query heads, KV heads and head width of the first softmax layer; of a state-space
    model (no softmax layer) its SSM heads and their width, from its config."""
    if record:
        first = record[0]
        return first.q.shape[0], first.k.shape[0], first.q.shape[2]
    heads = _config_int(config, "num_heads", "mamba_n_heads") or 1
    width = _config_int(config, "head_dim", "mamba_d_head") or 1
    return heads, heads, width


def _with_selections(record: list[LayerCapture], selections: list) -> list[LayerCapture]:
    """Each DSA layer with the rotary layout under which attnviz's recomputation of its
    indexer gave the model's choice of keys (a layer reusing an earlier layer's choice,
    as GLM's shared layers do, takes that one's); None where no recomputation matched."""
    out = []
    for lc in record:
        if lc.selected is not None:
            layout = next(
                (lay for sel, lay in selections if np.array_equal(sel, lc.selected)), None
            )
            lc = replace(lc, index_layout=layout)
        out.append(lc)
    return out


def _kind_of(record: list[LayerCapture]) -> str:
    """``"decoder"`` when every captured layer hides each query's later keys (causal, or a
    causal window), else ``"encoder"``: what the model's own masks say."""
    for lc in record:
        n = lc.allowed.shape[0]
        if n > 1 and lc.allowed[np.triu_indices(n, 1)].any():
            return "encoder"
    return "decoder"


#: What a DSA indexer module has that attnviz recomputes (DeepSeek-V3.2's and GLM's).
_INDEXER_PARTS = ("wq_b", "wk", "k_norm", "weights_proj", "index_topk", "softmax_scale")


def _hook_indexers(model) -> None:
    """A forward hook on every DSA indexer of the model whose parts attnviz recomputes
    (:func:`attnviz.core.hf_record._indexer_call`); an indexer of another make is not
    hooked, and its layers' selections then fail the proof."""
    for module in model.modules():
        name = type(module).__name__
        if name.endswith("Indexer") and all(hasattr(module, p) for p in _INDEXER_PARTS):
            module.register_forward_hook(_indexer_call, with_kwargs=True)


#: A capture's seconds against its head cells (layers × heads × n²) × one score cell's
#: here: eager attention's scores, softmax and copies, and past LONG_TOKENS the pooling and
#: the block-wise proof (6.8 measured at 8,192 tokens on the 2-core CI machine).
CAPTURE_CELL_SHARE = 7.0
#: The projections' and MLPs' multiply-adds (2 × parameters × n) against one timed here.
FORWARD_FLOP_SHARE = 2.0


def capture_seconds(n: int, layers: int, heads: int, head_dim: int, params: int) -> float:
    """About how long a capture of ``n`` tokens takes on this machine's CPU."""
    cells = layers * heads * n * n * cell_seconds(head_dim)
    return CAPTURE_CELL_SHARE * cells + FORWARD_FLOP_SHARE * 2.0 * params * n * flop_seconds()


#: Tensors a folder may leave out without changing any attention weight: the pooler of
#: an encoder (after the last layer) and buffers made from the config.
_HARMLESS = re.compile(r"(?:^|\.)(?:pooler\.|position_ids$|inv_freq$)")


def check_loading(info: ModelInfo, loading: dict) -> None:
    """Refuse a model whose weights do not fill it (transformers initialises a missing
    tensor at random, and attnviz would show that as the model) or do not fit it."""
    missing = [k for k in loading.get("missing_keys", ()) if not _HARMLESS.search(k)]
    mismatched = list(loading.get("mismatched_keys", ()))
    if not missing and not mismatched:
        return
    other = len(loading.get("unexpected_keys", ()))
    if mismatched:
        what = f"{len(mismatched)} tensors of another shape ({str(mismatched[0])[:60]})"
    else:
        what = f"{len(missing)} tensors missing ({sorted(missing)[0][:60]})"
    also = f", {other} tensors of another architecture" if other else ""
    raise ModelError(
        f"{info.name}: its weights do not fit a {info.model_type} model: "
        f"{what}{also}; attnviz never shows randomly initialised weights"
    )


def load_model(
    path: str | os.PathLike,
    progress: Callable[[str], None] | None = None,
    *,
    free_bytes: int | None = -1,
) -> LoadedModel:
    """Check a folder (:func:`inspect_folder`), then load its tokenizer and model.

    ``progress(stage)`` is called with ``"check"``, ``"import"``, ``"tokenizer"``,
    ``"weights"`` and ``"ready"`` as loading goes on; it may raise
    :class:`LoadCancelled` to stop there.
    """
    step = progress or (lambda _stage: None)
    step("check")
    info = inspect_folder(path, free_bytes=free_bytes)
    # Before the weights are read: a change during the load is seen at the first use.
    files = fingerprint(info.path, info.weight_files)
    step("import")
    torch, transformers = _import_stack()
    since = FAMILY_SINCE.get(info.model_type)
    if since is not None and _version(transformers.__version__) < since:
        floor = ".".join(map(str, since))
        raise ModelError(
            f"{info.name}: {info.model_type} models open with transformers "
            f"{floor} or newer (this is {transformers.__version__}): "
            f'pip install "transformers>={floor}"'
        )
    _register()
    start = time.perf_counter()
    step("tokenizer")
    common = dict(local_files_only=True, trust_remote_code=False)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(info.path, **common)
    except Exception as exc:
        raise ModelError(
            f"{info.name}: its tokenizer cannot be loaded ({type(exc).__name__}: {_line(exc, 160)})"
        ) from None
    step("weights")
    try:
        hooked = runs_outside_interface(info.model_type)
        impl = "eager" if hooked else CAPTURE_IMPL
        model, loading = transformers.AutoModel.from_pretrained(
            info.path,
            use_safetensors=True,
            attn_implementation=impl,
            dtype=torch.float32,
            output_loading_info=True,
            **common,
        )
    except Exception as exc:
        raise ModelError(
            f"{info.name}: the model cannot be loaded ({type(exc).__name__}: {_line(exc, 160)})"
        ) from None
    step("ready")  # a cancel during the (uninterruptible) read drops the model here
    if getattr(model.config, "is_encoder_decoder", False):  # a class default the file left out
        raise ModelError(f"{info.name}: {info.model_type} is {ENCODER_DECODER}")
    check_loading(info, loading)
    if hooked:
        _hook(model, info.model_type)
    _hook_indexers(model)
    model.eval()
    try:
        own_weights(model)  # never read a mapped page of a file that may be truncated
    except Exception as exc:  # a file truncated during the load, memory
        raise ModelError(
            f"{info.name}: its weights cannot be copied ({type(exc).__name__}: {_line(exc, 120)})"
        ) from None
    return LoadedModel(info, model, tokenizer, time.perf_counter() - start, files)
