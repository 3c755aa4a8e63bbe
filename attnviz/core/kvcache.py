"""KV-cache, score-matrix and weight memory for real model configurations.

The chapter's formula, ``bytes = 2 · L · h_kv · d_head · bytes_per_element · n · B``, holds for
a plain grouped-query model. Real models bend it three ways, and each is a field of
:class:`ModelCard`: an MLA model caches one compressed latent per layer instead of K and V
(``kv_lora_rank + rope_head_dim`` elements, no factor 2); a hybrid keeps a per-token cache only
in its ``attention_layers`` (its linear-attention / state-space layers hold a fixed-size state);
and ``sliding_layers`` of the attention layers keep only the last ``sliding_window`` tokens.
Those other layers' fixed state (``state_elements`` + ``conv_elements`` each, per sequence) is
:func:`recurrent_state_bytes`: the same at every context.

Numbers only: numpy/stdlib, no Qt and nothing from ``attnviz.model`` or ``attnviz.ui``.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import asdict, dataclass, fields, replace
from functools import cache

from attnviz.core._files import read_json_file
from attnviz.core._validate import check_choice, check_positive_int
from attnviz.core.value_text import brief
from attnviz.paths import ResourceError, resource

#: Bytes per stored element of each dtype name the CLI and the GUI offer.
DTYPE_BYTES: dict[str, float] = {"bf16": 2, "fp16": 2, "fp8": 1, "fp32": 4, "int4": 0.5}

#: The latent a counterfactual MLA variant caches: DeepSeek-V2/V3's kv_lora_rank + rope dim.
MLA_LATENT = (512, 64)
_FORMAT = 1

#: Longest context (and sliding window) accepted, in tokens: 2^40, far beyond any model, and
#: small enough that every figure stays an exact int and a finite float.
MAX_CONTEXT = 2**40
#: Most sequences held at once.
MAX_BATCH = 10**6
#: Largest parameter count (a quadrillion; today's largest models have a few trillion).
MAX_PARAMS = 1e15
#: Largest bytes per element a caller may give.
MAX_BYTES_PER_ELEMENT = 64
#: Upper bound of each integer field of :class:`ModelCard` (the lower bound is 1, 0 for
#: ``rope_head_dim`` and ``sliding_layers``). The command line and config readers use them too.
CARD_LIMITS: dict[str, int] = {
    "layers": 100_000,
    "n_heads": 65_536,
    "n_kv_heads": 65_536,
    "head_dim": 65_536,
    "kv_lora_rank": 65_536,
    "rope_head_dim": 65_536,
    "attention_layers": 100_000,
    "sliding_window": MAX_CONTEXT,
    "sliding_layers": 100_000,
    "context": MAX_CONTEXT,
    "state_elements": MAX_CONTEXT,
    "conv_elements": MAX_CONTEXT,
}


def show_number(value) -> str:
    """``value`` for an error message; an int of hundreds of digits becomes its digit count.

    (``str()`` of an int over 4300 digits raises in Python ≥ 3.11, and a screenful of digits
    helps nobody.)
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = int(value)
        if abs(value) >= 10**30:
            digits = int(abs(value).bit_length() * math.log10(2)) + 1
            return f"{'-' if value < 0 else ''}a number of about {digits} digits"
        return str(value)
    return repr(value)


def check_int_range(value, name: str, low: int, high: int) -> int:
    """Return ``value`` as a plain int in ``low..high`` or raise ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {brief(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low:,} to {high:,}, got {show_number(value)}")
    return int(value)


@dataclass(frozen=True)
class ModelCard:
    """The attention shape of one model: everything its KV cache depends on.

    Parameters
    ----------
    name : display name
    layers : every layer of the model, attention or not
    n_heads, n_kv_heads : query heads and key/value heads (n_kv_heads must divide n_heads)
    head_dim : width of one head
    kv_lora_rank, rope_head_dim : set for MLA: each attention layer caches one latent of
        ``kv_lora_rank`` plus a shared RoPE key of ``rope_head_dim`` per token
    attention_layers : layers that keep a per-token KV cache (default: all ``layers``)
    sliding_window, sliding_layers : ``sliding_layers`` of the attention layers keep only the
        last ``sliding_window`` tokens
    params : parameter count, when known (for the weights' memory)
    state_elements, conv_elements : what each of the ``layers - attention_layers`` linear or
        state-space layers keeps per sequence instead of a cache (0: nothing): its recurrent
        state (Gated DeltaNet: value heads × d_k × d_v; Mamba-2: heads × head_dim × d_state)
        and its short convolution's last inputs (channels × kernel width)
    id, source, context, notes : preset id, the config the numbers follow, the native
        context length in tokens, and free text
    """

    name: str
    layers: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    kv_lora_rank: int | None = None
    rope_head_dim: int | None = None
    attention_layers: int | None = None
    sliding_window: int | None = None
    sliding_layers: int = 0
    params: float | None = None
    id: str | None = None
    source: str = ""
    context: int | None = None
    notes: str = ""
    state_elements: int = 0
    conv_elements: int = 0

    def __post_init__(self):
        def put(name, minimum=1):
            # Stored as plain ints so that a card built from numpy values still dumps to JSON.
            value = check_int_range(getattr(self, name), name, minimum, CARD_LIMITS[name])
            object.__setattr__(self, name, value)

        for name in ("layers", "n_heads", "n_kv_heads", "head_dim"):
            put(name)
        if self.n_kv_heads > self.n_heads or self.n_heads % self.n_kv_heads:
            raise ValueError(
                f"n_kv_heads ({self.n_kv_heads}) must divide n_heads ({self.n_heads}): "
                "each KV head serves a whole group of query heads"
            )
        if self.kv_lora_rank is not None:
            put("kv_lora_rank")
            if self.rope_head_dim is not None:
                put("rope_head_dim", minimum=0)
        elif self.rope_head_dim is not None:
            raise ValueError("rope_head_dim is only meaningful with kv_lora_rank (MLA)")
        if self.attention_layers is None:
            object.__setattr__(self, "attention_layers", self.layers)
        put("attention_layers")
        if self.attention_layers > self.layers:
            raise ValueError(
                f"attention_layers ({self.attention_layers}) exceeds layers ({self.layers})"
            )
        put("sliding_layers", minimum=0)
        if self.sliding_window is not None:
            put("sliding_window")
            if self.sliding_layers == 0:
                raise ValueError(
                    "sliding_window is set but sliding_layers is 0; "
                    "say how many attention layers use the window"
                )
        elif self.sliding_layers:
            raise ValueError("sliding_layers needs a sliding_window")
        if self.sliding_layers > self.attention_layers:
            raise ValueError(
                f"sliding_layers ({self.sliding_layers}) exceeds attention_layers "
                f"({self.attention_layers})"
            )
        put("state_elements", minimum=0)
        put("conv_elements", minimum=0)
        if self.params is not None:
            value = _check_number(self.params, "params", maximum=MAX_PARAMS)
            object.__setattr__(self, "params", value)
        if self.context is not None:
            put("context")

    @property
    def attention_kind(self) -> str:
        """``"MLA"``, ``"MHA"`` (one KV head per query head), ``"MQA"`` (one) or ``"GQA"``."""
        if self.kv_lora_rank is not None:
            return "MLA"
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"

    @property
    def elements_per_layer_token(self) -> int:
        """Elements one attention layer caches for one token."""
        if self.kv_lora_rank is not None:
            # One latent is shared by K and V, hence no factor 2.
            return self.kv_lora_rank + (self.rope_head_dim or 0)
        return 2 * self.n_kv_heads * self.head_dim

    def to_dict(self) -> dict:
        """The card as a JSON-ready dict (the preset file format, without ``format``)."""
        return asdict(self)


def _check_number(value, name: str, maximum: float) -> int | float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {brief(value)}")
    # Compared before any float(): a huge int would overflow the conversion.
    if isinstance(value, numbers.Integral):
        if not 0 < value <= maximum:
            raise ValueError(f"{name} must be > 0 and ≤ {maximum:g}, got {show_number(value)}")
        return int(value)
    if not math.isfinite(value) or not 0 < value <= maximum:
        raise ValueError(f"{name} must be finite, > 0 and ≤ {maximum:g}, got {brief(value)}")
    return float(value)


def _bpe(bytes_per_element) -> float:
    """Accept a byte count or a dtype name (``"bf16"``, ``"fp8"``, ...)."""
    if isinstance(bytes_per_element, str):
        return DTYPE_BYTES[check_choice(bytes_per_element, tuple(DTYPE_BYTES), "dtype")]
    return _check_number(bytes_per_element, "bytes_per_element", MAX_BYTES_PER_ELEMENT)


def _exact(x: float) -> int | float:
    # Byte counts stay exact ints; only int4 of an odd element count leaves a half byte.
    if isinstance(x, numbers.Integral):
        return int(x)
    return int(x) if float(x).is_integer() else float(x)


def dtype_bytes(dtype: str) -> float:
    """Bytes per element of a dtype name (bf16/fp16 2, fp8 1, fp32 4, int4 0.5).

    Raises ``ValueError`` listing the known names for any other.
    """
    return _bpe(str(dtype))


def kv_bytes_per_token(card: ModelCard, bytes_per_element=2) -> int | float:
    """KV-cache bytes one token adds, at a context within every sliding window.

    Parameters
    ----------
    card : the model
    bytes_per_element : bytes of one cached element, or a dtype name
    """
    return _exact(card.attention_layers * card.elements_per_layer_token * _bpe(bytes_per_element))


def kv_cache_bytes(card: ModelCard, context: int, batch: int = 1, bytes_per_element=2):
    """KV-cache bytes of ``batch`` sequences of ``context`` tokens.

    Sliding-window layers hold ``min(context, sliding_window)`` tokens, the other attention
    layers the whole context; non-attention layers hold no per-token cache.
    """
    context = check_int_range(context, "context", 1, MAX_CONTEXT)
    batch = check_int_range(batch, "batch", 1, MAX_BATCH)
    full = card.attention_layers - card.sliding_layers
    tokens = full * context
    if card.sliding_layers:
        tokens += card.sliding_layers * min(context, card.sliding_window)
    return _exact(tokens * card.elements_per_layer_token * batch * _bpe(bytes_per_element))


def state_layers(card: ModelCard) -> int:
    """Layers without a per-token cache: a hybrid's linear-attention or state-space layers."""
    return card.layers - card.attention_layers


def recurrent_state_bytes(card: ModelCard, batch: int = 1, bytes_per_element=2) -> int | float:
    """Bytes of the fixed state a hybrid's linear and state-space layers keep instead of a
    KV cache: ``(layers - attention_layers) · (state_elements + conv_elements) · batch ·
    bytes_per_element``, the same at every context (0 for a model of attention layers only).

    The convolution state is counted at its full kernel width, as transformers keeps it
    (one column fewer would do: the newest input arrives with the token).
    """
    batch = check_int_range(batch, "batch", 1, MAX_BATCH)
    per_layer = card.state_elements + card.conv_elements
    return _exact(state_layers(card) * per_layer * batch * _bpe(bytes_per_element))


def score_matrix_entries(n: int) -> int:
    """Entries of one head's n×n score matrix S = QKᵀ/√d_k (per layer, per sequence)."""
    n = check_int_range(n, "n", 1, MAX_CONTEXT)
    return n * n


def score_entries_total(card: ModelCard, n: int) -> int:
    """Score entries of one forward pass over ``n`` tokens, every head of every attention
    layer: ``n² · n_heads`` in each full-attention layer and ``n · min(n, window) · n_heads``
    in each sliding-window layer (a query scores at most the window's keys). The lesson's
    hybrid at 262,144 tokens: 262,144² · 24 heads · 16 layers = 26,388,279,066,624."""
    n = check_int_range(n, "n", 1, MAX_CONTEXT)
    full = card.attention_layers - card.sliding_layers
    total = full * n * n
    if card.sliding_layers:
        total += card.sliding_layers * n * min(n, card.sliding_window)
    return total * card.n_heads


def score_matrix_bytes(n: int, bytes_per_element=2) -> int | float:
    """Bytes of one head's n×n score matrix if it were materialized, e.g. 34.36 GB at 128k."""
    return _exact(score_matrix_entries(n) * _bpe(bytes_per_element))


def tiled_score_bytes(n: int, block_q: int = 128, block_k: int = 128) -> int:
    """Working memory of one head's scores in a tiled (FlashAttention-style) kernel.

    The kernel never holds the n×n matrix: it keeps one ``block_q × block_k`` tile of fp32
    scores and, per query row, the fp32 running maximum and running sum of the online
    softmax, so the memory grows as O(n): ``4 · block_q · block_k + 8 · n`` bytes (1 MiB and
    64 KiB at 128k tokens, against 34.36 GB for the materialized matrix in 16-bit).
    """
    n = check_int_range(n, "n", 1, MAX_CONTEXT)
    block_q = check_int_range(block_q, "block_q", 1, CARD_LIMITS["head_dim"])
    block_k = check_int_range(block_k, "block_k", 1, CARD_LIMITS["head_dim"])
    return 4 * block_q * block_k + 8 * n


def max_context(card: ModelCard, budget_bytes, batch: int = 1, bytes_per_element=2) -> int:
    """The longest context whose KV cache fits in ``budget_bytes``.

    Returns 0 when not even one token fits and :data:`MAX_CONTEXT` when the cache never
    outgrows the budget (every attention layer keeps only a sliding window). The cache only
    grows with the context, so a bisection over ``1 … MAX_CONTEXT`` finds the exact answer.
    """
    if isinstance(budget_bytes, bool) or not isinstance(budget_bytes, numbers.Real):
        raise ValueError(f"budget_bytes must be a number, got {brief(budget_bytes)}")
    if isinstance(budget_bytes, float) and math.isnan(budget_bytes):
        raise ValueError("budget_bytes must be a number, got nan")
    batch = check_int_range(batch, "batch", 1, MAX_BATCH)
    bpe = _bpe(bytes_per_element)

    def fits(n: int) -> bool:
        return kv_cache_bytes(card, n, batch, bpe) <= budget_bytes

    if not fits(1):
        return 0
    if fits(MAX_CONTEXT):
        return MAX_CONTEXT
    lo, hi = 1, MAX_CONTEXT  # fits(lo) and not fits(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def weights_bytes(card: ModelCard, bytes_per_element=2) -> int | float:
    """Bytes of the model's weights, ``params × bytes_per_element``.

    Raises ``ValueError`` when the card has no parameter count.
    """
    if card.params is None:
        raise ValueError(f"model {card.name!r} has no known parameter count")
    return _exact(round(card.params * _bpe(bytes_per_element), 6))


def attention_variants(card: ModelCard, *, gqa_kv_heads: int = 8, mla_latent=MLA_LATENT):
    """The same model with each attention design, for comparison: MHA, GQA, MQA and MLA.

    Layers, heads, hybrid and sliding structure are kept; only what is cached changes.
    MHA has one KV head per query head; GQA is the card itself when it is grouped, otherwise
    ``gqa_kv_heads`` KV heads (the largest divisor of ``n_heads`` not above it); MQA has one KV
    head; MLA is the card itself when it is MLA, otherwise a latent of
    ``kv_lora_rank + rope_head_dim = mla_latent`` (DeepSeek-V3's 512 + 64 by default).
    GQA is left out when no group size fits (2 query heads, or a prime number of them).

    Returns
    -------
    dict mapping ``"MHA" | "GQA" | "MQA" | "MLA"`` to a :class:`ModelCard`
    """
    gqa_kv_heads = check_positive_int(gqa_kv_heads, "gqa_kv_heads")
    plain = replace(card, kv_lora_rank=None, rope_head_dim=None)
    out = {"MHA": replace(plain, n_kv_heads=card.n_heads)}
    if card.attention_kind == "GQA":
        out["GQA"] = card
    else:
        top = min(gqa_kv_heads, card.n_heads - 1)
        groups = [g for g in range(2, top + 1) if card.n_heads % g == 0]
        if groups:
            out["GQA"] = replace(plain, n_kv_heads=groups[-1])
    out["MQA"] = replace(plain, n_kv_heads=1)
    if card.attention_kind == "MLA":
        out["MLA"] = card
    else:
        rank, rope = mla_latent
        out["MLA"] = replace(card, kv_lora_rank=rank, rope_head_dim=rope)
    return {kind: replace(c, name=f"{card.name} as {kind}") for kind, c in out.items()}


def kv_report(
    card: ModelCard,
    context: int,
    *,
    batch: int = 1,
    dtype: str = "bf16",
    weights_dtype: str | None = None,
) -> dict:
    """Every figure of the KV panel and of ``attnviz kv --json``, as a JSON-ready dict.

    Keys: ``model`` (the card), ``dtype``, ``bytes_per_element``, ``context``, ``batch``,
    ``kv_bytes_per_token``, ``kv_cache_bytes``, ``cached_tokens_per_layer`` (full, sliding),
    ``recurrent_state_bytes`` (the hybrid's fixed state, at the cache dtype),
    ``weights_dtype`` and ``weights_bytes`` (None when the parameter count is unknown),
    ``score_matrix`` (entries and bytes of one head's n×n S at the context, and
    ``total_entries`` over every head and attention layer, :func:`score_entries_total`) and
    ``variants``: one entry per attention design of :func:`attention_variants` with its KV
    heads, latent, bytes and ratio to the card. ``weights_dtype`` defaults to ``dtype``.
    """
    bpe = dtype_bytes(dtype)
    weights_dtype = dtype if weights_dtype is None else weights_dtype
    w_bpe = dtype_bytes(weights_dtype)
    context = check_int_range(context, "context", 1, MAX_CONTEXT)
    total = kv_cache_bytes(card, context, batch, bpe)
    # Scores are computed in at least 16-bit even when the cache or weights are quantized.
    s_bpe = max(bpe, 2)
    variants = []
    for kind, v in attention_variants(card).items():
        v_total = kv_cache_bytes(v, context, batch, bpe)
        variants.append(
            {
                "design": kind,
                "is_card": kind == card.attention_kind,
                "n_kv_heads": None if v.kv_lora_rank else v.n_kv_heads,
                "latent": [v.kv_lora_rank, v.rope_head_dim or 0] if v.kv_lora_rank else None,
                "kv_bytes_per_token": kv_bytes_per_token(v, bpe),
                "kv_cache_bytes": v_total,
                "ratio": v_total / total,
            }
        )
    return {
        "model": card.to_dict(),
        "attention": card.attention_kind,
        "dtype": dtype,
        "bytes_per_element": _exact(bpe),
        "context": context,
        "batch": batch,
        "kv_bytes_per_token": kv_bytes_per_token(card, bpe),
        "kv_cache_bytes": total,
        "cached_tokens_per_layer": {
            "full": context,
            "sliding": min(context, card.sliding_window) if card.sliding_window else None,
        },
        "recurrent_state_bytes": recurrent_state_bytes(card, batch, bpe),
        "weights_dtype": weights_dtype,
        "weights_bytes": weights_bytes(card, w_bpe) if card.params is not None else None,
        "score_matrix": {
            "n": context,
            "entries": score_matrix_entries(context),
            "heads": card.n_heads,
            "full_layers": card.attention_layers - card.sliding_layers,
            "sliding_layers": card.sliding_layers,
            "total_entries": score_entries_total(card, context),
            "bytes_per_element": _exact(s_bpe),
            "bytes": score_matrix_bytes(context, s_bpe),
        },
        "variants": variants,
    }


def card_from_dict(data: dict, origin: str = "model card") -> ModelCard:
    """Build a :class:`ModelCard` from its JSON form; ``ValueError`` names ``origin`` on error."""
    if not isinstance(data, dict):
        raise ValueError(f"{origin}: expected a JSON object")
    data = dict(data)
    fmt = data.pop("format", _FORMAT)
    if fmt != _FORMAT:
        raise ValueError(f"{origin}: format {fmt!r} is not supported (expected {_FORMAT})")
    unknown = sorted(set(data) - {f.name for f in fields(ModelCard)})
    if unknown:
        raise ValueError(f"{origin}: unknown field(s) {', '.join(unknown)}")
    try:
        return ModelCard(**data)
    except TypeError as exc:  # a required field is missing
        raise ValueError(f"{origin}: {exc}") from exc
    except ValueError as exc:
        raise ValueError(f"{origin}: {exc}") from exc


#: Largest model card file (the shipped ones are a few hundred bytes).
MAX_CARD_BYTES = 1 << 20


@cache
def _load_cards() -> tuple[tuple[str, ModelCard], ...]:
    cards = []
    for path in sorted(resource("models").glob("*.json")):
        # A resources folder of ATTNVIZ_RESOURCES may hold anything: a FIFO would hang the
        # open, a link to /dev/zero read without end.
        try:
            data = read_json_file(path, MAX_CARD_BYTES)
        except ValueError as exc:
            raise ResourceError(f"{path.name}: {exc}") from None
        if not isinstance(data, dict):
            raise ResourceError(f"{path.name}: a model card must be a JSON object")
        data.setdefault("id", path.stem)
        cards.append((data["id"], card_from_dict(data, path.name)))
    return tuple(cards)


def model_cards() -> dict[str, ModelCard]:
    """The model cards shipped in ``resources/models``, by id (``llama-3-8b``, ...)."""
    return dict(_load_cards())


def model_card(model_id: str) -> ModelCard:
    """One shipped card by id; ``ValueError`` listing the known ids for any other."""
    cards = model_cards()
    if model_id not in cards:
        known = ", ".join(sorted(cards))
        raise ValueError(f"unknown model {brief(model_id)}; known models: {known}")
    return cards[model_id]


_COUNT_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")
#: Characters a token count may have ("1,099,511,627,776" has 17): anything longer is refused
#: before it is read.
_COUNT_MAX_CHARS = 32


def _quoted(text: str) -> str:
    text = str(text)
    if len(text) <= 24:
        return repr(text)
    return f"{text[:11] + '…' + text[-11:]!r} ({len(text)} characters)"


def parse_tokens(text) -> int:
    """Read a token count: ``131072``, ``131_072``, ``131,072``, ``128k`` or ``1M``.

    ``k`` and ``M`` are binary (1024 and 1024²), as model cards use them: Llama 3.1's "128k"
    context is 131,072 tokens. Raises ``ValueError`` for anything else, a count below 1 or
    one above :data:`MAX_CONTEXT` (2^40).
    """
    if isinstance(text, numbers.Integral) and not isinstance(text, bool):
        return check_int_range(text, "token count", 1, MAX_CONTEXT)
    allowed = f"a whole number from 1 to {MAX_CONTEXT:,} (2^40)"
    text = str(text)
    if len(text) > _COUNT_MAX_CHARS:
        raise ValueError(f"a token count must be {allowed}, got {_quoted(text)}")
    match = _COUNT_RE.match(text.replace("_", "").replace(",", ""))
    if not match:
        raise ValueError(
            f"cannot read a token count from {_quoted(text)}: expected {allowed}, "
            "e.g. 131072, 128k or 1M"
        )
    number, unit = float(match.group(1)), match.group(2).lower()
    value = number * {"": 1, "k": 1024, "m": 1024**2}[unit]
    if not value.is_integer() or not 1 <= value <= MAX_CONTEXT:
        raise ValueError(f"a token count must be {allowed}, got {_quoted(text)}")
    return int(value)
