"""Open a local Hugging Face model folder and capture every head's q, k, v and weights.

Safety first, before anything is imported or loaded (:func:`inspect_folder`): the folder
must hold a ``config.json`` that asks for no code of its own (``auto_map``), weights in
safetensors (a pickle checkpoint such as ``pytorch_model.bin`` can run code when it is
read, so it is refused), a tokenizer, an architecture of a family we capture, and it must
fit in free memory (its size is read from the safetensors headers). transformers and torch
are imported only by :func:`load_model`, always with ``trust_remote_code=False``,
``use_safetensors=True`` and ``local_files_only=True``.

Capture: the model is loaded with an attention implementation of our own,
``"attnviz_capture"``, registered in transformers' ``AttentionInterface``; it calls the
model's own eager attention (same numbers, same weights) and keeps, per layer, exactly what
the attention product receives — q after the projections, the q/k norms and RoPE where
the architecture has them, k and v of the KV heads before grouped-query repetition (query
head i reads KV head i // (h / h_kv)), the additive mask, the scale — and the softmax
weights the model computes. Every refusal is a :class:`ModelError` of one line.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from attnviz.core._files import read_json_file
from attnviz.core.cell_timing import cell_seconds, flop_seconds
from attnviz.core.hf_errors import LoadCancelled, ModelError
from attnviz.core.hf_record import (
    _LOCAL,
    HOOKED,
    LONG_TOKENS,
    POOL_CELLS,
    Capture,
    LayerCapture,
    _capture_attention,
    _held_bytes,
    _hook,
    runs_outside_interface,
)
from attnviz.core.memory_guard import available_bytes

__all__ = ["CAPTURE_IMPL", "FAMILIES", "FAMILY_SINCE", "HOOKED", "LONG_TOKENS",
           "MAX_MODEL_TOKENS", "POOL_CELLS", "REFUSED", "Capture", "LayerCapture",
           "LoadCancelled", "LoadedModel", "ModelError", "ModelInfo", "inspect_folder",
           "load_model"]

#: The attention implementation registered with transformers.
CAPTURE_IMPL = "attnviz_capture"
#: model_type → "encoder" or "decoder": families whose attention goes through transformers'
#: AttentionInterface with the eager signature (q after norm and RoPE, KV heads before
#: repetition), each checked in the tests against transformers' own weights, and every
#: capture proven again before it is shown (attnviz.model.model_proof).
FAMILIES = {
    "bert": "encoder", "roberta": "encoder", "xlm-roberta": "encoder", "electra": "encoder",
    "distilbert": "encoder", "albert": "encoder", "modernbert": "encoder",
    "llama": "decoder", "mistral": "decoder", "mixtral": "decoder", "qwen2": "decoder",
    "qwen3": "decoder", "qwen3_moe": "decoder", "gemma": "decoder", "gemma2": "decoder",
    "gemma3_text": "decoder", "phi3": "decoder", "olmo2": "decoder", "granite": "decoder",
    "smollm3": "decoder", "gpt2": "decoder", "gpt_neox": "decoder", "phi": "decoder",
    "stablelm": "decoder", "gptj": "decoder", "opt": "decoder", "olmo": "decoder",
    "cohere": "decoder", "starcoder2": "decoder", "llama4_text": "decoder",
    "gpt_oss": "decoder", "bloom": "decoder", "falcon": "decoder",
    # Multi-head latent attention: its q and k reach the attention product as each head's
    # latent part (decompressed) joined to its rotary part, so q·kᵀ is the model's own.
    "deepseek_v3": "decoder",
}  # fmt: skip
#: model_type → the oldest transformers where the family runs its attention through the
#: AttentionInterface (or builds from its own config), where that is later than the floor.
FAMILY_SINCE = {"gptj": (5, 24), "phi": (5, 5), "stablelm": (5, 5), "modernbert": (5, 5)}
#: model_type → why it is refused: what its attention does that the heatmap cannot show
#: exactly (yet), or where it runs outside what attnviz captures.
REFUSED = {
    "t5": "T5 is an encoder–decoder with relative position biases; attnviz shows encoders "
          "and decoders on their own",
    "mt5": "mT5 is an encoder–decoder with relative position biases; attnviz shows encoders "
           "and decoders on their own",
    "bart": "BART is an encoder–decoder; attnviz shows encoders and decoders on their own",
    "deberta": "DeBERTa adds disentangled relative-position scores, which attnviz does not "
               "model",
    "deberta-v2": "DeBERTa adds disentangled relative-position scores, which attnviz does "
                  "not model",
    "llama4": "this is Llama 4's multimodal checkpoint; open its text model (model_type "
              "llama4_text)",
}
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
VOCAB_FILES = ("vocab.txt", "vocab.json", "tokenizer.model", "spiece.model",
               "sentencepiece.bpe.model")  # fmt: skip
#: Longest sentence captured (tokens), and at most the model's positions; the attention
#: topic shows up to as many.
MAX_MODEL_TOKENS = 8192
#: Most bytes one capture may hold (weights, q, k, v of every layer and head).
MAX_CAPTURE_BYTES = 1 << 30
#: Largest safetensors header read (real ones are kilobytes to a few megabytes).
MAX_HEADER_BYTES = 100 << 20
#: Below this many FLOPs (2 · parameters · tokens) a forward pass runs on one thread: the
#: products are too small to share, and on a busy two-core laptop OpenMP's threads wait on
#: each other (MiniLM, 10 tokens: 13 ms on one thread, 120–600 ms on two under load).
SINGLE_THREAD_FLOPS = 4e9
#: Bytes per parameter of the float32 copy the capture runs on, and what loading adds.
LOAD_FACTOR = 1.25
_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
                "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}  # fmt: skip


def transformers_available() -> bool:
    """True when transformers and torch can be imported (nothing is imported here)."""
    return all(importlib.util.find_spec(m) is not None for m in ("transformers", "torch"))


#: The oldest transformers whose every family's attention goes through AttentionInterface
#: (the floor of the `models` extra, tested in CI with the newest).
MIN_TRANSFORMERS = (5, 0)
#: The CPU build of torch (a plain "pip install torch" fetches a CUDA build of several GB).
TORCH_CPU = "pip install torch --index-url https://download.pytorch.org/whl/cpu"
INSTALL_HINT = f'install the models extra: pip install "attnviz[models]", and torch: {TORCH_CPU}'


# --- the folder ------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelInfo:
    """What :func:`inspect_folder` read from a folder, before loading anything."""

    path: str
    name: str
    model_type: str
    kind: str  # "encoder" or "decoder"
    config: dict
    weight_files: tuple[str, ...]
    params: int
    file_bytes: int
    dtypes: tuple[str, ...]
    need_bytes: int


def _read_json(path: Path, what: str, limit: int = 4 << 20) -> dict:
    try:
        data = read_json_file(path, limit)
    except ValueError as exc:
        raise ModelError(f"{path}: {what}: {exc}") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: {what} must be a JSON object")
    return data


def safetensors_header(path: Path) -> dict:
    """The JSON header of a safetensors file (tensor name → dtype, shape, offsets)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise ModelError(f"{path.name} is too short to be a safetensors file")
            (length,) = struct.unpack("<Q", head)
            if length > MAX_HEADER_BYTES or length > path.stat().st_size - 8:
                raise ModelError(f"{path.name} has a damaged safetensors header")
            raw = fh.read(length)
        header = json.loads(raw.decode("utf-8"))
    except OSError as exc:
        raise ModelError(f"{path.name}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ModelError(f"{path.name} has a damaged safetensors header") from None
    if not isinstance(header, dict):
        raise ModelError(f"{path.name} has a damaged safetensors header")
    return header


def _count(headers: list[dict], data_sizes: list[int] | None = None
           ) -> tuple[int, int, tuple[str, ...]]:
    """Parameters, bytes on disk and dtypes of every tensor of the headers; a tensor whose
    shape, dtype or byte range does not hold together (negative sizes, offsets past the end
    of its file: a damaged or truncated file) is refused."""
    params = nbytes = 0
    dtypes = set()
    for i, header in enumerate(headers):
        size = None if data_sizes is None else data_sizes[i]
        for name, spec in header.items():
            if name == "__metadata__":
                continue
            if not isinstance(spec, dict):
                raise ModelError(f"tensor {str(name)[:60]} has no valid entry in its header")
            shape, dtype = spec.get("shape"), spec.get("dtype")
            if not isinstance(shape, list) or not all(
                    isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
                raise ModelError(f"tensor {str(name)[:60]} has no valid shape in its header")
            if not isinstance(dtype, str) or dtype not in _DTYPE_BYTES:
                raise ModelError(f"tensor {str(name)[:60]} has an unknown dtype "
                                 f"{str(dtype)[:12]!r}")
            count = math.prod(shape)
            offsets = spec.get("data_offsets")
            if size is not None and not (
                    isinstance(offsets, list) and len(offsets) == 2
                    and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
                    and 0 <= offsets[0] <= offsets[1] <= size
                    and offsets[1] - offsets[0] == count * _DTYPE_BYTES[dtype]):
                raise ModelError(f"tensor {str(name)[:60]} lies outside its file or does not "
                                 "fill its bytes (a damaged or truncated safetensors file)")
            if dtype.startswith(("F", "BF")):
                params += count  # integer tensors are buffers (position ids), not weights
            nbytes += count * _DTYPE_BYTES[dtype]
            dtypes.add(dtype)
    return params, nbytes, tuple(sorted(dtypes))


def _data_size(path: Path) -> int:
    """The bytes of ``path`` after its header (where the tensors' offsets point)."""
    with path.open("rb") as fh:
        (length,) = struct.unpack("<Q", fh.read(8))
    return path.stat().st_size - 8 - length


def _has_tokenizer(folder: Path) -> bool:
    if (folder / "tokenizer.json").is_file():
        return True
    return any((folder / name).is_file() for name in VOCAB_FILES)


#: Where a tensor's name says which layer (block) it belongs to: ``model.layers.3.…``,
#: ``encoder.layer.3.…``, ``transformer.layer.3.…``.
_LAYER_NAME = re.compile(r"(?:^|\.)(?:layers|layer)\.(\d+)\.")


#: The names a config gives its layer count (DistilBERT's n_layers).
_LAYER_KEYS = ("num_hidden_layers", "n_layers", "num_layers", "n_layer")


def _check_layers(name: str, config: dict, headers: list[dict]) -> None:
    """The config's layer count against the layers the weights hold, before anything is
    built: a config of 10,000 layers over 6 layers of weights is refused in milliseconds
    (it would build for minutes, then show random layers)."""
    part = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    keys = [k for k in _LAYER_KEYS if k in part]
    if not keys:
        return  # the class default applies: the loading check sees what it leaves empty
    layers = part[keys[0]]
    if isinstance(layers, bool) or not isinstance(layers, int) or layers < 1:
        raise ModelError(f"{name}: config.json gives {keys[0]} = {str(layers)[:20]}; "
                         "a model has one layer or more")
    held = {int(m.group(1)) for h in headers for key in h
            if (m := _LAYER_NAME.search(key)) is not None and len(m.group(1)) <= 6}
    if held and max(held) + 1 != layers:
        raise ModelError(f"{name}: config.json gives {keys[0]} = {layers:,} and its weights "
                         f"hold {max(held) + 1:,} layers; the two must agree")


def inspect_folder(path: str | os.PathLike, *, free_bytes: int | None = -1) -> ModelInfo:
    """Check a model folder without loading it; :class:`ModelError` says what is wrong.

    ``free_bytes`` is the memory the model may use (default: what the system has free;
    None: do not check).
    """
    folder = Path(path).expanduser()
    config_file = folder / "config.json"
    try:
        is_folder, has_config = folder.is_dir(), config_file.is_file()
    except (OSError, ValueError) as exc:  # a name past NAME_MAX, a NUL: is_dir raises
        raise ModelError(f"{folder}: not a folder path this system can open "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    if not is_folder:
        raise ModelError(f"{folder} is not a folder")
    if not has_config:
        raise ModelError(f"{folder} is not a Hugging Face model folder (no config.json)")
    config = _read_json(config_file, "config.json")
    if config.get("auto_map"):
        raise ModelError(
            f"{folder.name} asks to run code of its own (auto_map in config.json); "
            "attnviz never runs code from a model folder"
        )
    tok_config = folder / "tokenizer_config.json"
    if tok_config.is_file() and _read_json(tok_config, "tokenizer_config.json").get("auto_map"):
        raise ModelError(
            f"{folder.name}: its tokenizer asks to run code of its own (auto_map); "
            "attnviz never runs code from a model folder"
        )
    files = sorted(p for p in folder.iterdir() if p.is_file())
    weights = [p for p in files if p.suffix == ".safetensors"]
    if not weights:
        pickles = [p.name for p in files if p.suffix in PICKLE_SUFFIXES]
        if pickles:
            raise ModelError(
                f"{folder.name} holds only a pickle checkpoint ({pickles[0]}), which can run "
                "code when it is read; attnviz opens safetensors weights only"
            )
        raise ModelError(f"{folder.name} has no weights (no .safetensors file)")
    if not _has_tokenizer(folder):
        raise ModelError(
            f"{folder.name} has no tokenizer (tokenizer.json, or tokenizer_config.json with "
            "its vocabulary)"
        )
    model_type = config.get("model_type")
    if isinstance(model_type, str) and model_type in REFUSED:
        raise ModelError(f"{folder.name}: {REFUSED[model_type]}")
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        known = ", ".join(sorted(FAMILIES))
        raise ModelError(
            f"{folder.name}: {str(model_type)[:40]!r} is not a family attnviz reproduces "
            f"exactly; it opens {known}"
        )
    if model_type == "falcon" and config.get("alibi") is True:
        raise ModelError(
            f"{folder.name}: this Falcon adds ALiBi biases rounded to bfloat16 inside its "
            "mask, which attnviz does not reproduce; Falcon's rotary models (alibi: false) open"
        )
    headers = [safetensors_header(p) for p in weights]
    params, file_bytes, dtypes = _count(headers, [_data_size(p) for p in weights])
    if params == 0:
        raise ModelError(f"{folder.name}: its safetensors files hold no weights")
    _check_layers(folder.name, config, headers)
    need = int(params * 4 * LOAD_FACTOR) + (64 << 20)
    free = available_bytes("numpy") if free_bytes == -1 else free_bytes
    if free is not None and need > free:
        raise ModelError(
            f"{folder.name} needs about {need / 2**30:.1f} GiB to run in float32 "
            f"({params:,} parameters) and {free / 2**30:.1f} GiB are free"
        )
    name = folder.resolve().name
    if name == "model" and folder.resolve().parent.name:  # a packaged model's folder
        name = folder.resolve().parent.name
    return ModelInfo(str(folder.resolve()), name, model_type, FAMILIES[model_type], config,
                     tuple(p.name for p in weights), params, file_bytes, dtypes, need)


# --- capture ---------------------------------------------------------------------------
_REGISTERED = False  # the capture implementation is registered with transformers


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
        raise ModelError(f"opening a model needs transformers and torch ({exc.name} is "
                         f"missing): {INSTALL_HINT}") from None
    if _version(transformers.__version__) < MIN_TRANSFORMERS:
        # Older releases run BERT-family attention outside the AttentionInterface
        # (KeyError: 'attnviz_capture'); CI tests the floor and the newest.
        floor = ".".join(map(str, MIN_TRANSFORMERS))
        raise ModelError(f"opening a model needs transformers {floor} or newer (this is "
                         f"{transformers.__version__}): pip install \"transformers>={floor}\"")
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    return torch, transformers


class LoadedModel:
    """A model and its tokenizer, loaded from a checked folder (see :func:`load_model`)."""

    def __init__(self, info: ModelInfo, model, tokenizer, seconds: float) -> None:
        self.info = info
        self.model = model
        self.tokenizer = tokenizer
        self.load_seconds = seconds
        self._lock = threading.Lock()  # one forward pass at a time: hooks record per thread

    def tokenize(self, text: str) -> tuple[list[int], list[str], list[bool]]:
        """Token ids, the tokens as the model sees them and which are special."""
        try:
            ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        except Exception as exc:  # a tokenizer of no vocabulary, or a broken one
            raise ModelError(f"{self.info.name}: its tokenizer fails on this sentence "
                             f"({type(exc).__name__}: {str(exc)[:160]})") from None
        if not ids:
            raise ModelError("the sentence gives no tokens: type a few words")
        if len(ids) > MAX_MODEL_TOKENS:
            raise ModelError(f"the sentence is {len(ids)} tokens long; at most "
                             f"{MAX_MODEL_TOKENS} are captured")
        positions = self.positions
        if positions is not None and len(ids) > positions:
            raise ModelError(f"the sentence is {len(ids)} tokens long and "
                             f"{self.info.name} has {positions} positions")
        special = set(self.tokenizer.all_special_ids)
        tokens = self.tokenizer.convert_ids_to_tokens(ids)
        return list(ids), [str(t) for t in tokens], [i in special for i in ids]

    @property
    def positions(self) -> int | None:
        """The positions the model was trained on (None: no bound, as ALiBi's BLOOM)."""
        cfg = self.model.config
        for name in ("max_position_embeddings", "n_positions"):
            value = getattr(cfg, name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        return None

    def capture(self, text: str, check=None, progress=None) -> Capture:
        """Run ``text`` once and keep every layer's q, k, v and weights (past
        :data:`LONG_TOKENS` q, k, v and the pooled weights; ``check(layer, weights_of)``
        then proves each layer while its weights exist, ``weights_of(head)`` giving the
        model's (n, n) weights of one query head). ``progress("forward", done, total)`` is
        called before each layer (``done`` layers of ``total`` finished); it may raise
        :class:`LoadCancelled` to stop the pass."""
        torch, _ = _import_stack()
        ids, tokens, special = self.tokenize(text)
        cfg = self.model.config
        n, layers = len(ids), cfg.num_hidden_layers
        heads = cfg.num_attention_heads
        kv = getattr(cfg, "num_key_value_heads", None) or heads
        dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        kept = heads * n * n if n <= LONG_TOKENS else heads * min(n, POOL_CELLS) ** 2
        # q, k, v in float32, and the masks (bool; layers of one mask share it, and a model
        # has one or two kinds: full or causal, and a sliding window).
        need = layers * 4 * (kept + (heads + 2 * kv) * n * dim) + 2 * n * n
        if need > MAX_CAPTURE_BYTES:
            raise ModelError(f"{n} tokens through {layers} layers × {heads} heads would keep "
                             f"{need / 2**30:.1f} GiB; shorten the sentence")
        # Eager attention holds one layer's scores and weights (and a float copy) at once.
        working = 3 * 4 * heads * n * n
        free = available_bytes("numpy")
        if free is not None and working > free:
            raise ModelError(f"{n} tokens need about {working / 2**30:.1f} GiB for one "
                             f"layer's attention and {free / 2**30:.1f} GiB are free; "
                             "shorten the sentence")
        if progress is not None:  # before the pass: how long it is likely to take
            progress("forward", 0, layers, capture_seconds(n, layers, heads, dim,
                                                           self.info.params))
        record: list[LayerCapture] = []
        threads = torch.get_num_threads()
        single = 2.0 * self.info.params * n < SINGLE_THREAD_FLOPS
        with self._lock:
            _LOCAL.layers = record
            _LOCAL.check = check
            _LOCAL.progress = progress
            _LOCAL.total = layers
            if single:
                torch.set_num_threads(1)
            start = time.perf_counter()
            try:
                with torch.no_grad():
                    self.model(input_ids=torch.tensor([ids]),
                               attention_mask=torch.ones(1, n, dtype=torch.long))
            except LoadCancelled:
                raise
            except Exception as exc:  # a model that cannot run this sentence
                raise ModelError(f"the model failed on this sentence: "
                                 f"{type(exc).__name__}: {str(exc)[:200]}") from None
            finally:
                _LOCAL.layers = _LOCAL.check = _LOCAL.progress = None
                _LOCAL.total = 0
                if single:
                    torch.set_num_threads(threads)
            seconds = time.perf_counter() - start
        if len(record) != layers:
            raise ModelError(f"captured {len(record)} attention layers of {layers}: this "
                             "architecture does not run its attention where attnviz looks")
        first = record[0]
        return Capture(
            self.info.name, self.info.path, text, self.info.kind, tuple(tokens),
            tuple(special), tuple(ids), tuple(record), first.q.shape[0], first.k.shape[0],
            first.q.shape[2], int(cfg.hidden_size), seconds,
            _held_bytes(record),
        )


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
    raise ModelError(f"{info.name}: its weights do not fit a {info.model_type} model: "
                     f"{what}{also}; attnviz never shows randomly initialised weights")


def load_model(path: str | os.PathLike, progress: Callable[[str], None] | None = None,
               *, free_bytes: int | None = -1) -> LoadedModel:
    """Check a folder (:func:`inspect_folder`), then load its tokenizer and model.

    ``progress(stage)`` is called with ``"check"``, ``"import"``, ``"tokenizer"``,
    ``"weights"`` and ``"ready"`` as loading goes on; it may raise
    :class:`LoadCancelled` to stop there.
    """
    step = progress or (lambda _stage: None)
    step("check")
    info = inspect_folder(path, free_bytes=free_bytes)
    step("import")
    torch, transformers = _import_stack()
    since = FAMILY_SINCE.get(info.model_type)
    if since is not None and _version(transformers.__version__) < since:
        floor = ".".join(map(str, since))
        raise ModelError(f"{info.name}: {info.model_type} models open with transformers "
                         f"{floor} or newer (this is {transformers.__version__}): "
                         f"pip install \"transformers>={floor}\"")
    _register()
    start = time.perf_counter()
    step("tokenizer")
    common = dict(local_files_only=True, trust_remote_code=False)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(info.path, **common)
    except Exception as exc:
        raise ModelError(f"{info.name}: its tokenizer cannot be loaded "
                         f"({type(exc).__name__}: {str(exc)[:160]})") from None
    step("weights")
    try:
        hooked = runs_outside_interface(info.model_type)
        impl = "eager" if hooked else CAPTURE_IMPL
        model, loading = transformers.AutoModel.from_pretrained(
            info.path, use_safetensors=True, attn_implementation=impl,
            dtype=torch.float32, output_loading_info=True, **common,
        )
    except Exception as exc:
        raise ModelError(f"{info.name}: the model cannot be loaded "
                         f"({type(exc).__name__}: {str(exc)[:160]})") from None
    step("ready")  # a cancel during the (uninterruptible) read drops the model here
    check_loading(info, loading)
    if hooked:
        _hook(model, info.model_type)
    model.eval()
    return LoadedModel(info, model, tokenizer, time.perf_counter() - start)
