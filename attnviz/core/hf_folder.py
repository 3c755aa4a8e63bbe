"""A local Hugging Face model folder, checked before anything is imported or loaded.

Safety first (:func:`inspect_folder`): the folder must hold a ``config.json`` that asks
for no code of its own (``auto_map``), weights in safetensors (a pickle checkpoint such as
``pytorch_model.bin`` can run code when it is read, so it is refused), a tokenizer, and it
must fit in free memory (its size is read from the safetensors headers). Loading and
capturing a checked folder is :mod:`attnviz.core.hf_capture`. Every refusal is a
:class:`ModelError` of one line.

A model opens by proof, not by list: any architecture whose attention runs through the
capture opens when every layer's proof holds (:mod:`attnviz.model.model_proof`); what is
refused is refused for the mechanism found — two stacks with cross attention (an
encoder–decoder), attention outside the captured interface, a score term the proof cannot
reproduce. :data:`FAMILIES` lists what the tests prove opens (``attnviz models
--families``). A multimodal folder (a ``text_config``) opens its language model.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from attnviz.core._files import read_json_file
from attnviz.core.builtin_models import resolve_model_path
from attnviz.core.hf_errors import ModelError
from attnviz.core.hf_families import FAMILIES
from attnviz.core.memory_guard import available_bytes

#: The message of a folder of two stacks (T5, BART, Whisper, …): its decoder's cross
#: attention reads the encoder's output, not the sentence.
ENCODER_DECODER = (
    "an encoder–decoder (a decoder that cross-attends to an encoder's output); attnviz shows "
    "an encoder or a decoder on its own"
)
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle")
VOCAB_FILES = ("vocab.txt", "vocab.json", "tokenizer.model", "spiece.model",
               "sentencepiece.bpe.model")  # fmt: skip
#: Largest safetensors header read (real ones are kilobytes to a few megabytes).
MAX_HEADER_BYTES = 100 << 20
#: Bytes per parameter of the float32 copy the capture runs on, and what loading adds.
LOAD_FACTOR = 1.25
_DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2,
                "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}  # fmt: skip


@dataclass(frozen=True)
class ModelInfo:
    """What :func:`inspect_folder` read from a folder, before loading anything.

    ``model_type`` is the language model's (a multimodal folder's ``text_config``'s);
    ``wrapper`` the folder's own type when it is multimodal (None otherwise). ``kind`` is
    ``"encoder"`` or ``"decoder"`` as the config says (the capture's masks decide what is
    shown).
    """

    path: str
    name: str
    model_type: str
    kind: str
    config: dict
    weight_files: tuple[str, ...]
    params: int
    file_bytes: int
    dtypes: tuple[str, ...]
    need_bytes: int
    wrapper: str | None = None


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


def _count(
    headers: list[dict], data_sizes: list[int] | None = None
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
                isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape
            ):
                raise ModelError(f"tensor {str(name)[:60]} has no valid shape in its header")
            if not isinstance(dtype, str) or dtype not in _DTYPE_BYTES:
                raise ModelError(
                    f"tensor {str(name)[:60]} has an unknown dtype {str(dtype)[:12]!r}"
                )
            count = math.prod(shape)
            offsets = spec.get("data_offsets")
            if size is not None and not (
                isinstance(offsets, list)
                and len(offsets) == 2
                and all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
                and 0 <= offsets[0] <= offsets[1] <= size
                and offsets[1] - offsets[0] == count * _DTYPE_BYTES[dtype]
            ):
                raise ModelError(
                    f"tensor {str(name)[:60]} lies outside its file or does not "
                    "fill its bytes (a damaged or truncated safetensors file)"
                )
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


#: A tensor of a multimodal folder's other towers (vision, audio), whose layers are not
#: the language model's.
_OTHER_STACK = re.compile(r"vision|visual|audio|image|mm_projector|multi_modal", re.IGNORECASE)
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
        raise ModelError(
            f"{name}: config.json gives {keys[0]} = {str(layers)[:20]}; "
            "a model has one layer or more"
        )
    held = {
        int(m.group(1))
        for h in headers
        for key in h
        if (m := _LAYER_NAME.search(key)) is not None
        and len(m.group(1)) <= 6
        and not _OTHER_STACK.search(key)
    }
    # DeepSeek's checkpoints add their multi-token-prediction layers after the last one.
    extra = part.get("num_nextn_predict_layers")
    extra = extra if isinstance(extra, int) and not isinstance(extra, bool) and extra > 0 else 0
    if held and max(held) + 1 not in (layers, layers + extra):
        raise ModelError(
            f"{name}: config.json gives {keys[0]} = {layers:,} and its weights "
            f"hold {max(held) + 1:,} layers; the two must agree"
        )


def inspect_folder(path: str | os.PathLike, *, free_bytes: int | None = -1) -> ModelInfo:
    """Check a model folder (or ``builtin:NAME``, a shipped one) without loading it;
    :class:`ModelError` says what is wrong.

    ``free_bytes`` is the memory the model may use (default: what the system has free;
    None: do not check).
    """
    folder = Path(resolve_model_path(path)).expanduser()
    config_file = folder / "config.json"
    try:
        is_folder, has_config = folder.is_dir(), config_file.is_file()
    except (OSError, ValueError) as exc:  # a name past NAME_MAX, a NUL: is_dir raises
        raise ModelError(
            f"{folder}: not a folder path this system can open "
            f"({getattr(exc, 'strerror', None) or exc})"
        ) from None
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
    model_type, wrapper = _architecture(folder.name, config)
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
    return ModelInfo(
        str(folder.resolve()),
        name,
        model_type,
        FAMILIES.get(model_type) or _kind(config),
        config,
        tuple(p.name for p in weights),
        params,
        file_bytes,
        dtypes,
        need,
        wrapper,
    )


def text_config(config: dict) -> dict:
    """The language model's config: a multimodal folder's ``text_config``, else the whole."""
    text = config.get("text_config")
    return text if isinstance(text, dict) else config


def _architecture(name: str, config: dict) -> tuple[str, str | None]:
    """``(model_type of the language model, the folder's own type when multimodal)``;
    :class:`ModelError` for a config that names no architecture or names two stacks."""
    model_type = config.get("model_type")
    if not isinstance(model_type, str) or not model_type.strip() or len(model_type) > 100:
        raise ModelError(
            f"{name}: config.json gives model_type = {str(model_type)[:40]!r}; it must name "
            "the architecture (a short text, as 'llama' or 'bert')"
        )
    text = text_config(config)
    for part in (config, text):
        if part.get("is_encoder_decoder") is True:
            raise ModelError(f"{name}: {model_type} is {ENCODER_DECODER}")
    if text is config:
        return model_type, None
    inner = text.get("model_type")
    if not isinstance(inner, str) or not inner.strip() or len(inner) > 100:
        inner = model_type  # a text_config without its own type is the folder's
    return inner, model_type


#: Architecture names that say the model is a decoder (generates text) or an encoder.
_DECODER_HEADS = ("ForCausalLM", "LMHeadModel", "ForConditionalGeneration", "ForImageTextToText")
_ENCODER_HEADS = ("ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                  "ForQuestionAnswering", "ForPreTraining")  # fmt: skip


def _kind(config: dict) -> str:
    """``"encoder"`` or ``"decoder"`` by the architectures a config names; a config that
    names none, or only a bare model, is taken as a decoder until its capture's masks say
    (:attr:`Capture.kind <attnviz.core.hf_record.Capture.kind>` is the masks')."""
    names = config.get("architectures")
    names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    if any(n.endswith(_DECODER_HEADS) for n in names):
        return "decoder"
    if any(n.endswith(_ENCODER_HEADS) for n in names):
        return "encoder"
    return "decoder"
